package clients

import (
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The producer's RecordAccumulator and BufferPool: records placed on partitions, batched
// per partition up to batch.size and linger.ms, each batch taking its memory from
// buffer.memory, and a send() that finds none blocked up to max.block.ms. The sender
// asks it for each partition's sendable batch and hands back the batches that are done
// or to be retried.

// recordAccumulator is the RecordAccumulator: the batches not done yet, per partition in
// the order they go out, and the sends not yet in a batch.
type recordAccumulator struct {
	sh     *producerShared
	queues map[protocol.TP][]*batch
	// flushing: the application called flush(); every batch is ready, lingering or not
	// (RecordAccumulator.beginFlush), until it sends again (flush blocks its caller).
	flushing bool
	waiting  []pendingSend // sends waiting for the topic's metadata
	blocked  *blockedSend  // the send waiting for buffer memory, if any
	batchSeq int64
	rr       int64 // round-robin position for unkeyed sends
}

type batch struct {
	ID        int64
	TP        protocol.TP
	Records   []protocol.Record
	CreatedMs int64
	ReadyAtMs int64 // not before this (linger, then retry backoff)
	Attempts  int64
	InFlight  bool
	Bytes     int64 // taken from buffer.memory until the batch is done
	// the idempotent producer's identity of the batch, set when it is first drained
	HasSeq  bool
	PID     int64
	Epoch   int16
	BaseSeq int32
	// SeqReset: an epoch bump renumbered the batch after it was first sent
	// (ProducerBatch.sequenceHasBeenReset)
	SeqReset bool
}

func (b *batch) msgs() []string { return protocol.NewBatch(b.Records).Msgs() }

func (b *batch) lastSeq() int32 { return b.BaseSeq + int32(len(b.Records)) - 1 }

// full reports whether another record would not fit in batch.size (a batch always takes
// its first record, as Kafka sizes a new batch max(batch.size, record)).
func (b *batch) full(batchSize int64) bool { return int64(len(b.Records)+1)*RecordBytes > batchSize }

type pendingSend struct {
	Topic string
	Data  protocol.Data
	AtMs  int64
}

// blockedSend is a record whose send() waits in BufferPool.allocate for memory.
type blockedSend struct {
	Seq int64
	TP  protocol.TP
	Rec protocol.Record
}

// blockExpiry is max.block.ms of a send waiting for memory.
type blockExpiry struct{ Seq int64 }

func (blockExpiry) Kind() string     { return "MaxBlock" }
func (blockExpiry) Describe() string { return blockExpiryLine }

var blockExpiryLine = sim.TimerLine("", blockExpiry{})

func (a *recordAccumulator) reset() {
	a.flushing = false
	a.queues = map[protocol.TP][]*batch{}
	a.waiting = nil
	a.blocked = nil
}

// clone copies the accumulator, each batch through cp (the sender's copy of a batch in
// flight must be the same).
func (a *recordAccumulator) clone(cp func(*batch) *batch) recordAccumulator {
	c := *a
	c.queues = make(map[protocol.TP][]*batch, len(a.queues))
	for _, tp := range a.queueTPs() {
		for _, b := range a.queues[tp] {
			c.queues[tp] = append(c.queues[tp], cp(b))
		}
	}
	c.waiting = slices.Clone(a.waiting)
	if a.blocked != nil {
		b := *a.blocked
		c.blocked = &b
	}
	return c
}

// idle reports whether no record waits, is blocked or is in a batch not done.
func (a *recordAccumulator) idle() bool {
	if len(a.waiting) > 0 || a.blocked != nil {
		return false
	}
	for _, q := range a.queues {
		if len(q) > 0 {
			return false
		}
	}
	return true
}

func (a *recordAccumulator) isBlocked() bool { return a.blocked != nil }

// add takes a send to place once its topic's metadata is known.
func (a *recordAccumulator) add(s pendingSend) { a.waiting = append(a.waiting, s) }

// place moves waiting sends into partition batches once the topic's metadata is known,
// up to a send that blocks for memory.
func (a *recordAccumulator) place(env *sim.Env) {
	var still []pendingSend
	for i, s := range a.waiting {
		if a.blocked != nil {
			still = append(still, a.waiting[i:]...)
			break
		}
		n := a.sh.md.partitions(s.Topic)
		if n == 0 {
			still = append(still, s)
			continue
		}
		var part int32
		if s.Data.Key != "" {
			part = PartitionForKey(s.Data.Key, n)
		} else {
			part = int32(a.rr % int64(n))
			a.rr++
		}
		a.accumulate(env, protocol.TP{Topic: s.Topic, Partition: part}, protocol.Record{Body: s.Data}, s.AtMs)
	}
	a.waiting = still
	if len(still) > 0 && a.blocked == nil {
		a.sh.refreshMetadata(env)
	}
}

// accumulate appends a record to the partition's last batch while that batch has not been
// sent and has room under batch.size, whether or not its linger.ms has passed
// (RecordAccumulator.tryAppend appends to the deque's last batch until the sender drains
// it or it is full). Otherwise it starts a new batch, whose memory comes from
// buffer.memory: without room, the send blocks (BufferPool.allocate).
func (a *recordAccumulator) accumulate(env *sim.Env, tp protocol.TP, rec protocol.Record, createdMs int64) {
	cfg := &a.sh.cfg
	q := a.queues[tp]
	if n := len(q); n > 0 && !q[n-1].InFlight && q[n-1].Attempts == 0 && !q[n-1].full(cfg.BatchSize) {
		q[n-1].Records = append(slices.Clone(q[n-1].Records), rec)
		return
	}
	size := max(cfg.BatchSize, RecordBytes)
	if a.freeMemory() < size {
		a.batchSeq++
		a.blocked = &blockedSend{Seq: a.batchSeq, TP: tp, Rec: rec}
		env.After(cfg.MaxBlockMs, blockExpiry{Seq: a.batchSeq})
		return
	}
	a.batchSeq++
	b := &batch{ID: a.batchSeq, TP: tp, Records: []protocol.Record{rec}, CreatedMs: createdMs, ReadyAtMs: env.Now() + cfg.LingerMs, Bytes: size}
	a.queues[tp] = append(q, b)
	env.After(cfg.LingerMs, drainTick{})
	env.After(cfg.DeliveryTimeoutMs-(env.Now()-createdMs), deliveryExpiry{BatchID: b.ID})
}

// freeMemory is what buffer.memory has left after the batches not done yet.
func (a *recordAccumulator) freeMemory() int64 {
	free := a.sh.cfg.BufferMemory
	for _, q := range a.queues {
		for _, b := range q {
			free -= b.Bytes
		}
	}
	return free
}

// unblock gives the blocked send its batch once memory is free again (BufferPool wakes
// the waiter when a batch's buffer is deallocated).
func (a *recordAccumulator) unblock(env *sim.Env) {
	if b := a.blocked; b != nil && a.freeMemory() >= max(a.sh.cfg.BatchSize, RecordBytes) {
		a.blocked = nil
		// The batch is created once the memory is there: the time blocked counted
		// against max.block.ms, not delivery.timeout.ms.
		a.accumulate(env, b.TP, b.Rec, env.Now())
		a.place(env)
	}
}

// onBlockExpiry fails the blocked send when max.block.ms ran out: BufferPool.allocate
// gave up, and KafkaProducer.doSend hands the callback a BufferExhaustedException, a
// TimeoutException ("Failed to allocate memory within the configured max blocking
// time"). It reports whether the timer was the blocked send's.
func (a *recordAccumulator) onBlockExpiry(env *sim.Env, t blockExpiry) ([]Completion, bool) {
	b := a.blocked
	if b == nil || b.Seq != t.Seq {
		return nil, false
	}
	a.blocked = nil
	msgs := []string{b.Rec.Msg()}
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrTimeoutException.String(), Partition: b.TP.String(), Msgs: msgs})
	return []Completion{{Msgs: msgs, TP: b.TP, Offset: -1, Err: protocol.ErrTimeoutException}}, true
}

