package scene

import (
	"fmt"
	"strconv"
	"testing"

	"deliverylab/core/check"
	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runYAML(t *testing.T, src string) (*Run, Report) {
	t.Helper()
	s, err := Parse("test.yaml", []byte(src))
	require.NoError(t, err)
	r := s.NewRun()
	r.ToEnd()
	return r, r.Judge()
}

// uncleanScene: broker-2 falls out of the ISR (its fetches are cut), p1 writes more to
// broker-1 with acks=1, then broker-1 dies for good; c1 starts reading after that.
const uncleanScene = `
cluster:
  brokers: 2
  config: {replica.lag.time.max.ms: 1000, unclean.leader.election.enable: %s}
  topics: [{name: orders, replication.factor: 2, leaders: [broker-1]}]
apps:
  - producer: p1
    config: {acks: 1}
    send: {topic: orders, count: 4, interval.ms: 1000}
  - consumer: c1
    topics: [orders]
    config: {enable.auto.commit: false, auto.offset.reset: earliest}
    commit: after-processing
    start.ms: 5000
faults:
  - {at.ms: 500, cut: [broker-2, broker-1]}
  - {at.ms: 4500, crash: broker-1}
`

// The ledger tells unavailable from lost (R6; core/kafka/testdata/unclean_election_*.txt
// shows the protocol): with unclean.leader.election.enable=false the partition stays
// offline and the acknowledged messages only broker-1 had are unavailable, still in its
// log; with true, broker-2 leads without them and they are lost.
func TestOfflineIsUnavailableUncleanIsLost(t *testing.T) {
	clean, cleanRep := runYAML(t, sprintf(uncleanScene, "false"))
	st, _ := protocol.ControllerState(clean.World, protocol.TP{Topic: "orders"})
	assert.Equal(t, "", st.Leader, "offline: no live in-sync replica")
	assert.Greater(t, cleanRep.Messages["unavailable"], 0)
	assert.Equal(t, 0, cleanRep.Messages["lost"])

	unclean, uncleanRep := runYAML(t, sprintf(uncleanScene, "true"))
	st, _ = protocol.ControllerState(unclean.World, protocol.TP{Topic: "orders"})
	assert.Equal(t, "broker-2", st.Leader)
	assert.Greater(t, uncleanRep.Messages["lost"], 0)
	elected := false
	for _, o := range unclean.World.Observations().All() {
		if o.Event == protocol.Elected && o.Election == "unclean" {
			elected = true
		}
	}
	assert.True(t, elected)
}

func TestInvariantsHoldOnEveryEventOfEveryScene(t *testing.T) {
	for _, s := range shippedScenes(t) {
		r := s.NewRun()
		for r.Step() {
			if bad := r.Invariants(); len(bad) > 0 {
				t.Fatalf("%s at %d ms: %v", s.Name, r.World.NowMs(), bad)
			}
		}
	}
}

func TestInvariantsFire(t *testing.T) {
	// Two leaders in one epoch: forge a metadata update that makes broker-2 lead too.
	r, _ := runYAML(t, `
cluster:
  brokers: 2
  topics: [{name: orders, replication.factor: 2, leaders: [broker-1]}]
apps:
  - producer: p1
    config: {acks: 1}
    send: {topic: orders, count: 1}
`)
	require.Empty(t, r.Invariants())
	st, _ := protocol.ControllerState(r.World, protocol.TP{Topic: "orders"})
	st.Leader = "broker-2"
	st.PartitionEpoch++
	r.World.SendAs(protocol.ControllerName, "broker-2", protocol.MetadataUpdate{Partitions: []protocol.PartitionState{st}})
	r.World.RunUntil(r.World.NowMs()+10, nil)
	bad := r.Invariants()
	require.Len(t, bad, 1)
	assert.Contains(t, bad[0], "both broker-1 and broker-2 lead it")
}

// A node crashed by a trigger at its own protocol point forgets what it was doing: after
// its restart it works again.
func TestCrashAtItsOwnProtocolPointThenRestart(t *testing.T) {
	_, rep := runYAML(t, `
cluster:
  brokers: 1
  config: {group.initial.rebalance.delay.ms: 0}
  topics: [{name: orders, replication.factor: 1}]
apps:
  - producer: p1
    config: {acks: 1}
    send: {topic: orders, count: 4, interval.ms: 10}
  - consumer: c1
    topics: [orders]
    config: {enable.auto.commit: false, auto.offset.reset: earliest}
    commit: after-processing
faults:
  - {when: {node: p1, event: sent, message: p1#2}, crash: p1, for.ms: 100}
  - {when: {node: c1, event: polled, message: p1#3}, crash: c1, for.ms: 100}
`)
	assert.Equal(t, 4, rep.Messages["acked"], "p1 resent what it had not been told about")
	assert.Equal(t, 0, rep.Messages["lost"])
	assert.GreaterOrEqual(t, rep.Messages["delivered"]+rep.Messages["duplicated"], 4, "c1 consumed everything after its restart")
}

// heldScene: c1 commits each poll's offset before processing one record a second,
// crashes after its second commit and comes back at once; the run stops while the
// restarted c1 waits to rejoin, before it has read everything p1 wrote.
const heldScene = `
stop.ms: 12000
cluster:
  brokers: 1
  topics: [{name: orders}]
apps:
  - producer: p1
    config: {acks: all, enable.idempotence: false}
    send: {topic: orders, count: 8, interval.ms: 10}
  - consumer: c1
    group: g
    topics: [orders]
    config: {enable.auto.commit: false, auto.offset.reset: earliest, max.poll.records: 2}
    commit: before-processing
    processing.ms: 1000
    sink: db
sinks: [{name: db, kind: table}]
faults:
  - {when: {event: offset-committed, message: p1#4}, crash: c1, for.ms: 1}
`

// A record below the HW on the live leader that the group has not consumed is
// unavailable, not lost: it is at or past the group's committed offset, and the consumer
// simply had not got to it when the run ended (scenes/README.md, Fates and verdicts: unavailable). One below
// the committed offset without an effect is lost: the group moved past it.
func TestBelowHWPastCommittedIsUnavailableBelowCommittedIsLost(t *testing.T) {
	r, rep := runYAML(t, heldScene)
	hw, _ := protocol.LiveLeaderHW(r.World, protocol.TP{Topic: "orders"})
	require.Equal(t, int64(8), hw, "every record is below the high watermark")
	committed := protocol.CommittedOffset(r.World, "g", protocol.TP{Topic: "orders"})
	require.Equal(t, int64(4), committed, "the restarted c1 has not rejoined (the old member's session.timeout.ms runs) when the run stops")
	fates := map[string]check.Fate{}
	for _, f := range rep.Ledger {
		fates[f.Msg] = f
	}
	assert.Equal(t, fate.Lost, fates["p1#3"].Fate, "polled, committed past, crashed before processing")
	assert.Equal(t, fate.Lost, fates["p1#4"].Fate)
	assert.Equal(t, fate.Unavailable, fates["p1#8"].Fate)
	assert.Equal(t, "acknowledged, not yet in db: still held by orders-0 on broker-1, below the high watermark and at or past the group's committed offset: the consumer had not got to it when the run ended",
		fates["p1#8"].Reason.Text(fate.En))
	assert.Contains(t, fates["p1#8"].Reason.Text(fate.Zh), "位于高水位之下")
	assert.Equal(t, 4, rep.Messages["unavailable"], "everything from the committed offset on")
	assert.Equal(t, 2, rep.Messages["lost"])
}

// expect.anomalies takes Jepsen's order anomalies and holds a run to them.
func TestExpectTheOrderAnomalies(t *testing.T) {
	src := "stop.ms: 20000\n" + sprintf(uncleanScene, "true") + "expect:\n  anomalies: {nonmonotonic-send: 0, nonmonotonic-poll: 1, poll-skip: \">=0\"}\n"
	r, rep := runYAML(t, src)
	assert.Equal(t, []string{"anomalies.nonmonotonic-poll: expected 1, got 0"}, r.Scene.Check(rep))
	for _, name := range []check.Anomaly{check.NonmonotonicSend, check.NonmonotonicPoll, check.PollSkip} {
		assert.Contains(t, rep.Anomalies, name)
	}
}

// A real cluster is made with every partition of __consumer_offsets and the scene's
// offsets.topic.num.partitions, placed as the simulation places the ones it runs: the
// broker then puts each group where the simulation did.
func TestPlanCreatesEveryOffsetsPartition(t *testing.T) {
	for _, n := range []struct {
		config          string
		count           int
		dashboardOffset int32 // abs("dashboard".hashCode()) = 1047860588, mod count
	}{{"{}", 50, 38}, {"{offsets.topic.num.partitions: 4}", 4, 0}} {
		s, err := Parse("plan.yaml", []byte(`
cluster:
  brokers: 3
  config: `+n.config+`
  topics: [{name: orders}]
apps:
  - consumer: c1
    group: dashboard
    topics: [orders]
`))
		require.NoError(t, err)
		plan, err := s.Plan(10000)
		require.NoError(t, err)
		assert.Equal(t, strconv.Itoa(n.count), plan.BrokerProperties["offsets.topic.num.partitions"])
		var offsets []PlanPartition
		for _, p := range plan.Partitions {
			if p.Topic == protocol.OffsetsTopic {
				offsets = append(offsets, p)
			}
		}
		require.Len(t, offsets, n.count, "every partition is created")
		for i, p := range offsets {
			assert.Equal(t, int32(i), p.Partition)
			assert.Equal(t, fmt.Sprintf("broker-%d", i%3+1), p.Replicas[0], "round robin from broker-1")
			assert.Len(t, p.Replicas, 3)
		}
		// the one the simulation runs has the same replicas
		run := s.NewRun()
		st, ok := protocol.ControllerState(run.World, protocol.TP{Topic: protocol.OffsetsTopic, Partition: n.dashboardOffset})
		require.True(t, ok, "the simulation runs dashboard's partition")
		assert.Equal(t, offsets[n.dashboardOffset].Replicas, st.Replicas)
	}
}
