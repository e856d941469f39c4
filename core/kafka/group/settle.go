package group

import "deliverylab/core/sim"

// Settled reports whether the groups this broker coordinates can still move: a
// rebalance in progress with a member that is up, or a member that is down but not yet
// removed while another member is up (its session will time out and its partitions move
// on, R20).
func (c *Coordinator) Settled(v sim.View) bool {
	for _, g := range c.groups {
		var up, down bool
		for name := range g.Members {
			if _, isUp := v.Node(name); isUp {
				up = true
			} else {
				down = true
			}
		}
		if up && (g.State == PreparingRebalance || down) {
			return false
		}
	}
	return true
}
