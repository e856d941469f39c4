package group

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// A group's metadata in __consumer_offsets, as Kafka 3.9's classic coordinator keeps it
// (the default: group.coordinator.new.enable is false and group.coordinator.rebalance.
// protocols is [classic], KafkaConfig.isNewGroupCoordinatorEnabled). Each completed
// rebalance appends a GroupMetadata record — generation, members, assignments
// (GroupMetadataManager.storeGroup) — so a broker that becomes the coordinator loads the
// group with its members, their ids and generation, not only its offsets
// (doLoadGroupsAndOffsets, readGroupMessageValue), and starts every member's session
// afresh (GroupCoordinator.onGroupLoaded → completeAndScheduleNextHeartbeatExpiration).

// pendingStore is a GroupMetadata append waiting for the HW.
type pendingStore struct {
	Group      string
	Generation int32
}

// storeGroup appends the group's metadata to its partition with acks=all; SyncGroups of
// the generation wait until it is replicated.
func (c *Coordinator) storeGroup(env *sim.Env, h Host, g *group) {
	rec := protocol.GroupMetadata{Group: g.Name, Generation: g.Generation}
	for _, n := range g.memberNames() {
		m := g.Members[n]
		rec.Members = append(rec.Members, protocol.GroupMember{ID: m.Name, ClientID: m.ClientID,
			SessionTimeoutMs: m.SessionTimeoutMs, RebalanceTimeoutMs: m.RebalanceTimeoutMs,
			Topics: slices.Clone(m.Topics), Assignment: slices.Clone(g.Assignment[n])})
	}
	c.refSeq++
	_, err := h.AppendCommit(env, c.refSeq, c.OffsetsPartition(g.Name), []protocol.Record{{Body: rec}}, c.cfg.CommitTimeoutMs)
	if err != "" {
		c.storeFailed(env, h, g, err)
		return
	}
	g.Storing = len(g.Members) > 0
	c.stores[c.refSeq] = pendingStore{Group: g.Name, Generation: g.Generation}
}

// storeDone takes the answer of a GroupMetadata append; it reports whether ref was one.
// Stored, the waiting members get their assignments; failed, they get the error and the
// group rebalances (storeGroup's putCacheCallback, doSyncGroup's callback). A group that
// moved on meanwhile (another rebalance, or the coordinator resigned) is left alone.
func (c *Coordinator) storeDone(env *sim.Env, h Host, ref int64, err protocol.Error) bool {
	ps, ok := c.stores[ref]
	if !ok {
		return false
	}
	delete(c.stores, ref)
	g := c.groups[ps.Group]
	if g == nil || g.Generation != ps.Generation || !g.Storing {
		return true
	}
	g.Storing = false
	if err != "" {
		c.storeFailed(env, h, g, err)
		return true
	}
	waiting := g.Syncing
	g.Syncing = nil
	for _, w := range waiting {
		c.answerSync(env, g, w)
	}
	return true
}

// storeFailed answers the waiting members with storeGroup's error and rebalances
// (GroupCoordinator.doSyncGroup: resetAndPropagateAssignmentError, maybePrepareRebalance).
// An empty group's failed store is only warned about (onCompleteJoin).
func (c *Coordinator) storeFailed(env *sim.Env, h Host, g *group, err protocol.Error) {
	g.Storing = false
	env.Note(fmt.Sprintf("group %s generation %d not stored: %s", g.Name, g.Generation, err))
	if len(g.Members) == 0 {
		return
	}
	g.abortSyncs(env, storeError(err))
	if !c.isCoordinator(h, g.Name) || g.State != Stable {
		return
	}
	g.State = PreparingRebalance
	for _, o := range g.Members {
		o.Joined = false
	}
	env.After(g.rebalanceTimeoutMs(), joinDeadline{Group: g.Name})
}

// storeError is what a failed GroupMetadata append answers a SyncGroup
// (GroupMetadataManager.storeGroup): too few replicas make the coordinator unavailable,
// a lost leadership makes it no longer the coordinator, and a timeout asks the members
// to rebalance.
func storeError(err protocol.Error) protocol.Error {
	if err == protocol.ErrRequestTimedOut {
		return protocol.ErrRebalanceInProgress
	}
	return commitError(err)
}

// loadGroups makes the groups of a __consumer_offsets partition from the last
// GroupMetadata record of each, as doLoadGroupsAndOffsets and loadGroup do: a group with
// members is Stable in its generation with its assignments, one stored without members
// is Empty (its next join waits group.initial.rebalance.delay.ms, as an empty group's
// does: InitialDelayedJoin). A group already cached stays as it is. Every loaded
// member's session starts now (onGroupLoaded).
func (c *Coordinator) loadGroups(env *sim.Env, loaded map[string]protocol.GroupMetadata) {
	for _, name := range slices.Sorted(maps.Keys(loaded)) {
		if c.groups[name] != nil {
			continue
		}
		rec := loaded[name]
		g := &group{Name: name, State: Empty, Generation: rec.Generation, Members: map[string]*member{},
			Assignment: map[string][]protocol.TP{}, New: len(rec.Members) == 0}
		ids := make([]string, len(rec.Members))
		for i, m := range rec.Members {
			g.Members[m.ID] = &member{Name: m.ID, ClientID: m.ClientID, Topics: slices.Clone(m.Topics),
				SessionTimeoutMs: m.SessionTimeoutMs, RebalanceTimeoutMs: m.RebalanceTimeoutMs}
			g.Assignment[m.ID] = slices.Clone(m.Assignment)
			ids[i] = m.ID
		}
		if len(rec.Members) > 0 {
			g.State = Stable
		}
		c.groups[name] = g
		env.Note(fmt.Sprintf("group %s loaded: generation %d, %s, members [%s]", name, g.Generation, g.State, strings.Join(ids, ",")))
		for _, id := range g.memberNames() {
			m := g.Members[id]
			touch(env, g, m, m.SessionTimeoutMs)
		}
	}
}
