package scene

import (
	"testing"

	"deliverylab/scenes"
)

// BenchmarkKernelEventsPerSecond runs the busiest shipped scene (the most events) to its
// end and reports kernel events per second.
func BenchmarkKernelEventsPerSecond(b *testing.B) {
	data, err := scenes.Read("acks-all-safe")
	if err != nil {
		b.Fatal(err)
	}
	s, err := Parse("acks-all-safe.yaml", data)
	if err != nil {
		b.Fatal(err)
	}
	var events int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := s.NewRun()
		r.World.Trace().Keep = false
		r.ToEnd()
		events += r.World.EventsRun()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
