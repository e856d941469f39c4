package group

import (
	"testing"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/storage"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	p0 = protocol.TP{Topic: "orders", Partition: 0}
	p1 = protocol.TP{Topic: "orders", Partition: 1}
)

// fakeHost is a broker that leads every partition, knows topic orders with two
// partitions, and appends to one log; the harness makes each append durable.
type fakeHost struct {
	log     storage.Log
	pending []int64 // refs appended, not yet done
	fail    protocol.Error
}

func (*fakeHost) IsLeader(protocol.TP) bool { return true }
func (*fakeHost) Leader(protocol.TP) string { return "coord" }
func (*fakeHost) TopicPartitions(topic string) []protocol.TP {
	if topic == "orders" {
		return []protocol.TP{p0, p1}
	}
	return nil
}
func (h *fakeHost) AppendCommit(_ *sim.Env, ref int64, _ protocol.TP, records []protocol.Record, _ int64) (int64, protocol.Error) {
	if h.fail != "" {
		return -1, h.fail
	}
	stored := h.log.AppendAsLeader(protocol.NewBatch(records), 0)
	h.pending = append(h.pending, ref)
	return stored.BaseOffset, ""
}
func (h *fakeHost) AppendTxnOffsets(env *sim.Env, ref int64, tp protocol.TP, records []protocol.Record, _ int64, _ int16, timeoutMs int64) (int64, protocol.Error) {
	return h.AppendCommit(env, ref, tp, records, timeoutMs)
}

// coordNode runs a coordinator on the fake host; clientNode keeps what it was sent.
type coordNode struct {
	c Coordinator
	h *fakeHost
}

func (n *coordNode) Name() string                        { return "coord" }
func (n *coordNode) Start(*sim.Env)                      {}
func (n *coordNode) Crash()                              {}
func (n *coordNode) Clone() sim.Node                     { c := *n; c.c = n.c.Clone(); return &c }
func (n *coordNode) Receive(env *sim.Env, m sim.Message) { n.c.Handle(env, n.h, m) }
func (n *coordNode) Fire(env *sim.Env, t sim.Payload)    { n.c.Fire(env, n.h, t) }

type clientNode struct {
	name     string
	member   string
	received []sim.Payload
}

func (n *clientNode) Name() string                      { return n.name }
func (n *clientNode) Start(*sim.Env)                    {}
func (n *clientNode) Crash()                            {}
func (n *clientNode) Clone() sim.Node                   { c := *n; return &c }
func (n *clientNode) Fire(*sim.Env, sim.Payload)        {}
func (n *clientNode) Receive(_ *sim.Env, m sim.Message) { n.received = append(n.received, m.Payload) }
func (n *clientNode) MemberID() string                  { return n.member }
func (n *clientNode) last() sim.Payload                 { return n.received[len(n.received)-1] }
func (n *clientNode) lastHeartbeat() protocol.ConsumerGroupHeartbeatResponse {
	return n.last().(protocol.ConsumerGroupHeartbeatResponse)
}

type harness struct {
	t       *testing.T
	w       *sim.World
	n       *coordNode
	clients map[string]*clientNode
}

func testConfig() Config {
	return Config{InitialRebalanceDelayMs: 3000, CommitTimeoutMs: 5000, OffsetsPartitions: 50,
		ConsumerSessionTimeoutMs: 45000, ConsumerHeartbeatIntervalMs: 5000, ConsumerAssignmentIntervalMs: 1000}
}

func newHarness(t *testing.T) *harness {
	w := sim.NewWorld(sim.Config{Seed: 1})
	hs := &harness{t: t, w: w, n: &coordNode{c: New(testConfig()), h: &fakeHost{}}, clients: map[string]*clientNode{}}
	w.Add(hs.n, 0)
	for _, c := range []string{"c1", "c2", "c3"} {
		hs.clients[c] = &clientNode{name: c, member: c + "-1"}
		w.Add(hs.clients[c], 0)
	}
	w.RunUntil(0, nil)
	return hs
}

// at lets time pass to ms: timers fire, and every append the coordinator made is done.
func (hs *harness) at(ms int64) {
	for {
		next := hs.w.NextEventMs()
		if next < 0 || next > ms {
			break
		}
		hs.w.RunUntil(next, nil)
		hs.appendsDone("")
	}
	hs.w.RunUntil(ms, nil)
}

