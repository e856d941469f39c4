package view

import "math"

// Metrics are the type scale and every size that follows from it, in CSS pixels. The
// base size grows with the canvas so the picture reads from the back of a classroom:
// base = clamp(min(w/55, h/38), 14, 26). 55 columns of base-size text across and 38
// lines down is what the densest scenes need (three brokers with two rows each, four
// application boxes); 14 px is the smallest text the canvas draws at any size, 26 px
// the point past which bigger type only costs cells. Projector mode is one step up
// (×1.25, 17..32 px).
type Metrics struct {
	Base      float64 // every label, cell and detail line: the smallest text drawn
	Name      float64 // node names
	Line      float64 // the height of one line of base text
	Margin    float64
	TopBarH   float64 // the time and status line above the picture
	HeaderH   float64 // a box's name line
	ControlH  float64 // the controller box
	LabelH    float64 // a partition row's label line
	RowHMax   float64 // one partition row: label line plus cells
	RowHMin   float64
	CellW     float64
	CellGap   float64
	ChipW     float64 // a sink row chip
	ChipH     float64
	ChipGap   float64
	Pad       float64 // text inset inside a box
	BoxGapMax float64
	BoxGapMin float64
	LineW     float64 // the stroke of box borders and links; thicker in projector mode
}

// MetricsFor is the type scale of a w×h canvas.
func MetricsFor(w, h float64, projector bool) Metrics {
	base := clamp(math.Min(w/55, h/38), 14, 26)
	lineW := 1.5
	if projector {
		base = clamp(base*1.25, 17, 32)
		lineW = 2.5
	}
	line := math.Round(base * 1.22)
	m := Metrics{
		Base: base, Name: math.Round(base * 1.1), Line: line, Margin: 12, LineW: lineW,
		Pad: math.Round(base * 0.45), CellGap: 2, ChipGap: 3, BoxGapMax: 14, BoxGapMin: 5,
	}
	m.TopBarH = math.Round(base * 1.8)
	m.HeaderH = math.Round(m.Name * 1.45)
	m.ControlH = m.HeaderH + line + 2
	m.LabelH = line + 1
	m.RowHMin = m.LabelH + line + 4
	m.RowHMax = m.LabelH + 2*line + 6
	m.CellW = math.Round(base * 3.6)
	m.ChipW = m.CellW
	m.ChipH = line + 1
	return m
}

// AppLines is how many detail lines an application box keeps room for: a producer's
// counts and its idempotence or transaction state wrap onto five at the smallest size,
// a Streams application's guarantee and state onto three, a job's checkpoints onto four
// (its latest completed one, wrapped onto two at the smallest size; the one under way
// or the last aborted; restarting), a consumer's state onto two.
func AppLines(kind string) int {
	switch kind {
	case "producer":
		return 5
	case "job":
		return 4
	case "streams":
		return 3
	}
	return 2
}

// AppHeight is the height of an application box: its name line and room for its detail
// lines from the start (an idempotent producer's id comes a moment later), so the boxes
// never move when a detail grows.
func (m Metrics) AppHeight(kind string) float64 {
	return m.HeaderH + float64(AppLines(kind))*m.Line + m.Pad
}
