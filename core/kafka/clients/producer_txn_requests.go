package clients

import (
	"fmt"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The transaction manager's requests (TransactionManager's TxnRequestHandlers):
// FindCoordinator, InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn and EndTxn to the
// transaction coordinator, FindCoordinator and TxnOffsetCommit to the group
// coordinator; one at a time, retried after retry.backoff.ms.

// txnRequestKind is the coordinator request a transaction manager waits on.
type txnRequestKind uint8

const (
	txnFindCoordinator txnRequestKind = iota + 1
	txnInitProducerID
	txnAddPartitions
	txnEndTxn
	txnAddOffsets           // AddOffsetsToTxn, to the transaction coordinator
	txnFindGroupCoordinator // FindCoordinator with the GROUP key, for TxnOffsetCommit
	txnOffsetCommit         // TxnOffsetCommit, to the group coordinator
)

// awaits reports whether the request in flight is of this kind and id: an answer to a
// request given up on (timed out, or its coordinator lost) is ignored.
func (t *transactions) awaits(kind txnRequestKind, reqID int64) bool {
	return t.Req == kind && t.ReqID == reqID
}

// coordinatorResponse names the request a coordinator's answer (other than
// FindCoordinator's, which carries no id) answers.
func coordinatorResponse(m sim.Payload) (txnRequestKind, int64, bool) {
	switch r := m.(type) {
	case protocol.InitProducerIdResponse:
		return txnInitProducerID, r.ReqID, true
	case protocol.AddPartitionsToTxnResponse:
		return txnAddPartitions, r.ReqID, true
	case protocol.EndTxnResponse:
		return txnEndTxn, r.ReqID, true
	case protocol.AddOffsetsToTxnResponse:
		return txnAddOffsets, r.ReqID, true
	case protocol.TxnOffsetCommitResponse:
		return txnOffsetCommit, r.ReqID, true
	}
	return 0, 0, false
}

func isTxnRequest(m sim.Payload) bool {
	switch m.(type) {
	case protocol.FindCoordinatorRequest, protocol.InitProducerIdRequest, protocol.AddPartitionsToTxnRequest,
		protocol.EndTxnRequest, protocol.AddOffsetsToTxnRequest, protocol.TxnOffsetCommitRequest:
		return true
	}
	return false
}

// groupRequest reports whether a request of sendOffsetsToTransaction goes to the group
// coordinator rather than the transaction coordinator.
func groupRequest(kind txnRequestKind) bool {
	return kind == txnFindGroupCoordinator || kind == txnOffsetCommit
}

// sendTxnRequest sends a coordinator request, finding the coordinator first.
func (tm *transactionManager) sendTxnRequest(env *sim.Env, kind txnRequestKind) {
	t, bootstrap := tm.txn, tm.sh.md.Bootstrap
	if t.Coordinator == "" && !groupRequest(kind) {
		kind = txnFindCoordinator
	}
	id := tm.sh.nextReqID()
	t.Req, t.ReqID = kind, id
	var msg sim.Payload
	switch kind {
	case txnFindCoordinator:
		if len(bootstrap) == 0 {
			t.Req = 0
			return
		}
		t.ReqTo = bootstrap[t.Next%len(bootstrap)]
		msg = protocol.FindCoordinatorRequest{KeyType: protocol.TransactionKey, TransactionalID: t.ID}
	case txnInitProducerID:
		t.ReqTo = t.Coordinator
		req := protocol.InitProducerIdRequest{ReqID: id, TransactionalID: t.ID, TransactionTimeoutMs: t.TimeoutMs}
		if tm.bumping() {
			req.Bump, req.ProducerID, req.ProducerEpoch = true, tm.PID, tm.Epoch
		}
		msg = req
	case txnAddPartitions:
		t.ReqTo = t.Coordinator
		msg = protocol.AddPartitionsToTxnRequest{ReqID: id, TransactionalID: t.ID, ProducerID: tm.PID,
			ProducerEpoch: tm.Epoch, Partitions: slices.Clone(t.Adding)}
	case txnEndTxn:
		t.ReqTo = t.Coordinator
		msg = protocol.EndTxnRequest{ReqID: id, TransactionalID: t.ID, ProducerID: tm.PID, ProducerEpoch: tm.Epoch,
			Commit: t.State == TxnCommitting, TransactionV2: t.V2}
	case txnAddOffsets:
		t.ReqTo = t.Coordinator
		msg = protocol.AddOffsetsToTxnRequest{ReqID: id, TransactionalID: t.ID, ProducerID: tm.PID,
			ProducerEpoch: tm.Epoch, Group: t.Offsets.Group.Group}
	case txnFindGroupCoordinator:
		if len(bootstrap) == 0 {
			t.Req = 0
			return
		}
		t.ReqTo = bootstrap[t.GroupNext%len(bootstrap)]
		msg = protocol.FindCoordinatorRequest{KeyType: protocol.GroupKey, Group: t.Offsets.Group.Group}
	case txnOffsetCommit:
		o := t.Offsets
		t.ReqTo = t.GroupCoordinator
		msg = protocol.TxnOffsetCommitRequest{ReqID: id, TransactionalID: t.ID, Group: o.Group.Group,
			ProducerID: tm.PID, ProducerEpoch: tm.Epoch, Member: o.Group.Member, Generation: o.Group.Generation,
			Offsets: slices.Clone(o.Offsets), Msgs: slices.Clone(o.Msgs), TransactionV2: t.V2}
	}
	env.Send(t.ReqTo, msg)
	env.After(tm.sh.cfg.RequestTimeoutMs, txnTimeout{ReqID: id})
}

