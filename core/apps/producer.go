package apps

import (
	"fmt"

	"deliverylab/core/kafka"
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

// Producer is a producer application: it sends Workload.Count messages, one every
// IntervalMs, and remembers which it was told succeeded or failed.
type Producer struct {
	name      string
	work      Workload
	onRestart string // resend-unacknowledged | continue
	client    *kafka.Producer

	// durable: the application's own record of its sends
	next    int            // number of the next new message (1-based)
	outcome map[int]string // "acked" or the error it was told
	resend  []int          // messages to send again after a restart
}

type appTimer struct{ What string }

func (appTimer) Kind() string       { return "timer" }
func (t appTimer) Describe() string { return "timer app " + t.What }

// NewProducer makes a producer application.
func NewProducer(name string, work Workload, onRestart string, client *kafka.Producer) *Producer {
	return &Producer{name: name, work: work, onRestart: onRestart, client: client, next: 1, outcome: map[int]string{}}
}

// Name implements sim.Node.
func (p *Producer) Name() string { return p.name }

// MsgID is the identity of message n of this application.
func (p *Producer) MsgID(n int) string { return fmt.Sprintf("%s#%d", p.name, n) }

// Start begins (or resumes) the workload.
func (p *Producer) Start(env *sim.Env) {
	if p.next > 1 && p.onRestart == "resend-unacknowledged" {
		p.resend = nil
		for n := 1; n < p.next; n++ {
			if _, told := p.outcome[n]; !told {
				p.resend = append(p.resend, n)
			}
		}
	}
	env.After(0, appTimer{What: "send"})
}

// Crash loses the client's buffers and in-flight requests.
func (p *Producer) Crash() { p.client.Reset() }

// Clone implements sim.Node.
func (p *Producer) Clone() sim.Node {
	c := *p
	c.client = p.client.Clone()
	c.outcome = make(map[int]string, len(p.outcome))
	for k, v := range p.outcome {
		c.outcome[k] = v
	}
	c.resend = append([]int(nil), p.resend...)
	return &c
}

// Receive passes responses to the client and reports outcomes.
func (p *Producer) Receive(env *sim.Env, m sim.Message) {
	p.report(env, p.client.Receive(env, m))
}

// Fire runs the workload's clock and the client's timers.
func (p *Producer) Fire(env *sim.Env, t sim.Payload) {
	if at, ok := t.(appTimer); ok && at.What == "send" {
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
	env.Observe(sim.Observation{Event: "sent", Msgs: []string{id}})
	if !env.Alive() {
		return // crashed at its own protocol point: the record never reached the client
	}
	p.report(env, p.client.Send(env, p.work.Topic, Expand(p.work.Key, n), Expand(p.work.Value, n), id))
	if len(p.resend) > 0 || p.next <= p.work.Count {
		env.After(p.work.IntervalMs, appTimer{What: "send"})
	}
}

func (p *Producer) report(env *sim.Env, done []kafka.Completion) {
	for _, c := range done {
		event, detail := "acked", ""
		if c.Err != "" {
			event, detail = "failed", c.Err
		}
		env.Observe(sim.Observation{Event: event, Msgs: c.Msgs, Partition: c.TP.String(), Offset: c.Offset, Detail: detail})
		if !env.Alive() {
			return // crashed as it was told: it remembers nothing more
		}
		for _, id := range c.Msgs {
			var n int
			fmt.Sscanf(id[len(p.name)+1:], "%d", &n)
			if _, told := p.outcome[n]; !told {
				p.outcome[n] = event
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

// Progress is a short status line for the canvas.
func (p *Producer) Progress() string {
	acked := 0
	for _, o := range p.outcome {
		if o == "acked" {
			acked++
		}
	}
	return fmt.Sprintf("sent %d/%d acked %d", p.next-1, p.work.Count, acked)
}
