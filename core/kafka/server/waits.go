package server

import (
	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// WaitsFor says what keeps the broker from settling (see Settled): for each partition it
// leads, the controller's decision it has not heard, a follower that still diverges, or
// a high watermark that can still move; then its groups.
func (b *Broker) WaitsFor(v sim.View) []fate.Reason {
	var out []fate.Reason
	for _, tp := range b.replicas.TPs() {
		st, ok := protocol.ControllerState(v, tp)
		if !ok || st.Leader != b.name {
			continue
		}
		switch code, follower := b.partitionWait(v, st); code {
		case "":
		case fate.WaitsForFollower:
			out = append(out, fate.Because(code, "node", b.name, "partition", tp.String(), "follower", follower))
		default:
			out = append(out, fate.Because(code, "node", b.name, "partition", tp.String()))
		}
	}
	for _, id := range b.txns.Unsettled() {
		out = append(out, fate.Because(fate.WaitsForMarkers, "node", b.name, "txn", id))
	}
	for _, g := range b.groups.PendingTxnOffsets() {
		out = append(out, fate.Because(fate.WaitsForTxnOffsets, "node", b.name, "group", g))
	}
	for _, g := range b.groups.Unsettled(v) {
		out = append(out, fate.Because(fate.WaitsForRebalance, "node", b.name, "group", g))
	}
	return out
}
