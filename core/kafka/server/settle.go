package server

import (
	"sort"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// brokerWait is one thing the broker waits for: a partition it leads (with the follower
// that still diverges, when that is it), or a transaction or group it coordinates.
type brokerWait struct {
	code     fate.Code
	tp       protocol.TP
	follower string
	txn      string
	group    string
}

// waits is the one answer to what the broker still waits for. For each partition the
// controller says it leads: the controller's latest decision it has not applied, a
// follower that can reach it and still holds records it does not (they will be
// truncated), or a high watermark that can still move. As a coordinator: a transaction
// whose markers are not all written, a group's transactional offsets that wait for their
// marker, or a group with a rebalance or a takeover pending. Settled stops at the first;
// yield returns false to stop. The partitions come in no particular order: the check is
// asked at every instant, and WaitsFor sorts what it words.
func (b *Broker) waits(v sim.View, yield func(brokerWait) bool) {
	for tp := range b.replicas.partitions {
		st, ok := protocol.ControllerState(v, tp)
		if !ok || st.Leader != b.name {
			continue
		}
		if code, follower := b.partitionWait(v, st); code != "" {
			if !yield(brokerWait{code: code, tp: tp, follower: follower}) {
				return
			}
		}
	}
	for _, id := range b.txns.Unsettled() {
		if !yield(brokerWait{code: fate.WaitsForMarkers, txn: id}) {
			return
		}
	}
	if b.groups.Settled(v) {
		return
	}
	for _, g := range b.groups.PendingTxnOffsets() {
		if !yield(brokerWait{code: fate.WaitsForTxnOffsets, group: g}) {
			return
		}
	}
	for _, g := range b.groups.Unsettled(v) {
		if !yield(brokerWait{code: fate.WaitsForRebalance, group: g}) {
			return
		}
	}
}

// Settled implements sim.Settler: the broker waits for nothing.
func (b *Broker) Settled(v sim.View) bool {
	if b.stillWaits(v, b.waitedFor) {
		return false
	}
	settled := true
	b.waits(v, func(w brokerWait) bool { settled, b.waitedFor = false, w; return false })
	return settled
}

// stillWaits reports whether the broker still waits for w, one of waits' answers.
func (b *Broker) stillWaits(v sim.View, w brokerWait) bool {
	switch {
	case w.code == "":
		return false
	case w.txn != "":
		return b.txns.IsUnsettled(w.txn)
	case w.group != "":
		return !b.groups.Settled(v)
	}
	st, ok := protocol.ControllerState(v, w.tp)
	if !ok || st.Leader != b.name {
		return false
	}
	code, _ := b.partitionWait(v, st)
	return code != ""
}

// WaitsFor says what keeps the broker from settling, for the note of a run that ended at
// its limit: its partitions in order, then its transactions and groups.
func (b *Broker) WaitsFor(v sim.View) []fate.Reason {
	var all []brokerWait
	b.waits(v, func(w brokerWait) bool { all = append(all, w); return true })
	// waits yields the partitions first, in map order; the coordinator's waits after
	// them are in order already.
	parts := 0
	for parts < len(all) && all[parts].tp != (protocol.TP{}) {
		parts++
	}
	waitsOnParts := all[:parts]
	sort.Slice(waitsOnParts, func(i, j int) bool { return protocol.CompareTP(waitsOnParts[i].tp, waitsOnParts[j].tp) < 0 })
	out := make([]fate.Reason, len(all))
	for i, w := range all {
		switch {
		case w.follower != "":
			out[i] = fate.Because(w.code, "node", b.name, "partition", w.tp.String(), "follower", w.follower)
		case w.txn != "":
			out[i] = fate.Because(w.code, "node", b.name, "txn", w.txn)
		case w.group != "":
			out[i] = fate.Because(w.code, "node", b.name, "group", w.group)
		default:
			out[i] = fate.Because(w.code, "node", b.name, "partition", w.tp.String())
		}
	}
	return out
}
