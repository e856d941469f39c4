package clients

import (
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The producer's RecordAccumulator and BufferPool: records placed on partitions, batched
// per partition up to batch.size and linger.ms, each batch taking its memory from
// buffer.memory, and a send() that finds none blocked up to max.block.ms.

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

// full reports whether another record would not fit in batch.size (a batch always takes
// its first record, as Kafka sizes a new batch max(batch.size, record)).
func (b *batch) full(batchSize int64) bool { return int64(len(b.Records)+1)*RecordBytes > batchSize }

type pendingSend struct {
	Topic, Key, Value, Msg string
	AtMs                   int64
}

// blockedSend is a record whose send() waits in BufferPool.allocate for memory.
type blockedSend struct {
	Seq int64
	TP  protocol.TP
	Rec protocol.Record
}

// assign moves waiting sends into partition batches once the topic's metadata is known,
// and sends what is ready.
func (p *Producer) assign(env *sim.Env) []Completion {
	p.place(env)
	return p.drain(env)
}

// place moves waiting sends into partition batches once the topic's metadata is known,
// up to a send that blocks for memory.
func (p *Producer) place(env *sim.Env) {
	var still []pendingSend
	for i, s := range p.waiting {
		if p.blocked != nil {
			still = append(still, p.waiting[i:]...)
			break
		}
		n := p.md.partitions(s.Topic)
		if n == 0 {
			still = append(still, s)
			continue
		}
		var part int32
		if s.Key != "" {
			part = PartitionForKey(s.Key, n)
		} else {
			part = int32(p.rr % int64(n))
			p.rr++
		}
		p.accumulate(env, protocol.TP{Topic: s.Topic, Partition: part}, protocol.DataRecord(s.Msg, s.Key, s.Value), s.AtMs)
	}
	p.waiting = still
	if len(still) > 0 && p.blocked == nil {
		p.md.refresh(env, p.cfg.RequestTimeoutMs)
	}
}

// accumulate appends a record to the partition's last batch while that batch has not been
// sent and has room under batch.size, whether or not its linger.ms has passed
// (RecordAccumulator.tryAppend appends to the deque's last batch until the sender drains
// it or it is full). Otherwise it starts a new batch, whose memory comes from
// buffer.memory: without room, the send blocks (BufferPool.allocate).
func (p *Producer) accumulate(env *sim.Env, tp protocol.TP, rec protocol.Record, createdMs int64) {
	q := p.queues[tp]
	if n := len(q); n > 0 && !q[n-1].InFlight && q[n-1].Attempts == 0 && !q[n-1].full(p.cfg.BatchSize) {
		q[n-1].Records = append(slices.Clone(q[n-1].Records), rec)
		return
	}
	size := max(p.cfg.BatchSize, RecordBytes)
	if p.freeMemory() < size {
		p.batchSeq++
		p.blocked = &blockedSend{Seq: p.batchSeq, TP: tp, Rec: rec}
		env.After(p.cfg.MaxBlockMs, blockExpiry{Seq: p.batchSeq})
		return
	}
	p.batchSeq++
	b := &batch{ID: p.batchSeq, TP: tp, Records: []protocol.Record{rec}, CreatedMs: createdMs, ReadyAtMs: env.Now() + p.cfg.LingerMs, Bytes: size}
	p.queues[tp] = append(q, b)
	env.After(p.cfg.LingerMs, drainTick{})
	env.After(p.cfg.DeliveryTimeoutMs-(env.Now()-createdMs), deliveryExpiry{BatchID: b.ID})
}

// freeMemory is what buffer.memory has left after the batches not done yet.
func (p *Producer) freeMemory() int64 {
	free := p.cfg.BufferMemory
	for _, q := range p.queues {
		for _, b := range q {
			free -= b.Bytes
		}
	}
	return free
}

// unblock gives the blocked send its batch once memory is free again (BufferPool wakes
// the waiter when a batch's buffer is deallocated).
func (p *Producer) unblock(env *sim.Env) {
	if b := p.blocked; b != nil && p.freeMemory() >= max(p.cfg.BatchSize, RecordBytes) {
		p.blocked = nil
		// The batch is created once the memory is there: the time blocked counted
		// against max.block.ms, not delivery.timeout.ms.
		p.accumulate(env, b.TP, b.Rec, env.Now())
		p.place(env)
	}
}

func (p *Producer) queueTPs() []protocol.TP {
	var out []protocol.TP
	for tp, q := range p.queues {
		if len(q) > 0 {
			out = append(out, tp)
		}
	}
	protocol.SortTPs(out)
	return out
}

// sendable is the partition's first batch not in flight when it may go now
// (RecordAccumulator.ready and drainBatchesForOneNode): not backing off after a failure,
// and full, or followed by another batch, or past linger.ms, or a send is blocked for
// memory (the pool is exhausted). With max.in.flight.requests.per.connection 1 a
// partition with a batch in flight sends nothing more (the partition is muted).
func (p *Producer) sendable(env *sim.Env, tp protocol.TP) *batch {
	var first *batch
	waiting, inflight := 0, false
	for _, b := range p.queues[tp] {
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
	case first == nil, inflight && p.cfg.MaxInFlight == 1:
		return nil
	case p.idem != nil && p.stopDrain(first):
		return nil
	case first.Attempts > 0:
		if first.ReadyAtMs > env.Now() {
			return nil // backing off
		}
		return first
	case first.ReadyAtMs <= env.Now(), waiting > 1, first.full(p.cfg.BatchSize), p.blocked != nil:
		return first
	}
	return nil
}
