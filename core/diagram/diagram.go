// Package diagram draws a run as a space-time diagram (as Lamport drew one, and as
// Maelstrom and ShiViz draw runs): one vertical line per node, time running down, one
// arrow per message from where and when it was sent to where and when it left the wire,
// each node's time down marked on its line. It writes SVG text: a picture for slides
// that any browser opens, the same bytes for the same run.
package diagram

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// Arrow is one message: from node to node, sent at SentMs and gone from the wire at
// EndMs (where it arrived, or where it was lost).
type Arrow struct {
	From, To      string
	SentMs, EndMs int64
	Kind          string // the request or answer (Produce, FetchResponse, ...)
	Label         string // the application messages it carries ("p1#5"), if any
	Family        string // its protocol family: the colour it is drawn in
	Background    bool   // heartbeats, idle fetches: left out, and counted at the foot
	// Lost: it never reached a running node (a cut link, a node down, a dropped or lost
	// message); Ended says how, in words.
	Lost  bool
	Ended string
}

// Span is a stretch of a node's time marked on its line: down after a crash.
type Span struct {
	Node         string
	FromMs, ToMs int64
	What         string // what it was, for the tooltip: "down"
}

// Input is what a diagram shows.
type Input struct {
	Title  string
	Nodes  []string // left to right
	EndMs  int64    // the time at the bottom
	Arrows []Arrow
	Spans  []Span
	// Highlight: the application message (a label part, "p1#5") whose arrows stand out.
	Highlight string
	// ShowBackground draws background traffic too (thin and grey) instead of counting it
	// at the foot: the page's switch, for a look at the heartbeats and idle fetches.
	ShowBackground bool
}

// Geometry of the picture, in SVG user units (CSS pixels when opened as a file).
const (
	colWidth   = 120.0
	leftMargin = 60.0
	topMargin  = 70.0
	bottom     = 40.0
	// pxPerMs scales time where something happens (a 5 ms hop is 10 px tall); quiet
	// stretches are squeezed (axis.go), and a picture taller than maxHeight is scaled down.
	pxPerMs   = 2.0
	maxHeight = 6000.0
)

// familyColours colour the arrows by protocol family, in the canvas's spirit.
var familyColours = map[string]string{
	"produce":     "#1f77b4",
	"fetch":       "#2ca02c",
	"offsets":     "#bcbd22",
	"group":       "#9467bd",
	"transaction": "#d62728",
	"metadata":    "#7f7f7f",
	"control":     "#7f7f7f",
	"sink":        "#8c564b",
	"stream":      "#17becf",
	"checkpoint":  "#ff7f0e",
}

const defaultColour = "#555555"

