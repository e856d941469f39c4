package txn

import (
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The second phase of a transaction's end (TransactionMarkerChannelManager): a COMMIT or
// ABORT marker to every partition of the transaction, one WriteTxnMarkers per leader,
// sent again to the partition's new leader when the old one refuses it or cannot be
// reached; once every marker is written, CompleteCommit or CompleteAbort goes to the log.

// markerRequest is a WriteTxnMarkers in flight.
type markerRequest struct {
	ID     string
	Broker string
	TPs    []protocol.TP
}

// sendMarkers sends each leader of a partition still without its marker one request;
// a partition whose leader is unknown, or whose marker is in flight, waits.
func (c *Coordinator) sendMarkers(env *sim.Env, h Host, m *metadata) {
	if m.Abandoned {
		return
	}
	if len(m.Remaining) == 0 {
		c.complete(env, h, m)
		return
	}
	inFlight := map[protocol.TP]bool{}
	for _, r := range c.markers {
		if r.ID == m.ID {
			for _, tp := range r.TPs {
				inFlight[tp] = true
			}
		}
	}
	byLeader := map[string][]protocol.TP{}
	waiting := false
	for _, tp := range m.Remaining {
		if inFlight[tp] {
			continue
		}
		leader := h.Leader(tp)
		if leader == "" {
			waiting = true
			continue
		}
		byLeader[leader] = append(byLeader[leader], tp)
	}
	if waiting {
		env.After(c.cfg.RetryBackoffMs, markerRetry{ID: m.ID})
	}
	for _, broker := range slices.Sorted(maps.Keys(byLeader)) {
		c.reqSeq++
		tps := byLeader[broker]
		c.markers[c.reqSeq] = markerRequest{ID: m.ID, Broker: broker, TPs: tps}
		env.Send(broker, protocol.WriteTxnMarkersRequest{ReqID: c.reqSeq, Markers: []protocol.TxnMarker{{
			ProducerID: m.PID, ProducerEpoch: m.Epoch, Commit: m.State == protocol.TxnPrepareCommit,
			CoordinatorEpoch: m.CoordEpoch, Partitions: slices.Clone(tps), TransactionVersion: c.cfg.TransactionVersion}}})
		env.After(c.cfg.RequestTimeoutMs, markerTimeout{ReqID: c.reqSeq})
	}
}

// errCoordinatorFenced is the partition leader's answer to a marker of a coordinator
// epoch older than one it has seen (Errors.TRANSACTION_COORDINATOR_FENCED).
const errCoordinatorFenced = "TRANSACTION_COORDINATOR_FENCED"

// onMarkersResponse takes a leader's answer per partition
// (TransactionMarkerRequestCompletionHandler): a written marker is done; a lost
// leadership, too few replicas or a timeout is sent again, to the leader the metadata
// then names; a producer or coordinator epoch the partition has already seen past means
// this coordinator is stale: it stops sending the transaction's markers and does not
// complete it (removeMarkersForTxn), leaving that to the coordinator that fenced it.
func (c *Coordinator) onMarkersResponse(env *sim.Env, h Host, resp protocol.WriteTxnMarkersResponse) {
	r, ok := c.markers[resp.ReqID]
	if !ok {
		return
	}
	delete(c.markers, resp.ReqID)
	m := c.txns[r.ID]
	if m == nil || !preparing(m.State) {
		return
	}
	retry := false
	for _, res := range resp.Results {
		switch res.Err {
		case "":
			m.Remaining = slices.DeleteFunc(m.Remaining, func(tp protocol.TP) bool { return tp == res.TP })
		case protocol.ErrInvalidProducerEpoch, errCoordinatorFenced:
			m.Abandoned, m.Remaining = true, nil
			for id, r := range c.markers {
				if r.ID == m.ID {
					delete(c.markers, id)
				}
			}
			env.Note("txn " + m.ID + ": markers " + res.Err.String() + ", no longer sent")
			return
		default:
			retry = true
		}
	}
	if len(m.Remaining) == 0 {
		c.complete(env, h, m)
		return
	}
	if retry {
		env.After(c.cfg.RetryBackoffMs, markerRetry{ID: m.ID})
	}
}

// markersLost puts the partitions of an unanswered request back to be sent again.
func (c *Coordinator) markersLost(env *sim.Env, h Host, reqID int64) {
	r, ok := c.markers[reqID]
	if !ok {
		return
	}
	delete(c.markers, reqID)
	if m := c.txns[r.ID]; m != nil && preparing(m.State) {
		env.After(c.cfg.RetryBackoffMs, markerRetry{ID: m.ID})
	}
}

// complete writes CompleteCommit or CompleteAbort once every marker is written
// (TransactionMetadata.prepareComplete: the partitions are cleared).
func (c *Coordinator) complete(env *sim.Env, h Host, m *metadata) {
	if m.Pending {
		return
	}
	rec := m.record()
	rec.State = protocol.TxnCompleteAbort
	if m.State == protocol.TxnPrepareCommit {
		rec.State = protocol.TxnCompleteCommit
	}
	rec.Partitions = nil
	if err := c.write(env, h, m, rec, pendingAppend{Reply: replyNone}); err != "" && err != protocol.ErrNotCoordinator {
		env.After(c.cfg.RetryBackoffMs, markerRetry{ID: m.ID})
	}
}
