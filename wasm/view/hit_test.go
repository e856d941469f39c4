package view

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"deliverylab/core/play"
)

func TestHitTest(t *testing.T) {
	st := cluster(3)
	l := Compute(st.Nodes, 1000, 560)
	b1, _ := l.Box("broker-1")
	msg, _ := l.FlightPos(st.InFlight[0], float64(st.NowMs))

	tests := []struct {
		name string
		at   Point
		want Hit
	}{
		{"broker centre", b1.Rect.Center(), Hit{Node: "broker-1"}},
		{"broker corner", Point{b1.Rect.X, b1.Rect.Y}, Hit{Node: "broker-1"}},
		{"message", msg, Hit{Flight: true, FlightID: 7}},
		{"near a message", Point{msg.X + FlightRadius, msg.Y}, Hit{Flight: true, FlightID: 7}},
		{"empty canvas", Point{2, 2}, Hit{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, l.HitTest(tt.at, st.InFlight, float64(st.NowMs), nil))
		})
	}
	assert.True(t, Hit{}.None())
	assert.False(t, Hit{Node: "x"}.None())
}

func TestHitTestMessageOverBox(t *testing.T) {
	st := cluster(3)
	l := Compute(st.Nodes, 1000, 560)
	// At arrival the Produce dot sits on broker-1's border: the message wins.
	at, _ := l.FlightPos(st.InFlight[0], 12)
	h := l.HitTest(at, st.InFlight, 12, nil)
	assert.Equal(t, Hit{Flight: true, FlightID: 7}, h)
}

func TestHitTestNearestAndNewestMessageWins(t *testing.T) {
	l := Compute(cluster(1).Nodes, 1000, 560)
	same := []play.Flight{
		{ID: 1, From: "p1", To: "broker-1", SentMs: 0, ArriveMs: 10},
		{ID: 2, From: "p1", To: "broker-1", SentMs: 0, ArriveMs: 10},
	}
	at, _ := l.FlightPos(same[0], 5)
	assert.Equal(t, int64(2), l.HitTest(at, same, 5, nil).FlightID, "drawn last, on top")

	apart := []play.Flight{same[0], {ID: 3, From: "p1", To: "broker-1", SentMs: 0, ArriveMs: 10000}}
	assert.Equal(t, int64(1), l.HitTest(at, apart, 5, nil).FlightID, "nearest")
}

func TestFault(t *testing.T) {
	l := Compute(cluster(1).Nodes, 1000, 560)
	tests := []struct {
		hit  Hit
		want string
		ok   bool
	}{
		{Hit{Node: "broker-1"}, `{"crash":"broker-1"}`, true},
		{Hit{Node: "broker-3"}, `{"restart":"broker-3"}`, true}, // down in the fixture
		{Hit{Flight: true, FlightID: 42}, `{"drop":"message","id":42}`, true},
		{Hit{Node: "p1"}, "", false},
		{Hit{Node: "controller"}, "", false},
		{Hit{Node: "ghost"}, "", false},
		{Hit{}, "", false},
	}
	for _, tt := range tests {
		got, ok := l.Fault(tt.hit)
		assert.Equal(t, tt.ok, ok, "%+v", tt.hit)
		assert.Equal(t, tt.want, got, "%+v", tt.hit)
	}
}