// retryLater re-enqueues the request in flight after retry.backoff.ms
// (TxnRequestHandler.reenqueue); lookup: the coordinator is looked up again first
// (lookupCoordinator).
func (tm *transactionManager) retryLater(env *sim.Env, lookup bool) {
	tm.retryAfter(env, lookup, tm.sh.cfg.RetryBackoffMs)
}

// addPartitionsRetryBackoffMs is how soon the first AddPartitionsToTxn of a transaction
// is sent again after CONCURRENT_TRANSACTIONS: the previous transaction is completing
// (TransactionManager.ADD_PARTITIONS_RETRY_BACKOFF_MS, maybeOverrideRetryBackoffMs).
const addPartitionsRetryBackoffMs = 20

func (tm *transactionManager) retryAfter(env *sim.Env, lookup bool, backoffMs int64) {
	t := tm.txn
	switch {
	case lookup && groupRequest(t.Req):
		// TxnOffsetCommit's coordinator is the group's (TxnOffsetCommitHandler.coordinatorType)
		if t.Req == txnFindGroupCoordinator {
			t.GroupNext++
		}
		t.GroupCoordinator = ""
	case lookup:
		if t.Req == txnFindCoordinator {
			t.Next++
		}
		t.Coordinator = ""
	}
	t.Req = 0
	t.BackoffTill = env.Now() + backoffMs
	env.After(backoffMs, txnRetry{})
}

// onMessage takes what is the transaction manager's: the coordinators' answers, and
// InitProducerId's; it reports whether m was such.
func (tm *transactionManager) onMessage(env *sim.Env, m sim.Message) (txnStep, bool) {
	if tm.txn != nil {
		if st, ok := tm.onTransactionMessage(env, m); ok {
			return st, true
		}
	}
	return tm.onIdempotenceMessage(env, m)
}

// onTransactionMessage takes the coordinators' answers; it reports whether m was one.
func (tm *transactionManager) onTransactionMessage(env *sim.Env, m sim.Message) (txnStep, bool) {
	t := tm.txn
	switch r := m.Payload.(type) {
	case protocol.FindCoordinatorResponse:
		if (t.Req != txnFindCoordinator && t.Req != txnFindGroupCoordinator) || m.From != t.ReqTo {
			return txnStep{}, true
		}
		if r.Err != "" {
			tm.retryLater(env, true)
			return txnStep{}, true
		}
		if t.Req == txnFindGroupCoordinator {
			t.GroupCoordinator = r.Coordinator
		} else {
			t.Coordinator = r.Coordinator
		}
		t.Req = 0
		return txnStep{drain: true}, true
	case sim.Refused:
		if t.Req == 0 || r.To != t.ReqTo || !isTxnRequest(r.Orig) {
			return txnStep{}, isTxnRequest(r.Orig)
		}
		tm.retryLater(env, true)
		return txnStep{}, true
	case sim.Disconnected:
		if t.Req != 0 && r.Peer == t.ReqTo {
			tm.retryLater(env, true)
		}
		return txnStep{}, false
	}
	kind, reqID, ok := coordinatorResponse(m.Payload)
	if !ok {
		return txnStep{}, false
	}
	if !t.awaits(kind, reqID) {
		return txnStep{}, true
	}
	return tm.onCoordinatorResponse(env, m.Payload), true
}

