package play

import (
	"slices"
	"testing"

	"deliverylab/scenes"

	"github.com/stretchr/testify/require"
)

// BenchmarkSeekToTheEnd: a rewind to the start and a seek to the end, as the scrubber
// dragged from one end to the other, for every shipped scene; it reports the worst
// scene's time and the median (issue 22: ≤ 16 ms for every scene in the page, which runs
// this code under WebAssembly: make bench runs it natively and in Node).
func BenchmarkSeekToTheEnd(b *testing.B) {
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
			start := b.Elapsed()
			require.NoError(b, sc.s.SeekTo(0))
			require.NoError(b, sc.s.SeekTo(sc.end))
			per[i] = append(per[i], float64(b.Elapsed()-start)/1e6)
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
