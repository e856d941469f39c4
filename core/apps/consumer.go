package apps

import (
	"slices"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/show"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// CommitPolicy is when a consumer application commits its offsets (R18, R19).
type CommitPolicy string

// The commit policies.
const (
	CommitAuto             CommitPolicy = "auto"              // enable.auto.commit: commits inside poll
	CommitBeforeProcessing CommitPolicy = "before-processing" // commitSync right after poll: at-most-once
	CommitAfterProcessing  CommitPolicy = "after-processing"  // commitSync after the batch is processed: at-least-once
	CommitNone             CommitPolicy = "none"              // never commits
	// with-results: never commits to Kafka; each row goes to a transactional sink with the
	// offset after it, and on each assignment the consumer seeks to the offsets stored there.
	CommitWithResults CommitPolicy = "with-results"
)

// ConsumerSpec is how a consumer application processes what it polls.
type ConsumerSpec struct {
	Commit       CommitPolicy
	ProcessingMs int64
	Async        bool   // hand records to a worker; polls go on meanwhile
	Sink         string // "" when the consumer's own processed records are the output
}

// Phase is what a consumer application's poll loop is doing.
type Phase uint8

// The phases.
const (
	Idle       Phase = iota // ready to poll
	Committing              // waiting for a commitSync
	Processing              // working through a polled batch
)

func (p Phase) String() string { return [...]string{"idle", "committing", "processing"}[p] }

// status is the phase's word in the consumer's status line.
func (p Phase) status() fate.Code {
	return [...]fate.Code{fate.StatusIdle, fate.StatusCommitting, fate.StatusProcessing}[p]
}

// Consumer is a consumer application: poll, (commit), process each record (and write
// it to the sink), (commit), poll again.
type Consumer struct {
	name   string
	spec   ConsumerSpec
	client *clients.Consumer

	// volatile
	phase     Phase
	pending   []clients.Polled // records of the current batch still to process
	batchOpen bool             // a polled batch is not yet committed after processing
	writing   int64            // request id of the write in flight, 0 if none
	reqSeq    int64
	working   bool // async worker busy
	autoArmed bool
	reading   int64 // request id of the offsets read in flight (with-results), 0 if none
	readGen   int32 // the generation of the assignment the read is for
}

// The application's timers.
type (
	processedTick struct{}              // the head record's processing time is over
	rewriteTick   struct{}              // write again to a sink that was down
	autoPollTick  struct{}              // an idle auto-committing loop polls when a commit is due
	writeTimeout  struct{ ReqID int64 } // a sink write got no answer in sinkWriteTimeoutMs
)

func (processedTick) Kind() string     { return "Processed" }
func (rewriteTick) Kind() string       { return "Rewrite" }
func (autoPollTick) Kind() string      { return "AutoCommit" }
func (processedTick) Describe() string { return processedTickLine }
func (rewriteTick) Describe() string   { return rewriteTickLine }
func (autoPollTick) Describe() string  { return autoPollTickLine }
func (writeTimeout) Kind() string      { return "WriteTimeout" }
func (writeTimeout) Describe() string  { return writeTimeoutLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	processedTickLine = sim.TimerLine("app", processedTick{})
	rewriteTickLine   = sim.TimerLine("app", rewriteTick{})
	autoPollTickLine  = sim.TimerLine("app", autoPollTick{})
	writeTimeoutLine  = sim.TimerLine("app", writeTimeout{})
)

// sinkRetryMs is how long the application waits before writing again to a sink that
// refused the connection.
const sinkRetryMs = 100

// sinkWriteTimeoutMs is how long the application waits for a sink to answer a write
// before it writes again, as a database client's query timeout would: a write or its
// answer lost on a cut link would otherwise stop the application for good. Writing
// again after a lost answer stores the row twice in a table sink: at-least-once.
const sinkWriteTimeoutMs = 5000

// NewConsumer makes a consumer application.
func NewConsumer(name string, spec ConsumerSpec, client *clients.Consumer) *Consumer {
	if spec.Commit == CommitWithResults {
		client.ListenForAssignment()
	}
	return &Consumer{name: name, spec: spec, client: client}
}

// Name implements sim.Node.
func (c *Consumer) Name() string { return c.name }

// Start joins the group.
func (c *Consumer) Start(env *sim.Env) { c.client.Start(env) }

// Crash loses everything: positions, buffers, the batch being processed.
func (c *Consumer) Crash() {
	c.client.Reset()
	c.phase = Idle
	c.pending = nil
	c.batchOpen = false
	c.writing = 0
	c.working = false
	c.autoArmed = false
	c.reading = 0
}

// Clone implements sim.Node.
func (c *Consumer) Clone() sim.Node {
	n := *c
	n.client = c.client.Clone()
	n.pending = slices.Clone(c.pending)
	return &n
}

// idle reports whether the application has nothing in hand.
func (c *Consumer) idle() bool {
	return c.phase == Idle && len(c.pending) == 0 && c.writing == 0 && !c.working && c.reading == 0 && c.client.PendingCommits() == 0
}

// Positions is the client's position in each partition it owns and knows where to read:
// what the canvas marks on the leader's log.
func (c *Consumer) Positions() []protocol.TPOffset { return c.client.Positions() }

// Invariants lists what is wrong with what the client returned (a read_committed
// consumer returning a record of an aborted transaction), for the checks every test
// runs on every event and the browser's report.
func (c *Consumer) Invariants(v sim.View) []string { return c.client.Invariants(v) }

// Show implements show.Shower: the client's and the loop's state.
func (c *Consumer) Show(sim.View) show.Node {
	return show.Node{Kind: show.Consumer, Status: fate.Because(fate.StatusMember, "state", c.client.State().String()).And(c.phase.status())}
}

// Receive handles client responses and sink acknowledgements.
func (c *Consumer) Receive(env *sim.Env, m sim.Message) {
	switch p := m.Payload.(type) {
	case sinks.WriteAck:
		// A duplicate refused by a unique key was written before: the dedup recipe
		// takes it as done.
		if p.ReqID == c.writing {
			c.writing = 0
			c.processed(env)
		}
		return
	case sinks.Offsets:
		c.seekStored(env, p)
		return
	case sim.Refused:
		if w, ok := p.Orig.(sinks.Write); ok && w.ReqID == c.writing {
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrSinkUnavailable.String(), Msgs: []string{w.Msg}})
			env.After(sinkRetryMs, rewriteTick{})
			return
		}
		if r, ok := p.Orig.(sinks.ReadOffsets); ok {
			c.onReadRefused(env, r)
			return
		}
	}
	c.handle(env, c.client.Receive(env, m))
}

