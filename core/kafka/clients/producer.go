// Package clients holds Kafka's clients: the producer (KafkaProducer's
// RecordAccumulator and Sender) and the consumer (KafkaConsumer with the classic
// group protocol's ConsumerCoordinator), with the metadata and connection handling they
// share. A client is not a node: the application that uses it (core/apps) is, and hands
// it the messages and timers that are its own.
package clients

import (
	"cmp"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// RecordBytes is the size every record counts for in the simulator, whatever its key and
// value (a real record with a short key and value takes 10 to 20 bytes plus its share of
// the 61-byte batch header): batch.size and buffer.memory are counted in these.
const RecordBytes = 100

// Producer is the producer client: it batches records per partition (RecordAccumulator)
// until a batch is full (batch.size) or linger.ms has passed, takes each batch's memory
// from buffer.memory (BufferPool) and blocks the application's send up to max.block.ms
// when there is none, sends each broker one request with a batch of every ready
// partition it leads (Sender.sendProduceRequests), with at most
// max.in.flight.requests.per.connection requests per broker, and retries retriable
// errors after the retry backoff until retries or delivery.timeout.ms run out.
type Producer struct {
	cfg      ProducerConfig
	md       metadata
	queues   map[protocol.TP][]*batch
	inflight map[int64]*inflightProduce
	waiting  []pendingSend // sends waiting for the topic's metadata
	blocked  *blockedSend  // the send waiting for buffer memory, if any
	reqSeq   int64
	batchSeq int64
	rr       int64 // round-robin position for unkeyed sends
	conns    connections
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
}

func (b *batch) msgs() []string { return protocol.NewBatch(b.Records).Msgs() }

// full reports whether another record would not fit in batch.size (a batch always takes
// its first record, as Kafka sizes a new batch max(batch.size, record)).
func (b *batch) full(batchSize int64) bool { return int64(len(b.Records)+1)*RecordBytes > batchSize }

type inflightProduce struct {
	Batches []*batch // one per partition
	Broker  string
}

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

// Completion tells the application how a message's send ended.
type Completion struct {
	Msgs   []string
	TP     protocol.TP
	Offset int64
	Err    string // "" on success
}

// The producer's timers.
type (
	drainTick      struct{}                // send what is ready (linger or backoff over)
	requestTimeout struct{ ReqID int64 }   // request.timeout.ms of a produce request
	deliveryExpiry struct{ BatchID int64 } // delivery.timeout.ms of a batch (KIP-91)
	blockExpiry    struct{ Seq int64 }     // max.block.ms of a send waiting for memory
)

func (drainTick) Kind() string          { return "DrainTick" }
func (requestTimeout) Kind() string     { return "RequestTimeout" }
func (deliveryExpiry) Kind() string     { return "DeliveryExpiry" }
func (blockExpiry) Kind() string        { return "BlockExpiry" }
func (drainTick) Describe() string      { return "timer drain" }
func (requestTimeout) Describe() string { return "timer request-timeout" }
func (deliveryExpiry) Describe() string { return "timer delivery-expiry" }
func (blockExpiry) Describe() string    { return "timer max-block" }

// NewProducer makes a producer client that bootstraps from the given brokers.
func NewProducer(cfg ProducerConfig, bootstrap []string, topics []string) *Producer {
	p := &Producer{cfg: cfg, md: metadata{Bootstrap: bootstrap, Topics: topics}}
	p.Reset()
	return p
}

// Reset drops everything the client held in memory (the application crashed).
func (p *Producer) Reset() {
	p.md.reset()
	p.queues = map[protocol.TP][]*batch{}
	p.inflight = map[int64]*inflightProduce{}
	p.waiting = nil
	p.blocked = nil
	p.conns = connections{}
}

// Clone copies the client.
func (p *Producer) Clone() *Producer {
	c := *p
	c.md = p.md.clone()
	copied := map[*batch]*batch{}
	cp := func(b *batch) *batch {
		if n, ok := copied[b]; ok {
			return n
		}
		n := *b
		copied[b] = &n
		return &n
	}
	c.queues = make(map[protocol.TP][]*batch, len(p.queues))
	for _, tp := range p.queueTPs() {
		for _, b := range p.queues[tp] {
			c.queues[tp] = append(c.queues[tp], cp(b))
		}
	}
	c.inflight = make(map[int64]*inflightProduce, len(p.inflight))
	for _, id := range p.inflightIDs() {
		f := p.inflight[id]
		n := &inflightProduce{Broker: f.Broker}
		for _, b := range f.Batches {
			n.Batches = append(n.Batches, cp(b))
		}
		c.inflight[id] = n
	}
	c.waiting = slices.Clone(p.waiting)
	if p.blocked != nil {
		b := *p.blocked
		c.blocked = &b
	}
	c.conns = maps.Clone(p.conns)
	return &c
}

// Idle reports whether nothing is buffered, blocked or in flight.
func (p *Producer) Idle() bool {
	return len(p.inflight) == 0 && len(p.waiting) == 0 && p.blocked == nil && len(p.queueTPs()) == 0
}

// Blocked reports whether the application's send() is waiting for buffer memory
// (BufferPool.allocate): the application does nothing else meanwhile.
func (p *Producer) Blocked() bool { return p.blocked != nil }

// Send hands one record to the client; it returns the sends that ended meanwhile. When
// the record needs a new batch and buffer.memory has no room for it, the send blocks
// (Blocked) until a batch is done and frees memory, or fails after max.block.ms.
func (p *Producer) Send(env *sim.Env, topic, key, value, msg string) []Completion {
	p.waiting = append(p.waiting, pendingSend{Topic: topic, Key: key, Value: value, Msg: msg, AtMs: env.Now()})
	return p.assign(env)
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

func (p *Producer) inflightIDs() []int64 {
	return slices.SortedFunc(maps.Keys(p.inflight), cmp.Compare[int64])
}

func (p *Producer) inflightTo(broker string) int {
	n := 0
	for _, f := range p.inflight {
		if f.Broker == broker {
			n++
		}
	}
	return n
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

// drain sends each broker with a free in-flight slot one request carrying the sendable
// batch of every partition it leads (Sender.sendProducerData, sendProduceRequests), and
// again while more are sendable.
func (p *Producer) drain(env *sim.Env) []Completion {
	p.unblock(env)
	var done []Completion
	for {
		byLeader := map[string][]*batch{}
		needMeta := false
		for _, tp := range p.queueTPs() {
			b := p.sendable(env, tp)
			if b == nil {
				continue
			}
			leader := p.md.leader(tp)
			if leader == "" {
				needMeta = true
				continue
			}
			byLeader[leader] = append(byLeader[leader], b)
		}
		if needMeta {
			p.md.refresh(env, p.cfg.RequestTimeoutMs)
		}
		sent := false
		for _, leader := range slices.Sorted(maps.Keys(byLeader)) {
			if !p.conns.ready(env, leader) || p.inflightTo(leader) >= p.cfg.MaxInFlight {
				continue
			}
			done = append(done, p.sendRequest(env, leader, byLeader[leader])...)
			sent = true
		}
		if !sent {
			return done
		}
		p.unblock(env) // acks=0 batches are done once sent
	}
}

func (p *Producer) sendRequest(env *sim.Env, leader string, batches []*batch) []Completion {
	p.reqSeq++
	req := protocol.ProduceRequest{ReqID: p.reqSeq, Acks: p.cfg.Acks, TimeoutMs: p.cfg.RequestTimeoutMs}
	for _, b := range batches {
		b.Attempts++
		req.Partitions = append(req.Partitions, protocol.ProducePartition{TP: b.TP, Batch: protocol.NewBatch(b.Records)})
	}
	env.Send(leader, req)
	if p.cfg.Acks == protocol.AcksNone {
		// acks=0: the send counts as done the moment it is written to the socket (R4).
		var done []Completion
		for _, b := range batches {
			p.remove(b)
			done = append(done, Completion{Msgs: b.msgs(), TP: b.TP, Offset: -1})
		}
		return done
	}
	for _, b := range batches {
		b.InFlight = true
	}
	p.inflight[p.reqSeq] = &inflightProduce{Batches: batches, Broker: leader}
	env.After(p.cfg.RequestTimeoutMs, requestTimeout{ReqID: p.reqSeq})
	return nil
}

func (p *Producer) remove(b *batch) {
	p.queues[b.TP] = slices.DeleteFunc(slices.Clone(p.queues[b.TP]), func(x *batch) bool { return x == b })
	if len(p.queues[b.TP]) == 0 {
		delete(p.queues, b.TP)
	}
}

// Receive handles responses; it returns the sends that ended.
func (p *Producer) Receive(env *sim.Env, m sim.Message) []Completion {
	switch r := m.Payload.(type) {
	case protocol.MetadataResponse:
		p.md.onResponse(env, r, p.cfg.RetryBackoffMs)
		return p.assign(env)
	case protocol.ProduceResponse:
		f := p.inflight[r.ReqID]
		if f == nil {
			return nil // answered after the request timed out
		}
		delete(p.inflight, r.ReqID)
		var done []Completion
		for _, part := range r.Partitions {
			i := slices.IndexFunc(f.Batches, func(b *batch) bool { return b.TP == part.TP })
			if i < 0 {
				continue // the batch expired meanwhile
			}
			b := f.Batches[i]
			b.InFlight = false
			if part.Err == "" {
				p.remove(b)
				done = append(done, Completion{Msgs: b.msgs(), TP: part.TP, Offset: part.BaseOffset})
				continue
			}
			done = append(done, p.failed(env, b, part.Err)...)
		}
		return append(done, p.drain(env)...)
	case protocol.ApiVersionsResponse:
		p.conns.opened(m.From)
		return p.drain(env)
	case sim.Refused:
		p.conns.broken(env, r.To)
		switch o := r.Orig.(type) {
		case protocol.MetadataRequest:
			p.md.onRefused(env, p.cfg.RetryBackoffMs)
		case protocol.ProduceRequest:
			if f := p.inflight[o.ReqID]; f != nil {
				delete(p.inflight, o.ReqID)
				return append(p.failAll(env, f, protocol.ErrNetworkException), p.drain(env)...)
			}
			// acks=0: the batch was already counted as sent; the broken connection only
			// makes the client look for the leader again.
			for _, pd := range o.Partitions {
				p.md.forget(pd.TP)
			}
			p.md.refresh(env, p.cfg.RequestTimeoutMs)
		case protocol.ApiVersionsRequest:
			p.md.refresh(env, p.cfg.RequestTimeoutMs)
		}
	}
	return nil
}

// failAll fails every batch of a request that will not be answered.
func (p *Producer) failAll(env *sim.Env, f *inflightProduce, err string) []Completion {
	var done []Completion
	for _, b := range f.Batches {
		b.InFlight = false
		done = append(done, p.failed(env, b, err)...)
	}
	return done
}

// failed retries a batch after a retriable error, or gives up on it. A retried batch goes
// back to the front of its partition's queue (Sender.completeBatch, then
// RecordAccumulator.reenqueue's addFirst): a later batch already in flight lands first,
// and batches that failed together go out again last-failed first: with more than one
// request in flight and no idempotence a key's records reorder.
func (p *Producer) failed(env *sim.Env, b *batch, err string) []Completion {
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: err, Partition: b.TP.String(), Msgs: b.msgs()})
	if protocol.NeedsMetadata(err) {
		p.md.forget(b.TP)
	}
	expired := env.Now()-b.CreatedMs >= p.cfg.DeliveryTimeoutMs
	if protocol.Retriable(err) && b.Attempts <= p.cfg.Retries && !expired {
		wait := backoffMs(env, p.cfg.RetryBackoffMs, p.cfg.RetryBackoffMaxMs, int(b.Attempts))
		b.ReadyAtMs = env.Now() + wait
		env.After(wait, drainTick{})
		q := slices.DeleteFunc(slices.Clone(p.queues[b.TP]), func(x *batch) bool { return x == b })
		p.queues[b.TP] = append([]*batch{b}, q...)
		return nil
	}
	p.remove(b)
	if expired {
		err = protocol.ErrTimeoutException
	}
	return []Completion{{Msgs: b.msgs(), TP: b.TP, Offset: -1, Err: err}}
}

// Fire handles the client's timers; it returns the sends that ended.
func (p *Producer) Fire(env *sim.Env, t sim.Payload) []Completion {
	switch t := t.(type) {
	case metadataTimeout, metadataRetry:
		p.md.onTimer(env, t, p.cfg.RequestTimeoutMs)
	case drainTick:
		return p.drain(env)
	case requestTimeout:
		if f := p.inflight[t.ReqID]; f != nil {
			return p.timedOut(env, f.Broker)
		}
	case deliveryExpiry:
		return p.expire(env, t.BatchID)
	case blockExpiry:
		if b := p.blocked; b != nil && b.Seq == t.Seq {
			// BufferPool.allocate gave up: KafkaProducer.doSend hands the callback a
			// BufferExhaustedException, a TimeoutException ("Failed to allocate memory
			// within the configured max blocking time").
			p.blocked = nil
			msgs := []string{b.Rec.Msg()}
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrTimeoutException, Partition: b.TP.String(), Msgs: msgs})
			return append([]Completion{{Msgs: msgs, TP: b.TP, Offset: -1, Err: protocol.ErrTimeoutException}}, p.assign(env)...)
		}
	}
	return nil
}

