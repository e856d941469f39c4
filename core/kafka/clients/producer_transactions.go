package clients

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The transactional producer's side of KafkaProducer (TransactionManager with a
// transactional.id, and Sender.maybeSendAndPollTransactionalRequest): it finds its
// transaction coordinator (FindCoordinator with key type TRANSACTION), gets its producer
// id and epoch from it (InitProducerId with the transactional id, which fences older
// instances), adds each partition to the transaction before the partition's first batch
// (AddPartitionsToTxn), and ends the transaction with EndTxn once every batch of it is
// done. One request to the coordinator is in flight at a time, and no produce request
// goes out while one is. PRODUCER_FENCED is fatal: a newer instance took over, and this
// one fails everything and stays failed.

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

// GroupMetadata is a consumer's group metadata, as sendOffsetsToTransaction takes it
// (ConsumerGroupMetadata, KafkaConsumer.groupMetadata): the group coordinator refuses
// the offsets of a member it no longer knows, or of an older generation (KIP-447).
type GroupMetadata struct {
	Group, Member string
	Generation    int32
}

// pendingOffsets is a sendOffsetsToTransaction under way: AddOffsetsToTxn first, then
// TxnOffsetCommit (TransactionManager's AddOffsetsToTxnHandler, TxnOffsetCommitHandler).
type pendingOffsets struct {
	Offsets []protocol.TPOffset
	Group   GroupMetadata
	Msgs    []string
	Added   bool // AddOffsetsToTxn succeeded: TxnOffsetCommit is next
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
	// sendOffsetsToTransaction: the call under way, whether the coordinator has the
	// group's offsets partition in the transaction (TransactionManager.transactionStarted
	// with no partition of its own), and the group coordinator found for TxnOffsetCommit
	Offsets          *pendingOffsets
	OffsetsAdded     bool
	GroupCoordinator string
	GroupNext        int // the bootstrap broker the next group FindCoordinator goes to
}

// The transaction manager's timers.
type (
	txnRetry   struct{}              // the backoff before the next coordinator request is over
	txnTimeout struct{ ReqID int64 } // request.timeout.ms of a coordinator request
)

func (txnRetry) Kind() string       { return "TxnRetry" }
func (txnTimeout) Kind() string     { return "TxnRequestTimeout" }
func (txnRetry) Describe() string   { return "timer txn-retry" }
func (txnTimeout) Describe() string { return "timer txn-request-timeout" }

func newTransactions(cfg ProducerConfig) *transactions {
	return &transactions{ID: cfg.TransactionalID, TimeoutMs: cfg.TransactionTimeoutMs, Added: map[protocol.TP]bool{}}
}

func (t *transactions) clone() *transactions {
	if t == nil {
		return nil
	}
	c := *t
	c.Added = maps.Clone(t.Added)
	c.Adding = slices.Clone(t.Adding)
	if t.Offsets != nil {
		o := *t.Offsets
		c.Offsets = &o
	}
	return &c
}

// TxnState is where the transaction manager stands; TxnUninitialized without a
// transactional.id.
func (p *Producer) TxnState() TxnState {
	if p.txn == nil {
		return TxnUninitialized
	}
	return p.txn.State
}

// InitTransactions starts initTransactions: the producer finds its coordinator and gets
// its producer id and epoch, fencing any older instance with the same transactional.id.
// A Completion with TxnInitialized tells when it returned.
func (p *Producer) InitTransactions(env *sim.Env) ([]Completion, error) {
	t := p.txn
	if t == nil {
		return nil, fmt.Errorf("cannot use transactional methods without enabling transactions by setting the transactional.id configuration property")
	}
	if t.State != TxnUninitialized {
		return nil, fmt.Errorf("invalid transition attempted from state %s to state %s", t.State, TxnInitializing)
	}
	t.State = TxnInitializing
	return p.drain(env), nil
}

// BeginTransaction is beginTransaction: a local step, nothing is sent.
func (p *Producer) BeginTransaction() error {
	if err := p.txnCheck(TxnReady); err != nil {
		return err
	}
	p.txn.State = TxnInTransaction
	return nil
}

