package txn

import (
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// onVerifyPartitions answers a partition leader's AddPartitionsToTxn with verifyOnly
// (KIP-890 part 1; KafkaApis.handleAddPartitionsToTxnRequest, v4+ from a broker, hands it
// to TransactionCoordinator.handleVerifyPartitionsInTransaction): nothing is written, the
// coordinator only says whether each partition is in the ongoing transaction of that
// producer id and epoch. An id this broker does not coordinate is NOT_COORDINATOR
// (getTransactionState); an unknown id or another producer id INVALID_PRODUCER_ID_MAPPING;
// another epoch PRODUCER_FENCED; a transaction in PrepareCommit or PrepareAbort
// CONCURRENT_TRANSACTIONS — each for every partition. Otherwise a partition of the
// transaction is verified and any other is TRANSACTION_ABORTABLE. A pending transition is
// not looked at (the append to the partition is checked again on the leader), and the
// partitions are those of the last durable state: added once AddPartitionsToTxn is
// written, removed once CompleteCommit or CompleteAbort is.
func (c *Coordinator) onVerifyPartitions(env *sim.Env, h Host, from string, req protocol.VerifyPartitionsInTxnRequest) {
	if req.Add {
		c.onBrokerAdd(env, h, from, req)
		return
	}
	resp := protocol.VerifyPartitionsInTxnResponse{ReqID: req.ReqID}
	all := func(err protocol.Error) { resp.Results = protocol.TPErrors(req.Partitions, err) }
	m := c.txns[req.TransactionalID]
	switch {
	case !c.isCoordinator(h, req.TransactionalID):
		all(protocol.ErrNotCoordinator)
	case m == nil || m.PID != req.ProducerID:
		all(protocol.ErrInvalidProducerIDMapping)
	case m.Epoch != req.ProducerEpoch:
		all(protocol.ErrProducerFenced)
	case preparing(m.State):
		all(protocol.ErrConcurrentTransactions)
	default:
		for _, tp := range req.Partitions {
			var err protocol.Error
			if !slices.Contains(m.Partitions, tp) {
				err = protocol.ErrTransactionAbortable
			}
			resp.Results = append(resp.Results, protocol.TPError{TP: tp, Err: err})
		}
	}
	env.Send(from, resp)
}

// onBrokerAdd is transactions version 2's AddPartitionsToTxn from a partition leader or a
// group coordinator (verifyOnly false: KafkaApis hands it to
// TransactionCoordinator.handleAddPartitionsToTransaction at version 2): the producer
// sent no AddPartitionsToTxn of its own, so the broker that is to append the
// transaction's first batch to a partition adds the partition. The checks, in Kafka's
// order: a transition being written is CONCURRENT_TRANSACTIONS; another producer id
// INVALID_PRODUCER_ID_MAPPING; another epoch PRODUCER_FENCED (the leader tells the
// producer INVALID_PRODUCER_EPOCH); a transaction being ended CONCURRENT_TRANSACTIONS.
// Then, as for the producer's own request, Empty or Complete* becomes Ongoing with the
// partitions (the epoch unchanged: the bump came with the last EndTxn), answered once
// durable; partitions already in the ongoing transaction are answered at once.
func (c *Coordinator) onBrokerAdd(env *sim.Env, h Host, from string, req protocol.VerifyPartitionsInTxnRequest) {
	answer := func(err protocol.Error) {
		env.Send(from, protocol.VerifyPartitionsInTxnResponse{ReqID: req.ReqID, Add: true, Results: protocol.TPErrors(req.Partitions, err)})
	}
	if !c.isCoordinator(h, req.TransactionalID) {
		answer(protocol.ErrNotCoordinator)
		return
	}
	m := c.txns[req.TransactionalID]
	switch {
	case m != nil && m.Pending:
		answer(protocol.ErrConcurrentTransactions)
		return
	case m == nil || m.PID != req.ProducerID:
		answer(protocol.ErrInvalidProducerIDMapping)
		return
	case m.Epoch != req.ProducerEpoch || m.Fencing:
		answer(protocol.ErrProducerFenced)
		return
	case preparing(m.State) || m.State == protocol.TxnPrepareEpochFence:
		answer(protocol.ErrConcurrentTransactions)
		return
	}
	merged := slices.Clone(m.Partitions)
	for _, tp := range req.Partitions {
		if !slices.Contains(merged, tp) {
			merged = append(merged, tp)
		}
	}
	protocol.SortTPs(merged)
	if m.State == protocol.TxnOngoing && len(merged) == len(m.Partitions) {
		answer("")
		return
	}
	rec := m.record()
	if m.State != protocol.TxnOngoing {
		rec.StartMs = env.Now()
	}
	rec.State, rec.Partitions = protocol.TxnOngoing, merged
	pa := pendingAppend{Reply: replyBrokerAdd, From: from, ReqID: req.ReqID, Added: slices.Clone(req.Partitions)}
	if err := c.write(env, h, m, rec, pa); err != "" {
		answer(err)
	}
}
