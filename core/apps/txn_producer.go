package apps

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// TxnProducer is a transactional producer application (transactional.id with
// transaction.size): initTransactions() as it starts — a restarted instance bumps the
// epoch, which fences the old one and aborts its open transaction — then, for each
// chunk of Size messages in send order, beginTransaction(), the sends (one every
// IntervalMs), and commitTransaction(); or, for a transaction the scene aborts, a flush
// and abortTransaction() (the aborted records reach the log, so a read_uncommitted
// reader sees them). The application is told at the end of each transaction: every
// message acknowledged when the commit returned, or failed with TRANSACTION_ABORTED when
// the abort returned. PRODUCER_FENCED is the end: the open transaction's messages fail
// and the application sends nothing more (ProducerFencedException: close the producer).
// Any other failure of the commit aborts the transaction, and the application goes on.
// It follows KafkaProducer's javadoc, as the conformance runner's ProducerApp does.
type TxnProducer struct {
	name      string
	work      Workload
	txn       TxnWork
	onRestart OnRestart
	client    *clients.Producer

	// volatile
	phase   txnPhase
	todo    []int // messages still to send in this incarnation, in order
	chunk   []int // the open transaction's messages
	sent    int   // how many of chunk were sent
	written map[int]protocol.TPOffset
	unacked int // sends of the chunk without their completion yet

	// durable: the application's own record
	next    int            // number of the next new message (1-based)
	begun   int            // transactions begun, across restarts
	outcome map[int]string // "acked" or the error it was told
	fenced  bool           // this instance was fenced: it closed its producer and sends nothing more
}

// TxnWork is how a transactional producer groups its messages.
type TxnWork struct {
	Size  int   // messages per transaction
	Abort []int // the (1-based) transactions the application aborts instead of committing
}

type txnPhase uint8

const (
	txnIniting  txnPhase = iota // initTransactions() has not returned
	txnSending                  // inside a transaction, sending
	txnFlushing                 // an abort waits for the sends to be written first
	txnEnding                   // commitTransaction() or abortTransaction() has not returned
	txnIdle                     // between transactions, or done
)

// txnSendTick sends the open transaction's next message, or begins the next transaction.
type txnSendTick struct{}

func (txnSendTick) Kind() string     { return "TxnSend" }
func (txnSendTick) Describe() string { return txnSendTickLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	txnSendTickLine = sim.TimerLine("app", txnSendTick{})
)

// NewTxnProducer makes a transactional producer application.
func NewTxnProducer(name string, work Workload, txn TxnWork, onRestart OnRestart, client *clients.Producer) *TxnProducer {
	return &TxnProducer{name: name, work: work, txn: txn, onRestart: onRestart, client: client, next: 1, outcome: map[int]string{}}
}

// Name implements sim.Node.
func (p *TxnProducer) Name() string { return p.name }

// MsgID is the identity of message n of this application.
func (p *TxnProducer) MsgID(n int) string { return MessageID(p.name, n) }

// Start initializes the transactions; after a restart the messages it was never told
// about are sent again first (on.restart: resend-unacknowledged).
func (p *TxnProducer) Start(env *sim.Env) {
	p.todo, p.chunk, p.sent, p.written, p.unacked = nil, nil, 0, map[int]protocol.TPOffset{}, 0
	if p.onRestart == ResendUnacknowledged {
		for n := 1; n < p.next; n++ {
			if _, told := p.outcome[n]; !told {
				p.todo = append(p.todo, n)
			}
		}
	}
	for n := p.next; n <= p.work.Count; n++ {
		p.todo = append(p.todo, n)
	}
	p.fenced = false // a restarted process is a new instance: it fences whoever holds the id now
	p.client.Start(env)
	p.phase = txnIniting
	done, err := p.client.InitTransactions(env)
	if err != nil {
		p.phase = txnIdle
		return
	}
	p.report(env, done)
}

// Crash loses the client and the open transaction (the coordinator aborts it when the
// restarted instance fences it, or when it times out).
func (p *TxnProducer) Crash() { p.client.Reset() }

// Clone implements sim.Node.
func (p *TxnProducer) Clone() sim.Node {
	c := *p
	c.client = p.client.Clone()
	c.todo, c.chunk = slices.Clone(p.todo), slices.Clone(p.chunk)
	c.written, c.outcome = maps.Clone(p.written), maps.Clone(p.outcome)
	return &c
}

