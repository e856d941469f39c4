package txn

import (
	"slices"
	"strconv"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The producer's requests to its coordinator: InitProducerId, AddPartitionsToTxn (and
// AddOffsetsToTxn) and EndTxn, and the coordinator's own aborts: a fenced transaction and
// a timed-out one.

func preparing(s protocol.TxnState) bool {
	return s == protocol.TxnPrepareCommit || s == protocol.TxnPrepareAbort
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// onInitProducerId hands the id its producer id and a bumped epoch
// (TransactionCoordinator.handleInitProducerId): a new id gets a producer id from the
// broker's block at epoch 0; an id whose transaction is Ongoing is fenced — its epoch
// bumped and its transaction aborted — and the client hears CONCURRENT_TRANSACTIONS
// until the abort completes; an id ending a transaction answers CONCURRENT_TRANSACTIONS.
//
// A request that carries the producer's id and epoch (Bump: a producer bumping its own
// epoch after a failed send, KIP-360) is the current producer's only if the id is the
// id's, or the id was just created (prepareInitProducerIdTransit's isValidProducerId),
// and the epoch is the current one — bumped — or the one before the last bump, a retry
// whose answer was lost, answered with the current epoch unbumped
// (TransactionMetadata.prepareIncrementProducerEpoch); anything else is a fenced
// producer: PRODUCER_FENCED.
func (c *Coordinator) onInitProducerId(env *sim.Env, h Host, from string, req protocol.InitProducerIdRequest) {
	fail := func(err protocol.Error) {
		env.Send(from, protocol.InitProducerIdResponse{ReqID: req.ReqID, Err: err, ProducerID: protocol.NoProducerID,
			ProducerEpoch: protocol.NoProducerEpoch})
	}
	if !c.isCoordinator(h, req.TransactionalID) {
		fail(protocol.ErrNotCoordinator)
		return
	}
	if req.TransactionTimeoutMs <= 0 || req.TransactionTimeoutMs > c.cfg.MaxTimeoutMs {
		// transaction.timeout.ms above transaction.max.timeout.ms (validateTransactionTimeoutMs)
		fail(protocol.ErrInvalidTransactionTimeout)
		return
	}
	m := c.txns[req.TransactionalID]
	if m == nil {
		pid, ok := h.NewProducerID(env)
		if !ok {
			fail(protocol.ErrCoordinatorLoadInProgress)
			return
		}
		// a new id, or one that expired: a new producer id at epoch -1
		// (handleInitProducerId, getTransactionState is None)
		m = &metadata{ID: req.TransactionalID, PID: pid, Epoch: -1, State: protocol.TxnEmpty, StartMs: -1, LastUpdateMs: env.Now()}
		c.txns[m.ID] = m
	}
	if m.Pending {
		fail(protocol.ErrConcurrentTransactions)
		return
	}
	if req.Bump && m.Epoch != protocol.NoProducerEpoch && req.ProducerID != m.PID {
		fail(protocol.ErrProducerFenced)
		return
	}
	if preparing(m.State) {
		fail(protocol.ErrConcurrentTransactions)
		return
	}
	if m.State == protocol.TxnOngoing {
		// A new instance fences the old one: PrepareEpochFence bumps the epoch, and the
		// open transaction is aborted at it (prepareFenceProducerEpoch, then
		// endTransaction with isFromClient=false). The new instance is answered once
		// PrepareAbort is durable — CONCURRENT_TRANSACTIONS, to retry while the markers
		// are written, or the append's error (handleInitProducerId's
		// sendRetriableErrorCallback is endTransaction's response callback) — not before:
		// a fencing abort that waits for a slow follower keeps its InitProducerId waiting.
		if err := c.abort(env, h, m, pendingAppend{Reply: replyFence, From: from, ReqID: req.ReqID}); err != "" {
			fail(err)
		}
		return
	}
	rec := m.record()
	switch {
	case !req.Bump:
		rec.ProducerEpoch++ // prepareIncrementProducerEpoch, no expected epoch
		m.HasLastEpoch = false
	case m.Epoch == protocol.NoProducerEpoch || req.ProducerEpoch == m.Epoch:
		rec.ProducerEpoch++
		m.LastEpoch, m.HasLastEpoch = m.Epoch, m.Epoch != protocol.NoProducerEpoch
		if m.Epoch == protocol.NoProducerEpoch && req.ProducerID != m.PID {
			env.Note("txn " + m.ID + " does not know pid=" + itoa(req.ProducerID) + " e" + itoa(int64(req.ProducerEpoch)) +
				": new producer id " + itoa(m.PID))
		} else {
			env.Note("txn " + m.ID + " bumps the epoch of pid=" + itoa(m.PID) + " e" + itoa(int64(m.Epoch)) +
				" at its producer's request")
		}
	case m.HasLastEpoch && req.ProducerEpoch == m.LastEpoch:
		// a retry of a bump already made: the current epoch, not bumped again
	default:
		fail(protocol.ErrProducerFenced)
		return
	}
	rec.TimeoutMs, rec.State, rec.Partitions, rec.StartMs = req.TransactionTimeoutMs, protocol.TxnEmpty, nil, -1
	if err := c.write(env, h, m, rec, pendingAppend{Reply: replyInit, From: from, ReqID: req.ReqID}); err != "" {
		fail(err)
	}
}

// check is the checks every request of the producer passes
// (TransactionCoordinator.handleAddPartitionsToTransaction, handleEndTransaction): this
// broker coordinates the id, the producer id is the id's, the epoch is the current one
// (an older one is a fenced zombie: PRODUCER_FENCED, the 2.7+ name for the client),
// and no transition is being written.
func (c *Coordinator) check(h Host, id string, pid int64, epoch int16) (*metadata, protocol.Error) {
	if !c.isCoordinator(h, id) {
		return nil, protocol.ErrNotCoordinator
	}
	m := c.txns[id]
	switch {
	case m == nil || m.PID != pid:
		return nil, protocol.ErrInvalidProducerIDMapping
	case m.Epoch != epoch, m.Fencing:
		// While the fencing abort is written the coordinator already holds the bumped
		// epoch in memory (endTransaction sets producerEpoch before appending
		// PrepareAbort when the pending state is PrepareEpochFence): the old producer is
		// fenced at once, not told CONCURRENT_TRANSACTIONS first.
		return nil, protocol.ErrProducerFenced
	case m.Pending:
		return nil, protocol.ErrConcurrentTransactions
	}
	return m, ""
}

// onAddPartitions adds partitions to the transaction: Empty or Complete* becomes Ongoing
// and the transaction's start time is now (TransactionMetadata.prepareAddPartitions);
// while markers are pending the client hears CONCURRENT_TRANSACTIONS.
func (c *Coordinator) onAddPartitions(env *sim.Env, h Host, from string, reqID int64, id string, pid int64, epoch int16,
	tps []protocol.TP, kind reply) {
	answer := func(err protocol.Error) {
		if kind == replyAddOffsets {
			env.Send(from, protocol.AddOffsetsToTxnResponse{ReqID: reqID, Err: err})
			return
		}
		env.Send(from, addPartitionsAnswer(reqID, tps, err))
	}
	m, err := c.check(h, id, pid, epoch)
	if err == "" && (preparing(m.State) || m.State == protocol.TxnPrepareEpochFence) {
		err = protocol.ErrConcurrentTransactions
	}
	if err != "" {
		answer(err)
		return
	}
	merged := slices.Clone(m.Partitions)
	for _, tp := range tps {
		if !slices.Contains(merged, tp) {
			merged = append(merged, tp)
		}
	}
	protocol.SortTPs(merged)
	if m.State == protocol.TxnOngoing && len(merged) == len(m.Partitions) {
		answer("") // every partition is already in the transaction: nothing to write
		return
	}
	rec := m.record()
	if m.State != protocol.TxnOngoing {
		rec.StartMs = env.Now()
	}
	rec.State, rec.Partitions = protocol.TxnOngoing, merged
	if err := c.write(env, h, m, rec, pendingAppend{Reply: kind, From: from, ReqID: reqID}); err != "" {
		answer(err)
	}
}

// onEndTxn ends the transaction (TransactionCoordinator.handleEndTransaction): Ongoing
// becomes PrepareCommit or PrepareAbort, answered once durable, and the markers follow;
// a retry after the same decision completed answers success, the other decision
// INVALID_TXN_STATE; a retry while the markers are pending CONCURRENT_TRANSACTIONS.
func (c *Coordinator) onEndTxn(env *sim.Env, h Host, from string, req protocol.EndTxnRequest) {
	if req.TransactionV2 {
		c.onEndTxnV2(env, h, from, req)
		return
	}
	answer := func(err protocol.Error) { env.Send(from, protocol.EndTxnResponse{ReqID: req.ReqID, Err: err}) }
	m, err := c.check(h, req.TransactionalID, req.ProducerID, req.ProducerEpoch)
	if err != "" {
		answer(err)
		return
	}
	switch m.State {
	case protocol.TxnOngoing:
		rec := m.record()
		rec.State = protocol.TxnPrepareAbort
		if req.Commit {
			rec.State = protocol.TxnPrepareCommit
		}
		if err := c.write(env, h, m, rec, pendingAppend{Reply: replyEnd, From: from, ReqID: req.ReqID}); err != "" {
			answer(err)
		}
	case protocol.TxnCompleteCommit, protocol.TxnCompleteAbort:
		if (m.State == protocol.TxnCompleteCommit) == req.Commit {
			answer("")
		} else {
			answer(protocol.ErrInvalidTxnState)
		}
	case protocol.TxnPrepareCommit, protocol.TxnPrepareAbort:
		if (m.State == protocol.TxnPrepareCommit) == req.Commit {
			answer(protocol.ErrConcurrentTransactions)
		} else {
			answer(protocol.ErrInvalidTxnState)
		}
	default: // Empty, PrepareEpochFence, Dead
		answer(protocol.ErrInvalidTxnState)
	}
}

// abort ends an Ongoing transaction on the coordinator's own decision, a fence or a
// timeout: the epoch is bumped (prepareFenceProducerEpoch) and PrepareAbort written at
// it, so the old instance's next request is fenced.
func (c *Coordinator) abort(env *sim.Env, h Host, m *metadata, answer pendingAppend) protocol.Error {
	rec := m.record()
	if rec.ProducerEpoch < 1<<15-1 {
		rec.ProducerEpoch++
	}
	rec.State = protocol.TxnPrepareAbort
	m.Fencing = true
	m.HasLastEpoch = false // a fence is no bump of the producer's own: no retry of it is answered
	err := c.write(env, h, m, rec, answer)
	if err != "" {
		m.Fencing = false
	}
	return err
}

// abortTimedOut aborts the Ongoing transactions older than their timeout
// (TransactionCoordinator.abortTimedOutTransactions over
// TransactionStateManager.timedOutTransactions: txnStartTimestamp + txnTimeoutMs < now).
// A transaction in PrepareCommit is never aborted: it completes.
func (c *Coordinator) abortTimedOut(env *sim.Env, h Host) {
	for _, id := range sortedIDs(c.txns) {
		m := c.txns[id]
		if m.State != protocol.TxnOngoing || m.Pending || !c.isCoordinator(h, id) || m.StartMs+m.TimeoutMs >= env.Now() {
			continue
		}
		env.Note("txn " + id + " timed out: aborting")
		c.abort(env, h, m, pendingAppend{Reply: replyNone})
	}
}

func sortedIDs(txns map[string]*metadata) []string {
	out := make([]string, 0, len(txns))
	for id := range txns {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// onEndTxnV2 ends a transaction of version 2 (EndTxn v5; TransactionCoordinator.
// endTransaction above version 1): the epoch is bumped at every commit and every abort
// (TransactionMetadata.prepareAbortOrCommit), PrepareCommit or PrepareAbort is written at
// the bumped epoch, the markers carry it, and the answer gives it to the producer, whose
// next transaction runs at it: a late batch of this transaction, at the old epoch, is
// refused by every partition the marker reached. A request at the epoch before the
// current one is a retry of an end already made (the bump was its own): answered with
// the current epoch when the same end completed, CONCURRENT_TRANSACTIONS while it is
// being written. An abort with no transaction open (Empty, or after a commit or an abort
// at the current epoch) is written all the same, with no partitions: it bumps the epoch.
// A commit after an abort, or with nothing open, is INVALID_TXN_STATE.
func (c *Coordinator) onEndTxnV2(env *sim.Env, h Host, from string, req protocol.EndTxnRequest) {
	answer := func(err protocol.Error, m *metadata) {
		r := protocol.EndTxnResponse{ReqID: req.ReqID, Err: err, TransactionV2: true, ProducerID: protocol.NoProducerID,
			ProducerEpoch: protocol.NoProducerEpoch}
		if err == "" {
			r.ProducerID, r.ProducerEpoch = m.PID, m.Epoch
		}
		env.Send(from, r)
	}
	if !c.isCoordinator(h, req.TransactionalID) {
		answer(protocol.ErrNotCoordinator, nil)
		return
	}
	m := c.txns[req.TransactionalID]
	if m == nil || m.PID != req.ProducerID {
		answer(protocol.ErrInvalidProducerIDMapping, nil)
		return
	}
	// The coordinator's own abort (a fence, a timeout) bumps the epoch only when its
	// PrepareAbort is written (4.4's endTransaction clears the pending PrepareEpochFence
	// and bumps once, in prepareAbortOrCommit): until then the producer's epoch is still
	// the current one, and its EndTxn hears CONCURRENT_TRANSACTIONS — a zombie is not
	// told PRODUCER_FENCED at once as under version 1 (check). Once written, its commit
	// finds the transaction aborted at the next epoch: INVALID_TXN_STATE.
	retry := m.Epoch == req.ProducerEpoch+1
	var valid bool
	switch m.State {
	case protocol.TxnPrepareCommit, protocol.TxnPrepareAbort:
		valid = retry
	case protocol.TxnCompleteCommit, protocol.TxnCompleteAbort:
		valid = retry || req.ProducerEpoch == m.Epoch
	default:
		valid = req.ProducerEpoch == m.Epoch
	}
	switch {
	case !valid:
		answer(protocol.ErrProducerFenced, nil)
		return
	case m.Pending:
		answer(protocol.ErrConcurrentTransactions, nil)
		return
	}
	end := func(partitions bool) {
		rec := m.record()
		rec.ProducerEpoch++
		rec.State = protocol.TxnPrepareAbort
		if req.Commit {
			rec.State = protocol.TxnPrepareCommit
		}
		if !partitions {
			// nothing was added: the start time is the abort's own (noPartitionAdded)
			rec.Partitions, rec.StartMs = nil, env.Now()
		}
		if err := c.write(env, h, m, rec, pendingAppend{Reply: replyEndV2, From: from, ReqID: req.ReqID}); err != "" {
			answer(err, nil)
		}
	}
	done := m.State == protocol.TxnCompleteCommit && req.Commit || m.State == protocol.TxnCompleteAbort && !req.Commit
	switch {
	case m.State == protocol.TxnOngoing:
		end(true)
	case done && retry:
		answer("", m)
	case preparing(m.State):
		// The markers are being written: CompleteCommit or CompleteAbort is the pending
		// transition (prepareComplete), and any end of the producer's waits for it.
		answer(protocol.ErrConcurrentTransactions, nil)
	case !req.Commit && !retry && (m.State == protocol.TxnEmpty || m.State == protocol.TxnCompleteCommit ||
		m.State == protocol.TxnCompleteAbort):
		end(false)
	default:
		answer(protocol.ErrInvalidTxnState, nil)
	}
}
