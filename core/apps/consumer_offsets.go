package apps

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// commit: with-results — the consumer keeps its offsets in the sink's database, in the
// transaction of each row, and never commits them to Kafka. On each assignment it reads
// them back and seeks there before it polls (KafkaConsumer's javadoc, "Storing Offsets
// Outside Kafka"): a crash between a row and any offset commit cannot re-deliver the
// record, because there is no separate commit.

// The application's timers for reading its offsets.
type (
	rereadTick  struct{}              // read again from a sink that was down
	readTimeout struct{ ReqID int64 } // the sink did not answer the read
)

func (rereadTick) Kind() string      { return "Reread" }
func (rereadTick) Describe() string  { return rereadTickLine }
func (readTimeout) Kind() string     { return "ReadTimeout" }
func (readTimeout) Describe() string { return readTimeoutLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	rereadTickLine  = sim.TimerLine("app", rereadTick{})
	readTimeoutLine = sim.TimerLine("app", readTimeout{})
)

// withResults reports whether the offsets go to the sink with the rows.
func (c *Consumer) withResults() bool { return c.spec.Commit == CommitWithResults }

// readOffsets asks the sink for the offsets the group stored, for the assignment the
// client has just handed over.
func (c *Consumer) readOffsets(env *sim.Env) {
	c.reqSeq++
	c.reading = c.reqSeq
	env.Send(c.spec.Sink, sinks.ReadOffsets{ReqID: c.reqSeq, Group: c.client.Group()})
	env.After(sinkWriteTimeoutMs, readTimeout{ReqID: c.reqSeq})
}

// seekStored seeks the client to the stored offsets of the partitions it owns.
func (c *Consumer) seekStored(env *sim.Env, o sinks.Offsets) {
	if o.ReqID != c.reading {
		return
	}
	c.reading = 0
	stored := map[string]int64{}
	for _, s := range o.Offsets {
		stored[s.Partition] = s.Next
	}
	seek := map[protocol.TP]int64{}
	for _, tp := range c.client.Assigned() {
		if next, ok := stored[tp.String()]; ok {
			seek[tp] = next
		}
	}
	c.handle(env, c.client.SeekAssigned(env, c.readGen, seek))
}

// onReadRefused retries a read from a sink that is down.
func (c *Consumer) onReadRefused(env *sim.Env, r sinks.ReadOffsets) {
	if r.ReqID != c.reading {
		return
	}
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrSinkUnavailable.String()})
	env.After(sinkRetryMs, rereadTick{})
}

// fireRead handles the read's timers; it reports whether the timer was one of them.
func (c *Consumer) fireRead(env *sim.Env, t sim.Payload) bool {
	switch t.(type) {
	case rereadTick, readTimeout:
		if r, ok := t.(readTimeout); (ok && r.ReqID != c.reading) || c.reading == 0 {
			return true
		}
		if !c.client.Seeking() {
			c.reading = 0 // the assignment it was for is gone; a new one reads again
			return true
		}
		if _, ok := t.(readTimeout); ok {
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrSinkTimeout.String()})
		}
		c.readOffsets(env)
	default:
		return false
	}
	return true
}

// withOffset adds the offset after a record to its write, for the sink's transaction.
func (c *Consumer) withOffset(w sinks.Write, tp protocol.TP, offset int64) sinks.Write {
	if c.withResults() {
		w.Group, w.Partition, w.Next = c.client.Group(), tp.String(), offset+1
	}
	return w
}
