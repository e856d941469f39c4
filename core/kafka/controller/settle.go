package controller

import (
	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// waits is the one answer to what the controller still waits for: a broker that is down
// but not fenced yet (its session will expire and its leaderships move), or one that is
// up, can reach it and is still fenced (it is registering). Settled stops at the first;
// WaitsFor words them all. yield returns false to stop.
func (c *Controller) waits(v sim.View, yield func(code fate.Code, broker string) bool) {
	for _, b := range c.brokers {
		_, up := v.Node(b)
		fenced := c.Fenced(b)
		switch {
		case !up && !fenced:
			if !yield(fate.WaitsForFence, b) {
				return
			}
		case up && fenced && v.Reachable(b, protocol.ControllerName):
			if !yield(fate.WaitsToRegister, b) {
				return
			}
		}
	}
}

// Settled implements sim.Settler: the controller waits for nothing.
func (c *Controller) Settled(v sim.View) bool {
	settled := true
	c.waits(v, func(fate.Code, string) bool { settled = false; return false })
	return settled
}

// WaitsFor says what keeps the controller from settling, for the note of a run that
// ended at its limit.
func (c *Controller) WaitsFor(v sim.View) []fate.Reason {
	var out []fate.Reason
	c.waits(v, func(code fate.Code, broker string) bool {
		out = append(out, fate.Because(code, "broker", broker))
		return true
	})
	return out
}