// CommitTransaction is commitTransaction: once every batch of the transaction is
// acknowledged (it flushes), EndTxn(commit) goes to the coordinator. A Completion with
// TxnCommitted, or TxnFailed, tells how it returned.
func (p *Producer) CommitTransaction(env *sim.Env) ([]Completion, error) {
	if p.txn != nil && p.txn.State == TxnAbortableError {
		return nil, fmt.Errorf("cannot commit transaction: a send failed with %s; abort it", p.txn.LastErr)
	}
	if err := p.txnCheck(TxnInTransaction); err != nil {
		return nil, err
	}
	p.txn.State = TxnCommitting
	return p.drain(env), nil
}

// SendOffsetsToTransaction is sendOffsetsToTransaction (KIP-98, KIP-447): the consumer's
// offsets are committed inside the transaction. AddOffsetsToTxn puts the group's
// __consumer_offsets partition in the transaction, then TxnOffsetCommit, to the group
// coordinator the producer finds itself, carries the offsets with the consumer's group
// metadata; they become the group's committed offsets only with the transaction's COMMIT
// marker. A Completion with TxnOffsetsSent, or TxnFailed, tells how it returned; a
// commitTransaction called meanwhile sends EndTxn only after it. msgs are the identities
// the offsets cover, for the ledger.
func (p *Producer) SendOffsetsToTransaction(env *sim.Env, offsets []protocol.TPOffset, group GroupMetadata, msgs []string) ([]Completion, error) {
	if p.txn != nil && p.txn.State == TxnAbortableError {
		return nil, fmt.Errorf("cannot send offsets to transaction: a send failed with %s; abort it", p.txn.LastErr)
	}
	if err := p.txnCheck(TxnInTransaction); err != nil {
		return nil, err
	}
	if p.txn.Offsets != nil {
		return nil, fmt.Errorf("cannot send offsets to transaction: a sendOffsetsToTransaction is still under way")
	}
	if len(offsets) == 0 {
		// KafkaProducer.sendOffsetsToTransaction sends nothing for no offsets.
		return []Completion{{Txn: TxnOffsetsSent, Offset: -1}}, nil
	}
	p.txn.Offsets = &pendingOffsets{Offsets: slices.Clone(offsets), Group: group, Msgs: slices.Clone(msgs)}
	return p.drain(env), nil
}

// AbortTransaction is abortTransaction: the batches not yet sent are dropped, their sends
// failing with TRANSACTION_ABORTED (RecordAccumulator.abortUndrainedBatches), those in
// flight are waited for, and EndTxn(abort) goes to the coordinator.
func (p *Producer) AbortTransaction(env *sim.Env) ([]Completion, error) {
	if p.txn != nil && p.txn.State == TxnAbortableError {
		p.txn.State = TxnInTransaction
	}
	if err := p.txnCheck(TxnInTransaction); err != nil {
		return nil, err
	}
	p.txn.State = TxnAborting
	var done []Completion
	for _, tp := range p.queueTPs() {
		for _, b := range slices.Clone(p.queues[tp]) {
			if !b.InFlight && b.Attempts == 0 {
				p.remove(b)
				done = append(done, Completion{Msgs: b.msgs(), TP: b.TP, Offset: -1, Err: protocol.ErrTransactionAborted})
			}
		}
	}
	for _, s := range p.waiting {
		done = append(done, Completion{Msgs: []string{s.Msg}, Offset: -1, Err: protocol.ErrTransactionAborted})
	}
	p.waiting = nil
	if t := p.txn; t.Offsets != nil && t.Req == 0 {
		// A sendOffsetsToTransaction not yet on the wire is dropped with the transaction.
		t.Offsets = nil
		done = append(done, Completion{Txn: TxnFailed, Err: protocol.ErrTransactionAborted, Offset: -1})
	}
	return append(done, p.drain(env)...), nil
}

func (p *Producer) txnCheck(want TxnState) error {
	t := p.txn
	switch {
	case t == nil:
		return fmt.Errorf("cannot use transactional methods without enabling transactions by setting the transactional.id configuration property")
	case t.State == TxnFatalError:
		return fmt.Errorf("cannot execute transactional method because we are in an error state: %s", t.LastErr)
	case t.State != want:
		return fmt.Errorf("invalid transition attempted from state %s (expected %s)", t.State, want)
	}
	return nil
}

