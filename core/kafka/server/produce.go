package server

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// handleProduce is the leader's produce path (R4, R5): each partition's batch is
// appended unless this broker does not lead it or, with acks=all, its ISR is below
// min.insync.replicas; acks=1 is answered at once, acks=all once the HW covers every
// appended batch, acks=0 never.
//
// A transaction's first batch to a partition waits for the transaction coordinator to
// verify it first (KIP-890, txn_verification.go).
func (rm *ReplicaManager) handleProduce(env *sim.Env, h hooks, from string, req protocol.ProduceRequest) {
	if rm.startVerification(env, h, from, req) {
		return
	}
	rm.appendProduce(env, h, from, req, verified{})
}

// appendProduce appends a produce request's batches, with what its verification said.
func (rm *ReplicaManager) appendProduce(env *sim.Env, h hooks, from string, req protocol.ProduceRequest, v verified) {
	parts := make([]producePart, len(req.Partitions))
	var appended []*Partition
	for i, pd := range req.Partitions {
		part := producePart{TP: pd.TP, BaseOffset: -1, LastOffset: -1, Msgs: pd.Batch.Msgs()}
		p := rm.leaderOf(pd.TP)
		switch {
		case p == nil:
			part.Err = protocol.ErrNotLeaderOrFollower
		case v.Errs[pd.TP] != "":
			part.Err = v.Errs[pd.TP] // the coordinator did not verify it
		case req.Acks == protocol.AcksAll && len(p.state.ISR) < rm.minISR(p):
			part.Err = protocol.ErrNotEnoughReplicas
		default:
			chk := p.Log.CheckProducer(pd.Batch)
			if !chk.Duplicate {
				if err := rm.checkVerified(p, pd.Batch, v); err != "" && (chk.Err == "" || err == protocol.ErrInvalidTxnState) {
					chk.Err = err
				}
			}
			if chk.Err != "" || chk.Duplicate {
				part = rm.producerDecision(env, pd, part, chk)
				if chk.Duplicate {
					appended = append(appended, p)
				}
				break
			}
			stored := p.appendAsLeader(pd.Batch)
			part.BaseOffset, part.LastOffset = stored.BaseOffset, stored.LastOffset()
			env.Observe(sim.Observation{Event: protocol.Appended, Partition: pd.TP.String(), Offset: stored.BaseOffset, Msgs: part.Msgs})
			if !env.Alive() {
				return
			}
			appended = append(appended, p)
		}
		parts[i] = part
	}
	d := delayedProduce{Client: from, ReqID: req.ReqID, Parts: parts, Deadline: env.Now() + req.TimeoutMs}
	switch {
	case req.Acks == protocol.AcksLeader || len(appended) == 0:
		// The answer goes out before the followers' waiting fetches are answered: both
		// leave in the same request handling, and this order makes "responded" the
		// moment the leader has answered and told no follower yet. (A request whose
		// every partition failed is answered even with acks=0.)
		rm.answer(env, h, d)
	case req.Acks == protocol.AcksNone:
		// acks=0: the producer never hears back (R4).
	default:
		rm.produces.add(d)
		env.After(req.TimeoutMs, produceExpiry{})
		if rm.covered(d) {
			env.After(0, completeDelayed{TP: parts[0].TP})
		}
	}
	for _, p := range appended {
		rm.replicate(env, p)
	}
}

// appendAsCoordinator appends a role's own records (the group coordinator's offset
// commits) to a partition this broker leads, with acks=all as the group coordinator
// writes (offsets.commit.required.acks=-1): an ISR below min.insync.replicas appends
// nothing (R5). It says where the records went, and calls the role back through hooks
// once the HW covers them, or with the error when it fails or times out after timeoutMs.
func (rm *ReplicaManager) appendAsCoordinator(env *sim.Env, ref int64, tp protocol.TP, records []protocol.Record, timeoutMs int64) (int64, protocol.Error) {
	return rm.appendBatchAsCoordinator(env, ref, tp, protocol.NewBatch(records), timeoutMs)
}

// appendTxnAsCoordinator is appendAsCoordinator for a transactional batch of a
// producer (the group coordinator's TxnOffsetCommit, GroupMetadataManager.storeOffsets
// with a producer id: MemoryRecords.withTransactionalRecords): it opens the producer's
// transaction on the partition, as a transactional produce does.
func (rm *ReplicaManager) appendTxnAsCoordinator(env *sim.Env, ref int64, tp protocol.TP, records []protocol.Record, pid int64, epoch int16, timeoutMs int64) (int64, protocol.Error) {
	if p := rm.leaderOf(tp); p != nil {
		if err := p.Log.CheckCoordinatorBatch(pid, epoch); err != "" {
			return -1, err
		}
	}
	b := protocol.NewBatch(records)
	b.ProducerID, b.ProducerEpoch, b.Transactional = pid, epoch, true
	return rm.appendBatchAsCoordinator(env, ref, tp, b, timeoutMs)
}

