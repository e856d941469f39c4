package txn

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The expiration of idle transactional ids (TransactionStateManager.
// enableTransactionalIdExpiration, removeExpiredTransactionalIds): every
// transaction.remove.expired.transaction.cleanup.interval.ms the coordinator looks at the
// ids it coordinates, and one with no transaction in progress (Empty, CompleteCommit or
// CompleteAbort: TransactionState.isExpirationAllowed; an Ongoing or preparing transaction
// never expires), no transition being written, and no update for
// transactional.id.expiration.ms (txnLastUpdateTimestamp <= now - expiration: shouldExpire)
// is expired: a tombstone for it goes to its __transaction_state partition with acks=all
// (prepareDead; writeTombstonesForExpiredTransactionalIds), and once it is durable the id
// is forgotten. Until then the id answers CONCURRENT_TRANSACTIONS, as for any pending
// transition; a failed tombstone leaves the id as it was. A coordinator that loads the
// partition later finds the tombstone last and does not bring the id back
// (loadTransactionMetadata: a null value removes the id).
//
// After that the coordinator does not know the producer id: AddPartitionsToTxn,
// AddOffsetsToTxn and EndTxn are answered INVALID_PRODUCER_ID_MAPPING
// (handleAddPartitionsToTransaction, endTransaction: getTransactionState is None), and
// an InitProducerId creates the id afresh with a new producer id at epoch -1, which
// accepts the old producer's bump request (prepareInitProducerIdTransit's
// isValidProducerId: producerEpoch == NO_PRODUCER_EPOCH) and answers the new id at epoch 0.

// expireSweep looks for idle transactional ids, every
// transaction.remove.expired.transaction.cleanup.interval.ms.
type expireSweep struct{}

func (expireSweep) Kind() string     { return "TxnIdExpiration" }
func (expireSweep) Describe() string { return expireSweepLine }

var expireSweepLine = sim.TimerLine("", expireSweep{})

// armExpiration starts the sweep once (TransactionCoordinator.startup schedules it with
// the timeout sweep; here it starts when the broker first leads a partition of the log,
// as that one does). A zero interval or expiration (a Config without them) leaves it off.
func (c *Coordinator) armExpiration(env *sim.Env) {
	if c.expiring || c.cfg.ExpireIntervalMs <= 0 || c.cfg.ExpirationMs <= 0 {
		return
	}
	c.expiring = true
	env.After(c.cfg.ExpireIntervalMs, expireSweep{})
}

// expirable reports whether an id may expire now (shouldExpire, with the pendingState
// check of removeExpiredTransactionalIds).
func (c *Coordinator) expirable(h Host, m *metadata, now int64) bool {
	switch m.State {
	case protocol.TxnEmpty, protocol.TxnCompleteCommit, protocol.TxnCompleteAbort:
	default:
		return false
	}
	return !m.Pending && !m.Fencing && c.isCoordinator(h, m.ID) && m.LastUpdateMs <= now-c.cfg.ExpirationMs
}

// expireIdle writes a tombstone for each idle id (removeExpiredTransactionalIds: one
// batch per partition there, one record per id here).
func (c *Coordinator) expireIdle(env *sim.Env, h Host) {
	for _, id := range sortedIDs(c.txns) {
		m := c.txns[id]
		if !c.expirable(h, m, env.Now()) {
			continue
		}
		env.Note("txn " + id + " expired: idle for transactional.id.expiration.ms")
		rec := m.record()
		rec.State, rec.Partitions = protocol.TxnDead, nil // the tombstone: the id, no value
		c.write(env, h, m, rec, pendingAppend{Reply: replyNone})
	}
}
