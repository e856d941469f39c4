package browsertest

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The shell paints before the game is ready: first-contentful-paint and the moment the
// page became interactive (the bridge ready, a scene loaded), median of five loads. Only
// the order is asserted, and a generous bound: wall-clock times on a shared machine vary.
func TestShellPaintsBeforeTheGame(t *testing.T) {
	requireEnv(t) // no bundle or no browser: skipped here, with what to run, not per load
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
	if len(paints) == 0 {
		return // every load failed, and said why
	}
	t.Logf("first contentful paint: median %.0f ms of %v", median(paints), paints)
	t.Logf("interactive (bridge ready, scene loaded): median %.0f ms of %v", median(ready), ready)
}

// median is the middle of xs (the upper one of an even count); NaN for no samples.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// median needs no browser: no samples (every load skipped or failed) is NaN, not a panic.
func TestMedian(t *testing.T) {
	assert.True(t, math.IsNaN(median(nil)))
	assert.Equal(t, 2.0, median([]float64{3, 1, 2}))
	assert.Equal(t, 3.0, median([]float64{4, 1, 3, 2}))
}
