package check

import (
	"deliverylab/core/apps"
	"deliverylab/core/sim"
)

// AnomalyNames are the Kafka anomalies the checker reports, in Jepsen's names.
var AnomalyNames = []string{"duplicate", "lost-write"}

// Anomalies finds Jepsen's Kafka anomalies in the polls of a run (jepsen.tests.kafka):
//   - duplicate: one message polled at more than one offset of a partition;
//   - lost-write: an acknowledged message never polled, although a consumer polled a
//     higher offset of the partition it was acknowledged in.
func Anomalies(obs []sim.Observation, acked func(string) bool) map[string]int {
	out := map[string]int{"duplicate": 0, "lost-write": 0}
	offsets := map[string]map[int64]bool{}
	highest := map[string]int64{}
	ackAt := map[string]sim.Observation{}
	var ackOrder []string
	for _, o := range obs {
		switch o.Event {
		case apps.Polled:
			for _, m := range o.Msgs {
				if offsets[m] == nil {
					offsets[m] = map[int64]bool{}
				}
				offsets[m][o.Offset] = true
			}
			if h, ok := highest[o.Partition]; !ok || o.Offset > h {
				highest[o.Partition] = o.Offset
			}
		case apps.Acked:
			for _, m := range o.Msgs {
				if _, seen := ackAt[m]; !seen {
					ackAt[m] = o
					ackOrder = append(ackOrder, m)
				}
			}
		}
	}
	for _, offs := range offsets {
		if len(offs) > 1 {
			out["duplicate"]++
		}
	}
	for _, m := range ackOrder {
		a := ackAt[m]
		if offsets[m] != nil || !acked(m) || a.Partition == "" {
			continue
		}
		if h, ok := highest[a.Partition]; ok && a.Offset >= 0 && h > a.Offset {
			out["lost-write"]++
		}
	}
	return out
}
