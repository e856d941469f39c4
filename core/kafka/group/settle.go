package group

import (
	"slices"

	"deliverylab/core/sim"
)

// memberOf is a consumer application: the member id of its client's incarnation.
type memberOf interface {
	MemberID() string
}

// Settled reports whether the groups this broker coordinates can no longer move. A
// group holding transactional offsets that wait for their marker can (the marker
// commits or drops them); so can a group with a rebalance in progress with a member
// that is up, or a member that is gone — its application down, or restarted as a new
// member — but not yet removed while another member is up (its session will time out
// and its partitions move on, R20). A consumer-protocol group is as a classic one, with
// "rebalancing" its own way: a snapshot waits for the HW, the group epoch is ahead of the
// target, or a member is not reconciled to the target.
func (c *Coordinator) Settled(v sim.View) bool {
	if len(c.txnPending) > 0 {
		return false
	}
	for _, g := range c.groups {
		if !groupSettled(v, g) {
			return false
		}
	}
	for name, g := range c.consumerGroups {
		if !c.consumerGroupSettled(v, name, g) {
			return false
		}
	}
	return true
}

// Unsettled names the groups that can still move, sorted: what a run at its limit
// waits for.
func (c *Coordinator) Unsettled(v sim.View) []string {
	var out []string
	for name, g := range c.groups {
		if !groupSettled(v, g) {
			out = append(out, name)
		}
	}
	for name, g := range c.consumerGroups {
		if !c.consumerGroupSettled(v, name, g) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func groupSettled(v sim.View, g *group) bool {
	up, down := membersLive(v, g.Members, func(m *member) string { return m.ClientID })
	return !up || (g.State != PreparingRebalance && !down)
}

func (c *Coordinator) consumerGroupSettled(v sim.View, name string, g *consumerGroup) bool {
	up, down := membersLive(v, g.Members, func(m *consumerMember) string { return m.ClientHost })
	return !up || (!g.settling() && !c.storing(name) && !down)
}

// membersLive reports whether some member of a group is its node's live incarnation
// (up), and whether some is not (down: the node is down, or runs a newer member), given
// the node each member runs on.
func membersLive[M any](v sim.View, members map[string]M, node func(M) string) (up, down bool) {
	for id, m := range members {
		n, isUp := v.Node(node(m))
		if app, ok := n.(memberOf); isUp && ok && app.MemberID() == id {
			up = true
		} else {
			down = true
		}
	}
	return up, down
}
