package clients

import (
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The producer's TransactionManager. For an idempotent producer it holds the producer id,
// epoch and sequences (producer_idempotence.go). With a transactional.id it also runs
// the transaction (TransactionManager's state machine, and
// Sender.maybeSendAndPollTransactionalRequest): it finds its transaction coordinator
// (FindCoordinator with key type TRANSACTION), gets its producer id and epoch from it
// (InitProducerId with the transactional id, which fences older instances), adds each
// partition to the transaction before the partition's first batch (AddPartitionsToTxn),
// and ends the transaction with EndTxn once every batch of it is done
// (producer_txn_requests.go). One request to the coordinator is in flight at a time, and
// no produce request goes out while one is. PRODUCER_FENCED is fatal: a newer instance
// took over, and this one fails everything and stays failed.

// transactionManager is the TransactionManager.
type transactionManager struct {
	sh *producerShared
	idempotence
	txn *transactions // nil without a transactional.id
}

// txnStep is what the transaction manager asks of the producer after a step of its own:
// the calls that ended (done); then a drain (a coordinator request ended or a backoff
// is over: the next request, or produce requests, may go), or, fatal, every batch failed
// with that error (the producer failed for good).
type txnStep struct {
	done  []Completion
	drain bool
	fatal protocol.Error
}

// TxnState is where the producer's TransactionManager stands (TransactionManager.State).
type TxnState uint8

// The states, as TransactionManager names them.
const (
	TxnUninitialized TxnState = iota
	TxnInitializing
	TxnReady
	TxnInTransaction
	TxnCommitting
	TxnAborting
	TxnAbortableError // a send of the transaction failed: it can only be aborted
	TxnFatalError     // fenced: the producer must be closed
)

func (s TxnState) String() string {
	return [...]string{"UNINITIALIZED", "INITIALIZING", "READY", "IN_TRANSACTION", "COMMITTING_TRANSACTION",
		"ABORTING_TRANSACTION", "ABORTABLE_ERROR", "FATAL_ERROR"}[s]
}

// TxnEvent says what a Completion reports of the transaction API.
type TxnEvent uint8

// The transaction API's outcomes.
const (
	TxnNone        TxnEvent = iota // the completion is a send's
	TxnInitialized                 // initTransactions returned
	TxnCommitted                   // commitTransaction returned
	TxnAborted                     // abortTransaction returned
	TxnFailed                      // the call failed with Err (PRODUCER_FENCED: the producer is done)
	TxnOffsetsSent                 // sendOffsetsToTransaction returned: the offsets are in the transaction
)

func (e TxnEvent) String() string {
	return [...]string{"", "initialized", "committed", "aborted", "failed", "offsets sent"}[e]
}

// transactions is the TransactionManager's transactional state.
type transactions struct {
	ID          string
	TimeoutMs   int64
	State       TxnState
	Coordinator string
	Added       map[protocol.TP]bool // partitions the coordinator has in the transaction
	Req         txnRequestKind       // in flight (0: none)
	ReqID       int64
	ReqTo       string
	Adding      []protocol.TP  // the partitions of the AddPartitionsToTxn in flight
	BackoffTill int64          // no coordinator request before this
	Next        int            // the bootstrap broker the next FindCoordinator goes to
	LastErr     protocol.Error // why the transaction became abortable
	// EpochBumpRequired: a send of the transaction failed, so the abort that ends it
	// also bumps the epoch with InitProducerId(producerId, epoch) and every sequence
	// restarts at 0 (KIP-360; TransactionManager.epochBumpRequired).
	EpochBumpRequired bool
	// sendOffsetsToTransaction: the call under way, whether the coordinator has the
	// group's offsets partition in the transaction (TransactionManager.transactionStarted
	// with no partition of its own), and the group coordinator found for TxnOffsetCommit
	Offsets      *pendingOffsets
	OffsetsAdded bool
	// Resumed: the transaction was taken over with ResumeTransaction, begun by another
	// instance: it has started, so its end goes to the coordinator.
	Resumed          bool
	GroupCoordinator string
	GroupNext        int // the bootstrap broker the next group FindCoordinator goes to
	// V2: the cluster runs transactions version 2 (its finalized transaction.version is
	// 2, learned when initTransactions got its producer id:
	// TransactionManager.maybeUpdateTransactionV2Enabled). The producer then sends no
	// AddPartitionsToTxn and no AddOffsetsToTxn — the partitions' leaders and the group
	// coordinator add them — and every EndTxn bumps the epoch and hands it back, so no
	// failed send needs a bump of its own (needToTriggerEpochBumpFromClient).
	V2 bool
}

// The transaction manager's timers.
type (
	txnRetry   struct{}              // the backoff before the next coordinator request is over
	txnTimeout struct{ ReqID int64 } // request.timeout.ms of a coordinator request
)

func (txnRetry) Kind() string       { return "TxnRetry" }
func (txnTimeout) Kind() string     { return "TxnRequestTimeout" }
func (txnRetry) Describe() string   { return txnRetryLine }
func (txnTimeout) Describe() string { return txnTimeoutLine }

var (
	txnRetryLine   = sim.TimerLine("", txnRetry{})
	txnTimeoutLine = sim.TimerLine("", txnTimeout{})
)

func newTransactionManager(cfg ProducerConfig) *transactionManager {
	tm := &transactionManager{idempotence: newIdempotence()}
	if cfg.TransactionalID != "" {
		tm.txn = &transactions{ID: cfg.TransactionalID, TimeoutMs: cfg.TransactionTimeoutMs, Added: map[protocol.TP]bool{}}
	}
	return tm
}

func (tm *transactionManager) clone() *transactionManager {
	if tm == nil {
		return nil
	}
	c := *tm
	c.idempotence = tm.idempotence.clone()
	if t := tm.txn; t != nil {
		ct := *t
		ct.Added = maps.Clone(t.Added)
		ct.Adding = slices.Clone(t.Adding)
		if t.Offsets != nil {
			o := *t.Offsets
			ct.Offsets = &o
		}
		c.txn = &ct
	}
	return &c
}

// transactional reports whether the producer has a transactional.id.
func (tm *transactionManager) transactional() bool { return tm.txn != nil }

// prepare runs before each drain, as Sender.runOnce does: the transactional requests
// first, then the idempotent producer's. It reports whether produce requests may go;
// inflight: produce requests are in flight.
func (tm *transactionManager) prepare(env *sim.Env, acc *recordAccumulator, inflight bool) ([]Completion, bool) {
	var done []Completion
	tm.resolveSequences(env, acc)
	if tm.txn != nil {
		var ok bool
		if done, ok = tm.prepareTransactional(env, acc, inflight); !ok {
			return done, false
		}
	}
	return done, tm.prepareIdempotent(env, acc)
}

// sendAllowed reports whether a partition's batches may go out: a transactional
// producer sends a partition's batches only once the coordinator has it in the
// transaction (TransactionManager.isSendToPartitionAllowed).
func (tm *transactionManager) sendAllowed(tp protocol.TP) bool {
	return tm.txn == nil || tm.txn.Added[tp]
}

// prepareTransactional sends the next coordinator request when one is due
// (Sender.maybeSendAndPollTransactionalRequest), and reports whether produce requests
// may go out (no coordinator request in flight).
func (tm *transactionManager) prepareTransactional(env *sim.Env, acc *recordAccumulator, inflight bool) ([]Completion, bool) {
	t := tm.txn
	if t.State == TxnFatalError {
		return nil, false
	}
	if t.Req != 0 {
		return nil, false
	}
	var undrained []Completion
	if t.State == TxnAbortableError || t.State == TxnAborting || (t.State == TxnCommitting && t.LastErr != "") {
		// Nothing more of a transaction that can only abort goes out: the batches not
		// yet drained fail with the error that made it abortable, or as aborted
		// (Sender.maybeSendAndPollTransactionalRequest → abortUndrainedBatches). A commit
		// under way with an error is ABORTABLE_ERROR in TransactionManager, its EndTxn
		// still queued, to fail with that error.
		err := t.LastErr
		if err == "" {
			err = protocol.ErrTransactionAborted
		}
		undrained = acc.abortUndrained(err)
		if err != protocol.ErrTransactionAborted {
			// each send's callback is told the error (ProducerBatch.abort completes
			// its futures with it)
			for _, c := range undrained {
				env.Observe(sim.Observation{Event: protocol.ClientError, Err: err.String(), Partition: tpText(c.TP), Msgs: c.Msgs})
			}
		}
	}
	done, ok := tm.nextTransactional(env, acc, inflight)
	return append(undrained, done...), ok
}

// nextTransactional is prepareTransactional once no coordinator request is in flight.
func (tm *transactionManager) nextTransactional(env *sim.Env, acc *recordAccumulator, inflight bool) ([]Completion, bool) {
	t := tm.txn
	if env.Now() < t.BackoffTill {
		return nil, t.State != TxnInitializing
	}
	switch t.State {
	case TxnUninitialized, TxnReady, TxnAbortableError:
		return nil, true
	case TxnInitializing:
		tm.sendTxnRequest(env, txnInitProducerID)
		return nil, false
	}
	// In a transaction: partitions with batches not yet in it are added first (not
	// while aborting: their batches were dropped).
	var add []protocol.TP
	for _, tp := range acc.queueTPs() {
		if !t.Added[tp] {
			add = append(add, tp)
		}
	}
	if t.V2 && t.State != TxnAborting {
		// Version 2: the partition is in the transaction as soon as a record for it is
		// sent (maybeAddPartition: partitionsInTransaction, transactionStarted); its
		// leader adds it at the coordinator.
		for _, tp := range add {
			t.Added[tp] = true
		}
		add = nil
	}
	if len(add) > 0 && t.State != TxnAborting {
		t.Adding = add
		tm.sendTxnRequest(env, txnAddPartitions)
		return nil, false
	}
	if t.Offsets != nil && t.State == TxnAborting {
		// Its request was answered with an error to retry: the abort drops it.
		t.Offsets = nil
		done, ok := tm.nextTransactional(env, acc, inflight)
		return append([]Completion{{Txn: TxnFailed, Err: protocol.ErrTransactionAborted, Offset: -1}}, done...), ok
	}
	if t.Offsets != nil {
		// sendOffsetsToTransaction's requests come before an EndTxn (same priority as
		// AddPartitionsToTxn, TransactionManager.Priority.ADD_PARTITIONS_OR_OFFSETS).
		if t.V2 && !t.Offsets.Added {
			// Version 2: no AddOffsetsToTxn; the group coordinator adds the offsets
			// partition (sendOffsetsToTransaction's TxnOffsetCommit v5), and the
			// transaction has started.
			t.Offsets.Added, t.OffsetsAdded = true, true
		}
		switch {
		case !t.Offsets.Added:
			tm.sendTxnRequest(env, txnAddOffsets)
		case t.GroupCoordinator == "":
			tm.sendTxnRequest(env, txnFindGroupCoordinator)
		default:
			tm.sendTxnRequest(env, txnOffsetCommit)
		}
		return nil, false
	}
	if t.State == TxnInTransaction || inflight || !acc.idle() {
		return nil, true // the end waits for every batch of the transaction to be done
	}
	commit := t.State == TxnCommitting
	if commit && t.LastErr != "" {
		// A send of the transaction failed: the commit cannot happen (nextRequest's
		// maybeTerminateRequestWithError, before it looks at whether anything was added).
		t.State = TxnAbortableError
		return []Completion{{Txn: TxnFailed, Err: t.LastErr, Offset: -1}}, true
	}
	if len(t.Added) == 0 && !t.OffsetsAdded && !t.Resumed {
		// Nothing was sent in the transaction: it ends without a word to the
		// coordinator (TransactionManager.beginCompletingTransaction: !transactionStarted),
		// unless the epoch must be bumped.
		if !commit && t.EpochBumpRequired {
			tm.startBump(env)
			return nil, false
		}
		return tm.txnEnded(commit), true
	}
	tm.sendTxnRequest(env, txnEndTxn)
	return nil, false
}

// txnEnded completes a commit or an abort: the producer is ready for the next
// transaction.
func (tm *transactionManager) txnEnded(commit bool) []Completion {
	t := tm.txn
	t.State, t.Added, t.LastErr, t.OffsetsAdded, t.Resumed = TxnReady, map[protocol.TP]bool{}, "", false, false
	t.EpochBumpRequired = false
	if commit {
		return []Completion{{Txn: TxnCommitted, Offset: -1}}
	}
	return []Completion{{Txn: TxnAborted, Offset: -1}}
}

// fatal makes the failure final (transitionToFatalError): the producer was fenced. The
// step it returns has every batch, queued or in flight, fail with the error, and so the
// pending call.
func (tm *transactionManager) fatal(env *sim.Env, err protocol.Error) txnStep {
	t := tm.txn
	t.State, t.LastErr, t.Req, t.Offsets = TxnFatalError, err, 0, nil
	env.Note("transaction manager " + t.ID + ": fatal " + err.String())
	return txnStep{fatal: err}
}

// failedTransactional is handleFailedBatch for a transactional producer
// (maybeTransitionToErrorState): PRODUCER_FENCED is fatal; any other failure of a send
// makes the transaction abortable — it cannot commit — INVALID_PRODUCER_EPOCH included
// (InvalidProducerEpochException; the abort that follows is fenced by the coordinator).
// It reports whether the failure was fatal: then every batch must fail with it.
func (tm *transactionManager) failedTransactional(env *sim.Env, err protocol.Error) bool {
	t := tm.txn
	if t == nil || t.State == TxnFatalError {
		return false
	}
	if err == protocol.ErrProducerFenced || err == protocol.ErrInvalidProducerIDMapping && tm.sh.cfg.Client == protocol.Kafka4 {
		tm.fatal(env, err)
		return true
	}
	if t.State != TxnCommitting && t.State != TxnAborting && !t.V2 {
		// (maybeTransitionToErrorState: not while completing; version 2's EndTxn bumps)
		t.EpochBumpRequired = true
	}
	t.becomeAbortable(err, false)
	return false
}

// bumping reports whether the InitProducerId under way is the bump of an abort (the
// producer has its id already): its answer completes the abort.
func (tm *transactionManager) bumping() bool {
	return tm.txn.State == TxnInitializing && tm.Init == initDone
}

// becomeAbortable is transitionToAbortableError: err is why the transaction cannot
// commit (the first one kept, unless overwrite: maybeResolveSequences and the
// coordinators' errors replace it, as lastError is replaced); a transaction becomes
// ABORTABLE_ERROR, and a commit under way fails with err when it would send EndTxn.
func (t *transactions) becomeAbortable(err protocol.Error, overwrite bool) {
	if t.LastErr == "" || overwrite {
		t.LastErr = err
	}
	if t.State == TxnInTransaction {
		t.State = TxnAbortableError
	}
}

// abortable is transitionToAbortableError with the epoch to bump (abortableErrorIfPossible,
// and maybeResolveSequences for a transactional producer): err is now why the
// transaction cannot commit. A commit under way fails with it when it would send EndTxn.
func (tm *transactionManager) abortable(env *sim.Env, err protocol.Error) {
	t := tm.txn
	if t == nil || t.State == TxnFatalError {
		return
	}
	if t.V2 {
		// version 2: the abort's EndTxn bumps the epoch (needToTriggerEpochBumpFromClient)
		t.becomeAbortable(err, true)
		env.Note("transaction manager " + t.ID + ": abortable " + err.String())
		return
	}
	t.EpochBumpRequired = true
	t.becomeAbortable(err, true)
	env.Note("transaction manager " + t.ID + ": abortable " + err.String() + ", the abort will bump the epoch")
}

// startBump sends InitProducerId with the producer's id and epoch once the aborted
// transaction is ended (beginCompletingTransaction → initializeTransactions(producerIdAndEpoch);
// completeTransaction moves to INITIALIZING): the abort returns with its answer.
func (tm *transactionManager) startBump(env *sim.Env) {
	t := tm.txn
	t.State = TxnInitializing
	tm.sendTxnRequest(env, txnInitProducerID)
}

// fire runs the transaction manager's timers.
func (tm *transactionManager) fire(env *sim.Env, timer sim.Payload) txnStep {
	t := tm.txn
	switch timer := timer.(type) {
	case txnRetry:
		return txnStep{drain: t != nil && t.Req == 0}
	case txnTimeout:
		if t != nil && t.Req != 0 && t.ReqID == timer.ReqID {
			tm.retryLater(env, true)
		}
		return txnStep{}
	}
	return tm.fireIdempotence(env, timer)
}

// tpText names a partition, "" for none (a send not yet in a batch).
func tpText(tp protocol.TP) string {
	if tp.Topic == "" {
		return ""
	}
	return tp.String()
}