// appendsDone makes the pending appends durable (err "") or fails them, and delivers the answers.
func (hs *harness) appendsDone(err protocol.Error) {
	for len(hs.n.h.pending) > 0 {
		ref := hs.n.h.pending[0]
		hs.n.h.pending = hs.n.h.pending[1:]
		hs.w.Act("coord", func(env *sim.Env) { hs.n.c.AppendDone(env, hs.n.h, ref, err) })
	}
	hs.w.RunUntil(hs.w.NowMs(), nil)
}

// send hands the coordinator a request from a client now, without completing appends.
func (hs *harness) send(from string, p sim.Payload) {
	hs.w.Act("coord", func(env *sim.Env) { hs.n.c.Handle(env, hs.n.h, sim.Message{From: from, To: "coord", Payload: p}) })
	hs.w.RunUntil(hs.w.NowMs(), nil)
}

// hb is a heartbeat answered: sent, its store done, its answer delivered.
func (hs *harness) hb(from string, req protocol.ConsumerGroupHeartbeatRequest) protocol.ConsumerGroupHeartbeatResponse {
	hs.t.Helper()
	n := len(hs.clients[from].received)
	hs.send(from, req)
	hs.appendsDone("")
	require.Len(hs.t, hs.clients[from].received, n+1, "one answer")
	return hs.clients[from].lastHeartbeat()
}

func join(member string) protocol.ConsumerGroupHeartbeatRequest {
	return protocol.ConsumerGroupHeartbeatRequest{Group: "g", Member: member, Epoch: 0, RebalanceTimeoutMs: 300000,
		HasTopics: true, Topics: []string{"orders"}, HasOwned: true}
}

func beat(member string, epoch int32) protocol.ConsumerGroupHeartbeatRequest {
	return protocol.ConsumerGroupHeartbeatRequest{Group: "g", Member: member, Epoch: epoch, RebalanceTimeoutMs: -1}
}

func ack(member string, epoch int32, owned ...protocol.TP) protocol.ConsumerGroupHeartbeatRequest {
	r := beat(member, epoch)
	r.HasOwned, r.Owned = true, owned
	return r
}

func (hs *harness) group() *consumerGroup { return hs.n.c.consumerGroups["g"] }
func (hs *harness) member(id string) *consumerMember {
	return hs.group().Members[id]
}

func assigned(tps ...protocol.TP) []protocol.TP { return tps }