// sendAllowed reports whether a partition's batches may go out: a transactional
// producer sends a partition's batches only once the coordinator has it in the
// transaction (TransactionManager.isSendToPartitionAllowed).
func (p *Producer) sendAllowed(tp protocol.TP) bool {
	return p.txn == nil || p.txn.Added[tp]
}

// prepareTransactional runs before each drain (Sender.maybeSendAndPollTransactionalRequest):
// it sends the next coordinator request when one is due, and reports whether produce
// requests may go out (no coordinator request in flight).
func (p *Producer) prepareTransactional(env *sim.Env) ([]Completion, bool) {
	t := p.txn
	if t.State == TxnFatalError {
		return nil, false
	}
	if t.Req != 0 {
		return nil, false
	}
	if env.Now() < t.BackoffTill {
		return nil, t.State != TxnInitializing
	}
	switch t.State {
	case TxnUninitialized, TxnReady, TxnAbortableError:
		return nil, true
	case TxnInitializing:
		p.sendTxnRequest(env, txnInitProducerID)
		return nil, false
	}
	// In a transaction: partitions with batches not yet in it are added first (not
	// while aborting: their batches were dropped).
	var add []protocol.TP
	for _, tp := range p.queueTPs() {
		if !t.Added[tp] {
			add = append(add, tp)
		}
	}
	if len(add) > 0 && t.State != TxnAborting {
		t.Adding = add
		p.sendTxnRequest(env, txnAddPartitions)
		return nil, false
	}
	if t.Offsets != nil && t.State == TxnAborting {
		// Its request was answered with an error to retry: the abort drops it.
		t.Offsets = nil
		done, ok := p.prepareTransactional(env)
		return append([]Completion{{Txn: TxnFailed, Err: protocol.ErrTransactionAborted, Offset: -1}}, done...), ok
	}
	if t.Offsets != nil {
		// sendOffsetsToTransaction's requests come before an EndTxn (same priority as
		// AddPartitionsToTxn, TransactionManager.Priority.ADD_PARTITIONS_OR_OFFSETS).
		switch {
		case !t.Offsets.Added:
			p.sendTxnRequest(env, txnAddOffsets)
		case t.GroupCoordinator == "":
			p.sendTxnRequest(env, txnFindGroupCoordinator)
		default:
			p.sendTxnRequest(env, txnOffsetCommit)
		}
		return nil, false
	}
	if t.State == TxnInTransaction || !p.Idle() {
		return nil, true // the end waits for every batch of the transaction to be done
	}
	commit := t.State == TxnCommitting
	if len(t.Added) == 0 && !t.OffsetsAdded {
		// Nothing was sent in the transaction: it ends without a word to the
		// coordinator (TransactionManager.beginCompletingTransaction: !transactionStarted).
		return p.txnEnded(env, commit), true
	}
	if commit && t.LastErr != "" {
		// A send of the transaction failed: the commit cannot happen.
		t.State = TxnAbortableError
		return []Completion{{Txn: TxnFailed, Err: t.LastErr, Offset: -1}}, true
	}
	p.sendTxnRequest(env, txnEndTxn)
	return nil, false
}

