package clients

import (
	"errors"
	"fmt"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// KafkaProducer's transaction API: each call checks and moves the transaction manager's
// state, then lets the sender drain, which sends the coordinator requests the call
// needs.

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

const errNotTransactional = "cannot use transactional methods without enabling transactions by setting the transactional.id configuration property"

// FatalError is the error that put the producer in its fatal state for good
// (PRODUCER_FENCED; on Kafka 4 also INVALID_PRODUCER_ID_MAPPING), "" while it is not.
func (p *Producer) FatalError() protocol.Error {
	if t := p.tm.txns(); t != nil && t.State == TxnFatalError {
		return t.LastErr
	}
	return ""
}

// txns is the transactional state, nil without a transactional.id.
func (tm *transactionManager) txns() *transactions {
	if tm == nil {
		return nil
	}
	return tm.txn
}

// offsetsPending reports whether a sendOffsetsToTransaction is under way.
func (tm *transactionManager) offsetsPending() bool {
	t := tm.txns()
	return t != nil && t.Offsets != nil
}

// sendRefusal is why a send may not go now, "" when it may: a transactional producer
// sends only in a transaction (TransactionManager.failIfNotReadyForSend). After an error
// the send throws a KafkaException caused by that error ("Cannot perform send because
// at least one previous transactional or idempotent request has failed with errors"),
// which is what the application names.
func (tm *transactionManager) sendRefusal() protocol.Error {
	t := tm.txns()
	if t == nil || t.State == TxnInTransaction {
		return ""
	}
	if (t.State == TxnAbortableError || t.State == TxnFatalError) && t.LastErr != "" {
		return t.LastErr
	}
	return protocol.IllegalState("Cannot call send in state " + t.State.String())
}

// check reports why the transaction API may not be called in the current state (want
// is the state it needs).
func (t *transactions) check(want TxnState) error {
	switch {
	case t == nil:
		return errors.New(errNotTransactional)
	case t.State == TxnFatalError:
		return fmt.Errorf("cannot execute transactional method because we are in an error state: %s", t.LastErr)
	case t.State != want:
		return fmt.Errorf("invalid transition attempted from state %s (expected %s)", t.State, want)
	}
	return nil
}

// abortableErr is why commitTransaction or sendOffsetsToTransaction (what) cannot be
// called after a send of the transaction failed; nil when none did.
func (t *transactions) abortableErr(what string) error {
	if t != nil && t.State == TxnAbortableError {
		return fmt.Errorf("cannot %s: a send failed with %s; abort it", what, t.LastErr)
	}
	return nil
}

// TxnState is where the transaction manager stands; TxnUninitialized without a
// transactional.id.
func (p *Producer) TxnState() TxnState {
	if t := p.tm.txns(); t != nil {
		return t.State
	}
	return TxnUninitialized
}

// InitTransactions starts initTransactions: the producer finds its coordinator and gets
// its producer id and epoch, fencing any older instance with the same transactional.id.
// A Completion with TxnInitialized tells when it returned.
func (p *Producer) InitTransactions(env *sim.Env) ([]Completion, error) {
	if err := p.tm.txns().initTransactions(); err != nil {
		return nil, err
	}
	return p.snd.drain(env), nil
}

// ResumeTransaction takes over a transaction another producer instance with the same
// transactional.id began and flushed, by its producer id and epoch, without
// initTransactions (Flink's FlinkKafkaInternalProducer.resumeTransaction, which sets them
// in the TransactionManager and marks the transaction started): the transaction is in
// progress, and commitTransaction sends EndTxn for it.
func (p *Producer) ResumeTransaction(producerID int64, epoch int16) error {
	t := p.tm.txns()
	if t == nil || t.State != TxnUninitialized {
		return fmt.Errorf("resumeTransaction needs a transactional producer that was not initialized")
	}
	p.tm.PID, p.tm.Epoch, p.tm.Init = producerID, epoch, initDone
	t.State, t.Resumed = TxnInTransaction, true
	return nil
}

// ProducerIDAndEpoch is the producer id and epoch the producer holds (-1, -1 before it
// has one).
func (p *Producer) ProducerIDAndEpoch() (int64, int16) {
	if p.tm == nil || p.tm.Init != initDone {
		return -1, -1
	}
	return p.tm.PID, p.tm.Epoch
}

// BeginTransaction is beginTransaction: a local step, nothing is sent.
func (p *Producer) BeginTransaction() error { return p.tm.txns().begin() }

// CommitTransaction is commitTransaction: once every batch of the transaction is
// acknowledged (it flushes), EndTxn(commit) goes to the coordinator. A Completion with
// TxnCommitted, or TxnFailed, tells how it returned.
func (p *Producer) CommitTransaction(env *sim.Env) ([]Completion, error) {
	if err := p.tm.txns().beginCommit(); err != nil {
		return nil, err
	}
	return p.snd.drain(env), nil
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
	if err := p.tm.txns().sendOffsets(offsets, group, msgs); err != nil {
		return nil, err
	}
	if len(offsets) == 0 {
		// KafkaProducer.sendOffsetsToTransaction sends nothing for no offsets.
		return []Completion{{Txn: TxnOffsetsSent, Offset: -1}}, nil
	}
	return p.snd.drain(env), nil
}

// AbortTransaction is abortTransaction: the batches not yet sent are dropped, their sends
// failing with TRANSACTION_ABORTED (RecordAccumulator.abortUndrainedBatches), those in
// flight are waited for, and EndTxn(abort) goes to the coordinator.
func (p *Producer) AbortTransaction(env *sim.Env) ([]Completion, error) {
	t := p.tm.txns()
	if err := t.beginAbort(); err != nil {
		return nil, err
	}
	done := p.acc.abortUndrained(protocol.ErrTransactionAborted)
	if t.dropUnsentOffsets() {
		done = append(done, Completion{Txn: TxnFailed, Err: protocol.ErrTransactionAborted, Offset: -1})
	}
	return append(done, p.snd.drain(env)...), nil
}

// The transaction manager's side of each call: its check and its transition.

func (t *transactions) initTransactions() error {
	if t == nil {
		return errors.New(errNotTransactional)
	}
	if t.State != TxnUninitialized {
		return fmt.Errorf("invalid transition attempted from state %s to state %s", t.State, TxnInitializing)
	}
	t.State = TxnInitializing
	return nil
}

func (t *transactions) begin() error {
	if err := t.check(TxnReady); err != nil {
		return err
	}
	t.State = TxnInTransaction
	return nil
}

func (t *transactions) beginCommit() error {
	if err := t.abortableErr("commit transaction"); err != nil {
		return err
	}
	if err := t.check(TxnInTransaction); err != nil {
		return err
	}
	t.State = TxnCommitting
	return nil
}

// sendOffsets takes the offsets of a sendOffsetsToTransaction (none: nothing to send).
func (t *transactions) sendOffsets(offsets []protocol.TPOffset, group GroupMetadata, msgs []string) error {
	if err := t.abortableErr("send offsets to transaction"); err != nil {
		return err
	}
	if err := t.check(TxnInTransaction); err != nil {
		return err
	}
	if t.Offsets != nil {
		return fmt.Errorf("cannot send offsets to transaction: a sendOffsetsToTransaction is still under way")
	}
	if len(offsets) > 0 {
		t.Offsets = &pendingOffsets{Offsets: slices.Clone(offsets), Group: group, Msgs: slices.Clone(msgs)}
	}
	return nil
}

// beginAbort moves to ABORTING_TRANSACTION, from a transaction or an abortable error.
func (t *transactions) beginAbort() error {
	if t != nil && t.State == TxnAbortableError {
		t.State = TxnInTransaction
	}
	if err := t.check(TxnInTransaction); err != nil {
		return err
	}
	t.State, t.LastErr = TxnAborting, "" // (transitionTo a state that is not an error clears lastError)
	return nil
}

// dropUnsentOffsets drops a sendOffsetsToTransaction not yet on the wire with the
// aborted transaction; it reports whether there was one.
func (t *transactions) dropUnsentOffsets() bool {
	if t.Offsets == nil || t.Req != 0 {
		return false
	}
	t.Offsets = nil
	return true
}
