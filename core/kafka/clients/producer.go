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

// Producer is the producer client: it batches records per partition for linger.ms,
// sends them to partition leaders with at most max.in.flight.requests.per.connection
// requests per broker, and retries retriable errors after the retry backoff until
// retries or delivery.timeout.ms run out.
type Producer struct {
	cfg      ProducerConfig
	md       metadata
	queues   map[protocol.TP][]*batch
	inflight map[int64]*inflightProduce
	waiting  []pendingSend // sends waiting for the topic's metadata
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
}

func (b *batch) msgs() []string { return protocol.NewBatch(b.Records).Msgs() }

type inflightProduce struct {
	Batch  *batch
	Broker string
}

type pendingSend struct {
	Topic, Key, Value, Msg string
	AtMs                   int64
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
)

func (drainTick) Kind() string          { return "DrainTick" }
func (requestTimeout) Kind() string     { return "RequestTimeout" }
func (deliveryExpiry) Kind() string     { return "DeliveryExpiry" }
func (drainTick) Describe() string      { return "timer drain" }
func (requestTimeout) Describe() string { return "timer request-timeout" }
func (deliveryExpiry) Describe() string { return "timer delivery-expiry" }

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
		c.inflight[id] = &inflightProduce{Batch: cp(f.Batch), Broker: f.Broker}
	}
	c.waiting = slices.Clone(p.waiting)
	c.conns = maps.Clone(p.conns)
	return &c
}

// Idle reports whether nothing is buffered or in flight.
func (p *Producer) Idle() bool {
	return len(p.inflight) == 0 && len(p.waiting) == 0 && len(p.queueTPs()) == 0
}

// Send hands one record to the client; it returns the sends that ended meanwhile.
func (p *Producer) Send(env *sim.Env, topic, key, value, msg string) []Completion {
	p.waiting = append(p.waiting, pendingSend{Topic: topic, Key: key, Value: value, Msg: msg, AtMs: env.Now()})
	return p.assign(env)
}

// assign moves waiting sends into partition batches once the topic's metadata is known.
func (p *Producer) assign(env *sim.Env) []Completion {
	var still []pendingSend
	for _, s := range p.waiting {
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
	if len(still) > 0 {
		p.md.refresh(env, p.cfg.RequestTimeoutMs)
	}
	return p.drain(env)
}

// accumulate appends a record to the partition's last batch while that batch has not been
// sent, whether or not its linger.ms has passed (RecordAccumulator.tryAppend appends to
// the deque's last batch until the sender drains it): records sent while the partition
// waits for a free in-flight slot join one batch. Otherwise it starts a new batch.
func (p *Producer) accumulate(env *sim.Env, tp protocol.TP, rec protocol.Record, createdMs int64) {
	q := p.queues[tp]
	if n := len(q); n > 0 && !q[n-1].InFlight && q[n-1].Attempts == 0 {
		q[n-1].Records = append(slices.Clone(q[n-1].Records), rec)
		return
	}
	p.batchSeq++
	b := &batch{ID: p.batchSeq, TP: tp, Records: []protocol.Record{rec}, CreatedMs: createdMs, ReadyAtMs: env.Now() + p.cfg.LingerMs}
	p.queues[tp] = append(q, b)
	env.After(p.cfg.LingerMs, drainTick{})
	env.After(p.cfg.DeliveryTimeoutMs-(env.Now()-createdMs), deliveryExpiry{BatchID: b.ID})
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

// drain sends every ready batch whose leader is known and whose connection has room.
func (p *Producer) drain(env *sim.Env) []Completion {
	var done []Completion
	needMeta := false
	for _, tp := range p.queueTPs() {
		for _, b := range p.queues[tp] {
			if b.InFlight {
				continue
			}
			if b.ReadyAtMs > env.Now() {
				break
			}
			leader := p.md.leader(tp)
			if leader == "" {
				needMeta = true
				break
			}
			if !p.conns.ready(env, leader) {
				break
			}
			if p.inflightTo(leader) >= p.cfg.MaxInFlight {
				break
			}
			done = append(done, p.sendBatch(env, b, leader)...)
		}
	}
	if needMeta {
		p.md.refresh(env, p.cfg.RequestTimeoutMs)
	}
	return done
}

func (p *Producer) sendBatch(env *sim.Env, b *batch, leader string) []Completion {
	p.reqSeq++
	b.Attempts++
	req := protocol.ProduceRequest{ReqID: p.reqSeq, Acks: p.cfg.Acks, TimeoutMs: p.cfg.RequestTimeoutMs,
		Partitions: []protocol.ProducePartition{{TP: b.TP, Batch: protocol.NewBatch(b.Records)}}}
	env.Send(leader, req)
	if p.cfg.Acks == protocol.AcksNone {
		// acks=0: the send counts as done the moment it is written to the socket (R4).
		p.remove(b)
		return []Completion{{Msgs: b.msgs(), TP: b.TP, Offset: -1}}
	}
	b.InFlight = true
	p.inflight[p.reqSeq] = &inflightProduce{Batch: b, Broker: leader}
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
		f.Batch.InFlight = false
		part := r.Partitions[0]
		if part.Err == "" {
			p.remove(f.Batch)
			return append([]Completion{{Msgs: f.Batch.msgs(), TP: part.TP, Offset: part.BaseOffset}}, p.drain(env)...)
		}
		return p.failed(env, f, part.Err)
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
				f.Batch.InFlight = false
				return p.failed(env, f, protocol.ErrNetworkException)
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

// failed retries a batch after a retriable error, or gives up on it.
func (p *Producer) failed(env *sim.Env, f *inflightProduce, err string) []Completion {
	b := f.Batch
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: err, Partition: b.TP.String(), Msgs: b.msgs()})
	if protocol.NeedsMetadata(err) {
		p.md.forget(b.TP)
	}
	expired := env.Now()-b.CreatedMs >= p.cfg.DeliveryTimeoutMs
	if protocol.Retriable(err) && b.Attempts <= p.cfg.Retries && !expired {
		wait := backoffMs(env, p.cfg.RetryBackoffMs, p.cfg.RetryBackoffMaxMs, int(b.Attempts))
		b.ReadyAtMs = env.Now() + wait
		env.After(wait, drainTick{})
		return p.drain(env)
	}
	p.remove(b)
	if expired {
		err = protocol.ErrTimeoutException
	}
	return append([]Completion{{Msgs: b.msgs(), TP: b.TP, Offset: -1, Err: err}}, p.drain(env)...)
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
			delete(p.inflight, t.ReqID)
			f.Batch.InFlight = false
			return p.failed(env, f, protocol.ErrRequestTimedOut)
		}
	case deliveryExpiry:
		return p.expire(env, t.BatchID)
	}
	return nil
}

// expire fails a batch whose delivery.timeout.ms ran out, in flight or not (KIP-91).
func (p *Producer) expire(env *sim.Env, id int64) []Completion {
	for _, tp := range p.queueTPs() {
		for _, b := range p.queues[tp] {
			if b.ID != id {
				continue
			}
			for _, rid := range p.inflightIDs() {
				if p.inflight[rid].Batch == b {
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
