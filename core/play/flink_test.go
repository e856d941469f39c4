package play

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flinkScene is a Flink job, totals, reading orders and writing out through a map, with
// no fault of its own: the tests inject theirs as the page's menu does.
const flinkScene = `title: {en: "a Flink job", zh: "一个 Flink 作业"}
seed: 1
cluster:
  brokers: 3
  config: {min.insync.replicas: 2}
  topics:
    - {name: orders, partitions: 1, replication.factor: 3}
    - {name: out, partitions: 1, replication.factor: 3}
apps:
  - producer: p1
    send: {topic: orders, count: 10, interval.ms: 200, value: "{n}"}
  - job: totals
    checkpointing: {interval.ms: 1000, mode: EXACTLY_ONCE}
    restart.delay.ms: 500
    source: {topic: orders, parallelism: 1}
    operator: map
    sink:
      kafka: {topic: out, delivery.guarantee: NONE}
  - consumer: audit
    group: audit
    topics: [out]
    config: {enable.auto.commit: false, auto.offset.reset: earliest, isolation.level: read_committed}
`

func loadFlink(t *testing.T) *Session {
	t.Helper()
	s, err := LoadSource("flink.yaml", []byte(flinkScene))
	require.NoError(t, err)
	return s
}

func faultsOf(items []MenuItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Fault)
	}
	return out
}

// The job shows its subtasks, and the messages between them name the part at each end.
func TestStateShowsTheJobsParts(t *testing.T) {
	s := loadFlink(t)
	s.Advance(1500)
	st := s.State()
	var parts []string
	for _, n := range st.Nodes {
		if n.Name == "totals" {
			assert.Equal(t, "job", n.Kind)
			for _, p := range n.Parts {
				parts = append(parts, p.Name)
				assert.True(t, p.Running, p.Name)
			}
		}
	}
	assert.Equal(t, []string{"source-0", "map-0", "sink-0"}, parts)
	assert.Equal(t, "source-0", partOf("totals/source-0#1"))
	assert.Equal(t, "jobmanager", partOf("totals/jobmanager"))
	assert.Equal(t, "", partOf("broker-1"))
}

// The menu of a job and of a subtask offers the job's protocol-point faults, and each
// one the menu offers is taken.
func TestMenuOffersTheJobsFaults(t *testing.T) {
	s := loadFlink(t)
	s.Advance(300)
	job := faultsOf(s.Menu(Target{Kind: "node", Name: "totals"}))
	assert.Contains(t, job, "{crash: totals}")
	assert.Contains(t, job, "{when: {node: totals/jobmanager, event: checkpoint-completed}, crash: totals}")
	sub := s.Menu(Target{Kind: "node", Name: "totals/map-0"})
	assert.Equal(t, []string{
		"{crash: totals/map-0}",
		"{when: {node: totals/map-0, event: processed}, crash: totals/map-0}",
		"{pause: totals/map-0}",
		"{resume: totals/map-0}",
		"{when: {node: totals/jobmanager, event: checkpoint-triggered}, crash: totals/map-0}",
	}, faultsOf(sub))
	for _, it := range sub {
		// nothing to resume until it is paused
		assert.Equal(t, strings.HasPrefix(it.Fault, "{resume"), it.Disabled, "%s: %s", it.Fault, it.Why.En)
		assert.NotEmpty(t, it.Label.En)
		assert.NotEmpty(t, it.Label.Zh)
	}
	assert.NotContains(t, strings.Join(faultsOf(s.Menu(Target{Kind: "node", Name: "totals/sink-0"})), " "),
		"pause", "a sink runs in its operator's thread")
	// paused from the menu, the subtask says so; it resumes from the menu
	require.NoError(t, s.Inject("{pause: totals/map-0}"))
	for _, it := range s.Menu(Target{Kind: "node", Name: "totals/map-0"}) {
		assert.Equal(t, strings.HasPrefix(it.Fault, "{pause"), it.Disabled, "%s: %s", it.Fault, it.Why.En)
	}
	require.NoError(t, s.Inject("{resume: totals/map-0}"))
	assert.NotContains(t, strings.Join(faultsOf(s.Menu(Target{Kind: "node", Name: "totals/sink-0"})), " "),
		"pre-committed", "a NONE sink does not flush at the barrier")
	alo, err := LoadSource("flink.yaml", []byte(strings.Replace(flinkScene, "NONE", "AT_LEAST_ONCE", 1)))
	require.NoError(t, err)
	alo.Advance(300)
	require.NoError(t, alo.Inject("{when: {node: totals/sink-0, event: pre-committed}, crash: totals/sink-0}"))
	assert.Contains(t, faultsOf(alo.Menu(Target{Kind: "node", Name: "totals/sink-0"})),
		"{when: {node: totals/sink-0, event: pre-committed}, crash: totals/sink-0}")
	alo.Advance(1000)
	st := alo.State()
	assert.Empty(t, st.ArmedList, "the pre-commit came and the sink crashed")
	require.Len(t, st.FaultList, 1)
	src := faultsOf(s.Menu(Target{Kind: "node", Name: "totals/source-0"}))
	assert.NotContains(t, strings.Join(src, " "), "processed", "a source reports no processed")
	for _, it := range s.Menu(Target{Kind: "node", Name: "totals"}) {
		if strings.Contains(it.Fault, "checkpoint-completed") {
			require.NoError(t, s.Inject(it.Fault))
		}
	}
	s.Advance(1000)
	for _, n := range s.State().Nodes {
		if n.Name == "totals" {
			assert.False(t, n.Up, "the job crashed as checkpoint 1 completed")
		}
	}
}

// A subtask's crash from the menu is a task failure: the subtask is down, the job up,
// and the region comes back after restart.delay.ms; crashing it again meanwhile is
// refused as changing nothing.
func TestInjectCrashesASubtask(t *testing.T) {
	s := loadFlink(t)
	s.Advance(1500)
	require.NoError(t, s.Inject("{crash: totals/map-0}"))
	s.Advance(1)
	running := func() map[string]bool {
		out := map[string]bool{}
		for _, n := range s.State().Nodes {
			if n.Name == "totals" {
				assert.True(t, n.Up, "the job stays up")
				for _, p := range n.Parts {
					out[p.Name] = p.Running
				}
			}
		}
		return out
	}
	assert.False(t, running()["map-0"], "the crashed subtask is down")
	items := s.Menu(Target{Kind: "node", Name: "totals/map-0"})
	assert.True(t, items[0].Disabled, "it is down already")
	require.Error(t, s.Inject("{crash: totals/map-0}"))
	s.Advance(1000)
	assert.True(t, running()["map-0"], "restarted with its region")
	assert.Len(t, s.State().FaultList, 1)
}

// The fault box's help names the job's own parts.
func TestFaultHelpNamesTheJob(t *testing.T) {
	h := loadFlink(t).FaultHelp()
	assert.Contains(t, h.En, "{crash: totals/map-0}")
	assert.Contains(t, h.Zh, "{when: {node: totals/jobmanager, event: checkpoint-completed}, crash: totals}")
}
