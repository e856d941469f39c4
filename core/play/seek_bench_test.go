package play

import (
	"slices"
	"testing"

	"deliverylab/scenes"

	"github.com/stretchr/testify/require"
)

// BenchmarkScrubberSeek: for every shipped scene, the slowest of four seeks as the
// scrubber is dragged (from the end back to the start, to a third and to two thirds of
// the run; from the start to the end); it reports the worst scene's and the median's (issue 22: ≤ 16 ms for every scene in the
// page, which runs this code under WebAssembly: make bench runs it natively and in Node).
func BenchmarkScrubberSeek(b *testing.B) {
	type scene struct {
		s   *Session
		end int64
	}
	var all []scene
	for _, name := range scenes.Names() {
		s, err := Load(name)
		require.NoError(b, err)
		s.RunToEnd()
		all = append(all, scene{s, s.run.World.NowMs()})
	}
	per := make([][]float64, len(all))
	for b.Loop() {
		for i, sc := range all {
			worst := 0.0
			// Back from the end to the start, a third and two thirds; then on to the end.
			for _, hop := range [][2]int64{{sc.end, 0}, {sc.end, sc.end / 3}, {sc.end, 2 * sc.end / 3}, {0, sc.end}} {
				require.NoError(b, sc.s.SeekTo(hop[0]))
				start := b.Elapsed()
				require.NoError(b, sc.s.SeekTo(hop[1]))
				worst = max(worst, float64(b.Elapsed()-start)/1e6)
			}
			per[i] = append(per[i], worst)
		}
	}
	var medians []float64
	for _, ms := range per {
		slices.Sort(ms)
		medians = append(medians, ms[len(ms)/2])
	}
	slices.Sort(medians)
	b.ReportMetric(medians[len(medians)-1], "worst-ms")
	b.ReportMetric(medians[len(medians)/2], "median-ms")
}
