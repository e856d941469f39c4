package group

import (
	"maps"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// A member's reconciliation on the coordinator (modern/consumer/CurrentAssignmentBuilder):
// the member moves from what it holds towards its target, and the rules keep two members
// from owning a partition at once. A member first gives up what its target no longer has
// — at its old epoch, without any new partition (UNREVOKED_PARTITIONS) — and moves to the
// target's epoch only once a heartbeat no longer lists them; a partition another member
// still holds is withheld (UNRELEASED_PARTITIONS) until that member gives it up or is
// fenced, and the member gets it on a heartbeat of its own.

// memberStep is a member's epochs, state and partitions after a reconciliation.
type memberStep struct {
	Epoch, PreviousEpoch int32
	State                protocol.MemberState
	Assigned, Pending    map[protocol.TP]int32
}

func (m *consumerMember) step() memberStep {
	return memberStep{Epoch: m.Epoch, PreviousEpoch: m.PreviousEpoch, State: m.State, Assigned: m.Assigned, Pending: m.Pending}
}

func (s memberStep) equal(o memberStep) bool {
	return s.Epoch == o.Epoch && s.PreviousEpoch == o.PreviousEpoch && s.State == o.State &&
		maps.Equal(s.Assigned, o.Assigned) && maps.Equal(s.Pending, o.Pending)
}

// reconcile runs the member's reconciliation (GroupMetadataManager.maybeReconcile) and
// reports whether the member changed. A member reconciled to the target with an
// unchanged subscription is left alone. A change moves the member's partitions in the
// group's partition epochs, and starts the member's rebalance timer when it must revoke
// (its max.poll.interval.ms, sent as RebalanceTimeoutMs), or cancels it otherwise.
func (c *Coordinator) reconcile(env *sim.Env, cg *consumerGroup, m *consumerMember, req protocol.ConsumerGroupHeartbeatRequest, subscriptionChanged bool) bool {
	if !subscriptionChanged && m.reconciled(cg.AssignmentEpoch) {
		return false
	}
	next := cg.nextStep(m, req, subscriptionChanged)
	if next.equal(m.step()) {
		return false
	}
	seen := m.step()
	seen.PreviousEpoch = next.PreviousEpoch
	cg.releasePartitions(m)
	m.Epoch, m.PreviousEpoch, m.State, m.Assigned, m.Pending = next.Epoch, next.PreviousEpoch, next.State, next.Assigned, next.Pending
	cg.holdPartitions(m)
	if !next.equal(seen) {
		cg.noteMember(env, m) // a change of the previous epoch alone is not worth a line
	}
	if m.State == protocol.MemberUnrevokedPartitions {
		c.armRebalance(env, cg, m)
	} else {
		m.RebalanceTimer = 0
	}
	return true
}

// nextStep is CurrentAssignmentBuilder.build. A STABLE member behind the target's epoch
// moves towards it; at the target's epoch, only a subscription change moves it. An
// UNREVOKED_PARTITIONS member waits while it still owns a partition it must give up — a
// heartbeat that leaves its owned partitions out owns them still — then moves on. An
// UNRELEASED_PARTITIONS member looks again whether what it waits for is free.
func (cg *consumerGroup) nextStep(m *consumerMember, req protocol.ConsumerGroupHeartbeatRequest, subscriptionChanged bool) memberStep {
	owns := func(revoked map[protocol.TP]int32) bool {
		if !req.HasOwned {
			return true // CurrentAssignmentBuilder.ownsRevokedPartitions: null owns all
		}
		for _, tp := range req.Owned {
			if _, ok := revoked[tp]; ok {
				return true
			}
		}
		return false
	}
	switch m.State {
	case protocol.MemberStable:
		if m.Epoch != cg.AssignmentEpoch {
			return cg.nextAssignment(m, owns)
		}
		if subscriptionChanged {
			return m.dropUnsubscribed(owns)
		}
	case protocol.MemberUnrevokedPartitions:
		if !owns(m.Pending) {
			return cg.nextAssignment(m, owns)
		}
		if subscriptionChanged {
			return m.dropUnsubscribed(owns)
		}
	case protocol.MemberUnreleasedPartitions:
		return cg.nextAssignment(m, owns)
	}
	return m.step()
}

// nextAssignment is CurrentAssignmentBuilder.computeNextAssignment, from the member's
// assigned partitions towards its target (only its subscribed topics' partitions count):
// the partitions in both are kept with the epochs they were assigned in; those only
// held must be revoked; those only targeted are added, unless another member still holds
// one (it is not the member's own pending revocation). A member that must revoke and
// still owns what it must revoke stays at its epoch with nothing added; otherwise it
// takes the target's epoch, with what it could add, UNRELEASED_PARTITIONS if anything
// was withheld.
func (cg *consumerGroup) nextAssignment(m *consumerMember, owns func(map[protocol.TP]int32) bool) memberStep {
	subscribed := map[string]bool{}
	for _, t := range m.Topics {
		subscribed[t] = true
	}
	target := map[protocol.TP]bool{}
	for _, tp := range cg.Target[m.ID] {
		if subscribed[tp.Topic] {
			target[tp] = true
		}
	}
	assigned, revoked := map[protocol.TP]int32{}, map[protocol.TP]int32{}
	for tp, e := range m.Assigned {
		if target[tp] {
			assigned[tp] = e
		} else {
			revoked[tp] = e
		}
	}
	if len(revoked) > 0 && owns(revoked) {
		return memberStep{Epoch: m.Epoch, PreviousEpoch: m.Epoch, State: protocol.MemberUnrevokedPartitions,
			Assigned: assigned, Pending: revoked}
	}
	state := protocol.MemberStable
	for _, tp := range protocol.SortedTPs(target) {
		if _, ok := m.Assigned[tp]; ok {
			continue
		}
		if _, held := cg.PartitionEpoch[tp]; held {
			if _, own := m.Pending[tp]; !own {
				state = protocol.MemberUnreleasedPartitions
				continue
			}
		}
		assigned[tp] = cg.AssignmentEpoch
	}
	return memberStep{Epoch: cg.AssignmentEpoch, PreviousEpoch: m.Epoch, State: state, Assigned: assigned,
		Pending: map[protocol.TP]int32{}}
}

// dropUnsubscribed is CurrentAssignmentBuilder.updateCurrentAssignment, for a member at
// the target's epoch whose subscription changed: the partitions of topics it no longer
// subscribes to must be revoked first, at the same epoch, if it still owns them.
func (m *consumerMember) dropUnsubscribed(owns func(map[protocol.TP]int32) bool) memberStep {
	subscribed := map[string]bool{}
	for _, t := range m.Topics {
		subscribed[t] = true
	}
	assigned, revoked := map[protocol.TP]int32{}, map[protocol.TP]int32{}
	maps.Copy(revoked, m.Pending)
	for tp, e := range m.Assigned {
		if subscribed[tp.Topic] {
			assigned[tp] = e
		} else {
			revoked[tp] = e
		}
	}
	if len(revoked) == 0 {
		return m.step()
	}
	if owns(revoked) {
		return memberStep{Epoch: m.Epoch, PreviousEpoch: m.Epoch, State: protocol.MemberUnrevokedPartitions,
			Assigned: assigned, Pending: revoked}
	}
	return memberStep{Epoch: m.Epoch, PreviousEpoch: m.Epoch, State: protocol.MemberStable, Assigned: assigned,
		Pending: map[protocol.TP]int32{}}
}