// Doc 7.2, steps 1 to 6: c1 joins alone and gets both partitions at epoch 2 (groups start
// at epoch 1); c2 joins within the assignment interval and is reconciled to the old
// target (nothing, epoch 2); the first heartbeat after the interval computes target@3,
// c1 revokes orders-1 before c2 gets it.
func TestJoinWithinTheAssignmentInterval(t *testing.T) {
	hs := newHarness(t)
	hs.at(1000)
	hs.send("c1", join("c1-1"))
	assert.Empty(t, hs.clients["c1"].received, "the join is answered once its store is replicated")
	hs.appendsDone("")
	r := hs.clients["c1"].lastHeartbeat()
	assert.Equal(t, protocol.ConsumerGroupHeartbeatResponse{Member: "c1-1", Epoch: 2, HeartbeatIntervalMs: 5000,
		HasAssignment: true, Assignment: assigned(p0, p1)}, r)
	assert.Equal(t, int32(2), hs.group().GroupEpoch)
	assert.Equal(t, int32(2), hs.group().AssignmentEpoch)

	hs.at(1200)
	r = hs.hb("c2", join("c2-1"))
	assert.Equal(t, int32(2), r.Epoch, "reconciled to the old target, at the old epoch")
	assert.True(t, r.HasAssignment)
	assert.Empty(t, r.Assignment)
	assert.Equal(t, int32(3), hs.group().GroupEpoch)
	assert.Equal(t, int32(2), hs.group().AssignmentEpoch, "the computation is rate-limited")

	// Both acknowledge: nothing changes, nothing is stored, answered at once.
	stored := hs.n.h.log.LEO()
	r = hs.hb("c1", ack("c1-1", 2, p0, p1))
	assert.False(t, r.HasAssignment)
	r = hs.hb("c2", ack("c2-1", 2))
	assert.False(t, r.HasAssignment)
	assert.Equal(t, stored, hs.n.h.log.LEO())

	// c1's regular heartbeat after the interval computes target@3: c1 keeps orders-0.
	hs.at(6000)
	r = hs.hb("c1", beat("c1-1", 2))
	assert.Equal(t, protocol.ConsumerGroupHeartbeatResponse{Member: "c1-1", Epoch: 2, HeartbeatIntervalMs: 5000,
		HasAssignment: true, Assignment: assigned(p0)}, r)
	assert.Equal(t, map[string][]protocol.TP{"c1-1": {p0}, "c2-1": {p1}}, hs.group().Target)
	c1 := hs.member("c1-1")
	assert.Equal(t, protocol.MemberUnrevokedPartitions, c1.State)
	assert.Equal(t, map[protocol.TP]int32{p1: 2}, c1.Pending)

	// c2 before c1 acks: at epoch 3, orders-1 withheld.
	hs.at(6100)
	r = hs.hb("c2", beat("c2-1", 2))
	assert.Equal(t, int32(3), r.Epoch)
	assert.False(t, r.HasAssignment, "its assigned partitions did not change")
	assert.Equal(t, protocol.MemberUnreleasedPartitions, hs.member("c2-1").State)

	// c1's ack frees orders-1; c2 gets it on its own next heartbeat.
	hs.at(6200)
	r = hs.hb("c1", ack("c1-1", 2, p0))
	assert.Equal(t, int32(3), r.Epoch)
	assert.False(t, r.HasAssignment)
	assert.Equal(t, protocol.MemberStable, hs.member("c1-1").State)
	assert.Equal(t, map[protocol.TP]int32{p0: 2}, hs.member("c1-1").Assigned, "a kept partition keeps its epoch")
	assert.NotContains(t, hs.group().PartitionEpoch, p1)

	hs.at(11100)
	r = hs.hb("c2", beat("c2-1", 3))
	assert.Equal(t, protocol.ConsumerGroupHeartbeatResponse{Member: "c2-1", Epoch: 3, HeartbeatIntervalMs: 5000,
		HasAssignment: true, Assignment: assigned(p1)}, r)
	assert.Equal(t, map[protocol.TP]int32{p1: 3}, hs.member("c2-1").Assigned)
	assert.Equal(t, map[protocol.TP]int32{p0: 3, p1: 3}, hs.group().PartitionEpoch)
}

// scenarioB runs doc 7.3: c1 owns both partitions at epoch 2; c2 joins after the interval.
func scenarioB(t *testing.T) *harness {
	hs := newHarness(t)
	hs.at(1000)
	hs.hb("c1", join("c1-1"))
	hs.hb("c1", ack("c1-1", 2, p0, p1))
	hs.at(5000)
	// 1. c2 joins: target@3 computed in its join; orders-1 is still c1's.
	r := hs.hb("c2", join("c2-1"))
	assert.Equal(t, int32(3), r.Epoch)
	assert.True(t, r.HasAssignment)
	assert.Empty(t, r.Assignment)
	assert.Equal(t, protocol.MemberUnreleasedPartitions, hs.member("c2-1").State)
	hs.hb("c2", ack("c2-1", 3))
	// 2. c1's regular heartbeat: revoke orders-1, keep orders-0.
	hs.at(6000)
	r = hs.hb("c1", beat("c1-1", 2))
	assert.Equal(t, int32(2), r.Epoch)
	assert.Equal(t, assigned(p0), r.Assignment)
	c1 := hs.member("c1-1")
	assert.Equal(t, protocol.MemberUnrevokedPartitions, c1.State)
	assert.Equal(t, map[protocol.TP]int32{p0: 2}, c1.Assigned)
	assert.Equal(t, map[protocol.TP]int32{p1: 2}, c1.Pending)
	assert.NotZero(t, c1.RebalanceTimer, "the rebalance timer runs")
	// A heartbeat that leaves its owned partitions out still owns them.
	r = hs.hb("c1", beat("c1-1", 2))
	assert.Equal(t, protocol.MemberUnrevokedPartitions, hs.member("c1-1").State)
	assert.False(t, r.HasAssignment)
	assert.Equal(t, []string{"g"}, hs.n.c.Unsettled(hs.w), "a member must still revoke")
	return hs
}

