package controller

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Settled implements sim.Settler: the controller still has work while a broker that is
// down has not been fenced yet (its session will expire and its leaderships move), or a
// broker that is up and can reach it is still fenced (it is registering).
func (c *Controller) Settled(v sim.View) bool {
	for _, b := range c.brokers {
		_, up := v.Node(b)
		fenced := c.Fenced(b)
		if !up && !fenced {
			return false
		}
		if up && fenced && v.Reachable(b, protocol.ControllerName) {
			return false
		}
	}
	return true
}
