// Package clients holds Kafka's clients: the producer (KafkaProducer's
// RecordAccumulator and Sender) and the consumer (KafkaConsumer with the classic
// group protocol's ConsumerCoordinator), with the metadata and connection handling they
// share. A client is not a node: the application that uses it (core/apps) is, and hands
// it the messages and timers that are its own.
package clients

import (
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
	idem     *idempotence  // nil unless enable.idempotence
	txn      *transactions // nil unless transactional.id
}

// Completion tells the application how a message's send ended.
type Completion struct {
	Msgs   []string
	TP     protocol.TP
	Offset int64
	Err    protocol.Error // "" on success
	// Txn is set when the completion reports a call of the transaction API
	// (initTransactions, sendOffsetsToTransaction, commitTransaction, abortTransaction)
	// rather than a send: it has no Msgs, and Err says why a call failed.
	Txn TxnEvent
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
	p := &Producer{cfg: cfg, md: metadata{Bootstrap: bootstrap, Topics: topics, BackoffMs: cfg.RetryBackoffMs}}
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
	p.idem = nil
	if p.cfg.EnableIdempotence {
		// A new process gets a new producer id: what it sends again is not
		// recognised as a retry (R12).
		p.idem = newIdempotence()
	}
	p.txn = nil
	if p.cfg.TransactionalID != "" {
		p.txn = newTransactions(p.cfg)
	}
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
	c.idem = p.idem.clone()
	c.txn = p.txn.clone()
	return &c
}

// Start is the producer's start: an idempotent producer asks for its producer id at
// once, as the Sender thread's first runOnce does, before any record is sent. (A
// producer not started asks at its first send.)
func (p *Producer) Start(env *sim.Env) {
	if p.idem != nil && p.idem.Init == initNone && p.txn == nil {
		p.sendInitProducerId(env)
	}
}

// Idle reports whether nothing is buffered, blocked or in flight.
func (p *Producer) Idle() bool {
	return len(p.inflight) == 0 && len(p.waiting) == 0 && p.blocked == nil && len(p.queueTPs()) == 0 &&
		(p.txn == nil || p.txn.Offsets == nil)
}

// Blocked reports whether the application's send() is waiting for buffer memory
// (BufferPool.allocate): the application does nothing else meanwhile.
func (p *Producer) Blocked() bool { return p.blocked != nil }

// Send hands one record to the client; it returns the sends that ended meanwhile. When
// the record needs a new batch and buffer.memory has no room for it, the send blocks
// (Blocked) until a batch is done and frees memory, or fails after max.block.ms.
func (p *Producer) Send(env *sim.Env, topic, key, value, msg string) []Completion {
	if t := p.txn; t != nil && t.State != TxnInTransaction {
		// KafkaProducer.send outside a transaction (TransactionManager.failIfNotReadyForSend):
		// after an error the send throws a KafkaException caused by that error ("Cannot
		// perform send because at least one previous transactional or idempotent request
		// has failed with errors"), which is what the application names.
		err := protocol.IllegalState("Cannot call send in state " + t.State.String())
		if (t.State == TxnAbortableError || t.State == TxnFatalError) && t.LastErr != "" {
			err = t.LastErr
		}
		return []Completion{{Msgs: []string{msg}, Offset: -1, Err: err}}
	}
	p.waiting = append(p.waiting, pendingSend{Topic: topic, Key: key, Value: value, Msg: msg, AtMs: env.Now()})
	return p.assign(env)
}

// Receive handles responses; it returns the sends that ended.
func (p *Producer) Receive(env *sim.Env, m sim.Message) []Completion {
	if done, ok := p.onTransactionMessage(env, m); ok {
		return done
	}
	if done, ok := p.onIdempotenceMessage(env, m); ok {
		return done
	}
	switch r := m.Payload.(type) {
	case protocol.MetadataResponse:
		p.md.onResponse(env, r)
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
				p.acked(b)
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
	case sim.Disconnected:
		return p.disconnect(env, r.Peer, protocol.ErrNetworkException)
	case sim.Refused:
		p.conns.broken(env, r.To)
		switch o := r.Orig.(type) {
		case protocol.MetadataRequest:
			p.md.onRefused(env)
		case protocol.ProduceRequest:
			if f := p.inflight[o.ReqID]; f != nil {
				delete(p.inflight, o.ReqID)
				return append(p.failAll(env, f, protocol.ErrNetworkException), p.drain(env)...)
			}
			if o.Acks != protocol.AcksNone {
				// A disconnect already failed this request; its refusal says nothing new.
				return nil
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

// Fire handles the client's timers; it returns the sends that ended.
func (p *Producer) Fire(env *sim.Env, t sim.Payload) []Completion {
	if done, ok := p.fireTransactions(env, t); ok {
		return done
	}
	if done, ok := p.fireIdempotence(env, t); ok {
		return done
	}
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
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrTimeoutException.String(), Partition: b.TP.String(), Msgs: msgs})
			return append([]Completion{{Msgs: msgs, TP: b.TP, Offset: -1, Err: protocol.ErrTimeoutException}}, p.assign(env)...)
		}
	}
	return nil
}