func TestScenarioB(t *testing.T) {
	hs := scenarioB(t)
	// 3-4. c1 acks with orders-0 only: STABLE at epoch 3, orders-1 free, timer cancelled.
	hs.at(6100)
	r := hs.hb("c1", ack("c1-1", 2, p0))
	assert.Equal(t, int32(3), r.Epoch)
	assert.False(t, r.HasAssignment)
	c1 := hs.member("c1-1")
	assert.Equal(t, protocol.MemberStable, c1.State)
	assert.Equal(t, map[protocol.TP]int32{p0: 2}, c1.Assigned)
	assert.Zero(t, c1.RebalanceTimer)
	// 5. c2's next heartbeat: orders-1 at epoch 3.
	hs.at(10000)
	r = hs.hb("c2", beat("c2-1", 3))
	assert.Equal(t, int32(3), r.Epoch)
	assert.Equal(t, assigned(p1), r.Assignment)
	assert.Equal(t, protocol.MemberStable, hs.member("c2-1").State)
	assert.Empty(t, hs.n.c.Unsettled(hs.w), "settled once every member is reconciled")
	assert.True(t, hs.n.c.Settled(hs.w))
	hs.clients["c2"].member = "c2-2" // c2 restarted as a new member: c2-1 is gone, not yet removed
	assert.Equal(t, []string{"g"}, hs.n.c.Unsettled(hs.w))
}

// Doc 7.2, steps 9 and 10: c1's session expires, its partition is freed and the group
// epoch moves on; c2's next heartbeat computes target@4 and takes orders-0 at once.
func TestSessionExpiryFreesPartitions(t *testing.T) {
	hs := scenarioB(t)
	hs.at(6100)
	hs.hb("c1", ack("c1-1", 2, p0)) // c1's last heartbeat
	var removed bool
	for ms := int64(10000); ms <= 6100+45000; ms += 5000 {
		hs.at(ms)
		hs.hb("c2", beat("c2-1", hs.member("c2-1").Epoch))
	}
	assert.Equal(t, map[protocol.TP]int32{p1: 3}, hs.member("c2-1").Assigned)
	hs.at(6100 + 45000)
	assert.Nil(t, hs.member("c1-1"), "fenced")
	assert.Equal(t, int32(4), hs.group().GroupEpoch)
	assert.NotContains(t, hs.group().PartitionEpoch, p0)
	assert.NotContains(t, hs.group().Target, "c1-1")
	for _, o := range hs.w.Observations().Of(protocol.MemberRemoved) {
		removed = removed || (o.Event == protocol.MemberRemoved && o.Member == "c1-1")
	}
	assert.True(t, removed)

	hs.at(6100 + 45000 + 4000)
	r := hs.hb("c2", beat("c2-1", 3))
	assert.Equal(t, int32(4), r.Epoch)
	assert.Equal(t, assigned(p0, p1), r.Assignment)
	assert.Equal(t, map[protocol.TP]int32{p0: 4, p1: 3}, hs.member("c2-1").Assigned)
	assert.Equal(t, protocol.MemberStable, hs.member("c2-1").State)
}

// A member that never revokes is fenced after its rebalance timeout, at the epoch it
// stayed at.
func TestRebalanceTimeoutFences(t *testing.T) {
	hs := scenarioB(t)
	for ms := int64(10000); ms < 6000+300000; ms += 5000 {
		hs.at(ms)
		hs.hb("c1", beat("c1-1", 2)) // alive, never acknowledging
		hs.hb("c2", beat("c2-1", 3))
	}
	hs.at(6000 + 300000)
	assert.Nil(t, hs.member("c1-1"))
	assert.Equal(t, int32(4), hs.group().GroupEpoch)
}

func TestLeave(t *testing.T) {
	hs := scenarioB(t)
	r := hs.hb("c1", protocol.ConsumerGroupHeartbeatRequest{Group: "g", Member: "c1-1", Epoch: -1, RebalanceTimeoutMs: -1})
	assert.Equal(t, protocol.ConsumerGroupHeartbeatResponse{Member: "c1-1", Epoch: -1}, r)
	assert.Equal(t, int32(4), hs.group().GroupEpoch)
	assert.Empty(t, hs.group().PartitionEpoch, "its partitions, pending revocation too, are free")
	r = hs.hb("c2", protocol.ConsumerGroupHeartbeatRequest{Group: "g", Member: "c2-1", Epoch: -1, RebalanceTimeoutMs: -1})
	assert.Equal(t, int32(-1), r.Epoch)
	assert.Equal(t, int32(5), hs.group().GroupEpoch)
	assert.Equal(t, int32(5), hs.group().AssignmentEpoch, "an empty group computes at the next join")
	assert.Zero(t, hs.group().AssignmentTimestampMs)
	r = hs.hb("c1", join("c1-2"))
	assert.Equal(t, int32(6), r.Epoch)
	assert.Equal(t, assigned(p0, p1), r.Assignment)
}

