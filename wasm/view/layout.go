package view

import (
	"math"
	"strings"

	"deliverylab/core/play"
)

// Column of the canvas a node kind lives in: producers on the left, the controller and
// brokers in the middle, consumers and sinks on the right, so data flows left to right.
const (
	ColLeft = iota
	ColMiddle
	ColRight
)

// Box is one node's place on the canvas. Boxes are in the same order as State.Nodes.
type Box struct {
	Name string
	Kind string
	Up   bool
	// Blocked: a producer whose send() waits for buffer memory; drawn with the
	// BLOCKED badge in the Blocked colour.
	Blocked bool
	// Fenced: a broker that is up but fenced by the controller; drawn with the FENCED
	// badge in the Fenced colour.
	Fenced bool
	Column int
	Rect   Rect
	Logs   []LogRow // brokers: one row per partition replica
	Chips  []Chip   // sinks: the newest rows that fit
	Hidden int      // sinks: older rows not shown
	// HiddenFollowers: brokers: follower replicas left out because the column is too
	// short for every row (internal topics' first, then the others').
	HiddenFollowers int
	// Parts: a Flink job's job manager and subtasks, drawn inside its box under the
	// status lines, which end at PartsTop.
	Parts    []PartBox
	PartsTop float64
}

// Layout is the geometry of one picture.
type Layout struct {
	Width, Height float64
	M             Metrics // the type scale the geometry was made for
	Boxes         []Box
	index         map[string]int
}

// ColumnOf says where a node kind is drawn.
func ColumnOf(kind string) int {
	switch kind {
	case "producer":
		return ColLeft
	case "controller", "broker":
		return ColMiddle
	default: // consumer, sink and anything new: on the receiving side
		return ColRight
	}
}

// Compute places every node on a width×height canvas at the canvas's type scale.
func Compute(nodes []play.NodeState, width, height float64) *Layout {
	return ComputeWith(nodes, width, height, MetricsFor(width, height, false))
}

// ComputeWith places every node with the sizes of m (projector mode has its own).
func ComputeWith(nodes []play.NodeState, width, height float64, m Metrics) *Layout {
	l := &Layout{Width: width, Height: height, M: m, Boxes: make([]Box, len(nodes)), index: map[string]int{}}
	cols := columns(width, m)
	for i, n := range nodes {
		l.Boxes[i] = Box{Name: n.Name, Kind: n.Kind, Up: n.Up, Blocked: n.Blocked && n.Up, Fenced: n.Fenced && n.Up, Column: ColumnOf(n.Kind)}
		l.index[n.Name] = i
	}
	top, bottom := m.TopBarH+m.Margin/2, height-m.Margin
	l.placeSide(nodes, ColLeft, cols[ColLeft], top, bottom)
	l.placeMiddle(nodes, cols[ColMiddle], top, bottom)
	l.placeSide(nodes, ColRight, cols[ColRight], top, bottom)
	return l
}

// Box returns the box of the named node.
func (l *Layout) Box(name string) (Box, bool) {
	i, ok := l.index[name]
	if !ok {
		return Box{}, false
	}
	return l.Boxes[i], true
}

// columns returns the x and width of the three columns; the gaps between them are the
// wire the messages travel on, so they get a fair share of a wide canvas.
// Side columns are at least 9 base widths: "exactly_once_v2", the longest word of a
// detail line, fits on its own line.
func columns(width float64, m Metrics) [3]struct{ X, W float64 } {
	Margin := m.Margin
	side := clamp(width*0.17, m.Base*9, m.Base*14)
	gap := clamp(width*0.07, 30, 120)
	mid := width - 2*Margin - 2*side - 2*gap
	if mid < 220 { // narrow canvas: give the brokers their room first
		mid = math.Max(220, width*0.4)
		gap = math.Max(16, (width-2*Margin-2*side-mid)/2)
		// Narrower than the design's 600 px: the side columns give way too (their
		// texts may then be cut, and state().truncated says so), so nothing leaves
		// the canvas.
		side = math.Max(m.Base*5, math.Min(side, (width-2*Margin-2*gap-mid)/2))
	}
	var c [3]struct{ X, W float64 }
	c[ColLeft].X, c[ColLeft].W = Margin, side
	c[ColMiddle].X, c[ColMiddle].W = Margin+side+gap, mid
	c[ColRight].X, c[ColRight].W = Margin+side+gap+mid+gap, side
	return c
}

