package apps

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

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
// IntervalMs, and remembers which it was told succeeded or failed.
type Producer struct {
	name      string
	work      Workload
	onRestart OnRestart
	client    *clients.Producer

	// durable: the application's own record of its sends
	next    int            // number of the next new message (1-based)
	outcome map[int]string // "acked" or the error it was told
	resend  []int          // messages to send again after a restart
}

// sendTick sends the workload's next message.
type sendTick struct{}

func (sendTick) Kind() string     { return "SendTick" }
func (sendTick) Describe() string { return "timer app send" }

const ackedOutcome = "acked"

// NewProducer makes a producer application.
func NewProducer(name string, work Workload, onRestart OnRestart, client *clients.Producer) *Producer {
	return &Producer{name: name, work: work, onRestart: onRestart, client: client, next: 1, outcome: map[int]string{}}
}

// Name implements sim.Node.
func (p *Producer) Name() string { return p.name }

// MsgID is the identity of message n of this application.
func (p *Producer) MsgID(n int) string { return fmt.Sprintf("%s#%d", p.name, n) }

// Start begins (or resumes) the workload.
func (p *Producer) Start(env *sim.Env) {
	if p.next > 1 && p.onRestart == ResendUnacknowledged {
		p.resend = nil
		for n := 1; n < p.next; n++ {
			if _, told := p.outcome[n]; !told {
				p.resend = append(p.resend, n)
			}
		}
	}
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
	if len(p.resend) > 0 || p.next <= p.work.Count {
		env.After(p.work.IntervalMs, sendTick{})
	}
}

func (p *Producer) report(env *sim.Env, done []clients.Completion) {
	for _, c := range done {
		o := sim.Observation{Event: Acked, Msgs: c.Msgs, Partition: c.TP.String(), Offset: c.Offset}
		if c.Err != "" {
			o.Event, o.Err = Failed, c.Err
		}
		env.Observe(o)
		if !env.Alive() {
			return // crashed as it was told: it remembers nothing more
		}
		for _, id := range c.Msgs {
			n, _ := strconv.Atoi(strings.TrimPrefix(id, p.name+"#"))
			if _, told := p.outcome[n]; !told {
				p.outcome[n] = ackedOutcome
				if c.Err != "" {
					p.outcome[n] = c.Err
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

// Settled implements sim.Settler.
func (p *Producer) Settled(sim.View) bool { return p.Done() }

// Show implements show.Shower: a short status line.
func (p *Producer) Show(sim.View) show.Node {
	acked := 0
	for _, o := range p.outcome {
		if o == ackedOutcome {
			acked++
		}
	}
	return show.Node{Kind: show.Producer, Detail: fmt.Sprintf("sent %d/%d acked %d", p.next-1, p.work.Count, acked)}
}