// onCoordinatorResponse handles the answer to the request in flight.
func (tm *transactionManager) onCoordinatorResponse(env *sim.Env, m sim.Payload) txnStep {
	t := tm.txn
	switch r := m.(type) {
	case protocol.AddOffsetsToTxnResponse:
		return tm.onAddOffsets(env, r.Err)
	case protocol.TxnOffsetCommitResponse:
		return tm.onTxnOffsetCommit(env, r.Err)
	case protocol.InitProducerIdResponse:
		if r.Err != "" {
			return tm.txnError(env, txnInitProducerID, r.Err)
		}
		bump := tm.bumping()
		t.Req, t.State = 0, TxnReady
		if !bump {
			t.V2 = r.TransactionVersion >= 2 // (maybeUpdateTransactionV2Enabled(true), once initialized)
		}
		// A new epoch restarts every partition's sequences at 0 (the partitions'
		// entries are of the old epoch: assignSequence starts them again).
		tm.PID, tm.Epoch, tm.Init = r.ProducerID, r.ProducerEpoch, initDone
		env.Note(fmt.Sprintf("producer id %d epoch %d", tm.PID, tm.Epoch))
		if bump {
			// The bump after a failed send (InitProducerIdHandler with isEpochBump:
			// resetSequenceNumbers): the abort that asked for it returns.
			tm.resetSequences()
			return txnStep{done: tm.txnEnded(false), drain: true}
		}
		return txnStep{done: []Completion{{Txn: TxnInitialized, Offset: -1}}, drain: true}
	case protocol.AddPartitionsToTxnResponse:
		for _, res := range r.Results {
			if res.Err != "" {
				return tm.txnError(env, txnAddPartitions, res.Err)
			}
		}
		for _, res := range r.Results {
			t.Added[res.TP] = true
		}
		t.Req, t.Adding = 0, nil
		return txnStep{drain: true}
	case protocol.EndTxnResponse:
		if r.Err != "" {
			return tm.txnError(env, txnEndTxn, r.Err)
		}
		t.Req = 0
		if r.TransactionV2 && r.ProducerID != protocol.NoProducerID {
			// Version 2: the epoch the coordinator bumped; every partition's sequence
			// starts at 0 again (EndTxnHandler: setProducerIdAndEpoch, resetSequenceNumbers).
			tm.PID, tm.Epoch = r.ProducerID, r.ProducerEpoch
			tm.resetSequences()
			env.Note(fmt.Sprintf("producer id %d epoch %d", tm.PID, tm.Epoch))
		}
		if t.State == TxnAborting && t.EpochBumpRequired {
			tm.startBump(env)
			return txnStep{}
		}
		return txnStep{done: tm.txnEnded(t.State == TxnCommitting), drain: true}
	}
	return txnStep{}
}

// onAddOffsets handles AddOffsetsToTxn's answer (AddOffsetsToTxnHandler.handleResponse):
// once added, TxnOffsetCommit follows. A moved coordinator is looked up again, a
// retriable error retried; an unknown producer id or a wrong mapping makes the
// transaction abortable, and the call fails; a fence is fatal.
func (tm *transactionManager) onAddOffsets(env *sim.Env, err protocol.Error) txnStep {
	t := tm.txn
	switch err {
	case "":
		t.Req, t.Offsets.Added, t.OffsetsAdded = 0, true, true
		return txnStep{drain: true}
	}
	return tm.txnError(env, txnAddOffsets, err)
}

// onTxnOffsetCommit handles TxnOffsetCommit's answer (TxnOffsetCommitHandler.
// handleResponse): done, the call returns; a moved, unavailable or timed-out group
// coordinator is looked up again and a retriable error retried, after retry.backoff.ms;
// a member the group no longer knows, an older generation or a fenced instance fail the
// call (CommitFailedException) and make the transaction abortable — a zombie cannot
// commit its offsets (KIP-447); a fence of the producer is fatal.
func (tm *transactionManager) onTxnOffsetCommit(env *sim.Env, err protocol.Error) txnStep {
	t := tm.txn
	switch err {
	case "":
		t.Req, t.Offsets = 0, nil
		return txnStep{done: []Completion{{Txn: TxnOffsetsSent, Offset: -1}}, drain: true}
	case protocol.ErrRequestTimedOut:
		tm.retryLater(env, true)
	case protocol.ErrUnknownTopicOrPartition:
		tm.retryLater(env, false)
	case protocol.ErrUnknownMemberID, protocol.ErrIllegalGeneration, protocol.ErrFencedInstanceID:
		return tm.offsetsFailed(env, err)
	case protocol.ErrInvalidProducerIDMapping:
		// Not among the errors TxnOffsetCommitHandler.handleResponse knows (unlike the
		// transaction coordinator's requests): "Unexpected error in TxnOffsetCommitResponse",
		// a fatal error.
		return tm.fatal(env, err)
	default:
		// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, the
		// fences: as for the transaction coordinator's requests.
		return tm.txnError(env, txnOffsetCommit, err)
	}
	return txnStep{}
}

