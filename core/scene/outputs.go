package scene

import (
	"slices"
	"strconv"
	"strings"

	"deliverylab/core/apps"
	"deliverylab/core/check"
	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Facts are what a finished run leaves for the checker, whoever ran it — the simulator,
// or a real Kafka cluster (the conformance suite): its observations, each sink's effects,
// and, per output, the messages without an effect that are still held where they could
// yet be delivered.
type Facts struct {
	Observations sim.ObservationList
	Effects      map[string]map[string]int         // sink -> message identity -> effects
	Held         map[string]map[string]fate.Reason // output -> message identity -> where
	// Past is, per output, what a log still holds below the group's committed offset,
	// never read: lost, and where it still is (the simulator knows; a real run may not).
	Past map[string]map[string]fate.Reason
	// Absent is, per sink, why messages that reached it left no effect (the simulator
	// knows; a real run's sinks do not say).
	Absent  map[string]map[string]fate.Reason
	Aborted map[sim.RecordAt]bool // the records whose transaction aborted
	EndMs   int64
	EndNote EndNote
}

// effector is a sink: its effects in the ledger, per message identity.
type effector interface {
	Effects() map[string]int
}

// abortedHolder is a broker: the records of aborted transactions in the partitions it
// leads.
type abortedHolder interface {
	AbortedRecords(v sim.View) []sim.RecordAt
}

// abortedRecords asks every broker which records of its logs an ABORT marker ended.
func (r *Run) abortedRecords() map[sim.RecordAt]bool {
	out := map[sim.RecordAt]bool{}
	for _, name := range r.World.NodeNames() {
		if b, ok := nodeAs[abortedHolder](r.World, name); ok {
			for _, rec := range b.AbortedRecords(r.World) {
				out[rec] = true
			}
		}
	}
	return out
}

// absence is a sink that can say why a message that reached it has no effect.
type absence interface {
	NoEffectWhy() map[string]fate.Reason
}

// Facts gathers the facts from the run's world as it stands.
func (r *Run) Facts() Facts {
	f := Facts{Observations: r.World.Observations(), Effects: map[string]map[string]int{},
		Held: map[string]map[string]fate.Reason{}, Past: map[string]map[string]fate.Reason{}, EndMs: r.World.NowMs(), EndNote: r.EndNote}
	for _, k := range r.Scene.Sinks {
		if e, ok := nodeAs[effector](r.World, k.Name); ok {
			f.Effects[k.Name] = e.Effects()
		}
		if a, ok := nodeAs[absence](r.World, k.Name); ok {
			if f.Absent == nil {
				f.Absent = map[string]map[string]fate.Reason{}
			}
			f.Absent[k.Name] = a.NoEffectWhy()
		}
	}
	f.Aborted = r.abortedRecords()
	for _, name := range r.Scene.Outputs() {
		effects := r.Scene.output(name, f).Effects
		f.Held[name], f.Past[name] = r.held(effects, r.Scene.feeders(name))
	}
	return f
}

// feeders lists the consumers whose processed records reach an output.
func (s *Scene) feeders(output string) []ConsumerSpec {
	var out []ConsumerSpec
	for _, c := range s.Consumers {
		if (c.Spec.Sink == output && s.hasSink(output)) || (c.Name == output && c.Spec.Sink == "") {
			out = append(out, c)
		}
	}
	return out
}

// output is one output's facts for the ledger: a sink's effects as it reports them, or a
// consumer's processed records when the consumer itself is the output.
func (s *Scene) output(name string, f Facts) check.Output {
	out := check.Output{Name: name, Effects: map[string]int{}, Held: f.Held[name], Past: f.Past[name], Absent: f.Absent[name]}
	if e, ok := f.Effects[name]; ok {
		out.Effects = e
	}
	if s.sinkKind(name) != "" {
		out.Values = s.wholeValues(name)
	}
	out.ReadAborted = s.readAborted(name, f)
	out.OnlyAborted = s.onlyAborted(name, f)
	for _, c := range s.Consumers {
		if c.Name != name || c.Spec.Sink != "" {
			continue
		}
		if job, ok := s.totalsRead(c); ok {
			out.Effects, out.Values, out.TotalsOf = lastTotals(name, f.Observations), s.foldedValues(job), job.Spec.Source.Topic
			continue
		}
		for _, o := range f.Observations.Of(apps.Processed) {
			if o.Node == name {
				for _, m := range o.Msgs {
					out.Effects[m]++
				}
			}
		}
	}
	return out
}

// wholeValues is the value of every message that can reach a sink, when all of them are
// whole numbers: what a dashboard over the sink adds up (a counter's total, or SUM(value)
// over a table's rows). It is nil when some value is not a number (the parser makes sure
// a counter's are).
func (s *Scene) wholeValues(sink string) map[string]int64 {
	out := map[string]int64{}
	for _, c := range s.feeders(sink) {
		for _, p := range s.Producers {
			if !slices.Contains(c.Topics, p.Work.Topic) {
				continue
			}
			for n := 1; n <= p.Work.Count; n++ {
				v, err := strconv.ParseInt(apps.Expand(p.Work.Value, n), 10, 64)
				if err != nil {
					return nil
				}
				out[apps.MessageID(p.Name, n)] = v
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// held asks every node that holds messages (fate.Holder) which of those without an
// effect the output's consumers could still get, and which a log still holds past the
// group's committed offset; a message held in several places keeps the first.
func (r *Run) held(effects map[string]int, feeders []ConsumerSpec) (held, past map[string]fate.Reason) {
	held, past = map[string]fate.Reason{}, map[string]fate.Reason{}
	if len(feeders) == 0 {
		return held, past
	}
	reader := fate.Reader{Group: feeders[0].Group, Down: true, Committed: true}
	for _, c := range feeders {
		reader.Committed = reader.Committed && c.Config.Isolation == protocol.ReadCommitted
		reader.Topics = append(reader.Topics, c.Topics...)
		if _, up := r.World.Node(c.Name); up {
			reader.Down = false
		}
	}
	for _, name := range r.World.NodeNames() {
		h, ok := nodeAs[fate.Holder](r.World, name)
		if !ok {
			continue
		}
		for _, m := range h.Holds(r.World, reader) {
			into := held
			if m.Past {
				into = past
			}
			if _, seen := into[m.Msg]; !seen && effects[m.Msg] == 0 {
				into[m.Msg] = m.Where
			}
		}
	}
	for m := range held {
		delete(past, m)
	}
	return held, past
}

// readAborted counts, per message, the polls of an output's readers that returned it from
// a transaction that aborted.
func (s *Scene) readAborted(output string, f Facts) map[string]int {
	readers := map[string]bool{}
	for _, c := range s.feeders(output) {
		readers[c.Name] = true
	}
	out := map[string]int{}
	for _, o := range f.Observations.Of(apps.Polled) {
		if readers[o.Node] && f.Aborted[o.Record()] {
			for _, m := range o.Msgs {
				out[m]++
			}
		}
	}
	return out
}

// onlyAborted lists, per message, where it was appended in the topics an output's readers
// read, when every one of those appends belongs to a transaction that aborted.
func (s *Scene) onlyAborted(output string, f Facts) map[string][]string {
	topics := map[string]bool{}
	for _, c := range s.feeders(output) {
		for _, t := range c.Topics {
			topics[t] = true
		}
	}
	places, committed := map[string][]string{}, map[string]bool{}
	for _, o := range f.Observations.Of(protocol.Appended) {
		if !topics[topicOf(o.Partition)] {
			continue
		}
		for k, m := range o.Msgs {
			at := sim.RecordAt{Partition: o.Partition, Offset: o.Offset + int64(k)}
			if !f.Aborted[at] {
				committed[m] = true
			} else if !slices.Contains(places[m], at.String()) {
				places[m] = append(places[m], at.String())
			}
		}
	}
	for m := range committed {
		delete(places, m)
	}
	return places
}

// topicOf is a partition's topic: "out-0" is out's.
func topicOf(partition string) string {
	if i := strings.LastIndexByte(partition, '-'); i >= 0 {
		return partition[:i]
	}
	return partition
}
