package controller

import (
	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// WaitsFor says what keeps the controller from settling (see Settled): a broker that is
// down but not fenced yet, or one that is up and still registering.
func (c *Controller) WaitsFor(v sim.View) []fate.Reason {
	var out []fate.Reason
	for _, b := range c.brokers {
		_, up := v.Node(b)
		fenced := c.Fenced(b)
		switch {
		case !up && !fenced:
			out = append(out, fate.Because(fate.WaitsForFence, "broker", b))
		case up && fenced && v.Reachable(b, protocol.ControllerName):
			out = append(out, fate.Because(fate.WaitsToRegister, "broker", b))
		}
	}
	return out
}
