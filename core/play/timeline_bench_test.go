package play

import (
	"testing"

	"deliverylab/scenes"

	"github.com/stretchr/testify/require"
)

// BenchmarkTimelineRelearn measures what learning the timeline costs: a run of the
// scene to its end, done at load and after every fault or setting change. Each shipped
// scene is a sub-benchmark (events/op says how long it is); the longest ones say what
// a click costs at worst.
func BenchmarkTimelineRelearn(b *testing.B) {
	for _, name := range scenes.Names() {
		s, err := Load(name)
		require.NoError(b, err)
		b.Run(name, func(b *testing.B) {
			var events int64
			for range b.N {
				s.relearn()
				s.learnAll()
			}
			end, _ := Load(name)
			end.RunToEnd()
			events = end.run.World.EventsRun()
			b.ReportMetric(float64(events), "events/op")
		})
	}
}
