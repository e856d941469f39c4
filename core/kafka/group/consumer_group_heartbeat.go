package group

import (
	"fmt"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// onConsumerGroupHeartbeat is the whole of the consumer protocol on the coordinator's
// side: a member joins (epoch 0), heartbeats, acknowledges a reconciliation (the
// partitions it owns) and leaves (epoch -1) with it. The steps are
// GroupMetadataManager.consumerGroupHeartbeat's, in its order: the group and the
// member, the epoch check, the subscription, the group epoch, the target assignment,
// the member's reconciliation, its session, the response. A heartbeat that changed the
// group is answered once the group's new snapshot is replicated (the runtime answers
// after its records commit); one that changed nothing is answered at once.
func (c *Coordinator) onConsumerGroupHeartbeat(env *sim.Env, h Host, from string, req protocol.ConsumerGroupHeartbeatRequest) {
	if why := heartbeatProblem(req); why != "" {
		refuseHeartbeat(env, from, req, protocol.ErrInvalidRequest, why)
		return
	}
	if !c.isCoordinator(h, req.Group) {
		env.Send(from, protocol.ConsumerGroupHeartbeatResponse{Err: protocol.ErrNotCoordinator})
		return
	}
	if g := c.groups[req.Group]; g != nil && len(g.Members) > 0 {
		// A group id is one kind of group (GroupMetadataManager.getOrMaybeCreateConsumerGroup:
		// "not a consumer group"); the playground has no mixed groups to migrate.
		refuseHeartbeat(env, from, req, protocol.ErrGroupIDNotFound, "it is a classic group with members")
		return
	}
	if req.Epoch == protocol.LeaveGroupEpoch {
		c.consumerGroupLeave(env, h, from, req)
		return
	}
	cg := c.consumerGroups[req.Group]
	if cg == nil {
		// Only a join creates the group (getOrMaybeCreateConsumerGroup). An empty classic
		// group of the id gives way, as Kafka converts it.
		if req.Epoch != protocol.JoinGroupEpoch {
			refuseHeartbeat(env, from, req, protocol.ErrGroupIDNotFound, "the group does not exist")
			return
		}
		delete(c.groups, req.Group)
		cg = newConsumerGroup(req.Group)
		c.consumerGroups[req.Group] = cg
	}
	m := cg.Members[req.Member]
	isNew := m == nil
	if isNew {
		// Only a join creates the member (ConsumerGroup.getOrMaybeCreateMember); a known
		// member's join (epoch 0) is taken without an epoch check.
		if req.Epoch != protocol.JoinGroupEpoch {
			refuseHeartbeat(env, from, req, protocol.ErrUnknownMemberID, "not a member of the group")
			return
		}
		m = &consumerMember{ID: req.Member, Assigned: map[protocol.TP]int32{}, Pending: map[protocol.TP]int32{},
			JoinOrder: cg.NextJoin}
		cg.NextJoin++
		cg.Members[req.Member] = m
	} else if why := m.epochProblem(req); why != "" {
		refuseHeartbeat(env, from, req, protocol.ErrFencedMemberEpoch, why)
		return
	}
	assignedBefore := m.Assigned
	dirty, subscriptionChanged := m.update(req, sim.NodeOf(from))
	dirty = dirty || isNew
	// GroupMetadataManager.updateSubscriptionMetadata: a changed subscription, or a
	// subscribed topic whose partitions changed, moves the group epoch on, once.
	if hash := cg.metadataHash(h); subscriptionChanged || hash != cg.MetadataHash {
		cg.GroupEpoch++
		cg.MetadataHash = hash
		dirty = true
	}
	if c.maybeUpdateTarget(env, h, cg) {
		dirty = true
	}
	if c.reconcile(env, cg, m, req, subscriptionChanged) {
		dirty = true
	}
	c.armSession(env, cg, m)
	resp := protocol.ConsumerGroupHeartbeatResponse{Member: m.ID, Epoch: m.Epoch, HeartbeatIntervalMs: c.cfg.ConsumerHeartbeatIntervalMs}
	// The assignment goes with a join, a full heartbeat (every field sent: the member
	// lost track, after an error), or a change of the member's assigned partitions; never
	// the partitions pending revocation.
	full := req.RebalanceTimeoutMs != -1 && req.HasTopics && req.HasOwned
	if req.Epoch == protocol.JoinGroupEpoch || full || !sameTPs(assignedBefore, m.Assigned) {
		resp.HasAssignment = true
		resp.Assignment = protocol.SortedTPs(m.Assigned)
	}
	if !dirty {
		env.Send(from, resp)
		return
	}
	c.storeConsumerGroup(env, h, cg, consumerReply{To: from, Resp: resp})
}

// heartbeatProblem is why the request is invalid whatever the group's state
// (GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid, for a request
// of version 1, which always names its member), "" if it is valid. The playground has no
// static members, so a temporary leave (-2), which needs an instance id, is one.
func heartbeatProblem(req protocol.ConsumerGroupHeartbeatRequest) string {
	switch {
	case req.Member == "":
		return "the member id is empty"
	case req.Group == "":
		return "the group id is empty"
	case req.Epoch == protocol.JoinGroupEpoch && req.RebalanceTimeoutMs == -1:
		return "a join must give its rebalance timeout"
	case req.Epoch == protocol.JoinGroupEpoch && (!req.HasOwned || len(req.Owned) > 0):
		return "a join must own no partitions"
	case req.Epoch == protocol.JoinGroupEpoch && !req.HasTopics:
		return "a join must give its subscription"
	case req.Epoch == -2:
		return "a temporary leave (epoch -2) needs an instance id"
	case req.Epoch < -2:
		return fmt.Sprintf("member epoch %d is invalid", req.Epoch)
	}
	return ""
}

// refuseHeartbeat answers a heartbeat with an error, and says why in the trace.
func refuseHeartbeat(env *sim.Env, from string, req protocol.ConsumerGroupHeartbeatRequest, err protocol.Error, why string) {
	env.Note(fmt.Sprintf("group %s refuses heartbeat of %s at epoch %d: %s: %s", req.Group, req.Member, req.Epoch, err, why))
	env.Send(from, protocol.ConsumerGroupHeartbeatResponse{Err: err})
}

// epochProblem checks a known member's epoch (GroupMetadataManager.
// throwIfConsumerGroupMemberEpochIsInvalid), "" if it is accepted. A join (0) always
// is. A newer epoch than the coordinator's cannot be the member's. An older one is
// accepted only when the response that gave the member its epoch was lost: the member
// sends its previous epoch in a full heartbeat (it sends one after any error) owning
// nothing it was not assigned.
func (m *consumerMember) epochProblem(req protocol.ConsumerGroupHeartbeatRequest) string {
	switch {
	case req.Epoch == protocol.JoinGroupEpoch || req.Epoch == m.Epoch:
		return ""
	case req.Epoch > m.Epoch:
		return fmt.Sprintf("epoch %d is newer than the member's %d", req.Epoch, m.Epoch)
	case req.Epoch == m.PreviousEpoch && req.HasOwned && ownsOnly(req.Owned, m.Assigned):
		return ""
	}
	return fmt.Sprintf("epoch %d is older than the member's %d", req.Epoch, m.Epoch)
}

func ownsOnly(owned []protocol.TP, assigned map[protocol.TP]int32) bool {
	for _, tp := range owned {
		if _, ok := assigned[tp]; !ok {
			return false
		}
	}
	return true
}

// update takes the request's fields that are set (a left-out field is unchanged): the
// rebalance timeout and the subscription, and where the member heartbeats from. It
// reports whether the member's record changed, and whether its subscription did
// (GroupMetadataManager.hasMemberSubscriptionChanged).
func (m *consumerMember) update(req protocol.ConsumerGroupHeartbeatRequest, host string) (changed, subscription bool) {
	if host != m.ClientHost {
		m.ClientHost, changed = host, true
	}
	if req.RebalanceTimeoutMs != -1 && req.RebalanceTimeoutMs != m.RebalanceTimeoutMs {
		m.RebalanceTimeoutMs, changed = req.RebalanceTimeoutMs, true
	}
	if req.HasTopics {
		topics := slices.Compact(slices.Sorted(slices.Values(req.Topics)))
		if !slices.Equal(topics, m.Topics) {
			m.Topics, changed, subscription = topics, true, true
		}
	}
	return changed, subscription
}

// consumerGroupLeave takes a member out at its request (epoch -1,
// GroupMetadataManager.consumerGroupLeave): as a fence, answered with epoch -1 once the
// group without it is stored.
func (c *Coordinator) consumerGroupLeave(env *sim.Env, h Host, from string, req protocol.ConsumerGroupHeartbeatRequest) {
	cg := c.consumerGroups[req.Group]
	if cg == nil {
		refuseHeartbeat(env, from, req, protocol.ErrGroupIDNotFound, "the group does not exist")
		return
	}
	m := cg.Members[req.Member]
	if m == nil {
		refuseHeartbeat(env, from, req, protocol.ErrUnknownMemberID, "not a member of the group")
		return
	}
	c.fenceConsumerMember(env, h, cg, m, "it left the group",
		consumerReply{To: from, Resp: protocol.ConsumerGroupHeartbeatResponse{Member: m.ID, Epoch: protocol.LeaveGroupEpoch}})
}
