package scene

import (
	"strings"
	"testing"

	"deliverylab/core/fate"
	"deliverylab/core/sim"
	"deliverylab/scenes"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runShape runs a scene given as text to its end and returns its report.
func runShape(t *testing.T, text string) (*Run, Report) {
	t.Helper()
	s, err := Parse(t.Name()+".yaml", []byte(text))
	require.NoError(t, err)
	r := s.NewRun()
	r.World.Trace().Keep = false
	r.ToEnd()
	require.True(t, r.Ended)
	return r, r.Judge()
}

const zeroWaitShape = `
title: {en: t, zh: t}
cluster: {brokers: 2, config: {replica.fetch.wait.max.ms: 0}, topics: [{name: t}]}
network: {latency.ms: 0}
apps:
  - producer: p1
    config: {acks: 1}
    send: {topic: t, count: 3, interval.ms: 100}
`

// The three loops found by the issue-8 review: each ran in one virtual instant for ever.
func TestAZeroFetchWaitOverAZeroLatencyLinkTakesTime(t *testing.T) {
	_, rep := runShape(t, zeroWaitShape)
	assert.Equal(t, EndSettled, rep.EndNote)
	assert.Equal(t, 3, rep.Messages["acked"])
}

func TestAConsumerZeroFetchWaitTakesTime(t *testing.T) {
	_, rep := runShape(t, `
title: {en: t, zh: t}
cluster: {brokers: 2, topics: [{name: t}]}
network: {latency.ms: 0}
apps:
  - producer: p1
    config: {acks: 1}
    send: {topic: t, count: 3, interval.ms: 2000}
  - consumer: c1
    group: g
    topics: [t]
    config: {fetch.max.wait.ms: 0, auto.offset.reset: earliest}
`)
	assert.Equal(t, EndSettled, rep.EndNote)
	assert.Equal(t, 3, rep.Messages["delivered"])
}

func TestAConsumerWithoutALeaderBacksOffItsMetadataRequests(t *testing.T) {
	r, rep := runShape(t, `
title: {en: t, zh: t}
cluster: {brokers: 2, topics: [{name: t, replication.factor: 1, leaders: [broker-1]}]}
network: {latency.ms: 0}
apps:
  - producer: p1
    config: {acks: 1}
    send: {topic: t, count: 3, interval.ms: 100}
  - consumer: c1
    group: g
    topics: [t]
faults:
  - {at.ms: 1, crash: broker-1}
`)
	assert.Equal(t, EndSettled, rep.EndNote, "c1 cannot get further: t-0 has no leader, and never will")
	assert.Equal(t, 3, rep.Messages["failed"], "broker-1 never comes back: every send times out")
	assert.Less(t, r.World.EventsRun(), int64(100_000), "one metadata request per retry.backoff.ms, not a loop")
}

// A run that never ends an instant stops with a note naming the loop, and a ledger.
func TestARunWhoseClockFreezesEndsWithANoteAndALedger(t *testing.T) {
	s, err := Parse("frozen.yaml", []byte(zeroWaitShape))
	require.NoError(t, err)
	r := s.NewRun()
	r.World.Trace().Keep = false
	// Two nodes that answer each other at once, as the zero-wait fetch loop used to.
	r.World.Add(&bouncer{name: "x", peer: "y", serve: true}, 50)
	r.World.Add(&bouncer{name: "y", peer: "x"}, 0)
	r.ToEnd()

	assert.Equal(t, EndFrozen, r.EndNote)
	assert.Contains(t, r.EndDetail, "the clock stopped at 50 ms")
	assert.Contains(t, r.EndDetail, "x -> y Bounce")
	rep := r.Judge()
	assert.Equal(t, EndFrozen, rep.EndNote)
	assert.NotEmpty(t, rep.Messages, "the ledger still says what happened to each message")
	assert.Contains(t, s.Check(rep)[0], "the run never ended an instant: the clock stopped at 50 ms")
}

// bouncer sends a Bounce at start (serve) and answers each Bounce with another at once.
type bouncer struct {
	name, peer string
	serve      bool
}

type bounce struct{}

func (bounce) Kind() string     { return "Bounce" }
func (bounce) Describe() string { return "Bounce" }

func (b *bouncer) Name() string { return b.name }
func (b *bouncer) Start(env *sim.Env) {
	if b.serve {
		env.Send(b.peer, bounce{})
	}
}
func (b *bouncer) Receive(env *sim.Env, m sim.Message) { env.Send(b.peer, bounce{}) }
func (b *bouncer) Fire(*sim.Env, sim.Payload)          {}
func (b *bouncer) Crash()                              {}
func (b *bouncer) Clone() sim.Node                     { c := *b; return &c }

// tenMessages is a cluster of three brokers, a producer of ten messages and consumer c1
// of group g, for the consumer's config and the faults that follow it.
const tenMessages = `
title: {en: t, zh: t}
cluster: {brokers: 3, topics: [{name: t, replication.factor: 3}]}
apps:
  - producer: p1
    config: {enable.idempotence: false}
    send: {topic: t, count: 10, interval.ms: 500}
  - consumer: c1
    group: g
    topics: [t]
`

// Runs that never settled although every fault had healed.
func TestACommitWhoseAnswerIsLostIsRetriedAndTheConsumerGoesOn(t *testing.T) {
	_, rep := runShape(t, tenMessages+`    config: {enable.auto.commit: false, auto.offset.reset: earliest}
    commit: after-processing
faults:
  - {when: {event: offset-committed}, drop: response}
`)
	assert.Equal(t, EndSettled, rep.EndNote)
	assert.Equal(t, 10, rep.Messages["delivered"])
	assert.Equal(t, 1, rep.Errors["REQUEST_TIMED_OUT"], "commitSync timed out once and sent the commit again")
}

func TestALostListOffsetsRequestIsRetried(t *testing.T) {
	_, rep := runShape(t, strings.Replace(tenMessages, "replication.factor: 3}", "replication.factor: 3, leaders: [broker-1]}", 1)+`    config: {auto.offset.reset: latest}
faults:
  - {at.ms: 3150, cut-oneway: [c1, broker-1], for.ms: 10} # the ListOffsets request of c1
`)
	assert.Equal(t, EndSettled, rep.EndNote)
	assert.Less(t, rep.EndMs, int64(40000), "asked again after request.timeout.ms and retry.backoff.ms")
	// Reset to the log end, c1 never reads what came before: lost, and the ledger says
	// the log still holds it rather than that no log does.
	require.Equal(t, 10, rep.Messages["lost"])
	assert.Contains(t, rep.Ledger[0].Reason.Text(fate.En), "its group's committed offset is past it: t-0 on broker-1 still holds it")
	assert.Contains(t, rep.Ledger[0].Reason.Text(fate.Zh), "broker-1 上的 t-0 仍保存着它")
}

func TestASinkWriteLostOnACutIsWrittenAgain(t *testing.T) {
	_, rep := runShape(t, tenMessages+`    config: {auto.offset.reset: earliest}
    sink: db
sinks: [{name: db, kind: table}]
faults:
  - {at.ms: 4000, cut: [c1, db], for.ms: 1000}
`)
	assert.Equal(t, EndSettled, rep.EndNote)
	assert.Equal(t, 10, rep.Messages["delivered"])
	assert.Equal(t, 1, rep.Errors["SINK_TIMEOUT"])
}

// A MetadataUpdate lost on a one-way cut: broker-2 learns it leads from the metadata log
// its heartbeats pull, once the link heals.
func TestABrokerThatMissedAMetadataUpdateCatchesUp(t *testing.T) {
	_, rep := runShape(t, `
title: {en: t, zh: t}
cluster: {brokers: 2, topics: [{name: t, replication.factor: 2}]}
apps:
  - producer: p1
    config: {enable.idempotence: false}
    send: {topic: t, count: 10, interval.ms: 1000}
  - consumer: c1
    group: g
    topics: [t]
faults: [{at.ms: 50, crash: broker-1}, {at.ms: 5000, cut-oneway: [controller, broker-2], for.ms: 10000}]
`)
	assert.Equal(t, EndSettled, rep.EndNote)
	assert.Equal(t, 10, rep.Messages["delivered"])
}

// The election's MetadataUpdate to the new leader is lost on a 20 ms cut, and later
// pushes arrive: broker-2 must not skip the record it missed (a KRaft broker reads the
// metadata log in order), so its heartbeat fetches it and it leads orders-0. Found by
// the swarm (seed 12, schedule 181): before, broker-2 took the later pushes' offset as
// its own, never learnt it led, and the run waited for ever.
func TestABrokerDoesNotSkipAMetadataRecordItMissed(t *testing.T) {
	data, err := scenes.Read("acks-1-lost")
	require.NoError(t, err)
	text := strings.Replace(string(data), "faults:\n", "faults:\n  - {when: {event: elected, node: controller}, cut: [controller, broker-2], for.ms: 20}\n", 1)
	_, rep := runShape(t, text)
	assert.Equal(t, EndSettled, rep.EndNote, rep.EndDetail)
	assert.Equal(t, 9, rep.Messages["delivered"])
}
