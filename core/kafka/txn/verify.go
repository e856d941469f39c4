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
	resp := protocol.VerifyPartitionsInTxnResponse{ReqID: req.ReqID}
	all := func(err protocol.Error) {
		for _, tp := range req.Partitions {
			resp.Results = append(resp.Results, protocol.TPError{TP: tp, Err: err})
		}
	}
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