// Fire runs processing timers and the client's timers.
func (c *Consumer) Fire(env *sim.Env, t sim.Payload) {
	if c.fireRead(env, t) {
		return
	}
	switch t.(type) {
	case processedTick:
		c.finishRecord(env)
	case rewriteTick:
		c.write(env)
	case writeTimeout:
		if w := t.(writeTimeout); w.ReqID == c.writing && len(c.pending) > 0 {
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrSinkTimeout.String(), Msgs: msgs(c.pending[0])})
			c.write(env)
		}
	case autoPollTick:
		c.autoArmed = false
		c.poll(env)
	default:
		c.handle(env, c.client.Fire(env, t))
	}
}

func (c *Consumer) handle(env *sim.Env, evs []clients.ConsumerEvent) {
	for _, e := range evs {
		switch e.Kind {
		case clients.RecordsReady, clients.AssignedNow, clients.Rebalancing:
			c.poll(env)
		case clients.PartitionsAssigned:
			c.readGen = c.client.Generation()
			c.readOffsets(env)
		case clients.Committed:
			if c.phase == Committing {
				c.phase = Idle
				if c.spec.Commit == CommitBeforeProcessing {
					c.startProcessing(env)
				} else {
					c.poll(env)
				}
			}
		case clients.CommitFailed:
			if c.phase == Committing {
				// commitSync threw. After a lost coordinator or a rebalance the group moves
				// on: what was polled is fetched again by its owner from the committed
				// offset, and the new assignment starts the next poll. After
				// default.api.timeout.ms without an answer (TimeoutException) the member is
				// still in the group: the loop goes on polling, or a commit whose answer
				// was lost would stop it for good.
				c.phase = Idle
				c.pending = nil
				if e.Err == protocol.ErrTimeoutException {
					c.poll(env)
				}
			}
		}
	}
}