func (a *recordAccumulator) queueTPs() []protocol.TP {
	var out []protocol.TP
	for tp, q := range a.queues {
		if len(q) > 0 {
			out = append(out, tp)
		}
	}
	protocol.SortTPs(out)
	return out
}

// find is the batch with the given id, if it is not done yet.
func (a *recordAccumulator) find(id int64) *batch {
	for _, tp := range a.queueTPs() {
		for _, b := range a.queues[tp] {
			if b.ID == id {
				return b
			}
		}
	}
	return nil
}

// remove drops a batch that is done, freeing its memory.
func (a *recordAccumulator) remove(b *batch) {
	a.queues[b.TP] = slices.DeleteFunc(slices.Clone(a.queues[b.TP]), func(x *batch) bool { return x == b })
	if len(a.queues[b.TP]) == 0 {
		delete(a.queues, b.TP)
	}
}

// reenqueue puts a batch to retry back at the front of its partition's queue
// (RecordAccumulator.reenqueue's addFirst), or for an idempotent producer's batch in
// sequence order (insertInSequenceOrder).
func (a *recordAccumulator) reenqueue(b *batch, inSequenceOrder bool) {
	q := slices.DeleteFunc(slices.Clone(a.queues[b.TP]), func(x *batch) bool { return x == b })
	if inSequenceOrder {
		a.queues[b.TP] = reenqueueInSequenceOrder(q, b)
		return
	}
	a.queues[b.TP] = append([]*batch{b}, q...)
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

// tracked lists a partition's batches with a sequence that are not done, by sequence:
// what the transaction manager counts as in flight, on the wire or waiting to retry.
func (a *recordAccumulator) tracked(tp protocol.TP) []*batch {
	var out []*batch
	for _, b := range a.queues[tp] {
		if b.HasSeq {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b *batch) int { return int(a.BaseSeq - b.BaseSeq) })
	return out
}

// sendable is the partition's first batch not in flight when it makes its leader ready
// (RecordAccumulator.ready, batchReady): drainable, and full, or followed by another
// batch, or past linger.ms, or a send is blocked for memory (the pool is exhausted), or
// a retry whose backoff has passed.
func (a *recordAccumulator) sendable(env *sim.Env, tp protocol.TP, tm *transactionManager) *batch {
	first, waiting := a.drainable(env, tp, tm)
	switch {
	case first == nil:
		return nil
	case first.Attempts > 0, first.ReadyAtMs <= env.Now(), waiting > 1, first.full(a.sh.cfg.BatchSize), a.blocked != nil, a.flushing:
		return first
	}
	return nil
}

// drainable is the partition's first batch not in flight when the sender may take it
// for a leader that is ready, lingering or not (RecordAccumulator.drainBatchesForOneNode
// takes the first batch of every partition the ready node leads): not backing off after
// a failure, not held back by the transaction manager, and with
// max.in.flight.requests.per.connection 1 not behind a batch in flight (the partition is
// muted). waiting counts the partition's batches not in flight.
func (a *recordAccumulator) drainable(env *sim.Env, tp protocol.TP, tm *transactionManager) (first *batch, waiting int) {
	inflight := false
	for _, b := range a.queues[tp] {
		if b.InFlight {
			inflight = true
			continue
		}
		if first == nil {
			first = b
		}
		waiting++
	}
	switch {
	case first == nil, inflight && a.sh.cfg.MaxInFlight == 1:
		return nil, 0
	case tm != nil && a.stopDrain(first, tm):
		return nil, 0
	case first.Attempts > 0 && first.ReadyAtMs > env.Now():
		return nil, 0 // backing off
	}
	return first, waiting
}

// stopDrain reports whether a partition's first batch must wait
// (RecordAccumulator.shouldStopDrainBatchesForPartition): a new batch waits while the
// partition has batches of an older epoch not done, or its state is unresolved; a
// retried batch goes only when it is the lowest sequence not done, so that a retry
// never overtakes a batch before it (one request in flight per partition while
// retrying).
func (a *recordAccumulator) stopDrain(first *batch, tm *transactionManager) bool {
	tracked := a.tracked(first.TP)
	stale := tm.staleEpoch(first.TP)
	if !first.HasSeq {
		if len(tracked) > 0 && stale {
			return true
		}
		if tm.unresolved(first.TP) {
			return true
		}
	}
	return len(tracked) > 0 && first.HasSeq && first.BaseSeq != tracked[0].BaseSeq
}

// abortUndrained drops the batches never drained (no sequence yet) and the sends not yet
// in a batch, which fail with err (RecordAccumulator.abortUndrainedBatches).
func (a *recordAccumulator) abortUndrained(err protocol.Error) []Completion {
	var done []Completion
	for _, tp := range a.queueTPs() {
		for _, b := range slices.Clone(a.queues[tp]) {
			if !b.InFlight && !b.HasSeq {
				a.remove(b)
				done = append(done, Completion{Msgs: b.msgs(), TP: b.TP, Offset: -1, Err: err})
			}
		}
	}
	for _, s := range a.waiting {
		done = append(done, Completion{Msgs: []string{s.Data.Msg}, Offset: -1, Err: err})
	}
	a.waiting = nil
	return done
}

// abandon fails every batch and every send not yet in one with err, and drops them
// (RecordAccumulator.abortBatches after a fatal error).
func (a *recordAccumulator) abandon(err protocol.Error) []Completion {
	var done []Completion
	for _, tp := range a.queueTPs() {
		for _, b := range a.queues[tp] {
			done = append(done, Completion{Msgs: b.msgs(), TP: b.TP, Offset: -1, Err: err})
		}
	}
	for _, s := range a.waiting {
		done = append(done, Completion{Msgs: []string{s.Data.Msg}, Offset: -1, Err: err})
	}
	a.queues, a.waiting = map[protocol.TP][]*batch{}, nil
	return done
}
