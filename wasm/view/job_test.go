package view

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/fate"
	"deliverylab/core/play"
	"deliverylab/core/show"
)

// flinkCluster is a keyed Flink job, totals (two sources, two maps, two sinks), between
// three brokers; map-1 has failed and map-0 aligns source-1's input.
func flinkCluster() play.State {
	return play.State{
		NowMs: 10,
		Nodes: []play.NodeState{
			{Name: "p1", Kind: "producer", Up: true, Status: fate.Because(fate.StatusSent, "sent", "3", "count", "10", "acked", "2")},
			{Name: "controller", Kind: "controller", Up: true},
			{Name: "broker-1", Kind: "broker", Up: true},
			{Name: "broker-2", Kind: "broker", Up: true},
			{Name: "broker-3", Kind: "broker", Up: true},
			{Name: "totals", Kind: "job", Up: true,
				Status: fate.Because(fate.StatusJob, "checkpoint", "1").And(fate.StatusCheckpoint, "checkpoint", "2", "acked", "1", "tasks", "4").And(fate.StatusRestarting),
				Parts: []show.Part{
					{Name: "source-0", Running: true, Offsets: []string{"orders-0@3"}},
					{Name: "source-1", Running: true},
					{Name: "map-0", Running: true, BlockedInputs: []string{"source-1"}},
					{Name: "sink-0", Running: true, Blocked: true},
					{Name: "map-1", Running: false},
					{Name: "sink-1", Running: false},
				}},
			{Name: "audit", Kind: "consumer", Up: true},
		},
		InFlight: []play.Flight{
			{ID: 1, From: "totals", FromPart: "source-0", To: "totals", ToPart: "map-1", Kind: "Record", Family: "stream", Label: "p1#2", SentMs: 8, ArriveMs: 12},
			{ID: 2, From: "totals", FromPart: "jobmanager", To: "totals", ToPart: "source-1", Kind: "TriggerCheckpoint", Family: "checkpoint", Label: "2", SentMs: 8, ArriveMs: 12},
			{ID: 3, From: "broker-1", To: "totals", ToPart: "source-0", Kind: "FetchResponse", Family: "fetch", SentMs: 8, ArriveMs: 12},
			{ID: 4, From: "totals", FromPart: "source-1", To: "totals", ToPart: "map-0", Kind: "Barrier", Family: "stream", Label: "|2|", SentMs: 8, ArriveMs: 12},
		},
	}
}

// The job sits with the applications on the receiving side, its parts inside its box in
// the order data flows: the job manager, the sources, the maps, the sinks; nothing
// overlaps.
func TestJobLayout(t *testing.T) {
	st := flinkCluster()
	for _, size := range append(classroomCanvases, [2]float64{1280, 800}) {
		l := Compute(st.Nodes, size[0], size[1])
		job, ok := l.Box("totals")
		require.True(t, ok)
		assert.Equal(t, ColRight, job.Column)
		var names []string
		for _, p := range job.Parts {
			names = append(names, p.Name)
			assert.True(t, p.Rect.X >= job.Rect.X && p.Rect.Right() <= job.Rect.Right()+0.01 &&
				p.Rect.Y >= job.PartsTop && p.Rect.Bottom() <= job.Rect.Bottom()+0.01, "%v %s inside the job", size, p.Name)
			for _, o := range job.Parts {
				if o.Name != p.Name {
					assert.False(t, p.Rect.Intersects(o.Rect), "%v %s over %s", size, p.Name, o.Name)
				}
			}
		}
		assert.Equal(t, []string{"jobmanager", "source-0", "source-1", "map-0", "map-1", "sink-0", "sink-1"}, names)
		src, _ := l.Part("totals", "source-0")
		mp, _ := l.Part("totals", "map-0")
		sk, _ := l.Part("totals", "sink-0")
		assert.Less(t, src.Rect.Y, mp.Rect.Y, "sources above the maps")
		assert.Less(t, mp.Rect.Y, sk.Rect.Y, "maps above the sinks")
		m1, _ := l.Part("totals", "map-1")
		assert.False(t, m1.Up, "a failed subtask is drawn down")
		assert.Equal(t, []string{"source-1"}, mp.Aligning)
		assert.True(t, sk.Blocked)
		for _, b := range l.Boxes {
			assert.LessOrEqual(t, b.Rect.Bottom(), size[1], "%v %s on the canvas", size, b.Name)
			if b.Name != job.Name && b.Column == job.Column {
				assert.False(t, b.Rect.Intersects(job.Rect), "%v %s over the job", size, b.Name)
			}
		}
	}
}