// offsetsFailed fails a sendOffsetsToTransaction with an abortable error
// (TransactionManager.abortableError): the transaction can only be aborted now.
func (tm *transactionManager) offsetsFailed(env *sim.Env, err protocol.Error) txnStep {
	t := tm.txn
	t.Req, t.Offsets = 0, nil
	env.Note("transaction manager " + t.ID + ": abortable " + err.String())
	t.becomeAbortable(err, false) // (TxnRequestHandler.abortableError: no epoch bump, unlike a failed send)
	return txnStep{done: []Completion{{Txn: TxnFailed, Err: err, Offset: -1}}, drain: true}
}

// abortableCall fails the request in flight with an abortable error and an epoch bump
// (TxnRequestHandler.abortableErrorIfPossible: epochBumpRequired, then
// transitionToAbortableError). A sendOffsetsToTransaction under way fails with it.
// While a commit waits (COMMITTING_TRANSACTION) the transaction becomes abortable and
// the commit fails with the error when it would send EndTxn (nextRequest's
// maybeTerminateRequestWithError), unless it was the EndTxn that failed: then the commit
// fails now. While aborting, transitionToAbortableError does nothing (the transaction is
// already being aborted): only the bump is now required, and a failed EndTxn of an abort
// that was to bump anyway goes on to its InitProducerId(producerId, epoch), queued after
// it (Priority.EPOCH_BUMP), whose answer ends the abort.
func (tm *transactionManager) abortableCall(env *sim.Env, kind txnRequestKind, err protocol.Error) txnStep {
	t := tm.txn
	t.Req, t.Adding = 0, nil
	if kind == txnAddOffsets || kind == txnOffsetCommit {
		t.Offsets = nil
	}
	step := txnStep{drain: true}
	if kind == txnAddOffsets || kind == txnOffsetCommit || kind == txnEndTxn {
		// AddPartitionsToTxn is no call of the application's
		step.done = []Completion{{Txn: TxnFailed, Err: err, Offset: -1}}
	}
	switch {
	case t.State == TxnAborting && kind == txnEndTxn && t.EpochBumpRequired:
		env.Note("transaction manager " + t.ID + ": EndTxn " + err.String() + " while aborting, the abort bumps the epoch")
		tm.startBump(env)
		return txnStep{}
	case t.State == TxnAborting && kind != txnEndTxn:
		t.EpochBumpRequired = true
		env.Note("transaction manager " + t.ID + ": " + err.String() + " while aborting, the abort will bump the epoch")
		return step
	case t.State == TxnCommitting && kind != txnEndTxn:
		tm.abortable(env, err) // (becomeAbortable keeps COMMITTING: the commit fails when it would send EndTxn)
		return step
	case t.State == TxnCommitting || t.State == TxnAborting:
		t.State = TxnInTransaction // the EndTxn that was ending it failed: the call fails, the transaction is abortable
	}
	tm.abortable(env, err)
	return step
}

// txnError handles a coordinator's error (the handlers' handleResponse): a moved or
// unavailable coordinator is looked up again, a coordinator loading or busy ending the
// previous transaction is asked again; a fenced producer is done.
func (tm *transactionManager) txnError(env *sim.Env, kind txnRequestKind, err protocol.Error) txnStep {
	switch err {
	case protocol.ErrNotCoordinator, protocol.ErrCoordinatorNotAvailable:
		tm.retryLater(env, true)
	case protocol.ErrConcurrentTransactions:
		backoff := tm.sh.cfg.RetryBackoffMs
		if kind == txnAddPartitions && len(tm.txn.Added) == 0 {
			backoff = min(backoff, addPartitionsRetryBackoffMs)
		}
		tm.retryAfter(env, false, backoff)
	case protocol.ErrCoordinatorLoadInProgress:
		tm.retryLater(env, false)
	case protocol.ErrInvalidProducerIDMapping:
		if kind != txnInitProducerID && tm.sh.cfg.Client != protocol.Kafka4 {
			// AddPartitionsToTxn, EndTxn, AddOffsetsToTxn: the coordinator does not know
			// this producer id for the transactional id (it expired, txn/expiration.go).
			// The transaction can only be aborted, with an epoch bump
			// (abortableErrorIfPossible); the call under way fails with it.
			// (TxnOffsetCommit's is fatal: onTxnOffsetCommit.)
			return tm.abortableCall(env, kind, err)
		}
		return tm.fatal(env, err)
	case protocol.ErrProducerFenced, protocol.ErrInvalidProducerEpoch:
		// InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit and
		// EndTxn: a newer instance took over (ProducerFencedException; the coordinators'
		// INVALID_PRODUCER_EPOCH is converted to it for these requests).
		return tm.fatal(env, protocol.ErrProducerFenced)
	default:
		// INVALID_TXN_STATE, INVALID_TRANSACTION_TIMEOUT: the call fails and the producer
		// cannot go on (fatal for these).
		return tm.fatal(env, err)
	}
	return txnStep{}
}