// Receive passes responses to the client.
func (p *TxnProducer) Receive(env *sim.Env, m sim.Message) { p.report(env, p.client.Receive(env, m)) }

// Fire runs the workload's clock and the client's timers.
func (p *TxnProducer) Fire(env *sim.Env, t sim.Payload) {
	if _, ok := t.(txnSendTick); ok {
		p.step(env)
		return
	}
	p.report(env, p.client.Fire(env, t))
}

// step sends the open transaction's next message, or ends it, or begins the next one.
func (p *TxnProducer) step(env *sim.Env) {
	switch {
	case p.phase == txnIdle && len(p.todo) > 0:
		p.begin(env)
	case p.phase == txnSending && p.sent < len(p.chunk):
		p.sendNext(env)
	}
}

func (p *TxnProducer) begin(env *sim.Env) {
	if err := p.client.BeginTransaction(); err != nil {
		return
	}
	size := min(p.txn.Size, len(p.todo))
	p.chunk, p.todo = slices.Clone(p.todo[:size]), p.todo[size:]
	p.sent, p.written, p.unacked = 0, map[int]protocol.TPOffset{}, 0
	p.begun++
	p.phase = txnSending
	p.sendNext(env)
}

func (p *TxnProducer) sendNext(env *sim.Env) {
	n := p.chunk[p.sent]
	p.sent++
	if n >= p.next {
		p.next = n + 1
	}
	env.Observe(sim.Observation{Event: Sent, Msgs: []string{p.MsgID(n)}})
	if !env.Alive() {
		return
	}
	p.unacked++
	p.report(env, p.client.Send(env, p.work.Topic, Expand(p.work.Key, n), Expand(p.work.Value, n), p.MsgID(n)))
	if !env.Alive() || p.phase != txnSending {
		return
	}
	if p.sent < len(p.chunk) {
		env.After(p.work.IntervalMs, txnSendTick{})
		return
	}
	p.end(env)
}

// end commits the transaction, or flushes and aborts it when the scene says so.
func (p *TxnProducer) end(env *sim.Env) {
	if slices.Contains(p.txn.Abort, p.begun) {
		p.phase = txnFlushing
		p.abortWhenFlushed(env)
		return
	}
	p.phase = txnEnding
	done, err := p.client.CommitTransaction(env)
	if err != nil { // a send failed: the transaction can only be aborted
		p.abort(env)
		return
	}
	p.report(env, done)
}

func (p *TxnProducer) abortWhenFlushed(env *sim.Env) {
	if p.phase == txnFlushing && p.unacked == 0 {
		p.abort(env)
	}
}

func (p *TxnProducer) abort(env *sim.Env) {
	p.phase = txnEnding
	done, err := p.client.AbortTransaction(env)
	if err != nil {
		// Only a fatal state refuses an abort: a fence, or on Kafka 4 an unknown producer
		// id mapping. The runner's ProducerApp, told so by abortTransaction's exception,
		// fails the transaction with that error and stops; so does this one, rather than
		// wait for an answer that will not come.
		why := p.client.FatalError()
		if why == "" {
			why = protocol.ErrProducerFenced
		}
		p.fence(env, why)
		return
	}
	p.report(env, done)
}

// fence ends this instance: the open transaction's messages fail with why, nothing more
// is sent.
func (p *TxnProducer) fence(env *sim.Env, why protocol.Error) {
	p.failChunk(env, why)
	p.fenced, p.todo, p.phase = true, nil, txnIdle
}

// report takes what the client says ended: sends (remembered until the transaction
// ends) and the transaction API's calls.
func (p *TxnProducer) report(env *sim.Env, done []clients.Completion) {
	for _, c := range done {
		if !env.Alive() {
			return
		}
		if c.Txn == clients.TxnNone {
			p.sendDone(env, c)
			continue
		}
		p.txnDone(env, c)
	}
	p.abortWhenFlushed(env)
}

