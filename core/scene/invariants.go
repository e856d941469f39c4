package scene

import (
	"fmt"

	"deliverylab/core/kafka"
)

// Invariants lists what is wrong with the brokers' state right now: a high watermark
// past the log end, offsets that are not contiguous, leader epochs that go backwards
// in a log, or two brokers leading a partition in the same epoch. Tests check them after
// every event; the browser reports them instead of panicking.
func (r *Run) Invariants() []string {
	var bad []string
	leaders := map[string]string{}
	for _, b := range r.Scene.brokerNames() {
		n, _ := r.World.Node(b)
		br := n.(*kafka.Broker)
		for _, tp := range br.TPs() {
			bad = append(bad, ReplicaInvariants(b, br.Replica(tp))...)
			if st, ok := br.Meta(tp); ok && br.IsLeader(tp) && r.up(b) {
				key := fmt.Sprintf("%s epoch %d", tp, st.LeaderEpoch)
				if other, dup := leaders[key]; dup {
					bad = append(bad, fmt.Sprintf("%s: both %s and %s lead it", key, other, b))
				}
				leaders[key] = b
			}
		}
	}
	return bad
}

// ReplicaInvariants checks one replica's log.
func ReplicaInvariants(broker string, rep *kafka.Replica) []string {
	var bad []string
	if rep.HW > rep.LEO() {
		bad = append(bad, fmt.Sprintf("%s %s: high watermark %d passes the log end %d", broker, rep.TP, rep.HW, rep.LEO()))
	}
	var lastEpoch int32 = -1
	for i, rec := range rep.Log {
		if rec.Offset != int64(i) {
			bad = append(bad, fmt.Sprintf("%s %s: offset %d stored at position %d", broker, rep.TP, rec.Offset, i))
			break
		}
		if rec.Epoch < lastEpoch {
			bad = append(bad, fmt.Sprintf("%s %s: leader epoch goes back from %d to %d at offset %d", broker, rep.TP, lastEpoch, rec.Epoch, i))
			break
		}
		lastEpoch = rec.Epoch
	}
	return bad
}
