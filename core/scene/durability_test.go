package scene

import (
	"testing"

	"deliverylab/core/check"
	"deliverylab/core/fate"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// No shipped scene loses an acks=all record to fewer failures than min.insync.replicas.
func TestShippedScenesKeepWhatAcksAllPromises(t *testing.T) {
	for _, s := range shippedScenes(t) {
		r := s.NewRun()
		r.ToEnd()
		assert.Empty(t, r.DurabilityProblems(r.Judge()), s.Name)
	}
}

// The check fires on a loss no failure explains: a ledger that says p1#1, acknowledged
// with acks=all under min.insync.replicas 2, is lost while no broker failed and no log
// holds it (here, a run stopped before p1 sent anything: only a wrong simulation could
// produce such a ledger).
func TestDurabilityFiresOnALossNoFailureExplains(t *testing.T) {
	r, rep := runYAML(t, `
stop.ms: 1
cluster:
  brokers: 3
  config: {min.insync.replicas: 2}
  topics: [{name: orders, replication.factor: 3}]
apps:
  - producer: p1
    config: {acks: all}
    send: {topic: orders, count: 1}
    start.ms: 1000
`)
	require.Empty(t, r.DurabilityProblems(rep))
	rep.Ledger = []check.Fate{{Msg: "p1#1", Fate: fate.Lost}}
	bad := r.DurabilityProblems(rep)
	require.Len(t, bad, 1)
	assert.Contains(t, bad[0], "p1#1: acknowledged with acks=all to orders (min.insync.replicas 2) and lost, though only 0 broker(s) failed")

	require.True(t, r.Ended)
	assert.Equal(t, bad, r.Problems(rep), "the explorer and the page report it once the run has ended")
	r.Ended = false
	assert.Empty(t, r.Problems(rep), "a run not ended yet: its losses are not known")
	r.Ended = true

	r.Scene.Producers[0].Config.Acks = 1
	assert.Empty(t, r.DurabilityProblems(rep), "acks=1 promises no such thing")
}

// A run that writes no trace (the explorer's) runs the same events to the same outcome.
func TestARunWithoutItsTraceRunsTheSame(t *testing.T) {
	for _, s := range shippedScenes(t) {
		traced, quiet := s.NewRun(), s.NewRun()
		quiet.World.Trace().Off = true
		traced.ToEnd()
		quiet.ToEnd()
		a, b := traced.Judge(), quiet.Judge()
		assert.Equal(t, a.Messages, b.Messages, s.Name)
		assert.Equal(t, a.Events, b.Events, s.Name)
		assert.Equal(t, a.EndMs, b.EndMs, s.Name)
		assert.Empty(t, quiet.World.Trace().Lines, s.Name)
	}
}
