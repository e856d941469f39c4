package clients

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The idempotent producer's side of KafkaProducer (the 3.9 client's TransactionManager
// without a transactional id, and the parts of RecordAccumulator and Sender that serve
// it): the producer id and epoch from InitProducerId, a sequence per partition from 0,
// the batches with a sequence that are not done yet ("in flight" to the transaction
// manager, whether on the wire or waiting for a retry), and the epoch bump (KIP-360)
// that restarts a partition's sequences when the broker's state and the client's can no
// longer agree.

// idempotence is the producer's TransactionManager state.
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
func (initRetry) Describe() string   { return "timer init-producer-id-retry" }
func (initTimeout) Describe() string { return "timer init-producer-id-timeout" }

func newIdempotence() *idempotence {
	return &idempotence{PID: protocol.NoProducerID, Epoch: protocol.NoProducerEpoch, Parts: map[protocol.TP]*seqState{},
		Rewrite: map[protocol.TP]bool{}, Unresolved: map[protocol.TP]int32{}}
}

func (s *idempotence) clone() *idempotence {
	if s == nil {
		return nil
	}
	c := *s
	c.Parts = make(map[protocol.TP]*seqState, len(s.Parts))
	for tp, st := range s.Parts {
		v := *st
		c.Parts[tp] = &v
	}
	c.Rewrite = maps.Clone(s.Rewrite)
	c.Unresolved = maps.Clone(s.Unresolved)
	return &c
}

func (s *idempotence) part(tp protocol.TP) *seqState {
	st := s.Parts[tp]
	if st == nil {
		st = &seqState{PID: s.PID, Epoch: s.Epoch, LastAcked: -1}
		s.Parts[tp] = st
	}
	return st
}

// tracked lists a partition's batches with a sequence that are not done, by sequence.
func (p *Producer) tracked(tp protocol.TP) []*batch {
	var out []*batch
	for _, b := range p.queues[tp] {
		if b.HasSeq {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b *batch) int { return int(a.BaseSeq - b.BaseSeq) })
	return out
}

// prepareIdempotent runs before each drain, as Sender.runOnce does: it resolves the
// partitions whose state is unknown (maybeResolveSequences), bumps the epoch when asked
// (bumpIdempotentEpochAndResetIdIfNeeded) and asks for a producer id when there is none.
// It reports whether produce requests may go out (a valid producer id).
func (p *Producer) prepareIdempotent(env *sim.Env) bool {
	s := p.idem
	for _, tp := range slices.SortedFunc(maps.Keys(s.Unresolved), protocol.CompareTP) {
		if len(p.tracked(tp)) > 0 {
			continue
		}
		st := s.part(tp)
		if st.NextSeq-st.LastAcked != 1 {
			// Every batch sent and not acknowledged expired in the client: whether the
			// broker has them is unknown, so the partition starts again at a new epoch.
			s.requestBump(tp)
		}
		delete(s.Unresolved, tp)
	}
	if s.BumpRequired && s.Init == initDone && p.txn == nil {
		// (A transactional producer's epoch is bumped by its coordinator only.)
		s.bump(p)
		env.Note(describeEpochBump(s))
	}
	if s.Init == initNone && p.txn == nil {
		p.sendInitProducerId(env)
	}
	return s.Init == initDone
}

func describeEpochBump(s *idempotence) string {
	return "bumps its epoch: pid=" + strconv.FormatInt(s.PID, 10) + " epoch=" + strconv.Itoa(int(s.Epoch))
}

func (s *idempotence) requestBump(tp protocol.TP) {
	s.BumpRequired = true
	s.Rewrite[tp] = true
}

// bump raises the epoch locally and renumbers the batches of the partitions that asked
// for it from 0 (bumpIdempotentProducerEpoch, TxnPartitionEntry.startSequencesAtBeginning);
// other partitions start at 0 once their batches of the old epoch are done.
func (s *idempotence) bump(p *Producer) {
	s.Epoch++
	for _, tp := range slices.SortedFunc(maps.Keys(s.Rewrite), protocol.CompareTP) {
		st := s.part(tp)
		seq := int32(0)
		for _, b := range p.tracked(tp) {
			b.PID, b.Epoch, b.BaseSeq, b.SeqReset = s.PID, s.Epoch, seq, true
			seq += int32(len(b.Records))
		}
		*st = seqState{PID: s.PID, Epoch: s.Epoch, NextSeq: seq, LastAcked: -1}
		delete(s.Unresolved, tp)
	}
	s.Rewrite = map[protocol.TP]bool{}
	s.BumpRequired = false
}

