package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Unsubscribe leaves the group at once, as KafkaConsumer.unsubscribe does for a dynamic
// member (AbstractCoordinator.maybeLeaveGroup): if the coordinator is known and the
// member has joined, a LeaveGroup goes to it, once, nobody waiting for its answer; then
// the member forgets its generation and assignment. The coordinator removes it and
// rebalances the others without waiting for its session to time out. Start subscribes
// again, as a new member.
//
// Under group.protocol=consumer the member sends its leave heartbeat (epoch -1) instead.
func (c *Consumer) Unsubscribe(env *sim.Env, reason string) {
	if c.member != nil {
		c.member.leave(env)
		c.Reset()
		return
	}
	g := &c.coord
	if g.state != Finding && g.broker != "" {
		env.Send(g.broker, protocol.LeaveGroupRequest{Group: g.group, Member: g.member, Reason: reason})
	}
	c.Reset()
}
