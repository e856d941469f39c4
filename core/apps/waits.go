package apps

import (
	"deliverylab/core/fate"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/sim"
)

// WaitsFor says what keeps the application from settling: records in hand, then what
// its client waits for.
func (c *Consumer) WaitsFor(v sim.View) []fate.Reason {
	if c.reading != 0 {
		return []fate.Reason{fate.Because(fate.WaitsForSink, "node", c.name, "sink", c.spec.Sink)}
	}
	if c.client.State() == clients.Stable && !c.idle() {
		if c.writing != 0 {
			return []fate.Reason{fate.Because(fate.WaitsForSink, "node", c.name, "sink", c.spec.Sink)}
		}
		if c.phase == Idle && len(c.pending) == 0 && c.writing == 0 && !c.working {
			return []fate.Reason{fate.Because(fate.WaitsForCommit, "node", c.name)}
		}
		return []fate.Reason{fate.Because(fate.WaitsToProcess, "node", c.name)}
	}
	return c.client.WaitsFor(v)
}

// WaitsFor says what keeps the producer application from settling: it has messages to
// send, or answers to wait for.
func (p *Producer) WaitsFor(sim.View) []fate.Reason {
	if p.Done() {
		return nil
	}
	return []fate.Reason{fate.Because(fate.WaitsForAcks, "node", p.name)}
}

// WaitsFor says what keeps the transactional producer application from settling: it has
// messages to send, or a transaction to end.
func (p *TxnProducer) WaitsFor(sim.View) []fate.Reason {
	if p.Done() {
		return nil
	}
	return []fate.Reason{fate.Because(fate.WaitsForAcks, "node", p.name)}
}