func (rm *ReplicaManager) appendBatchAsCoordinator(env *sim.Env, ref int64, tp protocol.TP, b protocol.RecordBatch, timeoutMs int64) (int64, protocol.Error) {
	p := rm.leaderOf(tp)
	if p == nil {
		return -1, protocol.ErrNotLeaderOrFollower
	}
	if len(p.state.ISR) < rm.minISR(p) {
		return -1, protocol.ErrNotEnoughReplicas
	}
	stored := p.appendAsLeader(b)
	rm.produces.add(delayedProduce{ReqID: ref, Deadline: env.Now() + timeoutMs,
		Parts: []producePart{{TP: tp, BaseOffset: stored.BaseOffset, LastOffset: stored.LastOffset()}}})
	env.After(timeoutMs, produceExpiry{})
	rm.replicate(env, p)
	return stored.BaseOffset, ""
}

// replicate answers followers waiting for new records and moves the HW (a leader alone
// in the ISR commits at once).
func (rm *ReplicaManager) replicate(env *sim.Env, p *Partition) {
	if !env.Alive() {
		return
	}
	rm.wakeFetches(env, p, true)
	rm.maybeAdvanceHW(env, p)
}

// covered reports whether every partition of a delayed produce has failed or is below
// the HW of a partition this broker still leads.
func (rm *ReplicaManager) covered(d delayedProduce) bool {
	for _, part := range d.Parts {
		if part.Err != "" {
			continue
		}
		p := rm.leaderOf(part.TP)
		if p == nil || p.HW <= part.LastOffset {
			return false
		}
	}
	return true
}

// completeDelayed answers the appends the HW of tp now covers. An ISR that shrank below
// min.insync.replicas after the append makes the answer NOT_ENOUGH_REPLICAS_AFTER_APPEND,
// and the records stay in the log (R5).
func (rm *ReplicaManager) completeDelayed(env *sim.Env, h hooks, tp protocol.TP) {
	if rm.leaderOf(tp) == nil {
		return
	}
	for _, d := range rm.produces.complete(tp, rm.covered) {
		if !env.Alive() {
			return // crashed by the answer before: it answers nothing more
		}
		for _, part := range d.Parts {
			// The coordinator's own appends are acks=all too; what the error means for
			// an offset commit is the coordinator's to say.
			if p := rm.leaderOf(part.TP); part.Err == "" && len(p.maximalISR()) < rm.minISR(p) {
				d = d.fail(part.TP, protocol.ErrNotEnoughReplicasAfterAppend)
			}
		}
		rm.answer(env, h, d)
	}
}

func (rm *ReplicaManager) expireProduces(env *sim.Env, h hooks) {
	for _, d := range rm.produces.expire(env.Now()) {
		rm.answer(env, h, d.failAll(protocol.ErrRequestTimedOut))
	}
}

// failDelayed answers every waiting request of a partition this broker no longer leads.
func (rm *ReplicaManager) failDelayed(env *sim.Env, h hooks, tp protocol.TP, err protocol.Error) {
	for _, d := range rm.produces.watching(tp) {
		d = d.fail(tp, err)
		if rm.covered(d) {
			rm.answer(env, h, d)
		} else {
			rm.produces.add(d)
		}
	}
	h.resigned(env, tp)
	rm.failFetches(env, tp, err)
}

// fail marks one partition of a delayed produce failed; the parts are copied, since a
// copied world shares them.
func (d delayedProduce) fail(tp protocol.TP, err protocol.Error) delayedProduce {
	d.Parts = append([]producePart(nil), d.Parts...)
	for i := range d.Parts {
		if d.Parts[i].TP == tp && d.Parts[i].Err == "" {
			d.Parts[i].Err = err
		}
	}
	return d
}

func (d delayedProduce) failAll(err protocol.Error) delayedProduce {
	for _, p := range d.Parts {
		d = d.fail(p.TP, err)
	}
	return d
}

// answer sends a produce response, reporting the protocol point "responded" for each
// partition, or calls back the local role that appended.
func (rm *ReplicaManager) answer(env *sim.Env, h hooks, d delayedProduce) {
	if d.Client == "" {
		h.appendDone(env, d.ReqID, d.Parts[0].TP, d.Parts[0].Err)
		return
	}
	if d.Markers {
		answerMarkers(env, h, d)
		return
	}
	resp := protocol.ProduceResponse{ReqID: d.ReqID, Partitions: make([]protocol.ProducePartitionResponse, len(d.Parts))}
	for i, part := range d.Parts {
		base := part.BaseOffset
		if part.Err != "" {
			base = -1
		}
		resp.Partitions[i] = protocol.ProducePartitionResponse{TP: part.TP, Err: part.Err, BaseOffset: base, Duplicate: part.Duplicate}
	}
	id := env.Send(d.Client, resp)
	if id == 0 {
		return
	}
	for i, part := range resp.Partitions {
		env.Observe(sim.Observation{Event: protocol.Responded, Partition: part.TP.String(), Offset: part.BaseOffset,
			Msgs: d.Parts[i].Msgs, WireID: id, Err: part.Err.String()})
	}
}