func TestEpochChecks(t *testing.T) {
	hs := scenarioB(t)
	hs.at(6100)
	hs.hb("c1", ack("c1-1", 2, p0)) // c1: epoch 3, previous 2, {p0}

	r := hs.hb("c1", beat("c1-1", 4))
	assert.Equal(t, protocol.ErrFencedMemberEpoch, r.Err, "newer than the coordinator's")
	r = hs.hb("c1", beat("c1-1", 1))
	assert.Equal(t, protocol.ErrFencedMemberEpoch, r.Err, "older, and not the previous epoch")

	// The answer that gave epoch 3 was lost: a full heartbeat at the previous epoch owning
	// only assigned partitions is taken.
	full := ack("c1-1", 2, p0)
	full.RebalanceTimeoutMs, full.HasTopics, full.Topics = 300000, true, []string{"orders"}
	r = hs.hb("c1", full)
	assert.Equal(t, protocol.ConsumerGroupHeartbeatResponse{Member: "c1-1", Epoch: 3, HeartbeatIntervalMs: 5000,
		HasAssignment: true, Assignment: assigned(p0)}, r)
	r = hs.hb("c1", beat("c1-1", 2))
	assert.Equal(t, protocol.ErrFencedMemberEpoch, r.Err, "without owned partitions")
	r = hs.hb("c1", ack("c1-1", 2, p0, p1))
	assert.Equal(t, protocol.ErrFencedMemberEpoch, r.Err, "owning what it is not assigned")

	r = hs.hb("c3", beat("c3-1", 3))
	assert.Equal(t, protocol.ErrUnknownMemberID, r.Err)
	other := beat("c3-1", 3)
	other.Group = "unknown"
	r = hs.hb("c3", other)
	assert.Equal(t, protocol.ErrGroupIDNotFound, r.Err)

	// The epoch-0 rejoin of a known member is taken without a check, and re-delivers.
	r = hs.hb("c1", join("c1-1"))
	assert.Equal(t, int32(3), r.Epoch)
	assert.Equal(t, assigned(p0), r.Assignment)
	assert.Equal(t, int32(3), hs.group().GroupEpoch, "no bump: same subscription")
}

func TestInvalidRequests(t *testing.T) {
	hs := newHarness(t)
	for _, req := range []protocol.ConsumerGroupHeartbeatRequest{
		func() protocol.ConsumerGroupHeartbeatRequest { r := join("c1-1"); r.RebalanceTimeoutMs = -1; return r }(),
		func() protocol.ConsumerGroupHeartbeatRequest { r := join("c1-1"); r.HasOwned = false; return r }(),
		func() protocol.ConsumerGroupHeartbeatRequest {
			r := join("c1-1")
			r.Owned = []protocol.TP{p0}
			return r
		}(),
		func() protocol.ConsumerGroupHeartbeatRequest { r := join("c1-1"); r.HasTopics = false; return r }(),
		func() protocol.ConsumerGroupHeartbeatRequest { r := join(""); return r }(),
		beat("c1-1", -2),
		beat("c1-1", -3),
	} {
		assert.Equal(t, protocol.ErrInvalidRequest, hs.hb("c1", req).Err, req.Describe())
	}
	assert.Nil(t, hs.group())
}

// A group id is one kind of group.
func TestGroupKinds(t *testing.T) {
	hs := newHarness(t)
	hs.n.c.groups["g"] = &group{Name: "g", Members: map[string]*member{"x": {Name: "x"}}}
	assert.Equal(t, protocol.ErrGroupIDNotFound, hs.hb("c1", join("c1-1")).Err)
	delete(hs.n.c.groups["g"].Members, "x")
	assert.Equal(t, int32(2), hs.hb("c1", join("c1-1")).Epoch, "an empty classic group gives way")
	assert.Nil(t, hs.n.c.groups["g"])

	hs.send("c2", protocol.JoinGroupRequest{Group: "g", Member: "c2-x", ClientID: "c2", Topics: []string{"orders"}})
	assert.Equal(t, protocol.JoinGroupResponse{Err: protocol.ErrGroupIDNotFound}, hs.clients["c2"].last())
}