// timedOut handles a produce request unanswered for request.timeout.ms as NetworkClient
// does (handleTimedOutRequests, processTimeoutDisconnection): it closes the connection to
// the broker, and every request in flight on it ends as timed out (REQUEST_TIMED_OUT,
// Sender.handleProduceResponse), oldest first (InFlightRequests.clearAll), to be retried
// on a new connection opened after reconnect.backoff.ms.
func (p *Producer) timedOut(env *sim.Env, broker string) []Completion {
	p.conns.close(env, broker, firstReconnectBackoffMs)
	var done []Completion
	for _, id := range p.inflightIDs() {
		if f := p.inflight[id]; f.Broker == broker {
			delete(p.inflight, id)
			done = append(done, p.failAll(env, f, protocol.ErrRequestTimedOut)...)
		}
	}
	return append(done, p.drain(env)...)
}

// expire fails a batch whose delivery.timeout.ms ran out, in flight or not (KIP-91).
func (p *Producer) expire(env *sim.Env, id int64) []Completion {
	for _, tp := range p.queueTPs() {
		for _, b := range p.queues[tp] {
			if b.ID != id {
				continue
			}
			for _, rid := range p.inflightIDs() {
				f := p.inflight[rid]
				f.Batches = slices.DeleteFunc(slices.Clone(f.Batches), func(x *batch) bool { return x == b })
				if len(f.Batches) == 0 {
					delete(p.inflight, rid)
				}
			}
			p.remove(b)
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrTimeoutException, Partition: tp.String(), Msgs: b.msgs()})
			return append([]Completion{{Msgs: b.msgs(), TP: tp, Offset: -1, Err: protocol.ErrTimeoutException}}, p.drain(env)...)
		}
	}
	return nil
}
