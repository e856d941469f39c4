package group

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// A consumer-protocol group in __consumer_offsets. Kafka 4's coordinator runtime
// (CoordinatorRuntime) writes the records a heartbeat or a fence produced, all at once,
// and answers the heartbeat once they are committed; a coordinator that loads the
// partition replays them (GroupMetadataManager.replay) and starts every member's session
// (onLoaded). The playground writes one ConsumerGroupSnapshot of the group per change.

// consumerReply is the heartbeat answer that waits for the group's store ("" To: none).
type consumerReply struct {
	To   string
	Resp protocol.ConsumerGroupHeartbeatResponse
}

// pendingConsumerStore is a snapshot append waiting for the HW.
type pendingConsumerStore struct {
	Group string
	Reply consumerReply
}

// storeConsumerGroup appends the group's snapshot to its partition with acks=all, the
// append timing out after offsets.commit.timeout.ms as the runtime's writes do.
func (c *Coordinator) storeConsumerGroup(env *sim.Env, h Host, cg *consumerGroup, reply consumerReply) {
	c.refSeq++
	_, err := h.AppendCommit(env, c.refSeq, c.OffsetsPartition(cg.Name), []protocol.Record{{Body: cg.snapshot()}}, c.cfg.CommitTimeoutMs)
	if err != "" {
		c.consumerStoreFailed(env, cg.Name, reply, err)
		return
	}
	c.consumerStores[c.refSeq] = pendingConsumerStore{Group: cg.Name, Reply: reply}
}

// consumerStoreDone takes the answer of a snapshot append; it reports whether ref was
// one. The heartbeat that waits gets its answer, or the append's error as the
// coordinator maps it.
func (c *Coordinator) consumerStoreDone(env *sim.Env, ref int64, err protocol.Error) bool {
	ps, ok := c.consumerStores[ref]
	if !ok {
		return false
	}
	delete(c.consumerStores, ref)
	if err != "" {
		c.consumerStoreFailed(env, ps.Group, ps.Reply, err)
		return true
	}
	if ps.Reply.To != "" {
		env.Send(ps.Reply.To, ps.Reply.Resp)
	}
	return true
}

// consumerStoreFailed answers the waiting heartbeat with the append's error. Kafka's
// runtime would also take the group back to its last committed state; the playground
// keeps the change in memory (a simplification): the member, told the error, sends a
// full heartbeat, and the coordinator's next store writes the group as it is.
func (c *Coordinator) consumerStoreFailed(env *sim.Env, group string, reply consumerReply, err protocol.Error) {
	env.Note(fmt.Sprintf("group %s not stored: %s", group, err))
	if reply.To != "" {
		env.Send(reply.To, protocol.ConsumerGroupHeartbeatResponse{Err: heartbeatStoreError(err)})
	}
}

// heartbeatStoreError is what a failed write answers a heartbeat
// (CoordinatorOperationExceptionHelper.handleOperationException): as any coordinator's
// failed append (protocol.CoordinatorAppendError), and a broken connection reads as the
// coordinator loading.
func heartbeatStoreError(err protocol.Error) protocol.Error {
	if err == protocol.ErrNetworkException {
		return protocol.ErrCoordinatorLoadInProgress
	}
	return protocol.CoordinatorAppendError(err)
}

// storing reports whether a snapshot of the group waits for the HW.
func (c *Coordinator) storing(group string) bool {
	for _, ps := range c.consumerStores {
		if ps.Group == group {
			return true
		}
	}
	return false
}

// snapshot is the group's record: fresh slices, for a record is never changed once
// appended.
func (cg *consumerGroup) snapshot() protocol.ConsumerGroupSnapshot {
	s := protocol.ConsumerGroupSnapshot{Group: cg.Name, GroupEpoch: cg.GroupEpoch, AssignmentEpoch: cg.AssignmentEpoch,
		AssignmentTimestampMs: cg.AssignmentTimestampMs, MetadataHash: cg.MetadataHash}
	for _, id := range slices.Sorted(maps.Keys(cg.Members)) {
		m := cg.Members[id]
		s.Members = append(s.Members, protocol.ConsumerGroupMemberSnapshot{ID: m.ID, ClientHost: m.ClientHost,
			JoinOrder: m.JoinOrder, Epoch: m.Epoch, PreviousEpoch: m.PreviousEpoch, State: m.State,
			RebalanceTimeoutMs: m.RebalanceTimeoutMs, Topics: slices.Clone(m.Topics), Assigned: tpEpochs(m.Assigned),
			PendingRevocation: tpEpochs(m.Pending), Target: slices.Clone(cg.Target[id])})
	}
	return s
}

func tpEpochs(m map[protocol.TP]int32) []protocol.TPEpoch {
	out := make([]protocol.TPEpoch, 0, len(m))
	for _, tp := range protocol.SortedTPs(m) {
		out = append(out, protocol.TPEpoch{TP: tp, Epoch: m[tp]})
	}
	return out
}

func epochMap(tps []protocol.TPEpoch) map[protocol.TP]int32 {
	out := make(map[protocol.TP]int32, len(tps))
	for _, t := range tps {
		out[t.TP] = t.Epoch
	}
	return out
}

// loadConsumerGroups makes the consumer-protocol groups of a __consumer_offsets
// partition from the last snapshot of each (a group already cached, of either kind, stays
// as it is). Every member's session starts now, and a member that must revoke gets its
// rebalance timer again (GroupMetadataManager.onLoaded).
func (c *Coordinator) loadConsumerGroups(env *sim.Env, loaded map[string]protocol.ConsumerGroupSnapshot) {
	for _, name := range slices.Sorted(maps.Keys(loaded)) {
		if c.consumerGroups[name] != nil || c.groups[name] != nil {
			continue
		}
		s := loaded[name]
		cg := newConsumerGroup(name)
		cg.GroupEpoch, cg.AssignmentEpoch, cg.AssignmentTimestampMs = s.GroupEpoch, s.AssignmentEpoch, s.AssignmentTimestampMs
		cg.MetadataHash = s.MetadataHash
		for _, ms := range s.Members {
			m := &consumerMember{ID: ms.ID, ClientHost: ms.ClientHost, JoinOrder: ms.JoinOrder, Epoch: ms.Epoch,
				PreviousEpoch: ms.PreviousEpoch, State: ms.State, Assigned: epochMap(ms.Assigned),
				Pending: epochMap(ms.PendingRevocation), Topics: slices.Clone(ms.Topics), RebalanceTimeoutMs: ms.RebalanceTimeoutMs}
			cg.Members[m.ID] = m
			cg.Target[m.ID] = slices.Clone(ms.Target)
			cg.holdPartitions(m)
			cg.NextJoin = max(cg.NextJoin, m.JoinOrder+1)
		}
		c.consumerGroups[name] = cg
		env.Note(fmt.Sprintf("group %s loaded: consumer group epoch %d, assignment epoch %d, %d members", name, cg.GroupEpoch,
			cg.AssignmentEpoch, len(cg.Members)))
		for _, id := range slices.Sorted(maps.Keys(cg.Members)) {
			m := cg.Members[id]
			c.armSession(env, cg, m)
			if m.State == protocol.MemberUnrevokedPartitions {
				c.armRebalance(env, cg, m)
			}
		}
	}
}
