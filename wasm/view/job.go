package view

import (
	"strings"

	"deliverylab/core/play"
	"deliverylab/core/show"
)

// A Flink job is one box holding its job manager and its subtasks as small boxes: the
// job manager on the first row, then the sources, the operator subtasks and the sinks,
// each group on rows of its own, left to right in the order data flows.

// JobManager is the job manager's part name (core/flink.JobManager): messages of the
// checkpoint coordinator come from and go to it.
const JobManager = "jobmanager"

// PartBox is one part of a job's box: the job manager or a subtask.
type PartBox struct {
	Name string // "map-0", "jobmanager"
	Rect Rect
	// Up: the subtask runs (false: failed, waiting for its region's restart, or the job
	// is down).
	Up bool
	// Blocked: it waits for its sink's flush at a barrier; Aligning: some of its inputs
	// are held back while it aligns a checkpoint's barriers (their sources in Inputs).
	Blocked  bool
	Aligning []string
	Paused   bool // its task's thread is stopped
	Manager  bool // the job manager
	// State is what the subtask shows of itself (its offsets, totals, transactions and
	// snapshot), said under its name at Detail on Rows lines (partlines.go).
	State  show.Part
	Detail PartDetail
	Rows   int
}

// partGroup is where a part goes: 0 the sources, 1 the operators, 2 the sinks.
func partGroup(name string) int {
	switch {
	case strings.HasPrefix(name, "source-"):
		return 0
	case strings.HasPrefix(name, "sink-"):
		return 2
	}
	return 1
}

// partH is the height of a part's box; partGap the room between two.
func (m Metrics) partH() float64   { return m.Line + 4 }
func (m Metrics) partGap() float64 { return 4 }

// partLineW is the room a part's detail lines have in a part box w wide.
func (m Metrics) partLineW(w float64) float64 { return w - m.Pad }

// layoutParts places the job manager and the parts in the area at (x, y), w wide, and
// returns their boxes and the height they take. A part with detail lines at d takes the
// area's width and a line of height for each.
func layoutParts(parts []show.Part, up bool, d PartDetail, x, y, w float64, m Metrics) ([]PartBox, float64) {
	out := []PartBox{{Name: JobManager, Up: up, Manager: true}}
	for g := range 3 {
		for _, p := range parts {
			if partGroup(p.Name) == g {
				out = append(out, PartBox{Name: p.Name, Up: up && p.Running, Blocked: p.Blocked, Aligning: p.BlockedInputs, Paused: p.Paused,
					State: p, Detail: d, Rows: partRows(p, d, m.Base, m.partLineW(w))})
			}
		}
	}
	gap := m.partGap()
	cx, cy, group, rowH := x, y, -1, 0.0
	for i := range out {
		bw := min(w, TextWidth(out[i].Name, m.Base)+2*m.Pad)
		ph := m.partH()
		if out[i].Rows > 0 { // room for the lines and their descenders above the border
			bw, ph = w, ph+float64(out[i].Rows)*m.Line+1
		}
		g := -1
		if !out[i].Manager {
			g = partGroup(out[i].Name)
		}
		// A new group starts a row; so does a part the row has no room for.
		if i > 0 && (g != group || cx+bw > x+w+0.01) {
			cx, cy, rowH = x, cy+rowH+gap, 0
		}
		group = g
		out[i].Rect = Rect{cx, cy, bw, ph}
		cx += bw + gap
		rowH = max(rowH, ph)
	}
	return out, cy + rowH - y
}

// jobHeight is the height of a job's box w wide whose parts say d: its name, its status
// lines, its parts.
func (m Metrics) jobHeight(n play.NodeState, w float64, d PartDetail) float64 {
	_, h := layoutParts(n.Parts, n.Up, d, 0, 0, w-2*m.Pad, m)
	return m.HeaderH + float64(AppLines("job"))*m.Line + h + 2*m.Pad
}

// placeJob lays out a job box's parts under its status lines.
func (b *Box) placeJob(n play.NodeState, d PartDetail, m Metrics) {
	b.PartsTop = b.Rect.Y + m.HeaderH + float64(AppLines("job"))*m.Line + m.Pad/2
	b.Parts, _ = layoutParts(n.Parts, b.Up, d, b.Rect.X+m.Pad, b.PartsTop, b.Rect.W-2*m.Pad, m)
}

// Part returns the box of a part of a node ("totals", "map-0").
func (l *Layout) Part(node, part string) (PartBox, bool) {
	b, ok := l.Box(node)
	if !ok {
		return PartBox{}, false
	}
	for _, p := range b.Parts {
		if p.Name == part {
			return p, true
		}
	}
	return PartBox{}, false
}

// endRect is where a message's end is drawn: the part's box of a job, else the node's.
func (l *Layout) endRect(node, part string) (Box, Rect, bool) {
	b, ok := l.Box(node)
	if !ok {
		return Box{}, Rect{}, false
	}
	if part != "" {
		for _, p := range b.Parts {
			if p.Name == part {
				return b, p.Rect, true
			}
		}
	}
	return b, b.Rect, true
}

// NodeRect is the rectangle of a node or of a job's part ("totals/map-0"): what a hover
// outlines.
func (l *Layout) NodeRect(name string) (Rect, bool) {
	node, part, _ := strings.Cut(name, "/")
	if part == "" {
		b, ok := l.Box(node)
		return b.Rect, ok
	}
	p, ok := l.Part(node, part)
	return p.Rect, ok
}

// flightPath is the route of a message: between the parts it comes from and goes to
// when an end is a job's part (a record from source-0 to map-1, a barrier, a fetch of a
// source subtask), else between the nodes' boxes.
func (l *Layout) flightPath(f play.Flight) (Path, bool) {
	if f.FromPart == "" && f.ToPart == "" {
		return l.Path(f.From, f.To)
	}
	a, ra, okA := l.endRect(f.From, f.FromPart)
	b, rb, okB := l.endRect(f.To, f.ToPart)
	if !okA || !okB {
		return Path{}, false
	}
	if ra == a.Rect && rb == b.Rect { // no part box at either end (a Streams app's ports)
		return l.Path(f.From, f.To)
	}
	if ra == rb {
		p := Point{ra.Right(), ra.Y}
		return Path{p, p, p}, true
	}
	return straight(ra, rb), true
}
