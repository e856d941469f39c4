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

// dashboardAt steps the shipped dashboard scene until its job's status reads en, and
// returns the state then.
func dashboardAt(t *testing.T, en string) play.State {
	t.Helper()
	s, err := play.Load("flink-case-dashboard")
	require.NoError(t, err)
	for s.Step() {
		st := s.State()
		for _, n := range st.Nodes {
			if n.Name == "cases" && n.Status.Text(fate.En) == en {
				return st
			}
		}
	}
	require.Failf(t, "the run ended", "before %q", en)
	return play.State{}
}

// textsIn is the texts drawn inside r, joined by "|".
func textsIn(texts []Text, r Rect) string {
	var in []string
	for _, tx := range texts {
		b := tx.Bounds()
		if b.X >= r.X-0.5 && b.Right() <= r.Right()+0.5 && b.Y >= r.Y-0.5 && b.Bottom() <= r.Bottom()+0.5 {
			in = append(in, tx.S)
		}
	}
	return strings.Join(in, "|")
}

// The words each part's box says of checkpoint 2's moment (live state, then snapshot).
var dashboardWords = map[PartDetail]map[Lang]map[string][]string{
	PartState: {
		En: {"source-0": {"reports-0@4"}, "sum-0": {"region-0=6", "region-1=4"}, "sink-0": {"cases-0-2", "pre-committed", "cases-0-3", "open"}},
		Zh: {"source-0": {"reports-0@4"}, "sum-0": {"region-0=6", "region-1=4"}, "sink-0": {"cases-0-2", "已预提交", "cases-0-3", "已开启"}},
	},
	PartSnapshot: {
		En: {"source-0": {"ckpt 2:"}, "sum-0": {"ckpt 2:"}},
		Zh: {"source-0": {"检查点 2："}, "sum-0": {"检查点 2："}},
	},
}

// Checkpoint 2 completed: in both modes and languages, the source's box says its
// offset, the sum's its totals, the sink's its pre-committed and its open transaction,
// and, where the column has room for them (the classroom's larger window and more),
// what checkpoint 2 holds of the source and the sum; each whole, at 14 px or more,
// inside its part's box. Only the smallest canvas in projector mode is left with the
// names alone.
func TestJobPartsSayTheirState(t *testing.T) {
	st := dashboardAt(t, "checkpoint 2 completed")
	type size struct {
		w, h      float64
		projector bool
		detail    PartDetail // the least the parts must say
	}
	for _, sz := range []size{
		{620, 430, false, PartState}, {620, 430, true, PartNames},
		{764, 538, false, PartSnapshot}, {764, 538, true, PartState},
		{1280, 800, false, PartSnapshot}, {1280, 800, true, PartState},
		{1900, 1000, false, PartSnapshot},
	} {
		l := ComputeWith(st.Nodes, sz.w, sz.h, MetricsFor(sz.w, sz.h, sz.projector))
		job, _ := l.Box("cases")
		for _, lang := range []Lang{En, Zh} {
			texts := l.BoxTexts(st.Nodes, lang, Dark)
			for _, tx := range texts {
				if job.Rect.Contains(tx.At) { // the brokers' labels are another test's
					assert.GreaterOrEqual(t, tx.Px, 14.0)
					assert.False(t, tx.Cut, "%+v %s: %q was cut", sz, lang, tx.S)
				}
			}
			for _, d := range []PartDetail{PartState, PartSnapshot} {
				for part, words := range dashboardWords[d][lang] {
					p, ok := l.Part("cases", part)
					require.True(t, ok)
					require.GreaterOrEqual(t, p.Detail, sz.detail, "%+v: the parts say enough", sz)
					if p.Detail < d {
						continue
					}
					in := textsIn(texts, p.Rect)
					for _, w := range words {
						assert.Contains(t, in, w, "%+v %s: %s says %q", sz, lang, part, w)
					}
				}
			}
		}
		{
			size := [2]float64{sz.w, sz.h}
			for _, p := range job.Parts {
				assert.LessOrEqual(t, p.Rect.Bottom(), job.Rect.Bottom()+0.01, "%v %s inside the job", size, p.Name)
				for _, o := range job.Parts {
					if o.Name != p.Name {
						assert.False(t, p.Rect.Intersects(o.Rect), "%v %s over %s", size, p.Name, o.Name)
					}
				}
			}
			for _, b := range l.Boxes {
				if b.Column == job.Column {
					assert.LessOrEqual(t, b.Rect.Bottom(), size[1], "%v %s on the canvas", size, b.Name)
				}
			}
		}
	}
}

// A part box lists at most maxPartItems keys, then how many more; a transaction's state
// is said in the viewer's language; the snapshot comes last, dimmed, only at
// PartSnapshot.
func TestPartLines(t *testing.T) {
	p := show.Part{Name: "count-0", Totals: []string{"a=1", "b=2", "c=3", "d=4", "e=5", "f=6"},
		Snapshot: []string{"a=1"}, SnapshotOf: 3}
	lines := PartLines(p, PartSnapshot, En, 14, 1000)
	require.Len(t, lines, 2)
	assert.Equal(t, PartLine{S: "a=1 b=2 c=3 +3 more"}, lines[0])
	assert.Equal(t, PartLine{S: "ckpt 3: a=1", Dim: true}, lines[1])
	assert.Len(t, PartLines(p, PartState, En, 14, 1000), 1, "no snapshot")
	assert.Empty(t, PartLines(p, PartNames, En, 14, 1000))
	sink := show.Part{Name: "sink-0", Txns: []show.PartTxn{{ID: "out-0-4", State: show.TxnCommitting}, {ID: "out-0-5", State: show.TxnOpen}}}
	assert.Equal(t, []PartLine{{S: "out-0-4 提交中"}, {S: "out-0-5 已开启"}}, PartLines(sink, PartState, Zh, 14, 1000))
	assert.Equal(t, 4, partRows(sink, PartState, 14, TextWidth("out-0-4", 14)), "each id and state on a line of its own when narrow")
}