// A message between two parts runs between their boxes; a broker's answer to a source
// ends at the source.
func TestJobFlightsRunBetweenParts(t *testing.T) {
	st := flinkCluster()
	l := Compute(st.Nodes, 1280, 800)
	src, _ := l.Part("totals", "source-0")
	m1, _ := l.Part("totals", "map-1")
	jm, _ := l.Part("totals", "jobmanager")
	s1, _ := l.Part("totals", "source-1")
	near := func(r Rect, p Point) bool { return Dist(borderPoint(r, p), p) <= laneOffset }
	at := func(f play.Flight, ms float64) Point {
		p, ok := l.FlightPos(f, ms)
		require.True(t, ok)
		return p
	}
	assert.True(t, near(src.Rect, at(st.InFlight[0], 8)), "a record leaves its source")
	assert.True(t, near(m1.Rect, at(st.InFlight[0], 12)), "and arrives at its map")
	assert.True(t, near(jm.Rect, at(st.InFlight[1], 8)), "a trigger leaves the job manager")
	assert.True(t, near(s1.Rect, at(st.InFlight[1], 12)))
	assert.True(t, near(src.Rect, at(st.InFlight[2], 12)), "a fetch answer ends at the source subtask")
	r, ok := l.NodeRect("totals/map-1")
	assert.True(t, ok)
	assert.Equal(t, m1.Rect, r)
}

// A click on a subtask crashes it, on the job manager or the frame the whole job; a
// failed subtask takes no click (the job restarts it).
func TestJobHitAndFault(t *testing.T) {
	st := flinkCluster()
	l := Compute(st.Nodes, 1280, 800)
	job, _ := l.Box("totals")
	mp, _ := l.Part("totals", "map-0")
	m1, _ := l.Part("totals", "map-1")
	jm, _ := l.Part("totals", "jobmanager")
	h := l.HitTest(mp.Rect.Center(), nil, 10, nil)
	assert.Equal(t, Hit{Node: "totals/map-0"}, h)
	f, ok := l.Fault(h)
	assert.True(t, ok)
	assert.Equal(t, `{"crash":"totals/map-0"}`, f)
	_, ok = l.Fault(l.HitTest(m1.Rect.Center(), nil, 10, nil))
	assert.False(t, ok, "map-1 is down already")
	assert.Equal(t, Hit{Node: "totals"}, l.HitTest(jm.Rect.Center(), nil, 10, nil))
	h = l.HitTest(Point{job.Rect.X + 2, job.Rect.Y + 2}, nil, 10, nil)
	assert.Equal(t, Hit{Node: "totals"}, h)
	f, _ = l.Fault(h)
	assert.Equal(t, `{"crash":"totals"}`, f)
	st.Nodes[5].Up = false
	l = Compute(st.Nodes, 1280, 800)
	f, _ = l.Fault(Hit{Node: "totals"})
	assert.Equal(t, `{"restart":"totals"}`, f)
	_, ok = l.Fault(Hit{Node: "totals/map-0"})
	assert.False(t, ok, "a down job's subtasks are down")
}

// Every text of the job's box is whole and at 14 px or more at the classroom sizes, in
// both languages, in both modes.
func TestJobIsLegible(t *testing.T) {
	st := flinkCluster()
	for _, size := range classroomCanvases {
		for _, projector := range []bool{false, true} {
			for _, lang := range []Lang{En, Zh} {
				l := ComputeWith(st.Nodes, size[0], size[1], MetricsFor(size[0], size[1], projector))
				var seen []string
				for _, tx := range l.BoxTexts(st.Nodes, lang, Dark) {
					seen = append(seen, tx.S)
					assert.GreaterOrEqual(t, tx.Px, 14.0)
					assert.False(t, tx.Cut, "%v projector=%v %s: %q was cut", size, projector, lang, tx.S)
				}
				all := strings.Join(seen, "|")
				for _, p := range []string{"jobmanager", "source-1", "map-1", "sink-1"} {
					assert.Contains(t, all, p)
				}
				assert.Contains(t, all, st.Nodes[5].Status.Text(lang)[:6], "the job's status line")
			}
		}
	}
}
