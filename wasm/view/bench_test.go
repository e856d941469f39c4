package view

import (
	"testing"

	"deliverylab/core/play"
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
		l.HitTest(p, flights, 50)
	}
}
