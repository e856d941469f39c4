package server

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// STUB, to be replaced by the partition leader's real WriteTxnMarkers handling (the
// leader side of issue 10, built on another branch): it appends each marker as one
// control batch to a partition this broker leads and answers at once, so that the
// transaction coordinator can be tested end to end. It tracks no ongoing transaction,
// no LSO and no aborted-transaction index, and does not wait for the HW.
func (b *Broker) handleWriteTxnMarkers(env *sim.Env, from string, req protocol.WriteTxnMarkersRequest) {
	resp := protocol.WriteTxnMarkersResponse{ReqID: req.ReqID}
	for _, mk := range req.Markers {
		typ := protocol.ControlAbort
		if mk.Commit {
			typ = protocol.ControlCommit
		}
		for _, tp := range mk.Partitions {
			res := protocol.TxnMarkerResult{ProducerID: mk.ProducerID, TP: tp}
			p := b.replicas.leaderOf(tp)
			if p == nil {
				res.Err = protocol.ErrNotLeaderOrFollower
				resp.Results = append(resp.Results, res)
				continue
			}
			p.appendAsLeader(protocol.RecordBatch{Control: true, Transactional: true, ProducerID: mk.ProducerID,
				ProducerEpoch: mk.ProducerEpoch, BaseSequence: protocol.NoSequence,
				Records: []protocol.Record{{Body: protocol.ControlMarker{Type: typ, CoordinatorEpoch: mk.CoordinatorEpoch}}}})
			b.replicas.replicate(env, p)
			resp.Results = append(resp.Results, res)
		}
	}
	env.Send(from, resp)
}
