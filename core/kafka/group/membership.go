package group

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// State is a group's state, as Kafka's GroupCoordinator names them (the playground
// folds CompletingRebalance into the step from PreparingRebalance to Stable).
type State uint8

// The group states.
const (
	Empty State = iota
	PreparingRebalance
	Stable
)

func (s State) String() string {
	switch s {
	case PreparingRebalance:
		return "PreparingRebalance"
	case Stable:
		return "Stable"
	}
	return "Empty"
}

// group is the coordinator's view of one consumer group (R20).
type group struct {
	Name       string
	State      State
	Generation int32
	Members    map[string]*member
	Assignment map[string][]protocol.TP
	Waiting    []joinWaiter
	New        bool // no rebalance has completed yet: the first waits group.initial.rebalance.delay.ms
	// Storing: the generation's GroupMetadata record is appended and not yet replicated
	// (Kafka's CompletingRebalance after the leader's SyncGroup): SyncGroups wait in
	// Syncing for it (GroupCoordinator.doSyncGroup, storeGroup's callback).
	Storing bool
	Syncing []joinWaiter
}

type member struct {
	Name               string // the member id
	ClientID           string
	Topics             []string
	SessionTimeoutMs   int64
	RebalanceTimeoutMs int64 // the member's max.poll.interval.ms
	LastHeartbeatMs    int64
	Joined             bool // rejoined in the rebalance under way: awaiting its JoinGroup answer
	New                bool // has not completed a join yet (MemberMetadata.isNew)
}

// NewMemberJoinTimeoutMs is how long a new member may wait in its first join before it
// is removed (GroupCoordinator.NewMemberJoinTimeoutMs): its session timeout does not
// apply until the join completes.
const NewMemberJoinTimeoutMs = 5 * 60 * 1000

type joinWaiter struct {
	From   string
	Member string
}

// memberExpiry removes a member whose session was not renewed since TouchedMs.
type memberExpiry struct {
	Group, Member string
	TouchedMs     int64
}

// joinDeadline ends a rebalance's join phase, whoever has not rejoined by then.
type joinDeadline struct{ Group string }

func (memberExpiry) Kind() string { return "MemberExpiry" }
func (t memberExpiry) Describe() string {
	return sim.TimerLine("", t, t.Group+"/"+t.Member)
}
func (joinDeadline) Kind() string       { return "JoinDeadline" }
func (t joinDeadline) Describe() string { return sim.TimerLine("", t, t.Group) }

func (g *group) clone() *group {
	c := *g
	c.Members = make(map[string]*member, len(g.Members))
	for k, m := range g.Members {
		mc := *m
		c.Members[k] = &mc
	}
	c.Assignment = maps.Clone(g.Assignment)
	c.Waiting = slices.Clone(g.Waiting)
	c.Syncing = slices.Clone(g.Syncing)
	return &c
}

// rebalanceTimeoutMs is how long a rebalance waits for members that have not rejoined:
// the longest rebalance timeout of the members, as GroupMetadata.rebalanceTimeoutMs.
func (g *group) rebalanceTimeoutMs() int64 {
	var out int64
	for _, m := range g.Members {
		out = max(out, m.RebalanceTimeoutMs)
	}
	return out
}

func (c *Coordinator) groupFor(name string) *group {
	g := c.groups[name]
	if g == nil {
		g = &group{Name: name, Members: map[string]*member{}, Assignment: map[string][]protocol.TP{}, New: true}
		c.groups[name] = g
	}
	return g
}

func (c *Coordinator) onJoinGroup(env *sim.Env, h Host, from string, req protocol.JoinGroupRequest) {
	if !c.isCoordinator(h, req.Group) {
		env.Send(from, protocol.JoinGroupResponse{Err: protocol.ErrNotCoordinator})
		return
	}
	if c.refuseClassicJoin(env, from, req) {
		return
	}
	g := c.groupFor(req.Group)
	m := g.Members[req.Member]
	if m == nil {
		// GroupCoordinator.addMemberAndRebalance: a new member's first join may wait
		// NewMemberJoinTimeoutMs. A known member's rejoin leaves its timer alone: while it
		// awaits the join it cannot expire (MemberMetadata.hasSatisfiedHeartbeat).
		m = &member{Name: req.Member, ClientID: req.ClientID, New: true}
		g.Members[req.Member] = m
		touch(env, g, m, NewMemberJoinTimeoutMs)
	}
	m.Topics = req.Topics
	m.SessionTimeoutMs = req.SessionTimeoutMs
	m.RebalanceTimeoutMs = req.RebalanceTimeoutMs
	m.Joined = true
	g.Waiting = append(g.Waiting, joinWaiter{From: from, Member: req.Member})
	if g.State != PreparingRebalance {
		g.State = PreparingRebalance
		g.abortSyncs(env, protocol.ErrRebalanceInProgress)
		for _, o := range g.Members {
			if o != m {
				o.Joined = false
			}
		}
		delay := g.rebalanceTimeoutMs()
		if g.New {
			delay = c.cfg.InitialRebalanceDelayMs
		}
		env.After(delay, joinDeadline{Group: g.Name})
		if g.New {
			return
		}
	}
	if !g.New {
		c.maybeCompleteJoin(env, h, g)
	}
}

