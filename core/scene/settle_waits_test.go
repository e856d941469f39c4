package scene

import (
	"testing"

	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Settled and WaitsFor are one answer: every shipped scene, stepped to its end, and at
// the end of every instant every node that is up says it has settled exactly when it
// lists nothing it waits for. (They were two decision trees once, and drifted.)
func TestANodeHasSettledExactlyWhenItWaitsForNothing(t *testing.T) {
	seen := map[bool]int{}
	eachInstantOfShippedScenes(t, func(s *Scene, w *sim.World) {
		for _, name := range w.NodeNames() {
			n, up := w.Node(name)
			st, settles := n.(sim.Settler)
			wt, waits := n.(waiter)
			if !up || !settles || !waits {
				continue
			}
			settled := st.Settled(w)
			why := wt.WaitsFor(w)
			require.Equal(t, settled, len(why) == 0, "%s at %d ms: %s settled=%v waits for %v", s.Name, w.NowMs(), name, settled, why)
			seen[settled]++
		}
	})
	assert.Greater(t, seen[true], 1000, "instants where a node has settled")
	assert.Greater(t, seen[false], 1000, "instants where it waits")
}
