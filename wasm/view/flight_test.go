package view

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/play"
)

func TestProgress(t *testing.T) {
	tests := []struct {
		name         string
		sent, arrive int64
		now          float64
		want         float64
	}{
		{"just sent", 10, 20, 10, 0},
		{"half way", 10, 20, 15, 0.5},
		{"fractional time", 10, 20, 12.5, 0.25},
		{"arrived", 10, 20, 20, 1},
		{"before send clamps", 10, 20, 5, 0},
		{"after arrival clamps", 10, 20, 30, 1},
		{"zero latency is arrived", 10, 10, 10, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, Progress(tt.sent, tt.arrive, tt.now), 1e-9)
		})
	}
}

func TestFlightPosMovesFromSenderToReceiver(t *testing.T) {
	st := cluster(2)
	l := Compute(st.Nodes, 1000, 560)
	f := st.InFlight[0] // p1 -> broker-1, 8..12 ms
	p1, _ := l.Box("p1")
	b1, _ := l.Box("broker-1")

	start, ok := l.FlightPos(f, 8)
	require.True(t, ok)
	end, _ := l.FlightPos(f, 12)
	mid, _ := l.FlightPos(f, 10)
	assert.InDelta(t, p1.Rect.Right(), start.X, 1, "leaves the producer's right edge")
	assert.InDelta(t, b1.Rect.X, end.X, 1, "arrives on the broker's left edge")
	assert.Greater(t, mid.X, start.X)
	assert.Less(t, mid.X, end.X)
	assert.InDelta(t, (start.X+end.X)/2, mid.X, 1, "linear in time on a straight path")

	paused1, _ := l.FlightPos(f, 10)
	assert.Equal(t, mid, paused1, "same virtual time, same place")
}

func TestFlightDirectionsUseSeparateLanes(t *testing.T) {
	l := Compute(cluster(1).Nodes, 1000, 560)
	req, _ := l.FlightPos(play.Flight{From: "p1", To: "broker-1", SentMs: 0, ArriveMs: 10}, 5)
	resp, _ := l.FlightPos(play.Flight{From: "broker-1", To: "p1", SentMs: 0, ArriveMs: 10}, 5)
	assert.InDelta(t, laneOffset, Dist(req, resp), 0.5)
}

func TestReplicationArcsAroundTheBrokerStack(t *testing.T) {
	l := Compute(cluster(1).Nodes, 1000, 560)
	b1, _ := l.Box("broker-1")
	b3, _ := l.Box("broker-3")
	f := play.Flight{From: "broker-3", To: "broker-1", SentMs: 0, ArriveMs: 10}
	for _, now := range []float64{1, 5, 9} {
		p, ok := l.FlightPos(f, now)
		require.True(t, ok)
		assert.Greater(t, p.X, b1.Rect.Right(), "t=%v: outside the stack, right of it", now)
	}
	p, _ := l.FlightPos(f, 10)
	assert.InDelta(t, b1.Rect.Right(), p.X, 0.001)
	start, _ := l.FlightPos(f, 0)
	assert.InDelta(t, b3.Rect.Right(), start.X, 0.001)

	ctl := play.Flight{From: "controller", To: "broker-3", SentMs: 0, ArriveMs: 10}
	q, _ := l.FlightPos(ctl, 5)
	assert.Less(t, q.X, b1.Rect.X, "controller traffic bends left of the stack")
}

func TestFlightPosUnknownNode(t *testing.T) {
	l := Compute(cluster(1).Nodes, 1000, 560)
	_, ok := l.FlightPos(play.Flight{From: "p1", To: "ghost", ArriveMs: 1}, 0)
	assert.False(t, ok)
}

func TestFlightToSelfSitsOnCorner(t *testing.T) {
	l := Compute(cluster(1).Nodes, 1000, 560)
	b1, _ := l.Box("broker-1")
	p, ok := l.FlightPos(play.Flight{From: "broker-1", To: "broker-1", ArriveMs: 4}, 2)
	require.True(t, ok)
	assert.Equal(t, Point{b1.Rect.Right(), b1.Rect.Y}, p)
}
