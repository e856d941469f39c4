package server

import (
	"fmt"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// txnMarkerTimeoutMs is how long a marker append waits for the HW to pass it: the
// broker's request.timeout.ms, as KafkaApis.handleWriteTxnMarkersRequest appends with
// timeout config.requestTimeoutMs.
const txnMarkerTimeoutMs = 30000

// handleWriteTxnMarkers is a partition leader writing a transaction coordinator's COMMIT
// or ABORT markers (KafkaApis.handleWriteTxnMarkersRequest): for each marker and
// partition, a control batch with the producer's id and epoch is appended as an append
// of origin COORDINATOR with acks=all (ReplicaManager.appendRecords, requiredAcks -1),
// and the answer waits, as an acks=all produce does, until the HW has passed every
// marker appended. A partition this broker does not lead is NOT_LEADER_OR_FOLLOWER; an
// ISR below min.insync.replicas appends nothing (NOT_ENOUGH_REPLICAS); the producer
// state refuses a stale producer epoch or coordinator epoch (storage.Log.CheckMarker).
func (rm *ReplicaManager) handleWriteTxnMarkers(env *sim.Env, h hooks, from string, req protocol.WriteTxnMarkersRequest) {
	var parts []producePart
	var appended []*Partition
	for _, mk := range req.Markers {
		for _, tp := range mk.Partitions {
			part := producePart{TP: tp, ProducerID: mk.ProducerID, Commit: mk.Commit, BaseOffset: -1, LastOffset: -1}
			p := rm.leaderOf(tp)
			switch {
			case p == nil:
				part.Err = protocol.ErrNotLeaderOrFollower
			case len(p.state.ISR) < rm.minISR(p):
				part.Err = protocol.ErrNotEnoughReplicas
			default:
				part.Err = p.Log.CheckMarker(mk.ProducerID, mk.ProducerEpoch, mk.CoordinatorEpoch, mk.TransactionVersion)
			}
			if part.Err != "" {
				env.Note(fmt.Sprintf("refuses the %s marker of pid=%d e%d on %s: %s", protocol.MarkerFor(mk.Commit), mk.ProducerID, mk.ProducerEpoch, tp, part.Err))
				parts = append(parts, part)
				continue
			}
			stored := p.appendAsLeader(controlBatch(mk))
			part.BaseOffset, part.LastOffset = stored.BaseOffset, stored.LastOffset()
			env.Note(fmt.Sprintf("appends %s pid=%d e%d at %s@%d", protocol.MarkerFor(mk.Commit), mk.ProducerID, mk.ProducerEpoch, tp, stored.BaseOffset))
			parts = append(parts, part)
			appended = append(appended, p)
		}
	}
	d := delayedProduce{Client: from, ReqID: req.ReqID, Parts: parts, Deadline: env.Now() + txnMarkerTimeoutMs, Markers: true}
	if len(appended) == 0 {
		rm.answer(env, h, d)
		return
	}
	rm.produces.add(d)
	env.After(txnMarkerTimeoutMs, produceExpiry{})
	if rm.covered(d) {
		env.After(0, completeDelayed{TP: appended[0].TP})
	}
	for _, p := range appended {
		rm.replicate(env, p)
	}
}

// controlBatch is the batch a marker is written as: one ControlMarker record, in a
// transactional control batch of the producer (EndTransactionMarker; MemoryRecords.
// withEndTransactionMarker). It takes no sequence.
func controlBatch(mk protocol.TxnMarker) protocol.RecordBatch {
	return protocol.RecordBatch{ProducerID: mk.ProducerID, ProducerEpoch: mk.ProducerEpoch, BaseSequence: protocol.NoSequence,
		Transactional: true, Control: true,
		Records: []protocol.Record{{Body: protocol.ControlMarker{Type: protocol.MarkerFor(mk.Commit), CoordinatorEpoch: mk.CoordinatorEpoch}}}}
}

// answerMarkers sends the WriteTxnMarkersResponse of a delayed marker append; each
// marker written to a __consumer_offsets partition then completes the producer's
// transactional offsets there (KafkaApis.handleWriteTxnMarkersRequest's
// maybeSendResponseCallback, GroupCoordinator.scheduleHandleTxnCompletion).
func answerMarkers(env *sim.Env, h hooks, d delayedProduce) {
	resp := protocol.WriteTxnMarkersResponse{ReqID: d.ReqID, Results: make([]protocol.TxnMarkerResult, len(d.Parts))}
	for i, part := range d.Parts {
		resp.Results[i] = protocol.TxnMarkerResult{ProducerID: part.ProducerID, TP: part.TP, Err: part.Err}
	}
	id := env.Send(d.Client, resp)
	for _, part := range d.Parts {
		if part.Err == "" && part.TP.Topic == protocol.OffsetsTopic {
			h.markerWritten(env, part.TP, part.ProducerID, part.Commit, id)
		}
	}
}