// sendTxnRequest sends a coordinator request, finding the coordinator first.
func (p *Producer) sendTxnRequest(env *sim.Env, kind txnRequestKind) {
	t, s := p.txn, p.idem
	if t.Coordinator == "" && !groupRequest(kind) {
		kind = txnFindCoordinator
	}
	p.reqSeq++
	t.Req, t.ReqID = kind, p.reqSeq
	var msg sim.Payload
	switch kind {
	case txnFindCoordinator:
		if len(p.md.Bootstrap) == 0 {
			t.Req = 0
			return
		}
		t.ReqTo = p.md.Bootstrap[t.Next%len(p.md.Bootstrap)]
		msg = protocol.FindCoordinatorRequest{KeyType: protocol.TransactionKey, TransactionalID: t.ID}
	case txnInitProducerID:
		t.ReqTo = t.Coordinator
		msg = protocol.InitProducerIdRequest{ReqID: p.reqSeq, TransactionalID: t.ID, TransactionTimeoutMs: t.TimeoutMs}
	case txnAddPartitions:
		t.ReqTo = t.Coordinator
		msg = protocol.AddPartitionsToTxnRequest{ReqID: p.reqSeq, TransactionalID: t.ID, ProducerID: s.PID,
			ProducerEpoch: s.Epoch, Partitions: slices.Clone(t.Adding)}
	case txnEndTxn:
		t.ReqTo = t.Coordinator
		msg = protocol.EndTxnRequest{ReqID: p.reqSeq, TransactionalID: t.ID, ProducerID: s.PID, ProducerEpoch: s.Epoch,
			Commit: t.State == TxnCommitting}
	case txnAddOffsets:
		t.ReqTo = t.Coordinator
		msg = protocol.AddOffsetsToTxnRequest{ReqID: p.reqSeq, TransactionalID: t.ID, ProducerID: s.PID,
			ProducerEpoch: s.Epoch, Group: t.Offsets.Group.Group}
	case txnFindGroupCoordinator:
		if len(p.md.Bootstrap) == 0 {
			t.Req = 0
			return
		}
		t.ReqTo = p.md.Bootstrap[t.GroupNext%len(p.md.Bootstrap)]
		msg = protocol.FindCoordinatorRequest{KeyType: protocol.GroupKey, Group: t.Offsets.Group.Group}
	case txnOffsetCommit:
		o := t.Offsets
		t.ReqTo = t.GroupCoordinator
		msg = protocol.TxnOffsetCommitRequest{ReqID: p.reqSeq, TransactionalID: t.ID, Group: o.Group.Group,
			ProducerID: s.PID, ProducerEpoch: s.Epoch, Member: o.Group.Member, Generation: o.Group.Generation,
			Offsets: slices.Clone(o.Offsets), Msgs: slices.Clone(o.Msgs)}
	}
	env.Send(t.ReqTo, msg)
	env.After(p.cfg.RequestTimeoutMs, txnTimeout{ReqID: p.reqSeq})
}

// txnRetryLater re-enqueues the request in flight after retry.backoff.ms
// (TxnRequestHandler.reenqueue); lookup: the coordinator is looked up again first
// (lookupCoordinator).
func (p *Producer) txnRetryLater(env *sim.Env, lookup bool) {
	p.txnRetryAfter(env, lookup, p.cfg.RetryBackoffMs)
}

// addPartitionsRetryBackoffMs is how soon the first AddPartitionsToTxn of a transaction
// is sent again after CONCURRENT_TRANSACTIONS: the previous transaction is completing
// (TransactionManager.ADD_PARTITIONS_RETRY_BACKOFF_MS, maybeOverrideRetryBackoffMs).
const addPartitionsRetryBackoffMs = 20

