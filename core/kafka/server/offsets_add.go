package server

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Transactions version 2's TxnOffsetCommit (v5): the producer sent no AddOffsetsToTxn,
// so before the group coordinator writes the offsets it has the transaction coordinator
// add the group's __consumer_offsets partition to the transaction, as a partition leader
// does for a produce (GroupCoordinatorService.commitTransactionalOffsets →
// CoordinatorPartitionWriter.maybeStartTransactionVerification, verifyOnly false, through
// the same AddPartitionsToTxnManager). Unlike a produce, a CONCURRENT_TRANSACTIONS answer
// is not retried here: the producer retries the request. A coordinator error reaches the
// producer as the group coordinator maps it (CoordinatorOperationExceptionHelper); the
// transaction coordinator's PRODUCER_FENCED as INVALID_PRODUCER_EPOCH (AddPartitionsToTxnManager).

// startOffsetsAdd adds the offsets partition of a version 2 TxnOffsetCommit to the
// transaction when the producer has no transaction open there; it reports whether the
// request waits for the coordinator's answer (one that does not goes on to the group
// coordinator, or was answered).
func (rm *ReplicaManager) startOffsetsAdd(env *sim.Env, h hooks, from string, req protocol.TxnOffsetCommitRequest, tp protocol.TP) bool {
	p := rm.leaderOf(tp)
	if p == nil || len(req.Offsets) == 0 || p.ongoingTxnOf(protocol.RecordBatch{ProducerID: req.ProducerID, ProducerEpoch: req.ProducerEpoch}, true) {
		return false // not led here: the group coordinator answers NOT_COORDINATOR
	}
	if p.olderEpoch(req.ProducerID, req.ProducerEpoch) {
		h.offsetsAdded(env, from, req, protocol.ErrInvalidProducerEpoch)
		return true
	}
	pv := pendingVerification{From: from, Offsets: &req, Guards: map[protocol.TP]int64{tp: 0}, StartedMs: env.Now(), Add: true,
		TransactionalID: req.TransactionalID, ProducerID: req.ProducerID, ProducerEpoch: req.ProducerEpoch,
		Coordinator: rm.meta[protocol.TransactionStateTP(req.TransactionalID, rm.cfg.TransactionStateLogNumPartitions)].Leader}
	if pv.Coordinator == "" {
		rm.offsetsAddDone(env, h, pv, protocol.TPErrors([]protocol.TP{tp}, protocol.ErrCoordinatorNotAvailable))
		return true
	}
	rm.askCoordinator(env, pv)
	return true
}

// offsetsAddDone hands the TxnOffsetCommit on once its partition is added, or answers it
// with the error.
func (rm *ReplicaManager) offsetsAddDone(env *sim.Env, h hooks, pv pendingVerification, results []protocol.TPError) {
	var err protocol.Error
	for _, r := range results {
		if r.Err != "" {
			err = r.Err
		}
	}
	switch err {
	case protocol.ErrProducerFenced:
		err = protocol.ErrInvalidProducerEpoch
	case protocol.ErrNetworkException:
		err = protocol.ErrCoordinatorLoadInProgress
	case protocol.ErrNotEnoughReplicas, protocol.ErrRequestTimedOut, protocol.ErrUnknownTopicOrPartition:
		err = protocol.ErrCoordinatorNotAvailable
	}
	if err != "" {
		env.Note("add of " + protocol.SortedTPs(pv.Guards)[0].String() + " for " + pv.Offsets.TransactionalID + ": " + err.String())
	}
	h.offsetsAdded(env, pv.From, *pv.Offsets, err)
}
