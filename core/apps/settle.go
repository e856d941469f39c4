package apps

import (
	"deliverylab/core/fate"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/sim"
)

// An application has settled when it waits for nothing itself and its client waits for
// nothing: each question below has one answer, which Settled and WaitsFor both ask.

// handWait is what the consumer application itself waits for, "" for nothing: while its
// client is in the group, records in hand — a sink's answer, a commit, or processing.
func (c *Consumer) handWait() fate.Code {
	switch {
	case c.client.State() != clients.Stable || c.idle():
		return ""
	case c.reading != 0 || c.writing != 0:
		return fate.WaitsForSink
	case c.phase == Idle && len(c.pending) == 0 && !c.working:
		return fate.WaitsForCommit
	}
	return fate.WaitsToProcess
}

// Settled implements sim.Settler: nothing in hand, and nothing left for the client to
// read.
func (c *Consumer) Settled(v sim.View) bool { return c.handWait() == "" && c.client.Settled(v) }

// WaitsFor says what keeps the application from settling: records in hand, then what
// its client waits for.
func (c *Consumer) WaitsFor(v sim.View) []fate.Reason {
	switch code := c.handWait(); code {
	case "":
		return c.client.WaitsFor(v)
	case fate.WaitsForSink:
		return []fate.Reason{fate.Because(code, "node", c.name, "sink", c.spec.Sink)}
	default:
		return []fate.Reason{fate.Because(code, "node", c.name)}
	}
}

// handWait is what the Streams thread itself waits for, "" for nothing: while its
// consumer is in the group, a commit or a transaction under way, or outputs
// unacknowledged.
func (s *Streams) handWait() fate.Code {
	if s.consumer.State() != clients.Stable || s.idle() {
		return ""
	}
	return fate.WaitsForCommit
}

// Settled implements sim.Settler: nothing in hand, and the input read to its end.
func (s *Streams) Settled(v sim.View) bool {
	if s.phase == streamsDead {
		return true // the application shut down: nothing more will happen in it
	}
	return s.handWait() == "" && s.consumer.Settled(v)
}

// WaitsFor says what keeps the application from settling: a commit or a transaction
// under way, outputs unacknowledged, then what its consumer waits for.
func (s *Streams) WaitsFor(v sim.View) []fate.Reason {
	if s.phase == streamsDead {
		return nil
	}
	if code := s.handWait(); code != "" {
		return []fate.Reason{fate.Because(code, "node", s.name)}
	}
	return s.consumer.WaitsFor(v)
}

// Settled implements sim.Settler: every message sent and answered.
func (p *Producer) Settled(sim.View) bool { return p.Done() }

// WaitsFor says what keeps the producer application from settling: it has messages to
// send, or answers to wait for.
func (p *Producer) WaitsFor(sim.View) []fate.Reason {
	if p.Done() {
		return nil
	}
	return []fate.Reason{fate.Because(fate.WaitsForAcks, "node", p.name)}
}

// Settled implements sim.Settler: every message sent in a transaction that ended, or the
// producer fenced.
func (p *TxnProducer) Settled(sim.View) bool { return p.Done() }

// WaitsFor says what keeps the transactional producer application from settling: it has
// messages to send, or a transaction to end.
func (p *TxnProducer) WaitsFor(sim.View) []fate.Reason {
	if p.Done() {
		return nil
	}
	return []fate.Reason{fate.Because(fate.WaitsForAcks, "node", p.name)}
}
