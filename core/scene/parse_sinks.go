package scene

import (
	"slices"
	"strconv"

	"deliverylab/core/apps"
	"deliverylab/core/sinks"

	"go.yaml.in/yaml/v3"
)

// sinkKind is the kind of a named sink ("" when there is none).
func (s *Scene) sinkKind(name string) sinks.Kind {
	for _, k := range s.Sinks {
		if k.Name == name {
			return k.Kind
		}
	}
	return ""
}

// sinkFits checks that a consumer and its sink go together: offsets stored with the
// results need a sink that stores them in the same transaction, and a counter adds
// values, so every message that can reach it must carry a whole number.
func (p *parser) sinkFits(s *Scene, cs ConsumerSpec, at *yaml.Node) {
	kind := s.sinkKind(cs.Spec.Sink)
	path := "apps consumer " + cs.Name
	if cs.Spec.Commit == apps.CommitWithResults && kind != sinks.TransactionalKind {
		p.fail(at, path+" commit", "with-results stores the offsets in the sink's database transaction: expected a sink of kind transactional, got %s",
			describeSink(cs.Spec.Sink, kind))
	}
	if kind != sinks.CounterKind {
		return
	}
	for _, ps := range s.Producers {
		if !slices.Contains(cs.Topics, ps.Work.Topic) {
			continue
		}
		for n := 1; n <= ps.Work.Count; n++ {
			if v := apps.Expand(ps.Work.Value, n); !wholeNumber(v) {
				p.fail(at, "apps producer "+ps.Name+" send.value",
					"the counter %s adds each record's value to its total: expected a whole number such as \"1\" or \"{n}\", got %q for message %d", cs.Spec.Sink, v, n)
				return
			}
		}
	}
}

func describeSink(name string, kind sinks.Kind) string {
	if name == "" {
		return "no sink"
	}
	return name + " of kind " + string(kind)
}

func wholeNumber(v string) bool {
	_, err := strconv.ParseInt(v, 10, 64)
	return err == nil
}
