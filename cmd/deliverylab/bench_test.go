package main

import (
	"strings"
	"testing"

	"deliverylab/core/explore"
	"deliverylab/core/scene"
	"deliverylab/scenes"
)

// BenchmarkExploreCommandEveryShippedScene: every single fault of every shipped scene's
// explore block, searched as `deliverylab explore` searches them, on every core (issue
// 21's budget: ≤ 10 s in all, natively). core/explore's benchmark gives one core's rate.
func BenchmarkExploreCommandEveryShippedScene(b *testing.B) {
	var all []*scene.Scene
	for _, name := range scenes.Names() {
		src, err := scenes.Read(name)
		if err != nil {
			b.Fatal(err)
		}
		s, err := scene.Parse(name+".yaml", src)
		if err != nil {
			b.Fatal(err)
		}
		if s.Explore != nil {
			all = append(all, s)
		}
	}
	for b.Loop() {
		schedules := 0
		for _, s := range all {
			schedules += searchInParallel(s, explore.Options{Depth: 1}, 0, nil).Schedules
		}
		took := b.Elapsed().Seconds()
		b.ReportMetric(float64(len(all)), "scenes")
		b.ReportMetric(float64(schedules), "schedules")
		b.ReportMetric(float64(schedules)/took, "schedules/s")
		b.ReportMetric(took, "s/all")
	}
}

// BenchmarkCheckEveryShippedScene: `deliverylab check` of every shipped scene (issue 22's
// budget: ≤ 1 s natively).
func BenchmarkCheckEveryShippedScene(b *testing.B) {
	for b.Loop() {
		var out, errOut strings.Builder
		if code := checkCmd(nil, &out, &errOut); code != 0 {
			b.Fatalf("check exited with %d:\n%s%s", code, out.String(), errOut.String())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/all")
}
