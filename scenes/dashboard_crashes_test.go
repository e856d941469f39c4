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
	text, err := Read("flink-case-dashboard")
	require.NoError(t, err)
	base, err := scene.Parse("flink-case-dashboard.yaml", text)
	require.NoError(t, err)
	crash := -1
	for i, f := range base.Faults {
		if f.When != nil && f.Fault.Kind == sim.FaultCrash && strings.HasPrefix(f.Fault.Node, "cases/") {
			crash = i
		}
	}
	require.GreaterOrEqual(t, crash, 0, "the scene fails a subtask")
	template := base.Faults[crash]
	base.Faults = append(base.Faults[:crash:crash], base.Faults[crash+1:]...)

	r := base.NewRun()
	r.ToEnd()
	type point struct {
		node, msg  string
		event      sim.Event
		checkpoint int64
	}
	var points []point
	seen := map[point]bool{}
	for _, o := range r.World.Observations() {
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
	parts := []string{"cases/source-0", "cases/sum-0", "cases/sink-0"}
	runs, crashed := 0, 0
	for _, p := range points {
		for _, part := range parts {
			s := *base
			f := template
			when := *template.When
			when.Node, when.Event, when.Message, when.Detail, when.Checkpoint = p.node, p.event, p.msg, "", p.checkpoint
			when.Fault.Node, f.Fault.Node = part, part
			f.When = &when
			s.Faults = append(append([]scene.FaultSpec(nil), base.Faults...), f)
			run := s.NewRun()
			run.ToEnd()
			rep := run.Judge()
			name := fmt.Sprintf("crash %s when %s %s %s checkpoint %d", part, p.node, p.event, p.msg, p.checkpoint)
			runs++
			if len(observedCrashes(run, part)) > 0 {
				crashed++ // a part not running (yet, or any more) does not crash
			}
			if !assert.Equal(t, "exactly-once", rep.Verdict, name) ||
				!assert.Equal(t, 10, rep.Messages["delivered"], name) ||
				!assert.Equal(t, scene.EndSettled, rep.EndNote, name) {
				continue
			}
			require.NotNil(t, rep.Total, name)
			assert.Equal(t, int64(55), rep.Total.Shown, name)
			assert.Equal(t, rep.Total.Expected, rep.Total.Shown, name)
		}
	}
	t.Logf("%d runs over %d protocol points, %d of them with a crash", runs, len(points), crashed)
	assert.Greater(t, crashed, runs/2, "most points find the part running")
}

// observedCrashes lists a part's crashes in a run.
func observedCrashes(r *scene.Run, part string) []sim.Observation {
	var out []sim.Observation
	for _, o := range r.World.Observations() {
		if o.Node == part && o.Event == "crashed" {
			out = append(out, o)
		}
	}
	return out
}
