package apps

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Workload is what a producer application sends.
type Workload struct {
	Topic      string
	Count      int
	IntervalMs int64
	Key        string // template; "" sends unkeyed records (round robin)
	Value      string // template
}

// OnRestart is what a producer application does after a restart.
type OnRestart string

// The choices of on.restart.
const (
	ResendUnacknowledged OnRestart = "resend-unacknowledged" // send again what it was not told about
	Continue             OnRestart = "continue"              // go on with the next new message
)

// Producer is a producer application: it sends Workload.Count messages, one every
// IntervalMs, and remembers which it was told succeeded or failed. A send blocks while
// the client waits for buffer memory; a synchronous application also waits for each
// send's result (send().get()) before the interval to the next one starts.
type Producer struct {
	name      string
	work      Workload
	onRestart OnRestart
	sync      bool
	client    *clients.Producer

	// volatile: what the application thread is waiting for
	stalled  bool // inside send(), blocked for buffer memory
	awaiting int  // with sync: the message whose result it waits for, 0 for none

	// durable: the application's own record of its sends
	next    int            // number of the next new message (1-based)
	outcome map[int]string // "acked" or the error it was told
	resend  []int          // messages to send again after a restart
}

// sendTick sends the workload's next message.
type sendTick struct{}

func (sendTick) Kind() string     { return "Send" }
func (sendTick) Describe() string { return sendTickLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	sendTickLine = sim.TimerLine("app", sendTick{})
)

const ackedOutcome = "acked"

// NewProducer makes a producer application.
// With sync, each send waits for its result.
func NewProducer(name string, work Workload, onRestart OnRestart, sync bool, client *clients.Producer) *Producer {
	return &Producer{name: name, work: work, onRestart: onRestart, sync: sync, client: client, next: 1, outcome: map[int]string{}}
}

// Name implements sim.Node.
func (p *Producer) Name() string { return p.name }

// MsgID is the identity of message n of this application.
func (p *Producer) MsgID(n int) string { return MessageID(p.name, n) }

// MessageID is message n of an application: "p1#3" (scenes/README.md, Names and placement); msgNumber
// reads n back.
func MessageID(app string, n int) string { return fmt.Sprintf("%s#%d", app, n) }

func msgNumber(app, id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, app+"#"))
	return n
}

// Start begins (or resumes) the workload.
func (p *Producer) Start(env *sim.Env) {
	p.stalled, p.awaiting = false, 0
	if p.next > 1 && p.onRestart == ResendUnacknowledged {
		p.resend = nil
		for n := 1; n < p.next; n++ {
			if _, told := p.outcome[n]; !told {
				p.resend = append(p.resend, n)
			}
		}
	}
	p.client.Start(env) // an idempotent producer asks for its producer id first
	env.After(0, sendTick{})
}

// Crash loses the client's buffers and in-flight requests.
func (p *Producer) Crash() { p.client.Reset() }

// Clone implements sim.Node.
func (p *Producer) Clone() sim.Node {
	c := *p
	c.client = p.client.Clone()
	c.outcome = maps.Clone(p.outcome)
	c.resend = slices.Clone(p.resend)
	return &c
}

// Receive passes responses to the client and reports outcomes.
func (p *Producer) Receive(env *sim.Env, m sim.Message) {
	p.report(env, p.client.Receive(env, m))
}

// Fire runs the workload's clock and the client's timers.
func (p *Producer) Fire(env *sim.Env, t sim.Payload) {
	if _, ok := t.(sendTick); ok {
		p.sendOne(env)
		return
	}
	p.report(env, p.client.Fire(env, t))
}

func (p *Producer) sendOne(env *sim.Env) {
	if p.client.Blocked() {
		p.stalled = true // a send placed meanwhile holds the thread; go on once it is unblocked
		return
	}
	var n int
	switch {
	case len(p.resend) > 0:
		n, p.resend = p.resend[0], p.resend[1:]
	case p.next <= p.work.Count:
		n = p.next
		p.next++
	default:
		return
	}
	id := p.MsgID(n)
	env.Observe(sim.Observation{Event: Sent, Msgs: []string{id}})
	if !env.Alive() {
		return // crashed at its own protocol point: the record never reached the client
	}
	p.report(env, p.client.Send(env, p.work.Topic, Expand(p.work.Key, n), Expand(p.work.Value, n), id))
	if !env.Alive() {
		return
	}
	p.stalled = p.client.Blocked()
	if _, told := p.outcome[n]; p.sync && !told {
		p.awaiting = n
	}
	p.continueAfter(env)
}

// continueAfter schedules the next send one interval from now, unless the application
// is still waiting (blocked in send(), or for a synchronous send's result).
func (p *Producer) continueAfter(env *sim.Env) {
	if !p.stalled && p.awaiting == 0 && (len(p.resend) > 0 || p.next <= p.work.Count) {
		env.After(p.work.IntervalMs, sendTick{})
	}
}

// report records what the client says ended, and lets the application go on when what
// it waited for is over.
func (p *Producer) report(env *sim.Env, done []clients.Completion) {
	waiting := p.stalled || p.awaiting != 0
	p.record(env, done)
	if !waiting || !env.Alive() {
		return
	}
	p.stalled = p.client.Blocked()
	if _, told := p.outcome[p.awaiting]; told {
		p.awaiting = 0
	}
	p.continueAfter(env)
}

func (p *Producer) record(env *sim.Env, done []clients.Completion) {
	for _, c := range done {
		o := sim.Observation{Event: Acked, Msgs: c.Msgs, Partition: c.TP.String(), Offset: c.Offset}
		if c.Err != "" {
			o.Event, o.Err = Failed, c.Err.String()
		}
		env.Observe(o)
		if !env.Alive() {
			return // crashed as it was told: it remembers nothing more
		}
		for _, id := range c.Msgs {
			n := msgNumber(p.name, id)
			if _, told := p.outcome[n]; !told {
				p.outcome[n] = ackedOutcome
				if c.Err != "" {
					p.outcome[n] = c.Err.String()
				}
			}
		}
	}
}

// Done reports whether the whole workload was sent and every message's outcome is known.
func (p *Producer) Done() bool {
	if p.next <= p.work.Count || len(p.resend) > 0 {
		return false
	}
	return p.client.Idle()
}

// Show implements show.Shower: a short status line.
func (p *Producer) Show(sim.View) show.Node {
	status := sentLine(p.next-1, p.work.Count, p.outcome)
	if id := p.client.Identity(); id != "" {
		status = status.And(fate.StatusIdentity, "id", id)
	}
	return show.Node{Kind: show.Producer, Status: status, Blocked: p.stalled}
}

// sentLine is a producer application's first status line: how many of its messages it
// sent, and how many it was told succeeded.
func sentLine(sent, count int, outcome map[int]string) fate.Reason {
	acked := 0
	for _, o := range outcome {
		if o == ackedOutcome {
			acked++
		}
	}
	return fate.Because(fate.StatusSent, "sent", strconv.Itoa(sent), "count", strconv.Itoa(count), "acked", strconv.Itoa(acked))
}