func (p *TxnProducer) sendDone(env *sim.Env, c clients.Completion) {
	for i, id := range c.Msgs {
		n := msgNumber(p.name, id)
		if !slices.Contains(p.chunk, n) {
			continue
		}
		p.unacked--
		switch {
		case c.Err == "":
			p.written[n] = protocol.TPOffset{TP: c.TP, Offset: c.Offset + int64(i)} // a batch's records, in order from its base offset
		case c.Err != protocol.ErrTransactionAborted && c.TP.Topic == "":
			// send() itself threw (the client reports the errors of what went on the
			// wire; the abort's own drop is told by the abort)
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: c.Err.String(), Msgs: []string{id}})
		}
	}
}

func (p *TxnProducer) txnDone(env *sim.Env, c clients.Completion) {
	switch c.Txn {
	case clients.TxnInitialized:
		p.phase = txnIdle
		p.step(env)
	case clients.TxnCommitted:
		for _, n := range p.chunk {
			w := p.written[n]
			env.Observe(sim.Observation{Event: Acked, Msgs: []string{p.MsgID(n)}, Partition: w.TP.String(), Offset: w.Offset})
			p.outcome[n] = ackedOutcome
		}
		env.Observe(sim.Observation{Event: TxnCommitted, Msgs: p.chunkIDs()})
		p.between(env)
	case clients.TxnAborted:
		p.failChunk(env, protocol.ErrTransactionAborted)
		env.Observe(sim.Observation{Event: TxnAborted, Msgs: p.chunkIDs()})
		p.between(env)
	case clients.TxnFailed:
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: c.Err.String(), Msgs: p.chunkIDs()})
		if c.Err == protocol.ErrProducerFenced || c.Err == protocol.ErrInvalidProducerEpoch {
			p.fence(env, protocol.ErrProducerFenced)
			return
		}
		if p.phase == txnEnding || p.phase == txnSending {
			p.abort(env) // any other error: abort, and go on (KafkaProducer's javadoc)
		}
	}
}

// between waits one interval, then begins the next transaction.
func (p *TxnProducer) between(env *sim.Env) {
	p.chunk, p.phase = nil, txnIdle
	if len(p.todo) > 0 {
		env.After(p.work.IntervalMs, txnSendTick{})
	}
}

func (p *TxnProducer) failChunk(env *sim.Env, err protocol.Error) {
	for _, n := range p.chunk {
		w, ok := p.written[n]
		part := ""
		if ok {
			part = w.TP.String()
		}
		env.Observe(sim.Observation{Event: Failed, Msgs: []string{p.MsgID(n)}, Partition: part, Err: err.String()})
		p.outcome[n] = err.String()
	}
}

func (p *TxnProducer) chunkIDs() []string {
	out := make([]string, len(p.chunk))
	for i, n := range p.chunk {
		out[i] = p.MsgID(n)
	}
	return out
}

// Done reports whether the application has nothing left to do: every message told, or
// fenced, and the client idle.
func (p *TxnProducer) Done() bool {
	return (p.fenced || (len(p.todo) == 0 && p.next > p.work.Count && p.phase == txnIdle)) && p.client.Idle()
}

// Show implements show.Shower: the counts, the transaction and the producer's identity.
func (p *TxnProducer) Show(sim.View) show.Node {
	state := txnStateWord[p.client.TxnState()]
	if p.fenced {
		state = fate.StatusTxnFenced
	}
	status := sentLine(p.next-1, p.work.Count, p.outcome).And(fate.StatusTxn, "count", strconv.Itoa(p.begun)).And(state)
	if f := strings.Fields(p.client.Identity()); len(f) >= 3 { // "pid 0 e1 …": the id and epoch
		status = status.And(fate.StatusPID, "id", strings.Join(f[:3], " "))
	}
	return show.Node{Kind: show.Producer, Status: status}
}

// txnStateWord is the transaction manager's state (TransactionManager.State) in a word
// that fits the producer's box.
var txnStateWord = map[clients.TxnState]fate.Code{
	clients.TxnUninitialized: fate.StatusTxnInit, clients.TxnInitializing: fate.StatusTxnInit, clients.TxnReady: fate.StatusTxnReady,
	clients.TxnInTransaction: fate.StatusTxnOpen, clients.TxnCommitting: fate.StatusCommitting, clients.TxnAborting: fate.StatusTxnAborting,
	clients.TxnAbortableError: fate.StatusTxnAbortable, clients.TxnFatalError: fate.StatusTxnFatal,
}
