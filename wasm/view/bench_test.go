package view

import (
	"os"

	"testing"

	"deliverylab/core/play"

	"github.com/stretchr/testify/require"
)

// The game recomputes the layout whenever a node changes (often, while playing) and
// hit-tests on every tick; both must stay far below a frame's 16 ms.

func BenchmarkCompute(b *testing.B) {
	st := cluster(200)
	for b.Loop() {
		Compute(st.Nodes, 1000, 560)
	}
}

func BenchmarkHitTest(b *testing.B) {
	st := cluster(50)
	l := Compute(st.Nodes, 1000, 560)
	flights := make([]play.Flight, 64)
	for i := range flights {
		flights[i] = play.Flight{ID: int64(i), From: "broker-1", To: "broker-2", SentMs: 0, ArriveMs: 100}
	}
	p := Point{500, 300}
	for b.Loop() {
		l.HitTest(p, flights, 50, nil)
	}
}

// The hit test with every lane of the cluster drawn: a click that hits nothing walks
// all of them.
func BenchmarkHitTestLanes(b *testing.B) {
	st := cluster(50)
	l := Compute(st.Nodes, 1000, 560)
	var talked []play.Link
	for i, a := range st.Nodes {
		for _, c := range st.Nodes[i+1:] {
			talked = append(talked, play.Link{From: a.Name, To: c.Name})
		}
	}
	lanes := l.Lanes(talked, nil)
	p := Point{2, 2}
	for b.Loop() {
		l.HitTest(p, st.InFlight, 10, lanes)
	}
}

// BenchmarkFlightPositions places every message of the crowd scene's busiest moment
// (browsertest/testdata/crowd.yaml: 661 on the wire) on its lane, as Draw does each
// frame: natively, the share of Draw's time that is Go's own arithmetic.
func BenchmarkFlightPositions(b *testing.B) {
	data, err := os.ReadFile("../../browsertest/testdata/crowd.yaml")
	require.NoError(b, err)
	s, err := play.LoadSource("crowd.yaml", data)
	require.NoError(b, err)
	require.NoError(b, s.SeekTo(1600))
	st := s.State()
	require.GreaterOrEqual(b, len(st.InFlight), 500)
	l := Compute(st.Nodes, 1280, 720)
	for b.Loop() {
		for _, f := range st.InFlight {
			l.FlightPos(f, 1650)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(st.InFlight)), "ns/flight")
}
