package view

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/play"
	"deliverylab/core/show"
)

func mid(a, b Point) Point { return Point{(a.X + b.X) / 2, (a.Y + b.Y) / 2} }

// A click on the middle of a lane hits that direction, the other lane of the pair is
// its own target, and the click's fault cuts it or, once cut, heals it.
func TestLaneHitTestCutsAndHealsOneDirection(t *testing.T) {
	st := cluster(3)
	l := Compute(st.Nodes, 1000, 560)
	talked := []play.Link{{From: "p1", To: "broker-1"}, {From: "broker-1", To: "broker-2"}}
	lanes := l.Lanes(talked, nil)
	require.Len(t, lanes, 4, "two lanes per pair")
	for _, ln := range lanes {
		h := l.HitTest(mid(ln.A, ln.B), nil, 0, lanes)
		require.True(t, h.Link, "%s->%s: %+v", ln.From, ln.To, h)
		assert.Equal(t, [2]string{ln.From, ln.To}, [2]string{h.From, h.To})
		f, ok := l.Fault(h)
		require.True(t, ok)
		assert.JSONEq(t, `{"cut-oneway": ["`+ln.From+`", "`+ln.To+`"]}`, f)
	}
	cut := l.Lanes(talked, []play.Link{{From: "broker-2", To: "broker-1"}})
	for _, ln := range cut {
		if ln.From == "broker-2" && ln.To == "broker-1" {
			require.True(t, ln.Cut)
			f, ok := l.Fault(l.HitTest(mid(ln.A, ln.B), nil, 0, cut))
			require.True(t, ok)
			assert.JSONEq(t, `{"heal-oneway": ["broker-2", "broker-1"]}`, f)
		} else {
			assert.False(t, ln.Cut, "%s->%s", ln.From, ln.To)
		}
	}
	assert.Equal(t, Hit{}, l.HitTest(Point{2, 2}, nil, 0, lanes), "far from every lane")
}

// Messages win over nodes, nodes over lanes.
func TestHitOrderPrefersMessagesThenNodesThenLinks(t *testing.T) {
	st := cluster(3)
	l := Compute(st.Nodes, 1000, 560)
	lanes := l.Lanes([]play.Link{{From: "p1", To: "broker-1"}}, nil)
	var ln Lane
	for _, x := range lanes {
		if x.From == "p1" {
			ln = x
		}
	}
	fl := play.Flight{ID: 7, From: "p1", To: "broker-1", SentMs: 0, ArriveMs: 10}
	at := ln.Path.At(0.5)
	assert.True(t, l.HitTest(at, []play.Flight{fl}, 5, lanes).Flight, "the message on the lane")
	assert.True(t, l.HitTest(at, nil, 5, lanes).Link)
	b, _ := l.Box("broker-1")
	c := b.Rect.Center()
	across := []Lane{{From: "p1", To: "c1", Line: true, Path: Path{P0: Point{c.X - 50, c.Y}, C: c, P2: Point{c.X + 50, c.Y}}}}
	assert.Equal(t, "broker-1", l.HitTest(c, nil, 5, across).Node, "on the box and a lane: the box")
}

func TestTalkedCollectsPairsOnce(t *testing.T) {
	seen := map[play.Link]bool{}
	assert.True(t, Talked(seen, []play.Flight{{From: "b", To: "a"}, {From: "a", To: "b"}, {From: "a", To: "a"}}))
	assert.False(t, Talked(seen, []play.Flight{{From: "a", To: "b"}}))
	assert.Equal(t, []play.Link{{From: "a", To: "b"}}, SortedLinks(seen))
}

