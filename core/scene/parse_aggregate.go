package scene

import (
	"slices"

	"deliverylab/core/apps"
	"deliverylab/core/flink"
	"deliverylab/core/sinks"

	"go.yaml.in/yaml/v3"
)

// aggregateFits checks the apps around a job's count or sum. A sum adds each record's
// value, so every record its source topic can hold must carry a whole number; and the
// job's output is a total per key, judged by the last total each key's reader saw — so
// it may be read only by consumers that are their own output (a dashboard), not written
// on to a sink or another application, which would lose the lineage.
func (p *parser) aggregateFits(s *Scene, at *yaml.Node) {
	for _, js := range s.Jobs {
		op := js.Spec.Operator
		if !op.Aggregates() || js.Spec.DBSink != "" || p.err != nil {
			continue
		}
		if op == flink.Sum {
			p.sumInputs(s, js, at)
		}
		out := js.Spec.Sink.Topic
		for _, c := range s.Consumers {
			if c.Spec.Sink != "" && slices.Contains(c.Topics, out) && p.err == nil {
				p.fail(at, "apps consumer "+c.Name+" sink",
					"%s reads the totals of job %s (%s): a reader of totals is its own output, the dashboard of each key's last total; expected no sink", c.Name, js.Name, op)
			}
		}
		for _, ss := range s.Streams {
			if ss.Spec.From == out && p.err == nil {
				p.fail(at, "apps streams "+ss.Name+" from", "expected another topic than %s, which carries the totals of job %s: only a consumer reads them", out, js.Name)
			}
		}
		for _, other := range s.Jobs {
			if other.Spec.Source.Topic == out && p.err == nil {
				p.fail(at, "apps job "+other.Name+" source.topic", "expected another topic than %s, which carries the totals of job %s: only a consumer reads them", out, js.Name)
			}
		}
	}
}

// sumInputs checks that whatever can reach a sum carries a whole number.
func (p *parser) sumInputs(s *Scene, js JobSpec, at *yaml.Node) {
	in := js.Spec.Source.Topic
	for _, ps := range s.Producers {
		if ps.Work.Topic != in {
			continue
		}
		for n := 1; n <= ps.Work.Count; n++ {
			if v := apps.Expand(ps.Work.Value, n); !wholeNumber(v) {
				p.fail(at, "apps producer "+ps.Name+" send.value",
					"job %s sums each record's value per key: expected a whole number such as \"1\" or \"{n}\", got %q for message %d", js.Name, v, n)
				return
			}
		}
	}
	for _, ss := range s.Streams {
		if ss.Spec.To == in {
			p.fail(at, "apps streams "+ss.Name+" to", "expected another topic than %s, which job %s sums: only producers' whole numbers can reach a sum", in, js.Name)
			return
		}
	}
	for _, other := range s.Jobs {
		if other.Spec.Sink.Topic == in {
			p.fail(at, "apps job "+other.Name+" sink.kafka.topic", "expected another topic than %s, which job %s sums: only producers' whole numbers can reach a sum", in, js.Name)
			return
		}
	}
}

// jobSinksFit checks a job's database sink: a sink of the scene, after a map, of a kind
// a plain database client writes to (a table, a unique key, an upsert), or a
// transactional one, which the job writes with two-phase commit (XA branches committed
// at its checkpoints).
func (p *parser) jobSinksFit(s *Scene, at *yaml.Node) {
	for i, js := range s.Jobs {
		name := js.Spec.DBSink
		if name == "" || p.err != nil {
			continue
		}
		path := "apps job " + js.Name + " sink.db.sink"
		switch kind := s.sinkKind(name); {
		case !s.hasSink(name):
			p.fail(at, path, "expected a sink of sinks, got %q", name)
		case kind == sinks.CounterKind:
			p.fail(at, path, "%s is a counter: expected a sink of kind table, unique-key, upsert or transactional (a job's totals go to Kafka with operator sum, read by a dashboard consumer)", name)
		case js.Spec.Operator.Aggregates():
			p.fail(at, path, "a %s's totals are judged by their lineage, which a database row does not keep: expected operator map, or a Kafka sink read by a dashboard consumer", js.Spec.Operator)
		case kind == sinks.TransactionalKind:
			s.Jobs[i].Spec.DBTwoPhaseCommit = true
		}
	}
}
