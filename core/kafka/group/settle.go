package group

import "deliverylab/core/sim"

// memberOf is a consumer application: the member id of its client's incarnation.
type memberOf interface {
	MemberID() string
}

// Settled reports whether the groups this broker coordinates can still move: a
// rebalance in progress with a member that is up, or a member that is gone — its
// application down, or restarted as a new member — but not yet removed while another
// member is up (its session will time out and its partitions move on, R20).
func (c *Coordinator) Settled(v sim.View) bool {
	for _, g := range c.groups {
		var up, down bool
		for id, m := range g.Members {
			n, isUp := v.Node(m.ClientID)
			if app, ok := n.(memberOf); isUp && ok && app.MemberID() == id {
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
