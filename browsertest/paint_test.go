package browsertest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The shell paints before the game is ready: first-contentful-paint and the moment the
// page became interactive (the bridge ready, a scene loaded), median of five loads. Only
// the order is asserted, and a generous bound: wall-clock times on a shared machine vary.
func TestShellPaintsBeforeTheGame(t *testing.T) {
	var paints, ready []float64
	for i := range 5 {
		// Each load in a tab of its own, closed before the next one opens (the subtest's
		// cleanup), so no earlier game competes for the CPU with the load being measured.
		t.Run(fmt.Sprint("load-", i+1), func(t *testing.T) {
			p := open(t)
			times := eval[[]float64](p, `[(performance.getEntriesByName("first-contentful-paint")[0] || {startTime: -1}).startTime,
				window.deliverylab.readyAtMs]`)
			fcp, at := times[0], times[1]
			assert.Positive(t, fcp, "the shell painted")
			assert.Positive(t, at, "the page became interactive")
			assert.Less(t, fcp, at, "the shell paints before the game is ready")
			assert.Less(t, fcp, 10000.0, "sanity bound")
			paints, ready = append(paints, fcp), append(ready, at)
		})
	}
	t.Logf("first contentful paint: median %.0f ms of %v", median(paints), paints)
	t.Logf("interactive (bridge ready, scene loaded): median %.0f ms of %v", median(ready), ready)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