// poll runs one poll when the application is ready for more records.
func (c *Consumer) poll(env *sim.Env) {
	if c.phase != Idle || (!c.spec.Async && len(c.pending) > 0) {
		return
	}
	recs := c.client.Poll(env)
	if len(recs) == 0 {
		c.armAutoCommit(env)
		return
	}
	for _, r := range recs {
		env.Observe(withFolds(sim.Observation{Event: Polled, Msgs: msgs(r), Partition: r.TP.String(), Offset: r.Offset, Value: r.Value}, r))
		if !env.Alive() {
			return // crashed at its own protocol point
		}
	}
	c.pending = append(c.pending, recs...)
	c.batchOpen = true
	if c.spec.Commit == CommitBeforeProcessing && c.client.Commit(env) {
		c.phase = Committing
		return
	}
	c.startProcessing(env)
	if c.spec.Async {
		c.poll(env)
	}
}

func msgs(r clients.Polled) []string {
	if r.Msg == "" {
		return nil
	}
	return []string{r.Msg}
}

// withFolds adds an aggregate's record's key and lineage to its observation (a
// dashboard over a Flink count or sum is judged by each key's last total).
func withFolds(o sim.Observation, r clients.Polled) sim.Observation {
	if r.Folds != "" {
		o.Key, o.Folds = r.Key, protocol.FoldsOf(r.Folds)
	}
	return o
}

// armAutoCommit makes sure an idle auto-committing consumer still polls when the next
// commit is due, as a real poll loop would.
func (c *Consumer) armAutoCommit(env *sim.Env) {
	if c.spec.Commit != CommitAuto || c.autoArmed {
		return
	}
	c.autoArmed = true
	env.After(max(c.client.AutoCommitIntervalMs(), 1), autoPollTick{})
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
		c.phase = Processing
	}
	env.After(c.spec.ProcessingMs, processedTick{})
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
	env.Send(c.spec.Sink, c.withOffset(sinks.Write{ReqID: c.reqSeq, Msg: r.Msg, Key: r.Key, Value: r.Value}, r.TP, r.Offset))
	env.After(sinkWriteTimeoutMs, writeTimeout{ReqID: c.reqSeq})
}

// processed marks the head record done and moves on.
func (c *Consumer) processed(env *sim.Env) {
	if len(c.pending) == 0 {
		return
	}
	r := c.pending[0]
	c.pending = c.pending[1:]
	env.Observe(withFolds(sim.Observation{Event: Processed, Msgs: msgs(r), Partition: r.TP.String(), Offset: r.Offset, Output: c.spec.Sink}, r))
	if len(c.pending) > 0 {
		env.After(c.spec.ProcessingMs, processedTick{})
		return
	}
	c.working = false
	c.batchDone(env)
}

func (c *Consumer) batchDone(env *sim.Env) {
	c.phase = Idle
	if c.spec.Commit == CommitAfterProcessing && c.batchOpen {
		c.batchOpen = false
		if c.client.Commit(env) {
			c.phase = Committing
			return
		}
	}
	c.batchOpen = false
	c.poll(env)
}

// MemberID is the member id of the application's consumer client.
func (c *Consumer) MemberID() string { return c.client.MemberID() }