func (hs *harness) commit(from, member string, epoch int32, tps ...protocol.TP) protocol.Error {
	req := protocol.OffsetCommitRequest{ReqID: 1, Group: "g", Member: member, Generation: epoch}
	for _, tp := range tps {
		req.Offsets = append(req.Offsets, protocol.TPOffset{TP: tp, Offset: 5})
	}
	hs.send(from, req)
	hs.appendsDone("")
	return hs.clients[from].last().(protocol.OffsetCommitResponse).Err
}

// Doc 5.2: commits are checked by member epoch.
func TestOffsetCommitByMemberEpoch(t *testing.T) {
	hs := scenarioB(t)
	hs.at(6100)
	hs.hb("c1", ack("c1-1", 2, p0))
	hs.at(10000)
	hs.hb("c2", beat("c2-1", 3)) // c1: epoch 3 {p0 since 2}; c2: epoch 3 {p1 since 3}

	assert.Equal(t, protocol.Error(""), hs.commit("c1", "c1-1", 3, p0, p1), "the current epoch commits any partition")
	assert.Equal(t, protocol.ErrStaleMemberEpoch, hs.commit("c1", "c1-1", 4, p0))
	assert.Equal(t, protocol.Error(""), hs.commit("c1", "c1-1", 2, p0), "held since epoch 2")
	assert.Equal(t, protocol.ErrStaleMemberEpoch, hs.commit("c1", "c1-1", 2, p0, p1), "the whole request fails")
	assert.Equal(t, protocol.ErrStaleMemberEpoch, hs.commit("c2", "c2-1", 2, p1), "held only since epoch 3")
	assert.Equal(t, protocol.ErrUnknownMemberID, hs.commit("c3", "c3-1", 3, p0))
	assert.Equal(t, protocol.ErrUnknownMemberID, hs.commit("c3", "", -1, p0), "no epoch, but the group has members")

	hs.hb("c1", protocol.ConsumerGroupHeartbeatRequest{Group: "g", Member: "c1-1", Epoch: -1, RebalanceTimeoutMs: -1})
	hs.hb("c2", protocol.ConsumerGroupHeartbeatRequest{Group: "g", Member: "c2-1", Epoch: -1, RebalanceTimeoutMs: -1})
	assert.Equal(t, protocol.Error(""), hs.commit("c3", "", -1, p0), "no epoch, and no members")
	assert.Equal(t, int64(5), hs.n.c.CommittedOffset("g", p0))

	// TxnOffsetCommit takes the same validator.
	hs = scenarioB(t)
	hs.send("c2", protocol.TxnOffsetCommitRequest{ReqID: 2, Group: "g", Member: "c2-1", Generation: 2,
		Offsets: []protocol.TPOffset{{TP: p1, Offset: 1}}})
	assert.Equal(t, protocol.ErrStaleMemberEpoch, hs.clients["c2"].last().(protocol.TxnOffsetCommitResponse).Err)
	hs.send("c1", protocol.TxnOffsetCommitRequest{ReqID: 3, Group: "g", Member: "c1-1", Generation: 2,
		Offsets: []protocol.TPOffset{{TP: p1, Offset: 1}}})
	hs.appendsDone("")
	assert.Equal(t, protocol.Error(""), hs.clients["c1"].last().(protocol.TxnOffsetCommitResponse).Err, "pending revocation counts")
}

// Doc 5.3: a member fetches offsets at exactly its epoch.
func TestOffsetFetchByMemberEpoch(t *testing.T) {
	hs := scenarioB(t) // c1 at epoch 2, c2 at epoch 3
	fetch := func(from, member string, epoch int32) protocol.Error {
		hs.send(from, protocol.OffsetFetchRequest{Group: "g", TPs: []protocol.TP{p0}, RequireStable: true, Member: member, MemberEpoch: epoch})
		return hs.clients[from].last().(protocol.OffsetFetchResponse).Err
	}
	assert.Equal(t, protocol.Error(""), fetch("c2", "c2-1", 3))
	assert.Equal(t, protocol.ErrStaleMemberEpoch, fetch("c2", "c2-1", 2))
	assert.Equal(t, protocol.ErrStaleMemberEpoch, fetch("c1", "c1-1", 3))
	assert.Equal(t, protocol.ErrUnknownMemberID, fetch("c3", "c3-1", 3))
	assert.Equal(t, protocol.Error(""), fetch("c3", "", -1), "no member: not checked")
}