// A flight's label never covers a box: at every dot of every shipped scene, wherever
// PlaceLabel puts "BrokerRegistration" it is clear of every node.
func TestFlightLabelsAvoidBoxes(t *testing.T) {
	for _, sc := range play.Scenes() {
		for _, st := range sceneStates(t, sc.Name) {
			for _, size := range classroomCanvases {
				l := Compute(st.Nodes, size[0], size[1])
				for _, f := range st.InFlight {
					pos, ok := l.FlightPos(f, float64(st.NowMs))
					if !ok {
						continue
					}
					w := TextWidth("BrokerRegistration", l.M.Base) + 6
					r, ok := l.PlaceLabel(pos, w, l.M.Base+4, nil)
					if !ok {
						continue
					}
					for _, b := range l.Boxes {
						assert.False(t, r.Intersects(b.Rect), "%s: label at %+v covers %s", sc.Name, r, b.Name)
					}
				}
			}
		}
	}
}

func TestPlaceLabelDropsWhatCannotBePlaced(t *testing.T) {
	st := cluster(3)
	l := Compute(st.Nodes, 1000, 560)
	b, _ := l.Box("broker-2")
	_, ok := l.PlaceLabel(b.Rect.Center(), 60, 18, nil)
	assert.False(t, ok, "inside a broker box there is no free place")
	r, ok := l.PlaceLabel(Point{l.Width - 200, l.Height - 30}, 60, 18, nil)
	require.True(t, ok)
	assert.InDelta(t, l.Width-200+FlightRadius+2, r.X, 0.01, "free: right of the dot")
	r2, ok := l.PlaceLabel(Point{l.Width - 200, l.Height - 30}, 60, 18, []Rect{r})
	require.True(t, ok)
	assert.False(t, r2.Intersects(r), "a second label goes elsewhere, not over the first")
}

func TestHighlightMarksTheMessageOnly(t *testing.T) {
	h := Highlight{Message: "p1#3"}
	assert.True(t, h.Marks("p1#3"))
	assert.True(t, h.Marks("retry p1#3"))
	assert.False(t, h.Marks("p1#31"))
	assert.False(t, h.Marks("xp1#3"))
	assert.False(t, Highlight{}.Marks("p1#3"))
	assert.True(t, Highlight{Nodes: []string{"broker-1"}}.HasNode("broker-1"))
	assert.True(t, Highlight{}.Empty())
}

// In a one-line strip a consumer's position and its group's committed offset at the
// same record would print on the same spot: only one label is drawn, and no two of the
// row's mark labels overlap.
func TestMarkLabelsNeverOverprint(t *testing.T) {
	recs := make([]play.RecordView, 3)
	for i := range recs {
		recs[i] = play.RecordView{Offset: int64(i), Kind: show.Data, Msg: "p1#1"}
	}
	rs := play.ReplicaState{Partition: "orders-0", Leader: true, HW: 3, LEO: 3, Records: recs,
		Marks: []show.Mark{{Kind: show.CommittedMark, Who: "enrich", Offset: 1}, {Kind: show.PositionMark, Who: "enrich", Offset: 1}}}
	l := &Layout{M: tm, Boxes: []Box{{Name: "broker-1", Kind: "broker", Up: true}}}
	row := layoutLog(rs, Rect{0, 0, 400, tm.RowHMin}, tm)
	require.Less(t, row.Strip.H, 2*tm.Line, "a one-line strip")
	l.Boxes[0].Logs = []LogRow{row}
	var marks []Text
	for _, tx := range l.BoxTexts([]play.NodeState{{Name: "broker-1", Kind: "broker", Up: true}}, En, Dark) {
		if tx.Pill {
			marks = append(marks, tx)
		}
	}
	require.Len(t, marks, 1)
	assert.Equal(t, "enrich 1", marks[0].S)
}

func TestHighlightMarksAtEveryPlace(t *testing.T) {
	h := Highlight{Message: "p1#3"}
	assert.True(t, h.Marks("p1#31 p1#3"), "a later whole occurrence counts")
	assert.True(t, h.Marks("(p1#3)"))
	assert.False(t, h.Marks("p1#30 p1#35"))
}
