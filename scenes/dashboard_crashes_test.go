package scenes

import (
	"fmt"
	"strings"
	"testing"

	"deliverylab/core/scene"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheDashboardIsExactUnderEverySubtaskCrash fails each subtask of the dashboard's
// job in turn at every protocol point of the run (every distinct node, event, message
// and checkpoint a trigger can name), one crash per run, and checks that every report
// is still folded into the dashboard's totals exactly once: the shown total is the
// reported one. The scene's own task failure is left out, so each run has one.
func TestTheDashboardIsExactUnderEverySubtaskCrash(t *testing.T) {
	crashEverywhere(t, "flink-case-dashboard", "cases/", []string{"cases/source-0", "cases/sum-0", "cases/sink-0"}, 0,
		func(name string, rep scene.Report) {
			require.NotNil(t, rep.Total, name)
			assert.Equal(t, int64(55), rep.Total.Shown, name)
			assert.Equal(t, rep.Total.Expected, rep.Total.Shown, name)
		})
}

// TestTheTwoPhaseCommitSinkIsExactUnderEveryCrash fails each subtask of the job writing
// to the database with two-phase commit, and the database itself for 300 ms, at every
// protocol point of the run, one crash per run besides the scene's own task failure:
// every order is a row exactly once.
func TestTheTwoPhaseCommitSinkIsExactUnderEveryCrash(t *testing.T) {
	crashEverywhere(t, "flink-db-two-phase-commit", "", []string{"totals/source-0", "totals/map-0", "totals/sink-0", "orders_db"}, 300, nil)
}

// TestAlignmentIsExactUnderEveryCrash fails each subtask of the job whose source-0 stalls
// during checkpoint 2's alignment at every protocol point of the run, one crash per run
// besides the scene's own: EXACTLY_ONCE alignment keeps every report folded in once,
// whatever fails while an input is held back, before, or after.
func TestAlignmentIsExactUnderEveryCrash(t *testing.T) {
	crashEverywhere(t, "flink-fails-during-alignment", "", []string{"cases/source-0", "cases/source-1", "cases/sum-0", "cases/sink-0"}, 0,
		func(name string, rep scene.Report) {
			require.NotNil(t, rep.Total, name)
			assert.Equal(t, int64(13), rep.Total.Shown, name)
		})
}

// crashEverywhere runs a scene once per protocol point of its run and per part: the
// scene's crash of a subtask is the template, moved to that point and part (a node
// that is not a subtask is restarted after forMs); with a prefix, the scene's own crash
// is left out, without one it stays. Every run must be exactly-once with
// every message delivered (as many as without the crash), and settle; more checks of
// each report in check.
func crashEverywhere(t *testing.T, name, prefix string, parts []string, forMs int64, check func(string, scene.Report)) {
	text, err := Read(name)
	require.NoError(t, err)
	base, err := scene.Parse(name+".yaml", text)
	require.NoError(t, err)
	crash := -1
	for i, f := range base.Faults {
		if f.When != nil && f.Fault.Kind == sim.FaultCrash && strings.Contains(f.Fault.Node, "/") {
			crash = i
		}
	}
	require.GreaterOrEqual(t, crash, 0, "the scene fails a subtask")
	template := base.Faults[crash]
	if prefix != "" {
		base.Faults = append(base.Faults[:crash:crash], base.Faults[crash+1:]...)
	}

	r := base.NewRun()
	r.ToEnd()
	want := r.Judge().Messages["delivered"] // every message, as the run without the crash
	type point struct {
		node, msg  string
		event      sim.Event
		checkpoint int64
	}
	var points []point
	seen := map[point]bool{}
	for _, o := range r.World.Observations().All() {
		if _, ok := sim.LookupEvent(string(o.Event)); !ok || o.Node == "" {
			continue
		}
		p := point{node: o.Node, event: o.Event, checkpoint: o.Checkpoint}
		if len(o.Msgs) > 0 {
			p.msg = o.Msgs[0]
		}
		if !seen[p] {
			seen[p] = true
			points = append(points, p)
		}
	}
	require.Greater(t, len(points), 50)
	runs, crashed := 0, 0
	for _, p := range points {
		for _, part := range parts {
			s := *base
			f := template
			when := *template.When
			when.Node, when.Event, when.Message, when.Detail, when.Checkpoint = p.node, p.event, p.msg, "", p.checkpoint
			when.Fault.Node, f.Fault.Node = part, part
			if !strings.Contains(part, "/") { // a subtask's failure ends by itself
				when.Fault.ForMs, f.Fault.ForMs = forMs, forMs
			}
			f.When = &when
			s.Faults = append(append([]scene.FaultSpec(nil), base.Faults...), f)
			run := s.NewRun()
			run.ToEnd()
			rep := run.Judge()
			what := fmt.Sprintf("crash %s when %s %s %s checkpoint %d", part, p.node, p.event, p.msg, p.checkpoint)
			runs++
			if len(observedCrashes(run, part)) > 0 {
				crashed++ // a part not running (yet, or any more) does not crash
			}
			if !assert.Equal(t, "exactly-once", rep.Verdict, what) ||
				!assert.Equal(t, want, rep.Messages["delivered"], what) ||
				!assert.Equal(t, scene.EndSettled, rep.EndNote, what) {
				continue
			}
			if check != nil {
				check(what, rep)
			}
		}
	}
	t.Logf("%d runs over %d protocol points, %d of them with a crash", runs, len(points), crashed)
	assert.Greater(t, crashed, runs/2, "most points find the part running")
}

// observedCrashes lists a part's crashes in a run.
func observedCrashes(r *scene.Run, part string) []sim.Observation {
	var out []sim.Observation
	for _, o := range r.World.Observations().All() {
		if o.Node == part && o.Event == "crashed" {
			out = append(out, o)
		}
	}
	return out
}
