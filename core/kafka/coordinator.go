package kafka

import (
	"sort"

	"deliverylab/core/sim"
)

// Group states, as GroupCoordinator names them.
const (
	groupEmpty     = "Empty"
	groupPreparing = "PreparingRebalance"
	groupStable    = "Stable"
)

// rebalanceTimeoutMs is max.poll.interval.ms's default: how long a rebalance waits for
// members that have not rejoined.
const rebalanceTimeoutMs = 300000

// group is the coordinator's volatile view of one consumer group (R20). Committed
// offsets are not here: they live in the replicated __consumer_offsets log.
type group struct {
	Name       string
	State      string
	Generation int32
	Members    map[string]*member
	Assignment map[string][]TP
	Waiting    []joinWaiter
	New        bool // no rebalance has completed yet: the first waits group.initial.rebalance.delay.ms
}

type member struct {
	Name             string
	Topics           []string
	SessionTimeoutMs int64
	LastHeartbeatMs  int64
	Joined           bool
}

type joinWaiter struct {
	From   string
	Member string
}

type delayedCommit struct {
	From       string
	Req        OffsetCommitRequest
	LastOffset int64
	DeadlineMs int64
}

func (g *group) clone() *group {
	c := *g
	c.Members = make(map[string]*member, len(g.Members))
	for k, m := range g.Members {
		mc := *m
		c.Members[k] = &mc
	}
	c.Assignment = make(map[string][]TP, len(g.Assignment))
	for k, v := range g.Assignment {
		c.Assignment[k] = append([]TP(nil), v...)
	}
	c.Waiting = append([]joinWaiter(nil), g.Waiting...)
	return &c
}