// SVG writes the diagram.
func SVG(in Input) []byte {
	col := map[string]float64{}
	for i, n := range in.Nodes {
		col[n] = leftMargin + colWidth*float64(i) + colWidth/2
	}
	var times []int64
	for _, a := range in.Arrows {
		if !a.Background || in.ShowBackground {
			times = append(times, a.SentMs, a.EndMs)
		}
	}
	for _, s := range in.Spans {
		times = append(times, s.FromMs, s.ToMs)
	}
	ax := newAxis(times, in.EndMs)
	y := ax.y
	width := leftMargin*2 + colWidth*float64(len(in.Nodes))
	height := y(in.EndMs) + bottom

	var b strings.Builder
	// data-axis: the time axis's knots ("ms,y;…"), for a page that draws where the run
	// stands on the picture and seeks where it is clicked.
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="12" data-axis="%s">`+"\n",
		num(width), num(height), num(width), num(height), ax.knots())
	b.WriteString(`<defs><marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">` +
		`<path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>` + "\n")
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%s" y="22" font-size="16" font-weight="bold">%s</text>`+"\n", num(leftMargin), esc(in.Title))

	// The time axis: a tick every second (or every 100 ms for a short run), none inside
	// a squeezed stretch, which says how long it lasted instead.
	step := int64(1000)
	if in.EndMs <= 2000 {
		step = 100
	}
	for t := int64(0); t <= in.EndMs; t += step {
		if ax.squeezed(t) {
			continue
		}
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" fill="#888">%d ms</text>`+"\n", num(leftMargin-8), num(y(t)+4), t)
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#eee"/>`+"\n", num(leftMargin), num(y(t)), num(width-leftMargin), num(y(t)))
	}
	for _, br := range ax.breaks {
		y0, y1 := y(br.FromMs), y(br.ToMs)
		fmt.Fprintf(&b, `<rect class="quiet" x="%s" y="%s" width="%s" height="%s" fill="#f4f4f4"/>`, num(leftMargin), num(y0+4), num(width-2*leftMargin), num(y1-y0-8))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" fill="#999" font-style="italic">… %d ms with nothing drawn …</text>`+"\n",
			num(width/2), num((y0+y1)/2+4), br.ToMs-br.FromMs)
		// Where time picks up again, the clock says when.
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" fill="#888">%d ms</text>`+"\n", num(leftMargin-8), num(y1+4), br.ToMs)
	}

	// One line per node, its name on top; its time down or paused over it.
	for _, n := range in.Nodes {
		x := col[n]
		fmt.Fprintf(&b, `<g class="node" data-node="%s"><text x="%s" y="%s" text-anchor="middle" font-weight="bold">%s</text>`,
			esc(n), num(x), num(topMargin-14), esc(n))
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333" stroke-width="1.5"/></g>`+"\n", num(x), num(topMargin), num(x), num(y(in.EndMs)))
	}
	for _, s := range in.Spans {
		x, ok := col[s.Node]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, `<rect class="span" data-node="%s" x="%s" y="%s" width="10" height="%s" fill="#d62728" opacity="0.6"><title>%s %s, %d–%d ms</title></rect>`+"\n",
			esc(s.Node), num(x-5), num(y(s.FromMs)), num(max(2, y(s.ToMs)-y(s.FromMs))), esc(s.Node), esc(s.What), s.FromMs, s.ToMs)
	}

	// The arrows, the highlighted last (over the others); background traffic is counted.
	hidden := 0
	var top []Arrow
	for _, a := range in.Arrows {
		if _, ok := col[a.From]; !ok {
			continue
		}
		if _, ok := col[a.To]; !ok {
			continue
		}
		switch {
		case a.Background && !in.ShowBackground:
			hidden++
		case a.Background:
			arrow(&b, a, col, y, "#bbbbbb", 0.8)
		case in.Highlight != "" && carries(a.Label, in.Highlight):
			top = append(top, a)
		default:
			colour := familyColours[a.Family]
			if colour == "" {
				colour = defaultColour
			}
			arrow(&b, a, col, y, colour, 1.2)
		}
	}
	for _, a := range top {
		arrow(&b, a, col, y, "#e6007e", 3)
	}
	if hidden > 0 {
		fmt.Fprintf(&b, `<text x="%s" y="%s" fill="#888">%d background messages (heartbeats, idle fetches) not drawn</text>`+"\n",
			num(leftMargin), num(height-12), hidden)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// arrow draws one message; a lost one ends in a cross where it was lost.
func arrow(b *strings.Builder, a Arrow, col map[string]float64, y func(int64) float64, colour string, w float64) {
	x1, y1, x2, y2 := col[a.From], y(a.SentMs), col[a.To], y(a.EndMs)
	if a.From == a.To { // between two parts of one node (a Flink job's tasks): a small loop
		x2 += 12
	}
	title := fmt.Sprintf("%s %s → %s, %d–%d ms", a.Kind, a.From, a.To, a.SentMs, a.EndMs)
	if a.Label != "" {
		title += " [" + a.Label + "]"
	}
	if a.Ended != "" {
		title += ": " + a.Ended
	}
	fmt.Fprintf(b, `<g class="msg" data-kind="%s"`, esc(a.Kind))
	if a.Background {
		b.WriteString(` data-background="true"`)
	}
	if a.Label != "" {
		fmt.Fprintf(b, ` data-label="%s"`, esc(a.Label))
	}
	if a.Lost {
		fmt.Fprintf(b, ` data-lost="%s"`, esc(a.Ended))
	}
	fmt.Fprintf(b, `><title>%s</title>`, esc(title))
	if a.Lost {
		// Lost on the way: the line stops short of the receiver, where a cross marks it.
		xm, ym := x1+(x2-x1)*0.8, y1+(y2-y1)*0.8
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s" stroke-dasharray="4 3"/>`,
			num(x1), num(y1), num(xm), num(ym), colour, num(w))
		fmt.Fprintf(b, `<path d="M%s,%s l8,8 m0,-8 l-8,8" stroke="#d62728" stroke-width="2"/>`, num(xm-4), num(ym-4))
	} else {
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s" marker-end="url(#head)"/>`,
			num(x1), num(y1), num(x2), num(y2), colour, num(w))
	}
	if a.Label != "" {
		// A request's label above its line, an answer's (right to left) below: the two
		// of a short round trip do not print over each other.
		dy := -3.0
		if x2 < x1 {
			dy = 11
		}
		fmt.Fprintf(b, `<text x="%s" y="%s" font-size="10" fill="%s">%s</text>`, num((x1+x2)/2+3), num((y1+y2)/2+dy), colour, esc(a.Label))
	}
	b.WriteString("</g>\n")
}

// carries reports whether a label ("p1#4 p1#5" or "p1#5") names the message id.
func carries(label, id string) bool {
	for _, f := range strings.FieldsFunc(label, func(r rune) bool { return r == ' ' || r == ',' || r == '[' || r == ']' }) {
		if f == id {
			return true
		}
	}
	return false
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func esc(s string) string { return html.EscapeString(s) }