// A failed store answers the heartbeat with the coordinator's error; the change stays.
func TestStoreFailure(t *testing.T) {
	hs := newHarness(t)
	hs.at(1000)
	hs.send("c1", join("c1-1"))
	hs.appendsDone(protocol.ErrNotEnoughReplicas)
	assert.Equal(t, protocol.ErrCoordinatorNotAvailable, hs.clients["c1"].lastHeartbeat().Err)
	hs.n.h.fail = protocol.ErrNotLeaderOrFollower
	hs.send("c2", join("c2-1"))
	assert.Equal(t, protocol.ErrNotCoordinator, hs.clients["c2"].lastHeartbeat().Err)
	assert.Len(t, hs.group().Members, 2)
}

// A coordinator that loads the partition rebuilds the group from its last snapshot, and
// starts the members' timers.
func TestSnapshotRoundTrip(t *testing.T) {
	hs := scenarioB(t) // c1 UNREVOKED at epoch 2, c2 UNRELEASED at 3
	want := hs.group().clone()
	loaded := &coordNode{c: New(testConfig()), h: hs.n.h}
	hs.w.Act("c3", func(env *sim.Env) {
		loaded.c.OnElection(env, protocol.OffsetsTP("g", 50), &hs.n.h.log)
	})
	got := loaded.c.consumerGroups["g"]
	require.NotNil(t, got)
	assert.NotZero(t, got.Members["c1-1"].RebalanceTimer, "it must still revoke")
	assert.NotZero(t, got.Members["c2-1"].SessionTimer)
	for _, g := range []*consumerGroup{want, got} {
		for _, m := range g.Members {
			m.SessionTimer, m.RebalanceTimer = 0, 0
		}
	}
	assert.Equal(t, want, got)
	assert.Equal(t, "consumer group g epoch=3 assignment=3 members=[c1-1@2,c2-1@3]",
		hs.n.h.log.Read(hs.n.h.log.LEO()-1, hs.n.h.log.LEO())[0].Records[0].Body.Describe())

	// A later classic record of the id wins.
	hs.n.h.log.AppendAsLeader(protocol.NewBatch([]protocol.Record{{Body: protocol.GroupMetadata{Group: "g", Generation: 7}}}), 0)
	again := New(testConfig())
	hs.w.Act("c3", func(env *sim.Env) { again.OnElection(env, protocol.OffsetsTP("g", 50), &hs.n.h.log) })
	assert.Nil(t, again.consumerGroups["g"])
	assert.Equal(t, int32(7), again.groups["g"].Generation)
}

// A clone shares nothing with the coordinator it was copied from.
func TestCloneIsIndependent(t *testing.T) {
	hs := scenarioB(t)
	before := hs.group().clone()
	clone := hs.n.c.Clone()
	hs.at(6100)
	hs.hb("c1", ack("c1-1", 2, p0))
	hs.hb("c2", beat("c2-1", 3))
	assert.Equal(t, before, clone.consumerGroups["g"])
	assert.NotEqual(t, before, hs.group())
}

// The uniform assignor keeps what it can of the previous target.
func TestUniformAssignor(t *testing.T) {
	h := &fakeHost{}
	cg := newConsumerGroup("g")
	add := func(id string, order int64, prev ...protocol.TP) {
		cg.Members[id] = &consumerMember{ID: id, JoinOrder: order, Topics: []string{"orders"}}
		cg.Target[id] = prev
	}
	add("a", 0, p0, p1)
	add("b", 1)
	assert.Equal(t, map[string][]protocol.TP{"a": {p0}, "b": {p1}}, uniformAssign(h, cg))
	add("c", 2)
	assert.Equal(t, map[string][]protocol.TP{"a": {p0}, "b": {p1}, "c": nil}, uniformAssign(h, cg))
	cg = newConsumerGroup("g")
	add("a", 1, p0)
	add("x", 0)
	assert.Equal(t, map[string][]protocol.TP{"a": {p0}, "x": {p1}}, uniformAssign(h, cg))
	cg = newConsumerGroup("g")
	add("b", 1)
	add("a", 0)
	assert.Equal(t, map[string][]protocol.TP{"a": {p0}, "b": {p1}}, uniformAssign(h, cg), "new members: by join order")
}
