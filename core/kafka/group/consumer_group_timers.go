package group

import (
	"fmt"
	"strconv"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// A consumer-protocol member's two timers (GroupMetadataManager.
// scheduleConsumerGroupSessionTimeout, scheduleConsumerGroupRebalanceTimeout): its
// session, re-armed by every heartbeat but a leave, fences it when no heartbeat came for
// group.consumer.session.timeout.ms; the rebalance timer, armed when the member must
// revoke partitions, fences it if it has not revoked them within its rebalance timeout
// (max.poll.interval.ms). Kafka keys a timer by member and replaces or cancels it; here
// a timer carries a token, and only the member's current token counts.

// consumerSessionTimeout fences a member whose session was not renewed since its token.
type consumerSessionTimeout struct {
	Group, Member string
	Token         int64
}

// consumerRebalanceTimeout fences a member still at Epoch, with partitions to revoke.
type consumerRebalanceTimeout struct {
	Group, Member string
	Epoch         int32
	Token         int64
}

func (consumerSessionTimeout) Kind() string { return "ConsumerGroupSessionTimeout" }
func (t consumerSessionTimeout) Describe() string {
	return sim.TimerLine("", t, t.Group+"/"+t.Member)
}
func (consumerRebalanceTimeout) Kind() string { return "ConsumerGroupRebalanceTimeout" }
func (t consumerRebalanceTimeout) Describe() string {
	return sim.TimerLine("", t, t.Group+"/"+t.Member, "epoch", strconv.Itoa(int(t.Epoch)))
}

// armSession (re)starts a member's session.
func (c *Coordinator) armSession(env *sim.Env, cg *consumerGroup, m *consumerMember) {
	c.timerSeq++
	m.SessionTimer = c.timerSeq
	env.After(c.cfg.ConsumerSessionTimeoutMs, consumerSessionTimeout{Group: cg.Name, Member: m.ID, Token: m.SessionTimer})
}

// armRebalance (re)starts a member's rebalance timer at its epoch.
func (c *Coordinator) armRebalance(env *sim.Env, cg *consumerGroup, m *consumerMember) {
	c.timerSeq++
	m.RebalanceTimer = c.timerSeq
	env.After(m.RebalanceTimeoutMs, consumerRebalanceTimeout{Group: cg.Name, Member: m.ID, Epoch: m.Epoch, Token: m.RebalanceTimer})
}

func (c *Coordinator) expireConsumerSession(env *sim.Env, h Host, t consumerSessionTimeout) {
	cg := c.consumerGroups[t.Group]
	if cg == nil {
		return
	}
	if m := cg.Members[t.Member]; m != nil && m.SessionTimer == t.Token {
		c.fenceConsumerMember(env, h, cg, m, "its session expired", consumerReply{})
	}
}

func (c *Coordinator) expireConsumerRebalance(env *sim.Env, h Host, t consumerRebalanceTimeout) {
	cg := c.consumerGroups[t.Group]
	if cg == nil {
		return
	}
	if m := cg.Members[t.Member]; m != nil && m.RebalanceTimer == t.Token && m.Epoch == t.Epoch {
		c.fenceConsumerMember(env, h, cg, m, fmt.Sprintf("it did not revoke its partitions within %d ms", m.RebalanceTimeoutMs),
			consumerReply{})
	}
}

// fenceConsumerMember takes a member out of its group — it left, or a timer fenced it
// (GroupMetadataManager.consumerGroupFenceMembers, removeMember): its target goes, its
// partitions, assigned or pending revocation, are free at once for the others, and the
// group epoch moves on, the target not recomputed: the freed partitions wait for the next
// heartbeat that computes one. A group left empty may compute at once when a member
// joins (its assignment metadata is the new epoch with timestamp 0). Its timers count no
// more. The group is stored; reply, if any, goes once it is.
func (c *Coordinator) fenceConsumerMember(env *sim.Env, h Host, cg *consumerGroup, m *consumerMember, why string, reply consumerReply) {
	cg.releasePartitions(m)
	delete(cg.Members, m.ID)
	delete(cg.Target, m.ID)
	m.SessionTimer, m.RebalanceTimer = 0, 0
	cg.GroupEpoch++
	cg.MetadataHash = cg.metadataHash(h)
	if len(cg.Members) == 0 {
		cg.AssignmentEpoch, cg.AssignmentTimestampMs = cg.GroupEpoch, 0
	}
	env.Note(fmt.Sprintf("group %s removes %s: %s (group epoch %d)", cg.Name, m.ID, why, cg.GroupEpoch))
	env.Observe(sim.Observation{Event: protocol.MemberRemoved, Group: cg.Name, Member: m.ID})
	c.storeConsumerGroup(env, h, cg, reply)
}
