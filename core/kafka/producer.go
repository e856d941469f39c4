package kafka

import (
	"sort"

	"deliverylab/core/sim"
)

// Producer is the producer client (KafkaProducer's accumulator and sender): it batches
// records per partition for linger.ms, sends them to partition leaders with at most
// max.in.flight.requests.per.connection requests per broker, and retries retriable
// errors after retry.backoff.ms until retries or delivery.timeout.ms run out.
type Producer struct {
	cfg      ProducerConfig
	md       metadataClient
	queues   map[TP][]*batch
	inflight map[int64]*inflightProduce
	waiting  []pendingSend // sends waiting for the topic's metadata
	reqSeq   int64
	batchSeq int64
	rr       int64 // round-robin position for unkeyed sends
	// conns is the state of the connection to each broker, as NetworkClient keeps it:
	// nothing but ApiVersions goes to a broker until the connection is ready, and after
	// a broken connection the client waits reconnect.backoff.max.ms before trying again.
	conns map[string]conn
}

type conn struct {
	Ready      bool
	Connecting bool
	RetryAtMs  int64
}

// reconnectBackoffMs is reconnect.backoff.max.ms's default.
const reconnectBackoffMs = 1000

type batch struct {
	ID        int64
	TP        TP
	Records   []Record
	CreatedMs int64
	ReadyAtMs int64 // not before this (linger, then retry backoff)
	Attempts  int64
	InFlight  bool
}

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
	TP     TP
	Offset int64
	Err    string // "" on success
}

type producerTimer struct {
	What string
	ID   int64
}

func (producerTimer) Kind() string       { return "timer" }
func (t producerTimer) Describe() string { return "timer producer " + t.What + " " + itoa64(t.ID) }

// NewProducer makes a producer client that bootstraps from the given brokers.
func NewProducer(cfg ProducerConfig, bootstrap []string, topics []string) *Producer {
	p := &Producer{cfg: cfg, md: metadataClient{Bootstrap: bootstrap, Topics: topics}}
	p.Reset()
	return p
}

// Reset drops everything the client held in memory (the application crashed).
func (p *Producer) Reset() {
	p.md.reset()
	p.queues = map[TP][]*batch{}
	p.inflight = map[int64]*inflightProduce{}
	p.waiting = nil
	p.conns = map[string]conn{}
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
		n.Records = append([]Record(nil), b.Records...)
		copied[b] = &n
		return &n
	}
	c.queues = make(map[TP][]*batch, len(p.queues))
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
	c.waiting = append([]pendingSend(nil), p.waiting...)
	c.conns = copyMap(p.conns)
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
		p.accumulate(env, TP{Topic: s.Topic, Partition: part}, Record{Msg: s.Msg, Key: s.Key, Value: s.Value}, s.AtMs)
	}
	p.waiting = still
	if len(still) > 0 {
		p.md.refresh(env, p.cfg.RequestTimeoutMs)
	}
	return p.drain(env)
}

func (p *Producer) accumulate(env *sim.Env, tp TP, rec Record, createdMs int64) {
	q := p.queues[tp]
	if n := len(q); n > 0 && !q[n-1].InFlight && q[n-1].Attempts == 0 && q[n-1].ReadyAtMs > env.Now() {
		q[n-1].Records = append(q[n-1].Records, rec)
		return
	}
	p.batchSeq++
	b := &batch{ID: p.batchSeq, TP: tp, Records: []Record{rec}, CreatedMs: createdMs, ReadyAtMs: env.Now() + p.cfg.LingerMs}
	p.queues[tp] = append(q, b)
	env.After(p.cfg.LingerMs, producerTimer{What: "drain"})
	env.After(p.cfg.DeliveryTimeoutMs-(env.Now()-createdMs), producerTimer{What: "expire", ID: b.ID})
}

func (p *Producer) queueTPs() []TP {
	var out []TP
	for tp, q := range p.queues {
		if len(q) > 0 {
			out = append(out, tp)
		}
	}
	sortTPs(out)
	return out
}

