package scene

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/server"
	"deliverylab/core/show"
)

// Offsets is every partition of the scene's topics as it stands now (its leader's log
// end, high watermark and last stable offset, its readers' places): what the page's
// chart of offsets over time samples.
func (r *Run) Offsets() []show.Offsets {
	var out []show.Offsets
	for _, t := range r.Scene.Cluster.Topics {
		for p := range t.Partitions {
			out = append(out, server.ChartOffsets(r.World, protocol.TP{Topic: t.Name, Partition: int32(p)}))
		}
	}
	return out
}
