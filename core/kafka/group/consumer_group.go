package group

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// A group of the new consumer protocol (KIP-848, group.protocol=consumer) as Kafka 4.4's
// group coordinator keeps it (modern/consumer/ConsumerGroup, ConsumerGroupMember). There
// is no join phase and no generation for all: the group epoch moves on when membership or
// subscriptions change, the coordinator computes a target assignment for the group epoch
// (consumer_group_assign.go), and each member moves towards its own target, heartbeat by
// heartbeat, giving up partitions before anyone else gets them
// (consumer_group_reconcile.go).

// consumerGroup is the coordinator's view of one consumer-protocol group.
type consumerGroup struct {
	Name string
	// GroupEpoch starts at 1 (ModernGroup's constructor), so the first member to join
	// gets epoch 2; AssignmentEpoch is the group epoch Target was computed for (1 and
	// empty at first, TargetAssignmentMetadata.INITIAL), at AssignmentTimestampMs (0:
	// never, or the group emptied: the next heartbeat may compute at once).
	GroupEpoch            int32
	AssignmentEpoch       int32
	AssignmentTimestampMs int64
	MetadataHash          string // the subscribed topics' partition counts when the epoch last moved
	Members               map[string]*consumerMember
	Target                map[string][]protocol.TP // each member's target assignment, sorted
	// PartitionEpoch is ConsumerGroup.currentPartitionEpoch: for each partition a member
	// holds (assigned, or pending revocation), that member's epoch. A partition absent
	// from it is free (Kafka's -1).
	PartitionEpoch map[protocol.TP]int32
	NextJoin       int64 // the join order number the next new member gets
}

// consumerMember is one member (ConsumerGroupMember).
type consumerMember struct {
	ID string
	// ClientHost is the node the member's heartbeats come from: the request carries no
	// client id, and Settled asks that node whether this member is still its incarnation.
	ClientHost string
	// JoinOrder stands in for the HashMap order of member ids that Kafka's uniform
	// assignor iterates in (UniformHomogeneousAssignmentBuilder): the assignor takes
	// members in the order they joined, a fixed order the trace can explain.
	JoinOrder          int64
	Epoch              int32
	PreviousEpoch      int32
	State              protocol.MemberState
	Assigned           map[protocol.TP]int32 // partition → the epoch it was assigned in
	Pending            map[protocol.TP]int32 // partitions pending revocation, with theirs
	Topics             []string              // the subscription, sorted
	RebalanceTimeoutMs int64                 // the client's max.poll.interval.ms
	// Tokens of the member's armed session and rebalance timers; a timer whose token is
	// no longer the member's was re-armed or cancelled since (0: none armed).
	SessionTimer, RebalanceTimer int64
}

func newConsumerGroup(name string) *consumerGroup {
	return &consumerGroup{Name: name, GroupEpoch: 1, AssignmentEpoch: 1, Members: map[string]*consumerMember{},
		Target: map[string][]protocol.TP{}, PartitionEpoch: map[protocol.TP]int32{}}
}

func (g *consumerGroup) clone() *consumerGroup {
	c := *g
	c.Members = make(map[string]*consumerMember, len(g.Members))
	for k, m := range g.Members {
		c.Members[k] = m.clone()
	}
	c.Target = make(map[string][]protocol.TP, len(g.Target))
	for k, t := range g.Target {
		c.Target[k] = slices.Clone(t)
	}
	c.PartitionEpoch = maps.Clone(g.PartitionEpoch)
	return &c
}

func (m *consumerMember) clone() *consumerMember {
	c := *m
	c.Assigned = maps.Clone(m.Assigned)
	c.Pending = maps.Clone(m.Pending)
	c.Topics = slices.Clone(m.Topics)
	return &c
}

// memberOrder lists the members in the assignor's order: by join order.
func (g *consumerGroup) memberOrder() []*consumerMember {
	out := make([]*consumerMember, 0, len(g.Members))
	for _, m := range g.Members {
		out = append(out, m)
	}
	// sort.Slice, not slices.SortFunc: each element type slices sorts costs main.wasm a
	// copy of the sorting code (protocol.SortTPs says more).
	sort.Slice(out, func(i, j int) bool { return out[i].JoinOrder < out[j].JoinOrder })
	return out
}

