package scene

import (
	"testing"

	"deliverylab/core/apps"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/server"

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

// R5: acks=all with fewer in-sync replicas than min.insync.replicas is refused before
// anything is appended, and the producer fails once delivery.timeout.ms runs out.
func TestNotEnoughReplicasRefusesAcksAll(t *testing.T) {
	r, rep := runYAML(t, `
cluster:
  brokers: 3
  config: {min.insync.replicas: 3}
  topics: [{name: orders, replication.factor: 3, leaders: [broker-1]}]
apps:
  - producer: p1
    config: {acks: all, enable.idempotence: false, request.timeout.ms: 500, delivery.timeout.ms: 2000}
    send: {topic: orders, count: 2}
    start.ms: 10000
faults:
  - {at.ms: 100, crash: broker-3}
`)
	assert.GreaterOrEqual(t, rep.Errors[protocol.ErrNotEnoughReplicas], 1)
	assert.Equal(t, 2, rep.Messages["sent"])
	n, _ := r.World.Node("broker-1")
	assert.Equal(t, int64(0), n.(*server.Broker).Replicas().Partition(protocol.TP{Topic: "orders"}).LEO(), "nothing appended")
	failed := 0
	for _, o := range r.World.Observations() {
		if o.Event == apps.Failed {
			failed += len(o.Msgs)
			assert.Equal(t, protocol.ErrTimeoutException, o.Err)
		}
	}
	assert.Equal(t, 2, failed, "both sends failed")
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

// R6: with unclean.leader.election.enable=false the partition stays offline and the
// acknowledged messages only broker-1 had are unavailable; with true, broker-2 leads
// without them and they are lost.
func TestUncleanLeaderElection(t *testing.T) {
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
	for _, o := range unclean.World.Observations() {
		if o.Event == protocol.Elected && o.Election == "unclean" {
			elected = true
		}
	}
	assert.True(t, elected)
}

// R1: a follower that stops fetching leaves the ISR after replica.lag.time.max.ms and
// rejoins once it has caught up.
func TestISRShrinksAndExpands(t *testing.T) {
	s, err := Parse("isr.yaml", []byte(`
stop.ms: 40000
cluster:
  brokers: 3
  config: {replica.lag.time.max.ms: 1000}
  topics: [{name: orders, replication.factor: 3, leaders: [broker-1]}]
apps:
  - producer: p1
    config: {acks: 1}
    send: {topic: orders, count: 30, interval.ms: 1000}
faults:
  - {at.ms: 200, cut: [broker-3, broker-1], for.ms: 1500}
`))
	require.NoError(t, err)
	r := s.NewRun()
	isrAt := func(ms int64) []string {
		r.AdvanceTo(ms)
		st, _ := protocol.ControllerState(r.World, protocol.TP{Topic: "orders"})
		return st.ISR
	}
	assert.Equal(t, []string{"broker-1", "broker-2", "broker-3"}, isrAt(100))
	assert.Equal(t, []string{"broker-1", "broker-2"}, isrAt(1700))
	// broker-3's fetch was lost on the cut link: it fetches again once
	// replica.socket.timeout.ms (30 s) has passed, catches up and rejoins.
	assert.Equal(t, []string{"broker-1", "broker-2"}, isrAt(30000))
	assert.Equal(t, []string{"broker-1", "broker-2", "broker-3"}, isrAt(32000))
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

// A consumer whose group requests are lost on a cut link starts over after
// request.timeout.ms instead of waiting forever.
func TestConsumerGroupRequestsTimeOut(t *testing.T) {
	r, rep := runYAML(t, twoMessagesOneConsumer("auto.offset.reset: earliest, request.timeout.ms: 1000",
		"faults:\n  - {at.ms: 1, cut: [c1, broker-1], for.ms: 50}\n"))
	assert.Equal(t, "settled", r.EndNote)
	assert.Equal(t, 2, rep.Messages["delivered"])
	assert.GreaterOrEqual(t, rep.Errors[protocol.ErrRequestTimedOut], 1)
}

// auto.offset.reset=none with nothing committed: poll throws and the consumer gives up.
func TestAutoOffsetResetNone(t *testing.T) {
	r, rep := runYAML(t, twoMessagesOneConsumer("auto.offset.reset: none", ""))
	assert.Equal(t, "settled", r.EndNote)
	assert.Equal(t, 1, rep.Errors[protocol.ErrNoOffsetForPartition])
	assert.Equal(t, 0, rep.Messages["delivered"])
}

// R18: with enable.auto.commit a member commits what it consumed before it rejoins a
// rebalance, so the partition's next owner does not read it again.
func TestAutoCommitBeforeRebalance(t *testing.T) {
	r, rep := runYAML(t, `
cluster:
  brokers: 1
  config: {group.initial.rebalance.delay.ms: 0}
  topics: [{name: orders, partitions: 2, replication.factor: 1}]
apps:
  - producer: p1
    config: {acks: 1}
    send: {topic: orders, count: 6, interval.ms: 10}
  - consumer: c1
    group: g
    topics: [orders]
    config: {auto.offset.reset: earliest}
    sink: db
  - consumer: c2
    group: g
    topics: [orders]
    config: {auto.offset.reset: earliest}
    sink: db
    start.ms: 1000
sinks: [{name: db}]
`)
	assert.Equal(t, 6, rep.Messages["delivered"])
	assert.Equal(t, 0, rep.Messages["duplicated"], "c2 starts after c1's pre-rebalance commit")
	gens := 0
	for _, o := range r.World.Observations() {
		if o.Event == protocol.Assigned && o.Node == "c2" {
			gens++
		}
	}
	assert.Equal(t, 1, gens, "c2 joined and got a partition")
}

// twoMessagesOneConsumer is a one-broker scene: p1 sends two messages, c1 (manual
// commits, plus consumerConfig) reads them; extra is appended (faults, say).
func twoMessagesOneConsumer(consumerConfig, extra string) string {
	return sprintf(`
cluster:
  brokers: 1
  config: {group.initial.rebalance.delay.ms: 0}
  topics: [{name: orders, replication.factor: 1}]
apps:
  - producer: p1
    config: {acks: 1}
    send: {topic: orders, count: 2}
  - consumer: c1
    topics: [orders]
    config: {enable.auto.commit: false, %s}
%s`, consumerConfig, extra)
}
