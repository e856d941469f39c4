package explore

import (
	"testing"

	"deliverylab/scenes"
)

// BenchmarkExploreEveryShippedScene: every single fault of every shipped scene's explore
// block (issue 21's budget: ≤ 10 s in all, natively), and the schedules run per second.
func BenchmarkExploreEveryShippedScene(b *testing.B) {
	for b.Loop() {
		schedules, explored := 0, 0
		for _, name := range scenes.Names() {
			s, _ := shipped(b, name)
			if s.Explore == nil {
				continue
			}
			explored++
			schedules += Run(s, Options{Depth: 1}).Schedules
		}
		took := b.Elapsed().Seconds() // the benchmark's own clock: core reads no wall clock
		b.ReportMetric(float64(explored), "scenes")
		b.ReportMetric(float64(schedules), "schedules")
		b.ReportMetric(float64(schedules)/took, "schedules/s")
		b.ReportMetric(took, "s/all")
	}
}