// subscribedTopics is the union of the members' subscriptions, sorted.
func (g *consumerGroup) subscribedTopics() []string {
	set := map[string]bool{}
	for _, m := range g.Members {
		for _, t := range m.Topics {
			set[t] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// metadataHash stands for Kafka's hash of the subscribed topics' metadata
// (GroupMetadataManager.updateSubscriptionMetadata): their partition counts as this
// broker's metadata cache has them. A topic that does not exist counts for nothing.
func (g *consumerGroup) metadataHash(h Host) string {
	var parts []string
	for _, t := range g.subscribedTopics() {
		if n := len(h.TopicPartitions(t)); n > 0 {
			parts = append(parts, fmt.Sprintf("%s:%d", t, n))
		}
	}
	return strings.Join(parts, ",")
}

// reconciled reports whether a member is where the target assignment wants it
// (ModernGroupMember.isReconciledTo).
func (m *consumerMember) reconciled(assignmentEpoch int32) bool {
	return m.State == protocol.MemberStable && m.Epoch == assignmentEpoch
}

// settling reports whether the group still moves on its own: its epoch is ahead of its
// target (ASSIGNING), or a member is not reconciled to the target (RECONCILING), as
// ConsumerGroup.maybeUpdateGroupState tells them apart from STABLE.
func (g *consumerGroup) settling() bool {
	if len(g.Members) > 0 && g.GroupEpoch > g.AssignmentEpoch {
		return true
	}
	for _, m := range g.Members {
		if !m.reconciled(g.AssignmentEpoch) {
			return true
		}
	}
	return false
}

// holdPartitions and releasePartitions keep PartitionEpoch in step with a member's
// partitions (ConsumerGroup.maybeUpdatePartitionEpoch, addPartitionEpochs,
// removePartitionEpochs): a partition is released only by the member epoch that holds it.
func (g *consumerGroup) holdPartitions(m *consumerMember) {
	for tp := range m.Assigned {
		g.PartitionEpoch[tp] = m.Epoch
	}
	for tp := range m.Pending {
		g.PartitionEpoch[tp] = m.Epoch
	}
}

func (g *consumerGroup) releasePartitions(m *consumerMember) {
	for _, held := range []map[protocol.TP]int32{m.Assigned, m.Pending} {
		for tp := range held {
			if e, ok := g.PartitionEpoch[tp]; ok && e == m.Epoch {
				delete(g.PartitionEpoch, tp)
			}
		}
	}
}

// noteMember writes a member's epoch, state and partitions to the trace.
func (g *consumerGroup) noteMember(env *sim.Env, m *consumerMember) {
	line := fmt.Sprintf("group %s member %s epoch %d %s assigned=[%s]", g.Name, m.ID, m.Epoch, m.State,
		protocol.TPsText(protocol.SortedTPs(m.Assigned)))
	if len(m.Pending) > 0 {
		line += " revoking=[" + protocol.TPsText(protocol.SortedTPs(m.Pending)) + "]"
	}
	env.Note(line)
}

// refuseClassicJoin keeps a group id one kind of group: a JoinGroup for a consumer-protocol
// group with members is refused GROUP_ID_NOT_FOUND (the playground has no mixed groups:
// Kafka 4.4 would let a classic member join the consumer group under
// group.consumer.migration.policy), and an empty one gives way to the classic group
// (Kafka converts an empty consumer group to a classic one on a JoinGroup).
func (c *Coordinator) refuseClassicJoin(env *sim.Env, from string, req protocol.JoinGroupRequest) bool {
	cg := c.consumerGroups[req.Group]
	if cg == nil {
		return false
	}
	if len(cg.Members) > 0 {
		env.Note(fmt.Sprintf("group %s refuses JoinGroup of %s: it is a consumer-protocol group", req.Group, req.Member))
		env.Send(from, protocol.JoinGroupResponse{Err: protocol.ErrGroupIDNotFound})
		return true
	}
	delete(c.consumerGroups, req.Group)
	return false
}

// sameTPs reports whether two partition maps hold the same partitions, whatever their epochs.
func sameTPs(a, b map[protocol.TP]int32) bool {
	if len(a) != len(b) {
		return false
	}
	for tp := range a {
		if _, ok := b[tp]; !ok {
			return false
		}
	}
	return true
}