// sendInitProducerId asks a broker for a producer id (InitProducerIdHandler; Kafka sends
// it to the least loaded node, here the bootstrap brokers in turn).
func (p *Producer) sendInitProducerId(env *sim.Env) {
	s := p.idem
	if len(p.md.Bootstrap) == 0 {
		return
	}
	p.reqSeq++
	s.Init, s.InitReq, s.InitTo = initInFlight, p.reqSeq, p.md.Bootstrap[s.InitNext%len(p.md.Bootstrap)]
	env.Send(s.InitTo, protocol.InitProducerIdRequest{ReqID: p.reqSeq})
	env.After(p.cfg.RequestTimeoutMs, initTimeout{ReqID: p.reqSeq})
}

// initFailed waits retry.backoff.ms and asks the next broker (the handler is re-enqueued
// on a retriable error, TxnRequestHandler.reenqueue).
func (p *Producer) initFailed(env *sim.Env) {
	s := p.idem
	s.Init = initBackoff
	s.InitNext++
	env.After(p.cfg.RetryBackoffMs, initRetry{})
}

func (p *Producer) onInitProducerIdResponse(env *sim.Env, r protocol.InitProducerIdResponse) []Completion {
	s := p.idem
	if s == nil || s.Init != initInFlight || r.ReqID != s.InitReq {
		return nil
	}
	if r.Err != "" {
		p.initFailed(env)
		return nil
	}
	s.PID, s.Epoch, s.Init = r.ProducerID, r.ProducerEpoch, initDone
	env.Note("producer id " + strconv.FormatInt(s.PID, 10) + " epoch " + strconv.Itoa(int(s.Epoch)))
	return p.drain(env)
}

// stopDrain reports whether a partition's first batch must wait
// (RecordAccumulator.shouldStopDrainBatchesForPartition): a new batch waits while the
// partition has batches of an older epoch not done, or its state is unresolved; a
// retried batch goes only when it is the lowest sequence not done, so that a retry
// never overtakes a batch before it (one request in flight per partition while
// retrying).
func (p *Producer) stopDrain(first *batch) bool {
	s := p.idem
	tracked := p.tracked(first.TP)
	st := s.part(first.TP)
	if !first.HasSeq {
		if len(tracked) > 0 && (st.PID != s.PID || st.Epoch != s.Epoch) {
			return true
		}
		if _, ok := s.Unresolved[first.TP]; ok {
			return true
		}
	}
	return len(tracked) > 0 && first.HasSeq && first.BaseSeq != tracked[0].BaseSeq
}

// assignSequence gives a batch drained for the first time the producer id, epoch and
// the partition's next sequence; a partition of a stale epoch with nothing in flight
// starts again at 0 (maybeUpdateProducerIdAndEpoch). A retried batch keeps its sequence:
// its first attempt may have been written.
func (p *Producer) assignSequence(b *batch) {
	s := p.idem
	if b.HasSeq {
		return
	}
	st := s.part(b.TP)
	if (st.PID != s.PID || st.Epoch != s.Epoch) && len(p.tracked(b.TP)) == 0 {
		*st = seqState{PID: s.PID, Epoch: s.Epoch, LastAcked: -1}
	}
	b.HasSeq, b.PID, b.Epoch, b.BaseSeq = true, s.PID, s.Epoch, st.NextSeq
	st.NextSeq += int32(len(b.Records))
}

// acked records an acknowledged batch's last sequence (handleCompletedBatch).
func (p *Producer) acked(b *batch) {
	if p.idem == nil || !b.HasSeq {
		return
	}
	st := p.idem.part(b.TP)
	if b.PID == st.PID && b.Epoch == st.Epoch {
		st.LastAcked = max(st.LastAcked, b.lastSeq())
	}
}

