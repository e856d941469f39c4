// Package clients holds Kafka's clients: the producer (KafkaProducer's
// RecordAccumulator, Sender and TransactionManager) and the consumer (KafkaConsumer with
// the classic group protocol's ConsumerCoordinator), with the metadata and connection
// handling they share. A client is not a node: the application that uses it (core/apps)
// is, and hands it the messages and timers that are its own.
package clients

import (
	"maps"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// RecordBytes is the size every record counts for in the simulator, whatever its key and
// value (a real record with a short key and value takes 10 to 20 bytes plus its share of
// the 61-byte batch header): batch.size and buffer.memory are counted in these.
const RecordBytes = 100

// Producer is the producer client, built of the roles KafkaProducer has: the
// RecordAccumulator batches records per partition until a batch is full (batch.size) or
// linger.ms has passed, taking each batch's memory from buffer.memory and blocking the
// application's send up to max.block.ms when there is none; the Sender sends each broker
// one request with a batch of every ready partition it leads, at most
// max.in.flight.requests.per.connection per broker, and retries retriable errors after
// the retry backoff until retries or delivery.timeout.ms run out; the TransactionManager
// (enable.idempotence) holds the producer id, epoch and sequences, and with a
// transactional.id runs the transaction and its coordinator requests. Producer hands
// each message and timer to the role that owns it.
type Producer struct {
	sh  producerShared
	acc recordAccumulator
	snd sender
	tm  *transactionManager // nil unless enable.idempotence (or a transactional.id)
}

// producerShared is what the roles share, as Kafka's share the producer's config, its
// ProducerMetadata and its NetworkClient: one sequence of request ids numbers the
// produce requests and the transaction manager's alike.
type producerShared struct {
	cfg    ProducerConfig
	md     metadata
	conns  connections
	reqSeq int64
}

// nextReqID numbers a new request.
func (sh *producerShared) nextReqID() int64 {
	sh.reqSeq++
	return sh.reqSeq
}

// refreshMetadata asks for the metadata again (now, or once the request in flight ends).
func (sh *producerShared) refreshMetadata(env *sim.Env) { sh.md.refresh(env, sh.cfg.RequestTimeoutMs) }

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

// drainTick is the timer that sends what is ready (linger or a backoff over, a
// connection may be opened again): the accumulator, the sender and the connections set
// it, and it always drains.
type drainTick struct{}

func (drainTick) Kind() string     { return "Drain" }
func (drainTick) Describe() string { return drainTickLine }

var drainTickLine = sim.TimerLine("", drainTick{})

// NewProducer makes a producer client that bootstraps from the given brokers. A
// transactional.id needs enable.idempotence (ProducerConfig.Check).
func NewProducer(cfg ProducerConfig, bootstrap []string, topics []string) *Producer {
	p := &Producer{sh: producerShared{cfg: cfg, md: metadata{Bootstrap: bootstrap, Topics: topics, BackoffMs: cfg.RetryBackoffMs}}}
	p.Reset()
	return p
}

// Reset drops everything the client held in memory (the application crashed).
func (p *Producer) Reset() {
	p.sh.md.reset()
	p.sh.conns = connections{}
	p.acc.reset()
	p.snd.reset()
	p.tm = nil
	if p.sh.cfg.EnableIdempotence || p.sh.cfg.TransactionalID != "" {
		// A new process gets a new producer id: what it sends again is not
		// recognised as a retry (R12).
		p.tm = newTransactionManager(p.sh.cfg)
	}
	p.wire()
}

// wire points the roles at the shared state and at each other (after a Reset or a
// Clone: each copy's roles see the copy's).
func (p *Producer) wire() {
	p.acc.sh = &p.sh
	p.snd.sh, p.snd.acc, p.snd.tm = &p.sh, &p.acc, p.tm
	if p.tm != nil {
		p.tm.sh = &p.sh
	}
}

// Clone copies the client.
func (p *Producer) Clone() *Producer {
	c := *p
	c.sh.md = p.sh.md.clone()
	c.sh.conns = maps.Clone(p.sh.conns)
	// A batch is in its partition's queue and, once sent, in its request: both copies
	// must hold the same copy.
	copied := map[*batch]*batch{}
	cp := func(b *batch) *batch {
		if n, ok := copied[b]; ok {
			return n
		}
		n := *b
		copied[b] = &n
		return &n
	}
	c.acc = p.acc.clone(cp)
	c.snd = p.snd.clone(cp)
	c.tm = p.tm.clone()
	c.wire()
	return &c
}

// Start is the producer's start: an idempotent producer asks for its producer id at
// once, as the Sender thread's first runOnce does, before any record is sent. (A
// producer not started asks at its first send.)
func (p *Producer) Start(env *sim.Env) {
	if p.tm != nil {
		p.tm.start(env)
	}
}

// Idle reports whether nothing is buffered, blocked or in flight.
func (p *Producer) Idle() bool {
	return p.snd.idle() && p.acc.idle() && !p.tm.offsetsPending()
}

// Blocked reports whether the application's send() is waiting for buffer memory
// (BufferPool.allocate): the application does nothing else meanwhile.
func (p *Producer) Blocked() bool { return p.acc.isBlocked() }

// Send hands one record to the client; it returns the sends that ended meanwhile. When
// the record needs a new batch and buffer.memory has no room for it, the send blocks
// (Blocked) until a batch is done and frees memory, or fails after max.block.ms.
func (p *Producer) Send(env *sim.Env, topic, key, value, msg string) []Completion {
	return p.SendRecord(env, topic, protocol.Data{Msg: msg, Key: key, Value: value})
}

// SendRecord is Send of a record with every header the ledger reads (an aggregate's
// lineage too).
func (p *Producer) SendRecord(env *sim.Env, topic string, d protocol.Data) []Completion {
	if err := p.tm.sendRefusal(); err != "" {
		return []Completion{{Msgs: []string{d.Msg}, Offset: -1, Err: err}}
	}
	p.acc.flushing = false
	p.acc.add(pendingSend{Topic: topic, Data: d, AtMs: env.Now()})
	return p.assign(env)
}

// Flush is KafkaProducer.flush: every batch is sent at once, lingering or not; the
// caller waits for Idle (flush blocks it until every send is answered).
func (p *Producer) Flush(env *sim.Env) []Completion {
	p.acc.flushing = true
	return p.snd.drain(env)
}

// assign moves waiting sends into partition batches once the topic's metadata is known,
// and sends what is ready.
func (p *Producer) assign(env *sim.Env) []Completion {
	p.acc.place(env)
	return p.snd.drain(env)
}

// Receive handles responses; it returns the sends that ended.
func (p *Producer) Receive(env *sim.Env, m sim.Message) []Completion {
	observeCoordinatorErrors(env, m.Payload)
	if p.tm != nil {
		if st, ok := p.tm.onMessage(env, m); ok {
			return p.follow(env, st)
		}
	}
	switch r := m.Payload.(type) {
	case protocol.MetadataResponse:
		p.sh.md.onResponse(env, r)
		return p.assign(env)
	case protocol.ProduceResponse:
		return p.snd.onProduceResponse(env, r)
	case protocol.ApiVersionsResponse:
		p.sh.conns.opened(m.From)
		return p.snd.drain(env)
	case sim.Disconnected:
		return p.snd.disconnect(env, r.Peer, protocol.ErrNetworkException)
	case sim.Refused:
		p.sh.conns.broken(env, r.To)
		switch o := r.Orig.(type) {
		case protocol.MetadataRequest:
			p.sh.md.onRefused(env)
		case protocol.ProduceRequest:
			return p.snd.onRefused(env, o)
		case protocol.ApiVersionsRequest:
			p.sh.refreshMetadata(env)
		}
	}
	return nil
}

// Fire handles the client's timers; it returns the sends that ended.
func (p *Producer) Fire(env *sim.Env, t sim.Payload) []Completion {
	switch t := t.(type) {
	case txnRetry, txnTimeout, initRetry, initTimeout:
		if p.tm == nil {
			return nil // set by a transaction manager dropped since
		}
		return p.follow(env, p.tm.fire(env, t))
	case metadataTimeout, metadataRetry:
		p.sh.md.onTimer(env, t, p.sh.cfg.RequestTimeoutMs)
	case drainTick:
		return p.snd.drain(env)
	case requestTimeout:
		return p.snd.onRequestTimeout(env, t)
	case deliveryExpiry:
		return p.snd.expire(env, t.BatchID)
	case blockExpiry:
		if done, ok := p.acc.onBlockExpiry(env, t); ok {
			return append(done, p.assign(env)...)
		}
	}
	return nil
}

// follow does what a step of the transaction manager asks: the calls it ended, then a
// drain, or every batch failed when the producer failed for good.
func (p *Producer) follow(env *sim.Env, st txnStep) []Completion {
	switch {
	case st.fatal != "":
		return append(st.done, p.snd.abandon(st.fatal)...)
	case st.drain:
		return append(st.done, p.snd.drain(env)...)
	}
	return st.done
}