func (g *group) memberNames() []string {
	out := make([]string, 0, len(g.Members))
	for n := range g.Members {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var offsetsTP = TP{Topic: OffsetsTopic, Partition: 0}

func (b *Broker) findCoordinator(_ string) FindCoordinatorResponse {
	st, ok := b.meta[offsetsTP]
	if !ok || st.Leader == "" {
		return FindCoordinatorResponse{Err: ErrCoordinatorNotAvailable}
	}
	return FindCoordinatorResponse{Coordinator: st.Leader}
}

func (b *Broker) isCoordinator() bool { return b.IsLeader(offsetsTP) }

func (b *Broker) groupFor(name string) *group {
	g := b.groups[name]
	if g == nil {
		g = &group{Name: name, State: groupEmpty, Members: map[string]*member{}, Assignment: map[string][]TP{}, New: true}
		b.groups[name] = g
	}
	return g
}

func (b *Broker) onJoinGroup(env *sim.Env, from string, req JoinGroupRequest) {
	if !b.isCoordinator() {
		env.Send(from, JoinGroupResponse{Err: ErrNotCoordinator})
		return
	}
	g := b.groupFor(req.Group)
	m := g.Members[req.Member]
	if m == nil {
		m = &member{Name: req.Member}
		g.Members[req.Member] = m
	}
	m.Topics = req.Topics
	m.SessionTimeoutMs = req.SessionTimeoutMs
	m.Joined = true
	b.touch(env, g, m)
	g.Waiting = append(g.Waiting, joinWaiter{From: from, Member: req.Member})
	if g.State != groupPreparing {
		g.State = groupPreparing
		for _, o := range g.Members {
			if o != m {
				o.Joined = false
			}
		}
		delay := int64(rebalanceTimeoutMs)
		if g.New {
			delay = b.cfg.GroupInitialRebalanceDelay
		}
		env.After(delay, brokerTimer{What: "initial-rebalance", Key: g.Name})
		if g.New {
			return
		}
	}
	if !g.New {
		b.maybeCompleteJoin(env, g)
	}
}

// maybeCompleteJoin finishes the join phase once every member has rejoined.
func (b *Broker) maybeCompleteJoin(env *sim.Env, g *group) {
	for _, m := range g.Members {
		if !m.Joined {
			return
		}
	}
	b.completeJoin(env, g.Name)
}

// completeJoin ends the join phase: members that did not rejoin are dropped, the
// generation moves on, and partitions are assigned with the range assignor.
func (b *Broker) completeJoin(env *sim.Env, name string) {
	g := b.groups[name]
	if g == nil || g.State != groupPreparing {
		return
	}
	for _, n := range g.memberNames() {
		if !g.Members[n].Joined {
			delete(g.Members, n)
		}
	}
	g.New = false
	if len(g.Members) == 0 {
		g.State = groupEmpty
		g.Waiting = nil
		return
	}
	g.Generation++
	g.State = groupStable
	g.Assignment = b.rangeAssign(g)
	env.Note("group " + g.Name + " generation " + itoa32(g.Generation) + " stable")
	for _, w := range g.Waiting {
		env.Send(w.From, JoinGroupResponse{Generation: g.Generation})
	}
	g.Waiting = nil
}

// rangeAssign gives each topic's partitions to the members in name order, in ranges.
func (b *Broker) rangeAssign(g *group) map[string][]TP {
	out := map[string][]TP{}
	topics := map[string][]string{}
	for _, n := range g.memberNames() {
		for _, t := range g.Members[n].Topics {
			topics[t] = append(topics[t], n)
		}
	}
	var names []string
	for t := range topics {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		var tps []TP
		for _, tp := range b.metaTPs() {
			if tp.Topic == t {
				tps = append(tps, tp)
			}
		}
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

func (b *Broker) onSyncGroup(env *sim.Env, from string, req SyncGroupRequest) {
	g, err := b.checkMember(req.Group, req.Member, req.Generation)
	if err != "" {
		env.Send(from, SyncGroupResponse{Err: err})
		return
	}
	env.Send(from, SyncGroupResponse{Generation: g.Generation, Assigned: append([]TP(nil), g.Assignment[req.Member]...)})
}

func (b *Broker) onHeartbeat(env *sim.Env, from string, req HeartbeatRequest) {
	g, err := b.checkMember(req.Group, req.Member, req.Generation)
	if err == "" || err == ErrRebalanceInProgress {
		b.touch(env, g, g.Members[req.Member])
	}
	env.Send(from, HeartbeatResponse{Err: err})
}

// checkMember validates a member's generation as the coordinator does for SyncGroup,
// Heartbeat and OffsetCommit (KIP-447's fencing uses the same check).
func (b *Broker) checkMember(groupName, memberName string, generation int32) (*group, string) {
	if !b.isCoordinator() {
		return nil, ErrNotCoordinator
	}
	g := b.groups[groupName]
	if g == nil || g.Members[memberName] == nil {
		return g, ErrUnknownMemberID
	}
	if g.State == groupPreparing {
		return g, ErrRebalanceInProgress
	}
	if generation != g.Generation {
		return g, ErrIllegalGeneration
	}
	return g, ""
}

// touch renews a member's session and arms its expiry (R20: session.timeout.ms).
func (b *Broker) touch(env *sim.Env, g *group, m *member) {
	m.LastHeartbeatMs = env.Now()
	env.After(m.SessionTimeoutMs, brokerTimer{What: "member-expiry", Key: g.Name + "\x00" + m.Name, ID: env.Now()})
}

func (b *Broker) expireMember(env *sim.Env, key string, touchedMs int64) {
	gname, mname := splitKey(key)
	g := b.groups[gname]
	if g == nil {
		return
	}
	m := g.Members[mname]
	if m == nil || m.LastHeartbeatMs != touchedMs {
		return // renewed since
	}
	delete(g.Members, mname)
	env.Note("group " + gname + " removes " + mname + ": session timed out")
	env.Observe(sim.Observation{Event: "member-removed", Detail: gname + "/" + mname})
	if len(g.Members) == 0 {
		g.State = groupEmpty
		return
	}
	if g.State == groupPreparing {
		b.maybeCompleteJoin(env, g)
		return
	}
	g.State = groupPreparing
	for _, o := range g.Members {
		o.Joined = false
	}
	env.After(rebalanceTimeoutMs, brokerTimer{What: "initial-rebalance", Key: g.Name})
}

// onOffsetCommit appends the commit to __consumer_offsets and answers once the HW
// covers it, like an acks=all produce.
func (b *Broker) onOffsetCommit(env *sim.Env, from string, req OffsetCommitRequest) {
	_, err := b.checkMember(req.Group, req.Member, req.Generation)
	if err == ErrRebalanceInProgress && req.Generation == b.groups[req.Group].Generation {
		err = "" // a member of the current generation may still commit while the group rebalances
	}
	if err != "" {
		env.Send(from, OffsetCommitResponse{ReqID: req.ReqID, Err: err})
		return
	}
	r := b.replicas[offsetsTP]
	recs := make([]Record, len(req.Offsets))
	for i, o := range req.Offsets {
		recs[i] = Record{Key: req.Group + "/" + o.TP.String(), Commit: &OffsetCommitValue{Group: req.Group, TP: o.TP, Offset: o.Offset}}
	}
	base := r.append(recs, b.meta[offsetsTP].LeaderEpoch)
	last := base + int64(len(recs)) - 1
	b.commits = append(b.commits, delayedCommit{From: from, Req: req, LastOffset: last, DeadlineMs: env.Now() + 5000})
	env.After(5000, brokerTimer{What: "produce-timeout", TP: offsetsTP})
	b.wakeParked(env, offsetsTP, true)
	b.maybeAdvanceHW(env, r)
}

func (b *Broker) completeCommits(env *sim.Env, tp TP) {
	if tp != offsetsTP {
		return
	}
	r := b.replicas[tp]
	keep := b.commits[:0:0]
	for _, c := range b.commits {
		if r.HW <= c.LastOffset {
			keep = append(keep, c)
			continue
		}
		if id := env.Send(c.From, OffsetCommitResponse{ReqID: c.Req.ReqID}); id != 0 {
			env.Observe(sim.Observation{Event: "offset-committed", Msgs: c.Req.Msgs, Detail: c.Req.Group + " " + offsetsText(c.Req.Offsets), WireID: id})
		}
	}
	b.commits = keep
}

func (b *Broker) expireCommits(env *sim.Env) {
	keep := b.commits[:0:0]
	for _, c := range b.commits {
		if c.DeadlineMs > env.Now() {
			keep = append(keep, c)
			continue
		}
		env.Send(c.From, OffsetCommitResponse{ReqID: c.Req.ReqID, Err: ErrRequestTimedOut})
	}
	b.commits = keep
}

func (b *Broker) failCommits(env *sim.Env, tp TP) {
	if tp != offsetsTP {
		return
	}
	for _, c := range b.commits {
		env.Send(c.From, OffsetCommitResponse{ReqID: c.Req.ReqID, Err: ErrNotCoordinator})
	}
	b.commits = nil
	b.groups = map[string]*group{}
}

// onOffsetFetch answers the group's committed offsets.
func (b *Broker) onOffsetFetch(env *sim.Env, from string, req OffsetFetchRequest) {
	if !b.isCoordinator() {
		env.Send(from, OffsetFetchResponse{Err: ErrNotCoordinator})
		return
	}
	env.Send(from, OffsetFetchResponse{Offsets: b.committedOffsets(req.Group, req.TPs)})
}

// committedOffsets reads the group's offsets as the coordinator's cache holds them: what
// it loaded from its whole log when it became leader (GroupMetadataManager reads to the
// log end), plus commits answered since, which the HW covers.
func (b *Broker) committedOffsets(groupName string, tps []TP) []TPOffset {
	r := b.replicas[offsetsTP]
	visible := max(r.HW, r.loadedEnd)
	out := make([]TPOffset, len(tps))
	for i, tp := range tps {
		out[i] = TPOffset{TP: tp, Offset: -1}
		for _, rec := range r.Log[:visible] {
			if c := rec.Commit; c != nil && c.Group == groupName && c.TP == tp {
				out[i].Offset = c.Offset
			}
		}
	}
	return out
}

// CommittedOffset is the group's committed position in a partition as this broker, if it
// is the coordinator, answers it, or -1.
func (b *Broker) CommittedOffset(groupName string, tp TP) int64 {
	if b.replicas[offsetsTP] == nil {
		return -1
	}
	return b.committedOffsets(groupName, []TP{tp})[0].Offset
}

func splitKey(k string) (string, string) {
	for i := 0; i < len(k); i++ {
		if k[i] == 0 {
			return k[:i], k[i+1:]
		}
	}
	return k, ""
}

func itoa32(v int32) string {
	return itoa64(int64(v))
}

func itoa64(v int64) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var buf [20]byte
	i := len(buf)
	for v > 0 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

// Group returns the members the coordinator on this broker knows in a group, sorted,
// and whether the group is rebalancing.
func (b *Broker) Group(name string) (members []string, rebalancing bool) {
	if g := b.groups[name]; g != nil {
		return g.memberNames(), g.State == groupPreparing
	}
	return nil, false
}