// canRetryIdempotent is TransactionManager.canRetry for OUT_OF_ORDER_SEQUENCE_NUMBER: a
// batch that is not the next after the last acknowledged one failed only because one
// before it did, and is retried as it is; the next one means a real gap, and the
// partition's epoch is bumped before it is retried.
func (p *Producer) canRetryIdempotent(b *batch, err protocol.Error) bool {
	s := p.idem
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
	if !unresolved || unresolvedNext == b.BaseSeq {
		s.requestBump(b.TP)
	}
	return true
}

// failedIdempotent is handleFailedBatch for a batch that failed for good: when its
// sequence may be lost (it had retries left, or the broker said the sequence is out of
// order) the partition's epoch is bumped so that later batches are not refused.
func (p *Producer) failedIdempotent(b *batch, err protocol.Error, adjust bool) {
	if !b.HasSeq {
		return
	}
	if err == protocol.ErrOutOfOrderSequenceNumber || adjust {
		p.idem.requestBump(b.TP)
	}
}

// expiredIdempotent marks the partition unresolved when an expired batch had been sent
// (Sender.sendProducerData: markSequenceUnresolved for a batch in retry).
func (p *Producer) expiredIdempotent(b *batch) {
	if p.idem == nil || !b.HasSeq || b.Attempts == 0 {
		return
	}
	next := b.lastSeq() + 1
	if v, ok := p.idem.Unresolved[b.TP]; !ok || next > v {
		p.idem.Unresolved[b.TP] = next
	}
}

// reenqueueInSequenceOrder puts a retried batch back before the first batch of a higher
// sequence or without one (RecordAccumulator.insertInSequenceOrder).
func reenqueueInSequenceOrder(q []*batch, b *batch) []*batch {
	i := 0
	for i < len(q) && q[i].HasSeq && q[i].BaseSeq < b.BaseSeq {
		i++
	}
	return slices.Insert(q, i, b)
}

func (b *batch) lastSeq() int32 { return b.BaseSeq + int32(len(b.Records)) - 1 }

// onIdempotenceMessage takes what concerns InitProducerId: its answer, or the broker
// it went to crashing or being down. It reports whether m was such.
func (p *Producer) onIdempotenceMessage(env *sim.Env, m sim.Message) ([]Completion, bool) {
	s := p.idem
	if s == nil {
		return nil, false
	}
	switch r := m.Payload.(type) {
	case protocol.InitProducerIdResponse:
		return p.onInitProducerIdResponse(env, r), true
	case sim.Refused:
		if o, ok := r.Orig.(protocol.InitProducerIdRequest); ok {
			if s.Init == initInFlight && o.ReqID == s.InitReq {
				p.initFailed(env)
			}
			return nil, true
		}
	case sim.Disconnected:
		if s.Init == initInFlight && r.Peer == s.InitTo {
			p.initFailed(env)
		}
	}
	return nil, false
}

// fireIdempotence runs the InitProducerId timers; it reports whether t was one.
func (p *Producer) fireIdempotence(env *sim.Env, t sim.Payload) ([]Completion, bool) {
	s := p.idem
	switch t := t.(type) {
	case initRetry:
		if s != nil && s.Init == initBackoff {
			s.Init = initNone
			return p.drain(env), true
		}
		return nil, true
	case initTimeout:
		if s != nil && s.Init == initInFlight && s.InitReq == t.ReqID {
			p.initFailed(env)
		}
		return nil, true
	}
	return nil, false
}

// Identity is what the canvas shows of an idempotent producer: its producer id and
// epoch, and the next sequence number of each partition it has written to ("pid 0 e0
// orders-0:3"); "pid ?" while it waits for an id; "" when it is not idempotent.
func (p *Producer) Identity() string {
	s := p.idem
	switch {
	case s == nil:
		return ""
	case s.Init != initDone:
		return "pid ?"
	}
	out := fmt.Sprintf("pid %d e%d", s.PID, s.Epoch)
	tps := slices.SortedFunc(maps.Keys(s.Parts), protocol.CompareTP)
	for _, tp := range tps {
		out += fmt.Sprintf(" %s:%d", tp, s.Parts[tp].NextSeq)
	}
	return out
}
