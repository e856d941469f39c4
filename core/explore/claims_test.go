package explore

import (
	"runtime"
	"testing"

	"deliverylab/core/scene"
	"deliverylab/scenes"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every shipped scene with an explore block holds its claim over every single fault the
// block allows (and the pairs of a depth-2 block, within its budget): an exactly-once scene
// has no counterexample, nor among its first pairsTried pairs; an at-least-once one
// duplicates and never loses; an at-most-once one loses. Every finding replays from the
// scene's text to the same outcome. (Natively only: under Node it takes minutes.)
func TestShippedScenesHoldTheirClaims(t *testing.T) {
	if runtime.GOOS == "js" || testing.Short() {
		t.Skip("searches every shipped scene: run natively")
	}
	explored := 0
	for _, name := range scenes.Names() {
		s, src := shipped(t, name)
		if s.Explore == nil {
			continue
		}
		explored++
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := Run(s, Options{})
			if s.Explore.Depth == 1 {
				require.True(t, res.Exhausted, "every single fault is tried within the budget")
			}
			kinds := map[string]bool{}
			for _, f := range res.Findings {
				kinds[f.Verdict] = true
				assert.Empty(t, f.Invariant)
				replays(t, src, f)
			}
			switch s.Expect.Verdict {
			case "exactly-once":
				assert.Empty(t, res.Findings, "no single fault of the explore block breaks exactly-once")
				if s.Explore.Depth == 1 {
					// and no pair within what make test affords: the first pairsTried
					// pairs after the singles.
					pairs := Run(s, Options{Depth: 2, Budget: res.Schedules + pairsTried})
					require.Equal(t, res.Schedules+pairsTried, pairs.Schedules, "the pairs are tried")
					assert.Empty(t, pairs.Findings, "no pair of the explore block's faults breaks exactly-once")
				}
			case "at-least-once":
				assert.True(t, kinds["at-least-once"], "a fault duplicates")
				assert.False(t, kinds["at-most-once"] || kinds["none"], "no fault loses")
			case "at-most-once":
				assert.True(t, kinds["at-most-once"], "a fault loses")
			}
		})
	}
	assert.GreaterOrEqual(t, explored, 20, "the shipped scenes that carry an explore block")
}

// pairsTried: the pairs an exactly-once scene's claim is held over, after its singles
// (about 4 s for them all on two cores; 300 each found nothing either, by hand).
const pairsTried = 100

// replays runs a finding from the scene's text: the same outcome and trace.
func replays(t *testing.T, src []byte, f Finding) {
	t.Helper()
	text, err := scene.WithFaults(src, f.Faults)
	require.NoError(t, err)
	again, err := scene.Parse("replay.yaml", text)
	require.NoError(t, err, "%s", text)
	r := again.NewRun()
	r.ToEnd()
	rep := r.Judge()
	assert.Equal(t, f.branch.Verdict, rep.Verdict, "the branch and the run from the start differ: %s", scene.FaultsYAML(f.Faults))
	assert.Equal(t, f.branch.Messages, rep.Messages, "the branch and the run from the start differ: %s", scene.FaultsYAML(f.Faults))
	assert.Equal(t, f.branch.EndMs, rep.EndMs, "the branch and the run from the start differ: %s", scene.FaultsYAML(f.Faults))
	assert.Equal(t, f.Report.Messages, rep.Messages, "%s", scene.FaultsYAML(f.Faults))
	assert.Equal(t, f.Report.TraceHash, rep.TraceHash, "%s", scene.FaultsYAML(f.Faults))
}