// maybeCompleteJoin finishes the join phase once every member has rejoined.
func (c *Coordinator) maybeCompleteJoin(env *sim.Env, h Host, g *group) {
	for _, m := range g.Members {
		if !m.Joined {
			return
		}
	}
	c.completeJoin(env, h, g.Name)
}

// completeJoin ends the join phase: members that did not rejoin are dropped, the
// generation moves on, and partitions are assigned with the range assignor.
func (c *Coordinator) completeJoin(env *sim.Env, h Host, name string) {
	g := c.groups[name]
	if g == nil || g.State != PreparingRebalance {
		return
	}
	for _, n := range g.memberNames() {
		if !g.Members[n].Joined {
			delete(g.Members, n)
		}
	}
	g.New = false
	// GroupMetadata.initNextGeneration: the generation moves on, members or none.
	g.Generation++
	if len(g.Members) == 0 {
		g.State = Empty
		g.Waiting = nil
		g.Assignment = map[string][]protocol.TP{}
		// GroupCoordinator.onCompleteJoin: an empty group is stored too; a failure is
		// only warned about.
		c.storeGroup(env, h, g)
		return
	}
	g.State = Stable
	g.Assignment = rangeAssign(h, g)
	env.Note(fmt.Sprintf("group %s generation %d stable", g.Name, g.Generation))
	// GroupCoordinator.doSyncGroup → GroupMetadataManager.storeGroup: the generation, its
	// members and their assignments are appended to the group's partition (acks=all) and
	// the members get their assignments once it is replicated. (The playground's
	// coordinator assigns, so it stores as the join completes.)
	c.storeGroup(env, h, g)
	for _, w := range g.Waiting {
		env.Send(w.From, protocol.JoinGroupResponse{Generation: g.Generation})
	}
	g.Waiting = nil
	// GroupCoordinator.onCompleteJoin: every member's session starts again as its join
	// is answered.
	for _, n := range g.memberNames() {
		m := g.Members[n]
		m.New = false
		touch(env, g, m, m.SessionTimeoutMs)
	}
}

// rangeAssign gives each topic's partitions to the members in name order, in ranges.
func rangeAssign(h Host, g *group) map[string][]protocol.TP {
	out := map[string][]protocol.TP{}
	topics := map[string][]string{}
	for _, n := range g.memberNames() {
		for _, t := range g.Members[n].Topics {
			topics[t] = append(topics[t], n)
		}
	}
	for _, t := range slices.Sorted(maps.Keys(topics)) {
		tps := h.TopicPartitions(t)
		ms := topics[t]
		per, extra := len(tps)/len(ms), len(tps)%len(ms)
		i := 0
		for k, m := range ms {
			n := per
			if k < extra {
				n++
			}
			out[m] = append(out[m], tps[i:i+n]...)
			i += n
		}
	}
	return out
}

func (c *Coordinator) onSyncGroup(env *sim.Env, h Host, from string, req protocol.SyncGroupRequest) {
	g, err := c.checkMember(h, req.Group, req.Member, req.Generation)
	if err != "" {
		env.Send(from, protocol.SyncGroupResponse{Err: err})
		return
	}
	if g.Storing {
		g.Syncing = append(g.Syncing, joinWaiter{From: from, Member: req.Member})
		return
	}
	c.answerSync(env, g, joinWaiter{From: from, Member: req.Member})
}

// answerSync gives a member its assignment.
func (c *Coordinator) answerSync(env *sim.Env, g *group, w joinWaiter) {
	env.Send(w.From, protocol.SyncGroupResponse{Generation: g.Generation, Assigned: slices.Clone(g.Assignment[w.Member])})
	// GroupCoordinator.doSyncGroup (Stable) and propagateAssignment: the session starts
	// again once the member has its assignment.
	if m := g.Members[w.Member]; m != nil {
		touch(env, g, m, m.SessionTimeoutMs)
	}
}

func (c *Coordinator) onHeartbeat(env *sim.Env, h Host, from string, req protocol.HeartbeatRequest) {
	g, err := c.checkMember(h, req.Group, req.Member, req.Generation)
	if err == "" || err == protocol.ErrRebalanceInProgress {
		m := g.Members[req.Member]
		touch(env, g, m, m.SessionTimeoutMs)
	}
	env.Send(from, protocol.HeartbeatResponse{Err: err})
}