func (p *Producer) inflightIDs() []int64 {
	out := make([]int64, 0, len(p.inflight))
	for id := range p.inflight {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
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
			if !p.connect(env, leader) {
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
	req := ProduceRequest{ReqID: p.reqSeq, TP: b.TP, Acks: p.cfg.Acks, TimeoutMs: p.cfg.RequestTimeoutMs, Records: b.Records}
	env.Send(leader, req)
	if p.cfg.Acks == 0 {
		// acks=0: the send counts as done the moment it is written to the socket (R4).
		p.remove(b)
		return []Completion{{Msgs: msgsOf(b.Records), TP: b.TP, Offset: -1}}
	}
	b.InFlight = true
	p.inflight[p.reqSeq] = &inflightProduce{Batch: b, Broker: leader}
	env.After(p.cfg.RequestTimeoutMs, producerTimer{What: "request-timeout", ID: p.reqSeq})
	return nil
}

func (p *Producer) remove(b *batch) {
	q := p.queues[b.TP]
	for i, x := range q {
		if x == b {
			p.queues[b.TP] = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	if len(p.queues[b.TP]) == 0 {
		delete(p.queues, b.TP)
	}
}

// Receive handles responses; it returns the sends that ended.
func (p *Producer) Receive(env *sim.Env, m sim.Message) []Completion {
	switch r := m.Payload.(type) {
	case MetadataResponse:
		if !p.md.onResponse(r) {
			env.After(p.cfg.RetryBackoffMs, metadataTimer{Seq: -1})
		}
		return p.assign(env)
	case ProduceResponse:
		f := p.inflight[r.ReqID]
		if f == nil {
			return nil // answered after the request timed out
		}
		delete(p.inflight, r.ReqID)
		f.Batch.InFlight = false
		if r.Err == "" {
			p.remove(f.Batch)
			return append([]Completion{{Msgs: msgsOf(f.Batch.Records), TP: r.TP, Offset: r.BaseOffset}}, p.drain(env)...)
		}
		return p.failed(env, f, r.Err)
	case ApiVersionsResponse:
		p.conns[m.From] = conn{Ready: true}
		return p.drain(env)
	case sim.Refused:
		p.conns[r.To] = conn{RetryAtMs: env.Now() + reconnectBackoffMs}
		env.After(reconnectBackoffMs, producerTimer{What: "drain"})
		switch o := r.Orig.(type) {
		case MetadataRequest:
			p.md.onRefused(env, p.cfg.RetryBackoffMs)
		case ProduceRequest:
			if f := p.inflight[o.ReqID]; f != nil {
				delete(p.inflight, o.ReqID)
				f.Batch.InFlight = false
				return p.failed(env, f, ErrNetworkException)
			}
			// acks=0: the batch was already counted as sent; the broken connection only
			// makes the client look for the leader again.
			p.md.forget(o.TP)
			p.md.refresh(env, p.cfg.RequestTimeoutMs)
		case ApiVersionsRequest:
			p.md.refresh(env, p.cfg.RequestTimeoutMs)
		}
	}
	return nil
}

// failed retries a batch after a retriable error, or gives up on it.
func (p *Producer) failed(env *sim.Env, f *inflightProduce, err string) []Completion {
	b := f.Batch
	env.Observe(sim.Observation{Event: "error", Detail: err, Partition: b.TP.String(), Msgs: msgsOf(b.Records)})
	if needsMetadata(err) {
		p.md.forget(b.TP)
	}
	expired := env.Now()-b.CreatedMs >= p.cfg.DeliveryTimeoutMs
	if retriable(err) && b.Attempts <= p.cfg.Retries && !expired {
		wait := backoffMs(env, p.cfg.RetryBackoffMs, p.cfg.RetryBackoffMaxMs, int(b.Attempts))
		b.ReadyAtMs = env.Now() + wait
		env.After(wait, producerTimer{What: "drain"})
		return p.drain(env)
	}
	p.remove(b)
	if expired {
		err = ErrTimeoutException
	}
	return append([]Completion{{Msgs: msgsOf(b.Records), TP: b.TP, Offset: -1, Err: err}}, p.drain(env)...)
}

// Fire handles the client's timers; it returns the sends that ended.
func (p *Producer) Fire(env *sim.Env, t sim.Payload) []Completion {
	switch pt := t.(type) {
	case metadataTimer:
		p.md.onTimer(env, pt, p.cfg.RequestTimeoutMs)
	case producerTimer:
		switch pt.What {
		case "drain":
			return p.drain(env)
		case "request-timeout":
			if f := p.inflight[pt.ID]; f != nil {
				delete(p.inflight, pt.ID)
				f.Batch.InFlight = false
				return p.failed(env, f, ErrRequestTimedOut)
			}
		case "expire":
			return p.expire(env, pt.ID)
		}
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
			env.Observe(sim.Observation{Event: "error", Detail: ErrTimeoutException, Partition: tp.String(), Msgs: msgsOf(b.Records)})
			return append([]Completion{{Msgs: msgsOf(b.Records), TP: tp, Offset: -1, Err: ErrTimeoutException}}, p.drain(env)...)
		}
	}
	return nil
}

// connect reports whether the connection to a broker is ready, starting to open it
// (an ApiVersions round trip) when it is not and the reconnect backoff has passed.
func (p *Producer) connect(env *sim.Env, broker string) bool {
	c := p.conns[broker]
	if c.Ready {
		return true
	}
	if c.Connecting || env.Now() < c.RetryAtMs {
		return false
	}
	p.conns[broker] = conn{Connecting: true}
	env.Send(broker, ApiVersionsRequest{})
	return false
}
