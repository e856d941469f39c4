package explore

import (
	"testing"

	"deliverylab/core/scene"
	"deliverylab/scenes"
)

// BenchmarkSingleFaults: the single faults of the default search on a Flink scene.
func BenchmarkSingleFaults(b *testing.B) {
	src, err := scenes.Read("flink-sink-exactly-once")
	if err != nil {
		b.Fatal(err)
	}
	s, err := scene.Parse("flink-sink-exactly-once.yaml", src)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res := Run(s, Options{Depth: 1})
		b.ReportMetric(float64(res.Schedules), "schedules/op")
	}
}