func (p *Producer) txnRetryAfter(env *sim.Env, lookup bool, backoffMs int64) {
	t := p.txn
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

// txnFatal fails everything: the producer was fenced (transitionToFatalError); every
// batch, queued or in flight, fails with the error, and so does the pending call.
func (p *Producer) txnFatal(env *sim.Env, err protocol.Error) []Completion {
	t := p.txn
	t.State, t.LastErr, t.Req, t.Offsets = TxnFatalError, err, 0, nil
	env.Note("transaction manager " + t.ID + ": fatal " + err.String())
	var done []Completion
	for _, tp := range p.queueTPs() {
		for _, b := range p.queues[tp] {
			done = append(done, Completion{Msgs: b.msgs(), TP: b.TP, Offset: -1, Err: err})
		}
	}
	for _, s := range p.waiting {
		done = append(done, Completion{Msgs: []string{s.Msg}, Offset: -1, Err: err})
	}
	p.queues, p.inflight, p.waiting = map[protocol.TP][]*batch{}, map[int64]*inflightProduce{}, nil
	return append(done, Completion{Txn: TxnFailed, Err: err, Offset: -1})
}

// txnEnded completes a commit or an abort: the producer is ready for the next
// transaction.
func (p *Producer) txnEnded(env *sim.Env, commit bool) []Completion {
	t := p.txn
	t.State, t.Added, t.LastErr, t.OffsetsAdded = TxnReady, map[protocol.TP]bool{}, "", false
	if commit {
		return []Completion{{Txn: TxnCommitted, Offset: -1}}
	}
	return []Completion{{Txn: TxnAborted, Offset: -1}}
}

// onTransactionMessage takes the coordinator's answers; it reports whether m was one.
func (p *Producer) onTransactionMessage(env *sim.Env, m sim.Message) ([]Completion, bool) {
	t := p.txn
	if t == nil {
		return nil, false
	}
	var err protocol.Error
	var kind txnRequestKind
	switch r := m.Payload.(type) {
	case protocol.FindCoordinatorResponse:
		if (t.Req != txnFindCoordinator && t.Req != txnFindGroupCoordinator) || m.From != t.ReqTo {
			return nil, true
		}
		if r.Err != "" {
			p.txnRetryLater(env, true)
			return nil, true
		}
		if t.Req == txnFindGroupCoordinator {
			t.GroupCoordinator = r.Coordinator
		} else {
			t.Coordinator = r.Coordinator
		}
		t.Req = 0
		return p.drain(env), true
	case protocol.AddOffsetsToTxnResponse:
		if t.Req != txnAddOffsets || r.ReqID != t.ReqID {
			return nil, true
		}
		return p.onAddOffsets(env, r.Err), true
	case protocol.TxnOffsetCommitResponse:
		if t.Req != txnOffsetCommit || r.ReqID != t.ReqID {
			return nil, true
		}
		return p.onTxnOffsetCommit(env, r.Err), true
	case protocol.InitProducerIdResponse:
		kind, err = txnInitProducerID, r.Err
		if t.Req != kind || r.ReqID != t.ReqID {
			return nil, true
		}
		if err == "" {
			t.Req, t.State = 0, TxnReady
			s := p.idem
			// A new epoch restarts every partition's sequences at 0 (the partitions'
			// entries are of the old epoch: assignSequence starts them again).
			s.PID, s.Epoch, s.Init = r.ProducerID, r.ProducerEpoch, initDone
			env.Note(fmt.Sprintf("producer id %d epoch %d", s.PID, s.Epoch))
			return append([]Completion{{Txn: TxnInitialized, Offset: -1}}, p.drain(env)...), true
		}
	case protocol.AddPartitionsToTxnResponse:
		kind = txnAddPartitions
		if t.Req != kind || r.ReqID != t.ReqID {
			return nil, true
		}
		for _, res := range r.Results {
			if res.Err != "" {
				err = res.Err
				break
			}
		}
		if err == "" {
			for _, res := range r.Results {
				t.Added[res.TP] = true
			}
			t.Req, t.Adding = 0, nil
			return p.drain(env), true
		}
	case protocol.EndTxnResponse:
		kind, err = txnEndTxn, r.Err
		if t.Req != kind || r.ReqID != t.ReqID {
			return nil, true
		}
		if err == "" {
			t.Req = 0
			return append(p.txnEnded(env, t.State == TxnCommitting), p.drain(env)...), true
		}
	case sim.Refused:
		if t.Req == 0 || r.To != t.ReqTo || !isTxnRequest(r.Orig) {
			return nil, isTxnRequest(r.Orig)
		}
		p.txnRetryLater(env, true)
		return nil, true
	case sim.Disconnected:
		if t.Req != 0 && r.Peer == t.ReqTo {
			p.txnRetryLater(env, true)
		}
		return nil, false
	default:
		return nil, false
	}
	return p.txnError(env, kind, err), true
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

// onAddOffsets handles AddOffsetsToTxn's answer (AddOffsetsToTxnHandler.handleResponse):
// once added, TxnOffsetCommit follows. A moved coordinator is looked up again, a
// retriable error retried; an unknown producer id or a wrong mapping makes the
// transaction abortable, and the call fails; a fence is fatal.
func (p *Producer) onAddOffsets(env *sim.Env, err protocol.Error) []Completion {
	t := p.txn
	switch err {
	case "":
		t.Req, t.Offsets.Added, t.OffsetsAdded = 0, true, true
		return p.drain(env)
	case protocol.ErrInvalidProducerIDMapping:
		return p.offsetsFailed(env, err)
	}
	return p.txnError(env, txnAddOffsets, err)
}

// onTxnOffsetCommit handles TxnOffsetCommit's answer (TxnOffsetCommitHandler.
// handleResponse): done, the call returns; a moved, unavailable or timed-out group
// coordinator is looked up again and a retriable error retried, after retry.backoff.ms;
// a member the group no longer knows, an older generation or a fenced instance fail the
// call (CommitFailedException) and make the transaction abortable — a zombie cannot
// commit its offsets (KIP-447); a fence of the producer is fatal.
func (p *Producer) onTxnOffsetCommit(env *sim.Env, err protocol.Error) []Completion {
	t := p.txn
	switch err {
	case "":
		t.Req, t.Offsets = 0, nil
		return append([]Completion{{Txn: TxnOffsetsSent, Offset: -1}}, p.drain(env)...)
	case protocol.ErrRequestTimedOut:
		p.txnRetryLater(env, true)
	case protocol.ErrUnknownTopicOrPartition:
		p.txnRetryLater(env, false)
	case protocol.ErrUnknownMemberID, protocol.ErrIllegalGeneration, protocol.ErrFencedInstanceID:
		return p.offsetsFailed(env, err)
	default:
		// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, the
		// fences: as for the transaction coordinator's requests.
		return p.txnError(env, txnOffsetCommit, err)
	}
	return nil
}

// offsetsFailed fails a sendOffsetsToTransaction with an abortable error
// (TransactionManager.abortableError): the transaction can only be aborted now.
func (p *Producer) offsetsFailed(env *sim.Env, err protocol.Error) []Completion {
	t := p.txn
	t.Req, t.Offsets = 0, nil
	env.Note("transaction manager " + t.ID + ": abortable " + err.String())
	p.failedTransactional(env, err)
	return append([]Completion{{Txn: TxnFailed, Err: err, Offset: -1}}, p.drain(env)...)
}

// txnError handles a coordinator's error (the handlers' handleResponse): a moved or
// unavailable coordinator is looked up again, a coordinator loading or busy ending the
// previous transaction is asked again; a fenced producer is done.
func (p *Producer) txnError(env *sim.Env, kind txnRequestKind, err protocol.Error) []Completion {
	switch err {
	case protocol.ErrNotCoordinator, protocol.ErrCoordinatorNotAvailable:
		p.txnRetryLater(env, true)
	case protocol.ErrConcurrentTransactions:
		backoff := p.cfg.RetryBackoffMs
		if kind == txnAddPartitions && len(p.txn.Added) == 0 {
			backoff = min(backoff, addPartitionsRetryBackoffMs)
		}
		p.txnRetryAfter(env, false, backoff)
	case protocol.ErrCoordinatorLoadInProgress:
		p.txnRetryLater(env, false)
	case protocol.ErrProducerFenced, protocol.ErrInvalidProducerEpoch:
		// InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit and
		// EndTxn: a newer instance took over (ProducerFencedException; the coordinators'
		// INVALID_PRODUCER_EPOCH is converted to it for these requests).
		return p.txnFatal(env, protocol.ErrProducerFenced)
	default:
		// INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING, INVALID_TRANSACTION_TIMEOUT: the
		// call fails and the producer cannot go on (fatal for these).
		return p.txnFatal(env, err)
	}
	return nil
}

// failedTransactional is handleFailedBatch for a transactional producer
// (maybeTransitionToErrorState): PRODUCER_FENCED is fatal; any other failure of a send
// makes the transaction abortable — it cannot commit — INVALID_PRODUCER_EPOCH included
// (InvalidProducerEpochException; the abort that follows is fenced by the coordinator).
func (p *Producer) failedTransactional(env *sim.Env, err protocol.Error) []Completion {
	t := p.txn
	if t == nil || t.State == TxnFatalError {
		return nil
	}
	if err == protocol.ErrProducerFenced {
		return p.txnFatal(env, err)
	}
	if t.LastErr == "" {
		t.LastErr = err
	}
	if t.State == TxnInTransaction {
		t.State = TxnAbortableError
	}
	return nil
}

// fireTransactions runs the transaction manager's timers; it reports whether t was one.
func (p *Producer) fireTransactions(env *sim.Env, tm sim.Payload) ([]Completion, bool) {
	t := p.txn
	switch tm := tm.(type) {
	case txnRetry:
		if t != nil && t.Req == 0 {
			return p.drain(env), true
		}
		return nil, true
	case txnTimeout:
		if t != nil && t.Req != 0 && t.ReqID == tm.ReqID {
			p.txnRetryLater(env, true)
		}
		return nil, true
	}
	return nil, false
}
