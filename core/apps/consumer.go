package apps

import (
	"fmt"

	"deliverylab/core/kafka"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// Commit policies of a consumer application (R18, R19).
const (
	CommitAuto             = "auto"              // enable.auto.commit: commits inside poll
	CommitBeforeProcessing = "before-processing" // commitSync right after poll: at-most-once
	CommitAfterProcessing  = "after-processing"  // commitSync after the batch is processed: at-least-once
	CommitNone             = "none"              // never commits
)

// ConsumerSpec is how a consumer application processes what it polls.
type ConsumerSpec struct {
	Commit       string
	ProcessingMs int64
	Async        bool   // hand records to a worker; polls go on meanwhile
	Sink         string // "" when the consumer's own processed records are the output
}

// Consumer is a consumer application: poll, (commit), process each record (and write
// it to the sink), (commit), poll again.
type Consumer struct {
	name   string
	spec   ConsumerSpec
	client *kafka.Consumer

	// volatile
	phase     string         // idle | committing | processing
	pending   []kafka.Polled // records of the current batch still to process
	batchOpen bool           // a polled batch is not yet committed after processing
	writing   int64          // request id of the write in flight, 0 if none
	reqSeq    int64
	working   bool // async worker busy
	autoArmed bool
}

// NewConsumer makes a consumer application.
func NewConsumer(name string, spec ConsumerSpec, client *kafka.Consumer) *Consumer {
	return &Consumer{name: name, spec: spec, client: client, phase: "idle"}
}

// Name implements sim.Node.
func (c *Consumer) Name() string { return c.name }

// Client exposes the Kafka client for state views.
func (c *Consumer) Client() *kafka.Consumer { return c.client }

// Start joins the group.
func (c *Consumer) Start(env *sim.Env) { c.client.Start(env) }

// Crash loses everything: positions, buffers, the batch being processed.
func (c *Consumer) Crash() {
	c.client.Reset()
	c.phase = "idle"
	c.pending = nil
	c.batchOpen = false
	c.writing = 0
	c.working = false
	c.autoArmed = false
}

// Clone implements sim.Node.
func (c *Consumer) Clone() sim.Node {
	n := *c
	n.client = c.client.Clone()
	n.pending = append([]kafka.Polled(nil), c.pending...)
	return &n
}

// Idle reports whether the application has nothing in hand.
func (c *Consumer) Idle() bool {
	return c.phase == "idle" && len(c.pending) == 0 && c.writing == 0 && !c.working && c.client.PendingCommits() == 0
}

// Receive handles client responses and sink acknowledgements.
func (c *Consumer) Receive(env *sim.Env, m sim.Message) {
	switch p := m.Payload.(type) {
	case sinks.WriteAck:
		if p.ReqID == c.writing {
			c.writing = 0
			c.processed(env)
		}
		return
	case sim.Refused:
		if w, ok := p.Orig.(sinks.Write); ok && w.ReqID == c.writing {
			env.Observe(sim.Observation{Event: "error", Detail: kafka.ErrSinkUnavailable, Msgs: []string{w.Msg}})
			env.After(100, appTimer{What: "rewrite"})
			return
		}
	}
	c.handle(env, c.client.Receive(env, m))
}

// Fire runs processing timers and the client's timers.
func (c *Consumer) Fire(env *sim.Env, t sim.Payload) {
	if at, ok := t.(appTimer); ok {
		switch at.What {
		case "processed":
			c.finishRecord(env)
		case "rewrite":
			c.write(env)
		case "auto-commit":
			c.autoArmed = false
			c.poll(env)
		}
		return
	}
	c.handle(env, c.client.Fire(env, t))
}

func (c *Consumer) handle(env *sim.Env, evs []kafka.ConsumerEvent) {
	for _, e := range evs {
		switch e.Kind {
		case "records", "assigned", "rebalance":
			c.poll(env)
		case "committed":
			if c.phase == "committing" {
				c.phase = "idle"
				if c.spec.Commit == CommitBeforeProcessing {
					c.startProcessing(env)
				} else {
					c.poll(env)
				}
			}
		case "commit-failed":
			if c.phase == "committing" {
				// The group moved on; what was polled will be fetched again by the owner.
				c.phase = "idle"
				c.pending = nil
			}
		}
	}
}

// poll runs one poll when the application is ready for more records.
func (c *Consumer) poll(env *sim.Env) {
	if c.phase != "idle" || (!c.spec.Async && len(c.pending) > 0) {
		return
	}
	recs := c.client.Poll(env)
	if len(recs) == 0 {
		c.armAutoCommit(env)
		return
	}
	for _, r := range recs {
		env.Observe(sim.Observation{Event: "polled", Msgs: msgs(r), Partition: r.TP.String(), Offset: r.Offset, Detail: r.Value})
		if !env.Alive() {
			return // crashed at its own protocol point
		}
	}
	c.pending = append(c.pending, recs...)
	c.batchOpen = true
	if c.spec.Commit == CommitBeforeProcessing {
		if c.client.Commit(env) {
			c.phase = "committing"
			return
		}
	}
	c.startProcessing(env)
	if c.spec.Async {
		c.poll(env)
	}
}

func msgs(r kafka.Polled) []string {
	if r.Msg == "" {
		return nil
	}
	return []string{r.Msg}
}

// armAutoCommit makes sure an idle auto-committing consumer still polls when the next
// commit is due, as a real poll loop would.
func (c *Consumer) armAutoCommit(env *sim.Env) {
	if c.spec.Commit != CommitAuto || c.autoArmed {
		return
	}
	c.autoArmed = true
	env.After(c.autoCommitEveryMs(), appTimer{What: "auto-commit"})
}

func (c *Consumer) autoCommitEveryMs() int64 {
	if ms := c.client.AutoCommitIntervalMs(); ms > 0 {
		return ms
	}
	return 1
}

func (c *Consumer) startProcessing(env *sim.Env) {
	if len(c.pending) == 0 {
		c.batchDone(env)
		return
	}
	if c.spec.Async {
		if c.working {
			return
		}
		c.working = true
	} else {
		c.phase = "processing"
	}
	env.After(c.spec.ProcessingMs, appTimer{What: "processed"})
}

// finishRecord ends the processing time of the head record and writes it out.
func (c *Consumer) finishRecord(env *sim.Env) {
	if len(c.pending) == 0 {
		return
	}
	if c.spec.Sink == "" {
		c.processed(env)
		return
	}
	c.write(env)
}

func (c *Consumer) write(env *sim.Env) {
	if len(c.pending) == 0 {
		return
	}
	r := c.pending[0]
	c.reqSeq++
	c.writing = c.reqSeq
	env.Send(c.spec.Sink, sinks.Write{ReqID: c.reqSeq, Msg: r.Msg, Key: r.Key, Value: r.Value})
}

// processed marks the head record done and moves on.
func (c *Consumer) processed(env *sim.Env) {
	if len(c.pending) == 0 {
		return
	}
	r := c.pending[0]
	c.pending = c.pending[1:]
	env.Observe(sim.Observation{Event: "processed", Msgs: msgs(r), Partition: r.TP.String(), Offset: r.Offset, Detail: c.spec.Sink})
	if len(c.pending) > 0 {
		env.After(c.spec.ProcessingMs, appTimer{What: "processed"})
		return
	}
	c.working = false
	c.batchDone(env)
}

func (c *Consumer) batchDone(env *sim.Env) {
	c.phase = "idle"
	if c.spec.Commit == CommitAfterProcessing && c.batchOpen {
		c.batchOpen = false
		if c.client.Commit(env) {
			c.phase = "committing"
			return
		}
	}
	c.batchOpen = false
	c.poll(env)
}

// Describe is a short status line for the canvas.
func (c *Consumer) Describe() string {
	return fmt.Sprintf("%s %s", c.client.State, c.phase)
}