// checkMember validates a member's generation as the coordinator does for SyncGroup,
// Heartbeat and OffsetCommit (KIP-447's fencing uses the same check).
func (c *Coordinator) checkMember(h Host, groupName, memberName string, generation int32) (*group, protocol.Error) {
	if !c.isCoordinator(h, groupName) {
		return nil, protocol.ErrNotCoordinator
	}
	g := c.groups[groupName]
	if g == nil || g.Members[memberName] == nil {
		return g, protocol.ErrUnknownMemberID
	}
	if g.State == PreparingRebalance {
		return g, protocol.ErrRebalanceInProgress
	}
	if generation != g.Generation {
		return g, protocol.ErrIllegalGeneration
	}
	return g, ""
}

// touch renews a member's session and arms its expiry after timeoutMs (R20:
// session.timeout.ms; GroupCoordinator.completeAndScheduleNextExpiration).
func touch(env *sim.Env, g *group, m *member, timeoutMs int64) {
	m.LastHeartbeatMs = env.Now()
	env.After(timeoutMs, memberExpiry{Group: g.Name, Member: m.Name, TouchedMs: env.Now()})
}

// awaitingJoin reports whether a known member has rejoined the rebalance under way and
// waits for its answer: its expected heartbeats count as satisfied
// (MemberMetadata.hasSatisfiedHeartbeat), and the join's completion starts its session
// again. A new member is not spared: it expires after NewMemberJoinTimeoutMs.
func (g *group) awaitingJoin(m *member) bool {
	return g.State == PreparingRebalance && m.Joined && !m.New
}

func (c *Coordinator) expireMember(env *sim.Env, h Host, t memberExpiry) {
	g := c.groups[t.Group]
	if g == nil {
		return
	}
	m := g.Members[t.Member]
	if m == nil || m.LastHeartbeatMs != t.TouchedMs {
		return // renewed since
	}
	if g.awaitingJoin(m) {
		env.Note(fmt.Sprintf("group %s keeps %s: it awaits the join", t.Group, t.Member))
		return // GroupCoordinator.onExpireHeartbeat: no expiry while awaiting the join
	}
	c.removeMember(env, h, g, t.Member, "session timed out")
}

// removeMember takes a member out of its group, its session timed out or it left, and
// rebalances the others (GroupCoordinator.removeMemberAndUpdateGroup): a Stable group
// prepares a rebalance, one already rebalancing completes its join if the member was the
// last it waited for.
func (c *Coordinator) removeMember(env *sim.Env, h Host, g *group, name, why string) {
	delete(g.Members, name)
	// A join the member still waits for is answered UNKNOWN_MEMBER_ID
	// (MemberMetadata.maybeInvokeJoinCallback with the leave's error).
	waiting := g.Waiting[:0]
	for _, w := range g.Waiting {
		if w.Member == name {
			env.Send(w.From, protocol.JoinGroupResponse{Err: protocol.ErrUnknownMemberID})
			continue
		}
		waiting = append(waiting, w)
	}
	g.Waiting = waiting
	env.Note(fmt.Sprintf("group %s removes %s: %s", g.Name, name, why))
	env.Observe(sim.Observation{Event: protocol.MemberRemoved, Group: g.Name, Member: name})
	if len(g.Members) == 0 {
		// GroupCoordinator.removeMemberAndUpdateGroup → prepareRebalance: with no member
		// left to wait for, the join completes at once (onCompleteJoin), and the group
		// is Empty in a new generation, stored.
		g.State = PreparingRebalance
		c.completeJoin(env, h, g.Name)
		return
	}
	if g.State == PreparingRebalance {
		c.maybeCompleteJoin(env, h, g)
		return
	}
	g.State = PreparingRebalance
	g.abortSyncs(env, protocol.ErrRebalanceInProgress)
	for _, o := range g.Members {
		o.Joined = false
	}
	env.After(g.rebalanceTimeoutMs(), joinDeadline{Group: g.Name})
}

// onLeaveGroup removes a member that leaves (GroupCoordinator.handleLeaveGroup): the
// coordinator must be this broker's, and the group must know the member.
func (c *Coordinator) onLeaveGroup(env *sim.Env, h Host, from string, req protocol.LeaveGroupRequest) {
	if !c.isCoordinator(h, req.Group) {
		env.Send(from, protocol.LeaveGroupResponse{Err: protocol.ErrNotCoordinator})
		return
	}
	g := c.groups[req.Group]
	if g == nil || g.Members[req.Member] == nil {
		env.Send(from, protocol.LeaveGroupResponse{Err: protocol.ErrUnknownMemberID})
		return
	}
	c.removeMember(env, h, g, req.Member, "it left the group ("+req.Reason+")")
	env.Send(from, protocol.LeaveGroupResponse{})
}

// abortSyncs answers the SyncGroups waiting for the generation's store with err: a
// rebalance began (GroupCoordinator.prepareRebalance from CompletingRebalance,
// resetAndPropagateAssignmentError), the store failed, or the coordinator moved.
func (g *group) abortSyncs(env *sim.Env, err protocol.Error) {
	for _, w := range g.Syncing {
		env.Send(w.From, protocol.SyncGroupResponse{Err: err})
	}
	g.Syncing = nil
}
