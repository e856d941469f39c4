package shard

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/explore"
	"deliverylab/core/play"
	"deliverylab/core/scene"
	"deliverylab/scenes"
)

// shipped is a shipped scene's job.
func shipped(t *testing.T, name string) Job {
	t.Helper()
	data, err := scenes.Read(name)
	require.NoError(t, err)
	return Job{File: name + ".yaml", Text: string(data), Workers: 2}
}

// split runs a job's tasks, in the order given (nil: the plan's), and merges them as the
// page does: figures added up, and of each kind the finding of least Order.
func split(t *testing.T, job Job, order []int) (Plan, Progress, map[string]Finding, [][]Finding) {
	t.Helper()
	sc, err := Prepare(job)
	require.NoError(t, err)
	plan := sc.Plan()
	if order == nil {
		for i := range plan.Tasks {
			order = append(order, i)
		}
	}
	var total Progress
	best := map[string]Finding{}
	tasks := make([][]Finding, len(plan.Tasks))
	for _, i := range order {
		s, err := sc.Search(i)
		require.NoError(t, err)
		var mine []Finding
		for {
			more := s.Step()
			got, err := s.NewFindings()
			require.NoError(t, err)
			mine = append(mine, got...)
			if !more {
				break
			}
		}
		p := s.Progress()
		require.True(t, p.Done)
		require.Equal(t, i, p.Task)
		total.Claim, total.Points, total.Faults = p.Claim, p.Points, p.Faults
		total.Schedules += p.Schedules
		total.Pruned += p.Pruned
		total.Found += p.Found
		for _, f := range mine {
			if b, ok := best[f.Kind]; !ok || less(f.Order, b.Order) {
				best[f.Kind] = f
			}
		}
		tasks[i] = mine
	}
	return plan, total, best, tasks
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// acks1Lost is what the tasks find in acks-1-lost (TestASplitSearchFindsWhatOneSearchFinds
// keeps it for the tests after it).
var acks1Lost map[string]Finding

// The page's split search finds what one search finds: the same figures and, of each
// kind, the same counterexample, whichever order the tasks end in; and in each task its
// findings come in the order of the whole search (Order).
func TestASplitSearchFindsWhatOneSearchFinds(t *testing.T) {
	job := shipped(t, "acks-1-lost")
	sc, err := scene.Parse(job.File, []byte(job.Text))
	require.NoError(t, err)
	want := explore.Run(sc, explore.Options{})
	require.NotEmpty(t, want.Findings)

	plan, total, best, tasks := split(t, job, nil)
	acks1Lost = best
	require.Len(t, plan.Tasks, 2*explore.PartsPerWorker, "a few tasks a worker")
	assert.Equal(t, 1, plan.Depth)
	assert.Equal(t, want.Faults, plan.Faults)
	assert.Equal(t, want.Points, plan.Points)
	check := func(how string, total Progress, best map[string]Finding) {
		assert.Equal(t, want.Schedules, total.Schedules, "%s: schedules", how)
		assert.Equal(t, want.Pruned, total.Pruned, "%s: pruned", how)
		assert.Equal(t, want.Found, total.Found, "%s: found", how)
		assert.Equal(t, want.Faults, total.Faults, "%s: faults", how)
		assert.Equal(t, want.Points, total.Points)
		assert.Equal(t, want.Claim, total.Claim)
		require.Len(t, best, len(want.Findings), "%s: one finding of each kind", how)
		for _, w := range want.Findings {
			got, ok := best[w.Verdict]
			require.True(t, ok, "%s: a %s is found", how, w.Verdict)
			assert.Equal(t, w.Breaks, got.Breaks)
			assert.Equal(t, w.Report.Messages, got.Messages)
			var syntax []string
			for _, f := range w.Faults {
				syntax = append(syntax, play.SceneFaultSyntax(f))
			}
			assert.Equal(t, syntax, got.Syntax, "%s: the %s counterexample is the search's own", how, w.Verdict)
		}
	}
	check("in order", total, best)
	for k, mine := range tasks {
		for i := 1; i < len(mine); i++ {
			assert.True(t, less(mine[i-1].Order, mine[i].Order), "task %d: %v before %v", k, mine[i-1].Order, mine[i].Order)
		}
	}

	// The last task first: the merge keeps the same counterexamples.
	var backwards []int
	for i := len(plan.Tasks) - 1; i >= 0; i-- {
		backwards = append(backwards, i)
	}
	_, total, best, _ = split(t, job, backwards)
	check("backwards", total, best)
}

// A finding is a scene file of its own: it reads back, names the search's faults as its
// only ones, has no narration, and plays to the finding's verdict and counts.
func TestAFindingIsASceneThatPlaysToItsVerdict(t *testing.T) {
	best := acks1Lost
	if best == nil {
		_, _, best, _ = split(t, shipped(t, "acks-1-lost"), nil)
	}
	require.NotEmpty(t, best)
	for kind, f := range best {
		assert.Equal(t, "acks-1-lost-found.yaml", f.File)
		sc, err := scene.Parse(f.File, []byte(f.Scene))
		require.NoError(t, err, "%s:\n%s", kind, f.Scene)
		assert.Empty(t, sc.Narration, "the narration told another story")
		assert.Equal(t, "Found: acks=1: acknowledged, then lost", sc.Title.En)
		assert.Equal(t, "反例：acks=1：已确认的消息丢失了", sc.Title.Zh)
		assert.Contains(t, sc.Summary.En, f.Faults[0].En)
		assert.Contains(t, sc.Summary.Zh, f.Faults[0].Zh)
		require.Len(t, sc.Faults, len(f.Syntax))
		for i, spec := range sc.Faults {
			assert.Equal(t, f.Syntax[i], play.SceneFaultSyntax(spec))
		}

		s, err := play.LoadSource(f.File, []byte(f.Scene))
		require.NoError(t, err)
		s.RunToEnd()
		st := s.State()
		assert.Equal(t, f.Verdict, st.Ledger.Verdict, "%s plays to its verdict", kind)
		assert.Equal(t, f.Messages, st.Ledger.Counts)
		require.Len(t, st.SceneFaults, len(f.Faults))
		assert.Equal(t, f.Faults[0], st.SceneFaults[0].Text, "the page lists the fault as the finding says it")
		assert.True(t, st.SceneFaults[0].Done)

		// Found again, it is not "Found: Found: …".
		again, err := Found([]byte(f.Scene), sc, nil, sc.Faults)
		require.NoError(t, err)
		sc2, err := scene.Parse(f.File, again)
		require.NoError(t, err)
		assert.Equal(t, sc.Title, sc2.Title)
	}
}

// The search reads the scene as the page plays it: its settings and seed; the seed is
// written into a finding's scene (the settings the page sets again after loading it).
func TestTheSearchHasThePagesSettingsAndSeed(t *testing.T) {
	job := shipped(t, "acks-1-lost")
	seed := int64(5)
	job.Changes = [][2]string{{"producers.p1.config.acks", "all"}}
	job.Seed = &seed
	sc, err := scene.WithSettings(job.File, []byte(job.Text), job.Changes)
	require.NoError(t, err)
	sc.Seed = seed
	want := explore.Run(sc, explore.Options{})
	_, total, best, _ := split(t, job, nil)
	assert.Equal(t, want.Schedules, total.Schedules)
	assert.Equal(t, want.Found, total.Found)
	require.Len(t, best, len(want.Findings))
	for _, f := range best {
		found, err := scene.Parse(f.File, []byte(f.Scene))
		require.NoError(t, err)
		assert.Equal(t, seed, found.Seed)
		s, err := play.LoadSource(f.File, []byte(f.Scene))
		require.NoError(t, err)
		for _, c := range job.Changes {
			require.NoError(t, s.SetSetting(c[0], c[1]))
		}
		s.RunToEnd()
		assert.Equal(t, f.Messages, s.State().Ledger.Counts, "with the page's settings set again, it plays as found")
	}
}

// A search of pairs is not split: it is one task, of every fault, with the whole budget.
func TestADeeperSearchIsOneTask(t *testing.T) {
	data, err := scenes.Read("acks-1-lost")
	require.NoError(t, err)
	// acks-1-lost's own block (two faults, depth 1) gives way to one of three crashes, depth 2.
	own := "  faults: [{crash: \"broker-*\", for.ms: 10000}, drop: response]\n"
	require.Contains(t, string(data), own)
	text := strings.Replace(string(data), own, "  faults: [{crash: \"broker-*\", for.ms: 10000}]\n  depth: 2\n  budget: 40\n", 1)
	plan, total, _, _ := split(t, Job{File: "pairs.yaml", Text: text, Workers: 4}, nil)
	assert.Equal(t, Plan{Scene: "pairs", Depth: 2, Faults: 3, Points: plan.Points, Tasks: []explore.Part{{From: 0, To: plan.Points}}}, plan)
	assert.Positive(t, plan.Points)
	assert.Equal(t, 3, total.Faults)
	assert.Equal(t, 40, total.Schedules, "the whole budget")
}

// A scene that does not parse gives the parser's error, with its line and key; a task
// the plan does not have is refused.
func TestABadJob(t *testing.T) {
	job := shipped(t, "acks-1-lost")
	job.Text = strings.Replace(job.Text, "    send:", "    sendd:", 1)
	_, err := Prepare(job)
	require.Error(t, err)
	line, key := SceneError(err)
	assert.Positive(t, line)
	assert.Equal(t, "apps[0].sendd", key)

	_, err = Prepare(Job{File: "x.yaml", Text: ""})
	require.Error(t, err)
	line, _ = SceneError(err)
	assert.Equal(t, 1, line)

	sc, err := Prepare(shipped(t, "acks-1-lost"))
	require.NoError(t, err)
	_, err = sc.Search(-1)
	assert.ErrorContains(t, err, "no task -1 (the search has 8)")
	_, err = sc.Search(8)
	assert.ErrorContains(t, err, "no task 8")
}
