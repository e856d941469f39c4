package play

import (
	"runtime"
	"testing"

	"deliverylab/scenes"

	"github.com/stretchr/testify/require"
)

// BenchmarkHeapAfterAnHourOfPlay plays the shipped scenes one after another, as a class
// would, in 50 ms steps with a look at the State after each (a frame), going on past every
// pausing caption, until an hour of virtual time has been played. It reports the live
// heap, with the scene on screen, after the first scene and after the hour: a session
// that kept what it no longer shows would grow with the hour.
func BenchmarkHeapAfterAnHourOfPlay(b *testing.B) {
	const hourMs = 3_600_000
	live := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc)
	}
	for b.Loop() {
		names := scenes.Names()
		var played int64
		var first, last float64
		for i := 0; played < hourMs; i++ {
			s, err := Load(names[i%len(names)])
			require.NoError(b, err)
			s.Play()
			for !s.run.Ended {
				before := s.NowMs()
				s.Advance(50)
				_ = s.State()
				if s.waiting >= 0 {
					s.Continue()
				}
				played += s.NowMs() - before
			}
			if i == 0 {
				first = live()
			}
			last = live()
			runtime.KeepAlive(s) // the scene on screen is live; those before it are not
		}
		b.ReportMetric(first, "B-live-after-one-scene")
		b.ReportMetric(last, "B-live-after-an-hour")
	}
}
