package clients

import (
	"fmt"
	"maps"
	"strconv"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The transaction manager's idempotent side, which every idempotent producer has (the
// 3.9 client's TransactionManager, with or without a transactional id): the producer id
// and epoch from InitProducerId, a sequence per partition from 0, the batches with a
// sequence that are not done yet ("in flight" to the transaction manager, whether on the
// wire or waiting for a retry: the accumulator lists them, tracked), and the epoch bump
// (KIP-360) that restarts a partition's sequences when the broker's state and the
// client's can no longer agree.

// idempotence is the producer id, epoch and sequences of the transaction manager.
type idempotence struct {
	PID      int64
	Epoch    int16
	Init     initState
	InitReq  int64
	InitTo   string
	InitNext int // the bootstrap broker the next InitProducerId goes to
	Parts    map[protocol.TP]*seqState
	// BumpRequired and Rewrite: the epoch must be bumped before anything more is sent,
	// and these partitions' tracked batches renumbered from 0 with the new epoch
	// (TransactionManager.requestEpochBumpForPartition).
	BumpRequired bool
	Rewrite      map[protocol.TP]bool
	// Unresolved: a partition whose batch expired after it was sent, with the sequence
	// that must be acknowledged last for the state to be known (markSequenceUnresolved).
	Unresolved map[protocol.TP]int32
}

type initState int8

const (
	initNone     initState = iota // no id: send InitProducerId
	initInFlight                  // InitProducerId sent
	initBackoff                   // waiting retry.backoff.ms to send it again
	initDone
)

// seqState is one partition's TxnPartitionEntry.
type seqState struct {
	PID       int64
	Epoch     int16
	NextSeq   int32
	LastAcked int32 // -1 when none
}

// The idempotent producer's timers.
type (
	initRetry   struct{}              // send InitProducerId again after retry.backoff.ms
	initTimeout struct{ ReqID int64 } // request.timeout.ms of an InitProducerId
)

func (initRetry) Kind() string       { return "InitProducerIdRetry" }
func (initTimeout) Kind() string     { return "InitProducerIdTimeout" }
func (initRetry) Describe() string   { return initRetryLine }
func (initTimeout) Describe() string { return initTimeoutLine }

var (
	initRetryLine   = sim.TimerLine("", initRetry{})
	initTimeoutLine = sim.TimerLine("", initTimeout{})
)

func newIdempotence() idempotence {
	return idempotence{PID: protocol.NoProducerID, Epoch: protocol.NoProducerEpoch, Parts: map[protocol.TP]*seqState{},
		Rewrite: map[protocol.TP]bool{}, Unresolved: map[protocol.TP]int32{}}
}

func (s *idempotence) clone() idempotence {
	c := *s
	c.Parts = make(map[protocol.TP]*seqState, len(s.Parts))
	for tp, st := range s.Parts {
		v := *st
		c.Parts[tp] = &v
	}
	c.Rewrite = maps.Clone(s.Rewrite)
	c.Unresolved = maps.Clone(s.Unresolved)
	return c
}

func (s *idempotence) part(tp protocol.TP) *seqState {
	st := s.Parts[tp]
	if st == nil {
		st = &seqState{PID: s.PID, Epoch: s.Epoch, LastAcked: -1}
		s.Parts[tp] = st
	}
	return st
}

// staleEpoch reports whether the partition's sequences are of an older producer id or
// epoch than the producer's (TransactionManager.hasStaleProducerIdAndEpoch).
func (s *idempotence) staleEpoch(tp protocol.TP) bool {
	st := s.part(tp)
	return st.PID != s.PID || st.Epoch != s.Epoch
}

// unresolved reports whether the partition's state waits to be resolved
// (isPartitionUnresolved).
func (s *idempotence) unresolved(tp protocol.TP) bool {
	_, ok := s.Unresolved[tp]
	return ok
}

// resolveSequences runs first before each drain, as Sender.runOnce does
// (maybeResolveSequences): a partition whose state is unknown and has nothing in flight
// is resolved. If every batch sent and not acknowledged expired in the client, whether
// the broker has them is unknown: an idempotent producer restarts the partition at a new
// epoch; a transactional one can only abort, and the abort bumps the epoch ("It is safe
// to abort the transaction and continue").
func (tm *transactionManager) resolveSequences(env *sim.Env, acc *recordAccumulator) {
	for _, tp := range protocol.SortedTPs(tm.Unresolved) {
		if len(acc.tracked(tp)) > 0 {
			continue
		}
		st := tm.part(tp)
		if st.NextSeq-st.LastAcked != 1 {
			if tm.txn != nil {
				tm.abortable(env, protocol.ErrKafkaException)
			} else {
				tm.requestBump(tp)
			}
		}
		delete(tm.Unresolved, tp)
	}
}

// prepareIdempotent runs before each drain, after the transactional requests: it bumps
// an idempotent producer's epoch when asked (bumpIdempotentEpochAndResetIdIfNeeded) and
// asks for a producer id when there is none. It reports whether produce requests may go
// out (a valid producer id).
func (tm *transactionManager) prepareIdempotent(env *sim.Env, acc *recordAccumulator) bool {
	if tm.BumpRequired && tm.Init == initDone && tm.txn == nil {
		// (A transactional producer's epoch is bumped by its coordinator, at the abort.)
		tm.bump(acc)
		env.Note(tm.describeEpochBump())
	}
	if tm.Init == initNone && tm.txn == nil {
		tm.sendInitProducerId(env)
	}
	return tm.Init == initDone
}

// resetSequences forgets every partition's sequences after a transactional producer's
// epoch bump: each starts again at 0 (resetSequenceNumbers).
func (s *idempotence) resetSequences() {
	s.Parts = map[protocol.TP]*seqState{}
	s.Unresolved = map[protocol.TP]int32{}
	s.Rewrite = map[protocol.TP]bool{}
	s.BumpRequired = false
}

func (s *idempotence) describeEpochBump() string {
	return "bumps its epoch: pid=" + strconv.FormatInt(s.PID, 10) + " epoch=" + strconv.Itoa(int(s.Epoch))
}

func (s *idempotence) requestBump(tp protocol.TP) {
	s.BumpRequired = true
	s.Rewrite[tp] = true
}

// bump raises the epoch locally and renumbers the batches of the partitions that asked
// for it from 0 (bumpIdempotentProducerEpoch, TxnPartitionEntry.startSequencesAtBeginning);
// other partitions start at 0 once their batches of the old epoch are done.
func (s *idempotence) bump(acc *recordAccumulator) {
	s.Epoch++
	for _, tp := range protocol.SortedTPs(s.Rewrite) {
		st := s.part(tp)
		seq := int32(0)
		for _, b := range acc.tracked(tp) {
			b.PID, b.Epoch, b.BaseSeq, b.SeqReset = s.PID, s.Epoch, seq, true
			seq += int32(len(b.Records))
		}
		*st = seqState{PID: s.PID, Epoch: s.Epoch, NextSeq: seq, LastAcked: -1}
		delete(s.Unresolved, tp)
	}
	s.Rewrite = map[protocol.TP]bool{}
	s.BumpRequired = false
}

// start asks an idempotent producer's id at once (a transactional producer asks its
// coordinator, at initTransactions).
func (tm *transactionManager) start(env *sim.Env) {
	if tm.Init == initNone && tm.txn == nil {
		tm.sendInitProducerId(env)
	}
}

// sendInitProducerId asks a broker for a producer id (InitProducerIdHandler; Kafka sends
// it to the least loaded node, here the bootstrap brokers in turn).
func (tm *transactionManager) sendInitProducerId(env *sim.Env) {
	bootstrap := tm.sh.md.Bootstrap
	if len(bootstrap) == 0 {
		return
	}
	id := tm.sh.nextReqID()
	tm.Init, tm.InitReq, tm.InitTo = initInFlight, id, bootstrap[tm.InitNext%len(bootstrap)]
	env.Send(tm.InitTo, protocol.InitProducerIdRequest{ReqID: id})
	env.After(tm.sh.cfg.RequestTimeoutMs, initTimeout{ReqID: id})
}

// initFailed waits retry.backoff.ms and asks the next broker (the handler is re-enqueued
// on a retriable error, TxnRequestHandler.reenqueue).
func (tm *transactionManager) initFailed(env *sim.Env) {
	tm.Init = initBackoff
	tm.InitNext++
	env.After(tm.sh.cfg.RetryBackoffMs, initRetry{})
}

// initAwaited reports whether the InitProducerId with this id is the one in flight.
func (s *idempotence) initAwaited(reqID int64) bool {
	return s.Init == initInFlight && s.InitReq == reqID
}

func (tm *transactionManager) onInitProducerIdResponse(env *sim.Env, r protocol.InitProducerIdResponse) txnStep {
	if !tm.initAwaited(r.ReqID) {
		return txnStep{}
	}
	if r.Err != "" {
		tm.initFailed(env)
		return txnStep{}
	}
	tm.PID, tm.Epoch, tm.Init = r.ProducerID, r.ProducerEpoch, initDone
	env.Note("producer id " + strconv.FormatInt(tm.PID, 10) + " epoch " + strconv.Itoa(int(tm.Epoch)))
	return txnStep{drain: true}
}

// assignSequence gives a batch drained for the first time the producer id, epoch and
// the partition's next sequence; a partition of a stale epoch with nothing in flight
// starts again at 0 (maybeUpdateProducerIdAndEpoch). A retried batch keeps its sequence:
// its first attempt may have been written.
func (s *idempotence) assignSequence(b *batch, acc *recordAccumulator) {
	if b.HasSeq {
		return
	}
	st := s.part(b.TP)
	if (st.PID != s.PID || st.Epoch != s.Epoch) && len(acc.tracked(b.TP)) == 0 {
		*st = seqState{PID: s.PID, Epoch: s.Epoch, LastAcked: -1}
	}
	b.HasSeq, b.PID, b.Epoch, b.BaseSeq = true, s.PID, s.Epoch, st.NextSeq
	st.NextSeq += int32(len(b.Records))
}

// acked records an acknowledged batch's last sequence (handleCompletedBatch).
func (s *idempotence) acked(b *batch) {
	if !b.HasSeq {
		return
	}
	st := s.part(b.TP)
	if b.PID == st.PID && b.Epoch == st.Epoch {
		st.LastAcked = max(st.LastAcked, b.lastSeq())
	}
}

// canRetry is TransactionManager.canRetry for a batch with a sequence and retries left.
// For OUT_OF_ORDER_SEQUENCE_NUMBER: a batch that is not the next after the last
// acknowledged one failed only because one before it did, and is retried as it is; the
// next one means a real gap: an idempotent producer bumps the partition's epoch before it
// retries it, a transactional one does not retry it (the batch fails, and the
// transaction can only abort).
func (s *idempotence) canRetry(b *batch, err protocol.Error, transactional bool) bool {
	st := s.part(b.TP)
	if err != protocol.ErrOutOfOrderSequenceNumber {
		return err.Retriable()
	}
	unresolvedNext, unresolved := s.Unresolved[b.TP]
	isNext := b.BaseSeq-st.LastAcked == 1
	if !unresolved && (b.SeqReset || !isNext) {
		// A batch renumbered by an epoch bump while it was on the wire comes back
		// refused: it is retried with its new sequence (sequenceHasBeenReset).
		return true
	}
	if transactional {
		return false
	}
	if !unresolved || unresolvedNext == b.BaseSeq {
		s.requestBump(b.TP)
	}
	return true
}

// failedForGood is handleFailedBatch for a batch that failed for good. For an idempotent
// producer, when its sequence may be lost (it had retries left, or the broker said the
// sequence is out of order) the partition's epoch is bumped so that later batches are not
// refused. A transactional producer, whose transaction can now only abort (and the abort
// bumps the epoch), closes the gap instead when the batch was surely not written
// (adjustSequencesDueToFailedBatch): the batches after it move down by its records.
func (s *idempotence) failedForGood(b *batch, err protocol.Error, adjust, transactional bool, acc *recordAccumulator) {
	if !b.HasSeq {
		return
	}
	switch {
	case !transactional && (err == protocol.ErrOutOfOrderSequenceNumber || adjust):
		s.requestBump(b.TP)
	case transactional && adjust:
		st := s.part(b.TP)
		if b.PID != st.PID || b.Epoch != st.Epoch {
			return
		}
		n := int32(len(b.Records))
		st.NextSeq -= n
		for _, o := range acc.tracked(b.TP) {
			if o != b && o.HasSeq && o.BaseSeq > b.BaseSeq {
				o.BaseSeq -= n
			}
		}
	}
}

// expired marks the partition unresolved when an expired batch was in retry
// (Sender.sendProducerData: markSequenceUnresolved only if expiredBatch.inRetry()). A
// batch is in retry once it was re-enqueued after a failed attempt (ProducerBatch.reenqueued
// counts attempts): here, sent once and waiting to be sent again, or in flight on a
// second send. A batch that expires in flight on its first send leaves the partition
// resolved: its sequence is neither resolved nor adjusted (failBatch without
// adjustSequenceNumbers), as Kafka 3.9 does.
func (s *idempotence) expired(b *batch) {
	inRetry := b.Attempts >= 2 || (b.Attempts == 1 && !b.InFlight)
	if !b.HasSeq || !inRetry {
		return
	}
	next := b.lastSeq() + 1
	if v, ok := s.Unresolved[b.TP]; !ok || next > v {
		s.Unresolved[b.TP] = next
	}
}

// onIdempotenceMessage takes what concerns InitProducerId: its answer, or the broker
// it went to crashing or being down. It reports whether m was such.
func (tm *transactionManager) onIdempotenceMessage(env *sim.Env, m sim.Message) (txnStep, bool) {
	switch r := m.Payload.(type) {
	case protocol.InitProducerIdResponse:
		return tm.onInitProducerIdResponse(env, r), true
	case sim.Refused:
		if o, ok := r.Orig.(protocol.InitProducerIdRequest); ok {
			if tm.initAwaited(o.ReqID) {
				tm.initFailed(env)
			}
			return txnStep{}, true
		}
	case sim.Disconnected:
		if tm.Init == initInFlight && r.Peer == tm.InitTo {
			tm.initFailed(env)
		}
	}
	return txnStep{}, false
}

// fireIdempotence runs the InitProducerId timers.
func (tm *transactionManager) fireIdempotence(env *sim.Env, t sim.Payload) txnStep {
	switch t := t.(type) {
	case initRetry:
		if tm.Init == initBackoff {
			tm.Init = initNone
			return txnStep{drain: true}
		}
	case initTimeout:
		if tm.initAwaited(t.ReqID) {
			tm.initFailed(env)
		}
	}
	return txnStep{}
}

// Identity is what the canvas shows of an idempotent producer: its producer id and
// epoch, and the next sequence number of each partition it has written to ("pid 0 e0
// orders-0:3"); "pid ?" while it waits for an id; "" when it is not idempotent.
func (p *Producer) Identity() string {
	if p.tm == nil {
		return ""
	}
	return p.tm.identity()
}

func (s *idempotence) identity() string {
	if s.Init != initDone {
		return "pid ?"
	}
	out := fmt.Sprintf("pid %d e%d", s.PID, s.Epoch)
	tps := protocol.SortedTPs(s.Parts)
	for _, tp := range tps {
		out += fmt.Sprintf(" %s:%d", tp, s.Parts[tp].NextSeq)
	}
	return out
}
