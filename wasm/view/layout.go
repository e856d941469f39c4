package view

import (
	"math"
	"strings"

	"deliverylab/core/play"
)

// Sizes in CSS pixels. Canvas fonts are 10–12 px, so a log cell is sized for "p1#123".
const (
	Margin    = 14.0
	TopBarH   = 24.0 // the time and status line above the picture
	AppH      = 40.0 // producer and consumer boxes: name line and detail line
	AppLineH  = 12.0 // each further detail line of an application box
	HeaderH   = 22.0 // a broker's or sink's name line
	ControlH  = 36.0 // the controller box
	RowHMax   = 46.0 // one partition row: label line plus cells
	RowHMin   = 30.0
	LabelH    = 15.0 // a partition row's label line
	CellW     = 38.0
	CellGap   = 2.0
	ChipW     = 40.0 // a sink row chip
	ChipH     = 15.0
	ChipGap   = 3.0
	boxGapMax = 14.0
	boxGapMin = 6.0
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
}

// Layout is the geometry of one picture.
type Layout struct {
	Width, Height float64
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

// Compute places every node on a width×height canvas.
func Compute(nodes []play.NodeState, width, height float64) *Layout {
	l := &Layout{Width: width, Height: height, Boxes: make([]Box, len(nodes)), index: map[string]int{}}
	cols := columns(width)
	for i, n := range nodes {
		l.Boxes[i] = Box{Name: n.Name, Kind: n.Kind, Up: n.Up, Blocked: n.Blocked && n.Up, Fenced: n.Fenced && n.Up, Column: ColumnOf(n.Kind)}
		l.index[n.Name] = i
	}
	top, bottom := TopBarH+Margin/2, height-Margin
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
func columns(width float64) [3]struct{ X, W float64 } {
	side := clamp(width*0.15, 96, 170)
	gap := clamp(width*0.08, 36, 120)
	mid := width - 2*Margin - 2*side - 2*gap
	if mid < 220 { // narrow canvas: give the brokers their room first
		mid = math.Max(220, width*0.4)
		gap = math.Max(16, (width-2*Margin-2*side-mid)/2)
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
	avail := bottom - top
	gap := boxGapMax * 2
	apps := 0.0 // the height of the application boxes together
	for _, i := range idx {
		if nodes[i].Kind != "sink" {
			apps += AppHeight(nodes[i].Kind)
		}
	}
	if need := apps + float64(len(idx)-1)*gap; need > avail {
		gap = math.Max(boxGapMin, (avail-apps)/math.Max(1, float64(len(idx)-1)))
	}
	sinkH := 0.0
	if sinks > 0 {
		sinkH = (avail - apps - float64(len(idx)-1)*gap) / float64(sinks)
		sinkH = clamp(sinkH, HeaderH+ChipH+8, 220)
	}
	total := apps + float64(sinks)*sinkH + float64(len(idx)-1)*gap
	y := top + math.Max(0, (avail-total)/2)
	for _, i := range idx {
		h := AppHeight(nodes[i].Kind)
		if nodes[i].Kind == "sink" {
			h = sinkH
		}
		b := &l.Boxes[i]
		b.Rect = Rect{c.X, y, c.W, h}
		if nodes[i].Kind == "sink" {
			b.Chips, b.Hidden = layoutChips(nodes[i].Rows, nodes[i].Refused, b.Rect)
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
	ctlH := 0.0
	if controller >= 0 {
		ctlH = ControlH + boxGapMax*1.5
	}
	gap := boxGapMax
	fixed := ctlH + float64(len(brokers))*(HeaderH+6) + float64(max(0, len(brokers)-1))*gap
	shown := shownReplicas(nodes, brokers, (bottom-top-fixed)/RowHMin)
	rows := 0
	for _, i := range brokers {
		rows += max(1, len(shown[i]))
	}
	rowH := RowHMax
	if rows > 0 {
		rowH = clamp((bottom-top-fixed)/float64(rows), RowHMin, RowHMax)
	}
	// The controller and the brokers are centred as one block, so the controller stays
	// next to the brokers it manages.
	y := top + math.Max(0, (bottom-top-fixed-float64(rows)*rowH)/2)
	if controller >= 0 {
		w := math.Min(c.W, 260)
		l.Boxes[controller].Rect = Rect{c.X + (c.W-w)/2, y, w, ControlH}
		y += ctlH
	}
	for _, i := range brokers {
		h := HeaderH + float64(max(1, len(shown[i])))*rowH + 6
		b := &l.Boxes[i]
		b.Rect = Rect{c.X, y, c.W, h}
		b.HiddenFollowers = len(nodes[i].Partitions) - len(shown[i])
		for p, rs := range shown[i] {
			row := Rect{c.X + 8, y + HeaderH + float64(p)*rowH, c.W - 16, rowH}
			b.Logs = append(b.Logs, layoutLog(rs, row))
		}
		y += h + gap
	}
}

// DetailLines splits an application's status into the lines its box shows: the parts
// separated by " · " (a producer's counts, then its producer id, epoch and sequences).
func DetailLines(detail string) []string { return strings.Split(detail, " · ") }

// AppHeight is the height of an application box. A producer's has room for a second
// status line from the start (an idempotent producer's id comes a moment later), so the
// boxes never move when it does; so has a Streams application's (its transaction).
func AppHeight(kind string) float64 {
	if kind == "producer" || kind == "streams" {
		return AppH + AppLineH
	}
	return AppH
}

// shownReplicas picks the partition rows each broker shows when the column holds at
// most fit rows: all of them if they fit; else without the followers of internal topics
// (__consumer_offsets, __transaction_state: their leaders, the coordinators, stay);
// else leaders only. A broker keeps at least one row.
func shownReplicas(nodes []play.NodeState, brokers []int, fit float64) map[int][]play.ReplicaState {
	keep := []func(play.ReplicaState) bool{
		func(play.ReplicaState) bool { return true },
		func(r play.ReplicaState) bool { return r.Leader || !r.Internal },
		func(r play.ReplicaState) bool { return r.Leader },
	}
	var out map[int][]play.ReplicaState
	for _, k := range keep {
		out = map[int][]play.ReplicaState{}
		rows := 0
		for _, i := range brokers {
			for _, r := range nodes[i].Partitions {
				if k(r) {
					out[i] = append(out[i], r)
				}
			}
			rows += max(1, len(out[i]))
		}
		if float64(rows) <= fit {
			break
		}
	}
	return out
}
