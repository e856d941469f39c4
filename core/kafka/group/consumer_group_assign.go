package group

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// maybeUpdateTarget computes the group's next target assignment inside a heartbeat
// (GroupMetadataManager.maybeUpdateTargetAssignment), and reports whether it did. There is
// nothing to compute while the target is for the group epoch already; nor, to batch the
// changes of several members (KIP-1263), within group.consumer.assignment.interval.ms of
// the last computation: then the member is reconciled to the old target, at the old
// assignment epoch, and no timer retries — the first heartbeat after the interval
// computes (canComputeNextTargetAssignment). The assignor runs for the whole group; a
// member other than the one heartbeating picks its new target up on its own next
// heartbeat.
func (c *Coordinator) maybeUpdateTarget(env *sim.Env, h Host, cg *consumerGroup) bool {
	if cg.AssignmentEpoch >= cg.GroupEpoch {
		return false
	}
	last, interval := cg.AssignmentTimestampMs, c.cfg.ConsumerAssignmentIntervalMs
	if last != 0 && interval != 0 && env.Now() < last+interval {
		return false
	}
	cg.Target = uniformAssign(h, cg)
	cg.AssignmentEpoch = cg.GroupEpoch
	cg.AssignmentTimestampMs = env.Now()
	parts := make([]string, 0, len(cg.Members))
	for _, id := range slices.Sorted(maps.Keys(cg.Members)) {
		parts = append(parts, id+"=["+protocol.TPsText(cg.Target[id])+"]")
	}
	env.Note(fmt.Sprintf("group %s epoch %d target: %s", cg.Name, cg.GroupEpoch, strings.Join(parts, " ")))
	return true
}

// uniformAssign is the uniform assignor, the broker's default (group.consumer.assignors'
// first, UniformAssignor), sticky to each member's previous target — not to what it owns.
// A homogeneous group (every member subscribes to the same topics) is assigned as
// UniformHomogeneousAssignmentBuilder does, all its partitions at once. Members with
// different subscriptions are assigned topic by topic, each among its subscribers, with
// the same rule: a simplification of UniformHeterogeneousAssignmentBuilder, which
// balances the whole of each member's load.
func uniformAssign(h Host, cg *consumerGroup) map[string][]protocol.TP {
	members := cg.memberOrder()
	out := make(map[string][]protocol.TP, len(members))
	homogeneous := true
	for _, m := range members[1:] {
		homogeneous = homogeneous && slices.Equal(m.Topics, members[0].Topics)
	}
	if homogeneous {
		var parts []protocol.TP
		for _, t := range members[0].Topics {
			parts = append(parts, h.TopicPartitions(t)...)
		}
		uniformSpread(members, parts, cg.Target, out)
	} else {
		for _, t := range cg.subscribedTopics() {
			var subscribers []*consumerMember
			for _, m := range members {
				if slices.Contains(m.Topics, t) {
					subscribers = append(subscribers, m)
				}
			}
			uniformSpread(subscribers, h.TopicPartitions(t), cg.Target, out)
		}
	}
	for id := range out {
		protocol.SortTPs(out[id])
	}
	return out
}

// uniformSpread shares parts (by topic, then partition) among members in their order,
// as UniformHomogeneousAssignmentBuilder does. Each gets a quota: the partitions divided
// evenly, one more for the first members while some are left over. A member keeps its
// previous target's partitions up to its quota, in order, and releases the rest; the
// partitions no member's previous target held come first in the pool of partitions to
// deal, then the released ones; the pool is dealt to the members under quota, in order.
// So a member gives up only what balance requires.
func uniformSpread(members []*consumerMember, parts []protocol.TP, prev, out map[string][]protocol.TP) {
	if len(members) == 0 {
		return
	}
	exists := make(map[protocol.TP]bool, len(parts))
	for _, tp := range parts {
		exists[tp] = true
	}
	held := map[protocol.TP]bool{}
	for _, m := range members {
		for _, tp := range prev[m.ID] {
			held[tp] = exists[tp]
		}
	}
	var pool []protocol.TP
	for _, tp := range parts {
		if !held[tp] {
			pool = append(pool, tp)
		}
	}
	quota, extra := len(parts)/len(members), len(parts)%len(members)
	type unfilled struct {
		id   string
		left int
	}
	var under []unfilled
	for _, m := range members {
		q := quota
		if extra > 0 {
			q++
			extra--
		}
		for _, tp := range prev[m.ID] {
			switch {
			case !exists[tp]:
				// a partition of another topic, or one that is gone
			case q > 0:
				out[m.ID] = append(out[m.ID], tp)
				q--
			default:
				pool = append(pool, tp)
			}
		}
		if q > 0 {
			under = append(under, unfilled{m.ID, q})
		}
	}
	for _, u := range under {
		for ; u.left > 0 && len(pool) > 0; u.left-- {
			out[u.id] = append(out[u.id], pool[0])
			pool = pool[1:]
		}
	}
	for _, m := range members {
		if _, ok := out[m.ID]; !ok {
			out[m.ID] = nil // a target of nothing is a target still
		}
	}
}
