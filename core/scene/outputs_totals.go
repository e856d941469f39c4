package scene

import (
	"slices"
	"strconv"

	"deliverylab/core/apps"
	"deliverylab/core/flink"
	"deliverylab/core/sim"
)

// totalsRead reports the job whose totals (a count or sum) a consumer reads, if any.
func (s *Scene) totalsRead(c ConsumerSpec) (JobSpec, bool) {
	for _, js := range s.Jobs {
		if js.Spec.Operator.Aggregates() && slices.Contains(c.Topics, js.Spec.Sink.Topic) {
			return js, true
		}
	}
	return JobSpec{}, false
}

// lastTotals is a dashboard's effects: it shows each key's last total, so a message has
// as many effects as the times it was folded into the last total of its key the
// consumer processed (an aggregate's effects are the times an input is folded into the
// final value; one rolled back with a checkpoint has none).
func lastTotals(consumer string, obs sim.ObservationList) map[string]int {
	last := map[string][]string{}
	var keys []string
	for _, o := range obs.All() {
		if o.Event != apps.Processed || o.Node != consumer || o.Folds == nil {
			continue
		}
		if _, seen := last[o.Key]; !seen {
			keys = append(keys, o.Key)
		}
		last[o.Key] = o.Folds
	}
	out := map[string]int{}
	for _, k := range keys {
		for _, m := range last[k] {
			out[m]++
		}
	}
	return out
}

// foldedValues is what each message the job reads adds to its key's total: 1 for a
// count, the message's value for a sum (the parser makes sure of whole numbers); the
// dashboard's shown total is then the sum of its keys' last totals.
func (s *Scene) foldedValues(js JobSpec) map[string]int64 {
	out := map[string]int64{}
	for _, p := range s.Producers {
		if p.Work.Topic != js.Spec.Source.Topic {
			continue
		}
		for n := 1; n <= p.Work.Count; n++ {
			v := int64(1)
			if js.Spec.Operator == flink.Sum {
				v, _ = strconv.ParseInt(apps.Expand(p.Work.Value, n), 10, 64)
			}
			out[apps.MessageID(p.Name, n)] = v
		}
	}
	return out
}