// placeSide stacks the nodes of a side column, vertically centred. Sinks share what
// the fixed-height app boxes leave, so a sink's height never changes during a run.
func (l *Layout) placeSide(nodes []play.NodeState, col int, c struct{ X, W float64 }, top, bottom float64) {
	var idx []int
	sinks := 0
	for i, n := range nodes {
		if l.Boxes[i].Column == col {
			idx = append(idx, i)
			if n.Kind == "sink" {
				sinks++
			}
		}
	}
	if len(idx) == 0 {
		return
	}
	m := l.M
	avail := bottom - top
	gap := m.BoxGapMax * 2
	sinkMin := m.HeaderH + 2*m.Line + m.ChipH + 8
	detail := PartSnapshot // as much as a job's part boxes can say in the room there is
	height := func(n play.NodeState) float64 {
		if n.Kind == "job" {
			return m.jobHeight(n, c.W, detail)
		}
		return m.AppHeight(n.Kind)
	}
	apps := 0.0 // the height of the application boxes together
	for ; ; detail-- {
		apps = 0
		for _, i := range idx {
			if nodes[i].Kind != "sink" {
				apps += height(nodes[i])
			}
		}
		if detail == PartNames || apps+float64(sinks)*sinkMin+float64(len(idx)-1)*m.BoxGapMin <= avail {
			break
		}
	}
	if need := apps + float64(len(idx)-1)*gap; need > avail {
		gap = math.Max(m.BoxGapMin, (avail-apps)/math.Max(1, float64(len(idx)-1)))
	}
	sinkH := 0.0
	if sinks > 0 {
		sinkH = (avail - apps - float64(len(idx)-1)*gap) / float64(sinks)
		sinkH = clamp(sinkH, sinkMin, 11*m.Line)
	}
	total := apps + float64(sinks)*sinkH + float64(len(idx)-1)*gap
	y := top + math.Max(0, (avail-total)/2)
	for _, i := range idx {
		h := height(nodes[i])
		if nodes[i].Kind == "sink" {
			h = sinkH
		}
		b := &l.Boxes[i]
		b.Rect = Rect{c.X, y, c.W, h}
		if nodes[i].Kind == "sink" {
			b.Chips, b.Hidden = layoutChips(nodes[i].Rows, nodes[i].Refused, b.Rect, m, len(SinkDetailLines(nodes[i].Detail, m, c.W)))
		}
		if nodes[i].Kind == "job" {
			b.placeJob(nodes[i], detail, m)
		}
		y += h + gap
	}
}

// placeMiddle puts the controller on top and stacks the brokers under it. Partition rows
// shrink (down to RowHMin) before anything overflows the canvas.
func (l *Layout) placeMiddle(nodes []play.NodeState, c struct{ X, W float64 }, top, bottom float64) {
	var brokers []int
	controller := -1
	for i, n := range nodes {
		if l.Boxes[i].Column != ColMiddle {
			continue
		}
		if n.Kind == "controller" && controller < 0 {
			controller = i
			continue
		}
		brokers = append(brokers, i)
	}
	m := l.M
	ctlH := 0.0
	if controller >= 0 {
		ctlH = m.ControlH + m.BoxGapMax
	}
	gap := m.BoxGapMax * 0.7
	fixed := ctlH + float64(len(brokers))*(m.HeaderH+6) + float64(max(0, len(brokers)-1))*gap
	// A broker that leaves rows out says so on a line of its own ("+N follower rows").
	shown := shownReplicas(nodes, brokers, (bottom-top-fixed)/m.RowHMin, m.Line/m.RowHMin)
	rows := 0.0
	for _, i := range brokers {
		rows += float64(max(1, len(shown[i])))
		if len(shown[i]) < len(nodes[i].Partitions) {
			rows += m.Line / m.RowHMin
		}
	}
	rowH := m.RowHMax
	if rows > 0 {
		rowH = clamp((bottom-top-fixed)/rows, m.RowHMin, m.RowHMax)
	}
	// The controller and the brokers are centred as one block, so the controller stays
	// next to the brokers it manages.
	y := top + math.Max(0, (bottom-top-fixed-float64(rows)*rowH)/2)
	if controller >= 0 {
		w := math.Min(c.W, m.Base*19)
		l.Boxes[controller].Rect = Rect{c.X + (c.W-w)/2, y, w, m.ControlH}
		y += ctlH
	}
	for _, i := range brokers {
		h := m.HeaderH + float64(max(1, len(shown[i])))*rowH + 6
		b := &l.Boxes[i]
		b.HiddenFollowers = len(nodes[i].Partitions) - len(shown[i])
		if b.HiddenFollowers > 0 {
			h += m.Line
		}
		b.Rect = Rect{c.X, y, c.W, h}
		for p, rs := range shown[i] {
			row := Rect{c.X + m.Pad, y + m.HeaderH + float64(p)*rowH, c.W - 2*m.Pad, rowH}
			b.Logs = append(b.Logs, layoutLog(rs, row, m))
		}
		y += h + gap
	}
}

// DetailLines splits an application's status into the lines its box shows: the parts
// separated by " · " (a producer's counts, then its producer id, epoch and sequences).
func DetailLines(detail string) []string { return strings.Split(detail, " · ") }

// shownReplicas picks the partition rows each broker shows when the column holds at
// most fit rows: all of them if they fit; else without the followers of internal topics
// (__consumer_offsets, __transaction_state: their leaders, the coordinators, stay);
// else leaders only. A broker keeps at least one row.
// note is the share of a row the "+N follower rows" line takes.
func shownReplicas(nodes []play.NodeState, brokers []int, fit, note float64) map[int][]play.ReplicaState {
	keep := []func(play.ReplicaState) bool{
		func(play.ReplicaState) bool { return true },
		func(r play.ReplicaState) bool { return r.Leader || !r.Internal },
		func(r play.ReplicaState) bool { return r.Leader },
	}
	var out map[int][]play.ReplicaState
	for _, k := range keep {
		out = map[int][]play.ReplicaState{}
		rows := 0.0
		for _, i := range brokers {
			for _, r := range nodes[i].Partitions {
				if k(r) {
					out[i] = append(out[i], r)
				}
			}
			rows += float64(max(1, len(out[i])))
			if len(out[i]) < len(nodes[i].Partitions) {
				rows += note
			}
		}
		if rows <= fit {
			break
		}
	}
	return out
}
