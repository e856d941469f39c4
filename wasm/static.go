//go:build js

package main

import (
	"fmt"
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"deliverylab/core/play"
	"deliverylab/core/show"
	"deliverylab/wasm/view"
)

// repaintStatic redraws the parts of the picture that change only when a node does:
// boxes, partition logs, sink rows and cut links. Vector paths are filled here and not
// in every frame.
func (p *painter) repaintStatic(w, h int, f frame) {
	if p.static == nil || p.static.Bounds().Dx() != w || p.static.Bounds().Dy() != h {
		if p.static != nil {
			p.static.Deallocate()
		}
		p.static = ebiten.NewImage(w, h)
	}
	img := p.static
	img.Fill(view.Background)
	s := p.sprites
	if !f.loaded || f.layout == nil {
		s.drawText(img, "Delivery Lab: pick a scene", 14, view.Point{X: f.w / 2, Y: f.h / 2}, alignCenter, view.TextDim, 0)
		return
	}
	for _, l := range f.st.CutLinks {
		p.drawCut(img, f, l)
	}
	for i, b := range f.layout.Boxes {
		p.drawBox(img, f, b, f.st.Nodes[i])
	}
}

func (p *painter) drawBox(img *ebiten.Image, f frame, b view.Box, n play.NodeState) {
	s, sc := p.sprites, f.scale
	fill, border := view.BoxFill, view.KindColor(b.Kind)
	switch {
	case !b.Up && !n.Waiting:
		fill, border = view.DownFill, view.Down
	case b.Blocked:
		border = view.Blocked
	case b.Fenced:
		border = view.Fenced
	}
	fillRect(img, b.Rect, fill, sc)
	strokeRect(img, b.Rect, 1.5, border, sc)

	name := view.Point{X: b.Rect.X + 8, Y: b.Rect.Y + 5}
	s.drawText(img, b.Name, 12, name, alignTopLeft, view.Text, b.Rect.W-16)
	right := view.Point{X: b.Rect.Right() - 8, Y: b.Rect.Y + 6}
	switch {
	case n.Waiting:
		s.drawText(img, n.Detail, 10, right, alignTopRight, view.TextDim, b.Rect.W*0.55)
	case !b.Up:
		s.drawText(img, "DOWN", 10.5, right, alignTopRight, view.Down, 0)
	case b.Blocked: // send() waits for buffer.memory (the page's legend says so in both languages)
		s.drawText(img, "BLOCKED", 10.5, right, alignTopRight, view.Blocked, 0)
	case b.Fenced: // the controller fenced it (the page's legend says so in both languages)
		s.drawText(img, "FENCED", 10.5, right, alignTopRight, view.Fenced, 0)
	case b.Kind == "broker" && len(n.Txns) > 0: // its transaction coordinator's ids, in place of the partition count
		s.drawText(img, view.TxnLine(n.Txns), 10, right, alignTopRight, view.Text, b.Rect.W*0.62)
	case b.Kind == "broker" || b.Kind == "sink" || b.Kind == "controller":
		s.drawText(img, n.Detail, 10, right, alignTopRight, view.TextDim, b.Rect.W*0.55)
	}
	if b.Up && b.Kind != "broker" && b.Kind != "sink" && b.Kind != "controller" { // down: the badge says it
		for i, line := range view.DetailLines(n.Detail) {
			at := view.Point{X: b.Rect.X + 8, Y: b.Rect.Y + 22 + view.AppLineH*float64(i)}
			s.drawText(img, line, 10, at, alignTopLeft, view.TextDim, b.Rect.W-16)
		}
	}
	for _, row := range b.Logs {
		p.drawLog(img, f, row)
	}
	for _, c := range b.Chips {
		p.drawChip(img, f, c)
	}
	if b.Hidden > 0 {
		at := view.Point{X: b.Rect.Right() - 6, Y: b.Rect.Bottom() - 3}
		s.drawText(img, fmt.Sprintf("+%d older", b.Hidden), 9, at, alignBottomRight, view.TextDim, 0)
	}
	if b.HiddenFollowers > 0 { // the column is too short for every replica (the legend says so)
		at := view.Point{X: b.Rect.Right() - 6, Y: b.Rect.Bottom() - 2}
		s.drawText(img, fmt.Sprintf("+%d follower rows", b.HiddenFollowers), 9, at, alignBottomRight, view.TextDim, 0)
	}
}

// drawLog draws one partition replica: a leader/follower badge, the label, the cells and
// the high-watermark line.
func (p *painter) drawLog(img *ebiten.Image, f frame, row view.LogRow) {
	s, sc := p.sprites, f.scale
	badge := view.Rect{X: row.LabelAt.X, Y: row.LabelAt.Y + 2, W: 11, H: 11}
	if row.Leader {
		fillRect(img, badge, view.LeaderMark, sc)
		s.drawText(img, "L", 9, badge.Center(), alignCenter, view.Background, 0)
	} else {
		strokeRect(img, badge, 1, view.TextDim, sc)
		s.drawText(img, "F", 9, badge.Center(), alignCenter, view.TextDim, 0)
	}
	labelAt := view.Point{X: row.LabelAt.X + 15, Y: row.LabelAt.Y + 1}
	s.drawText(img, row.Label, 10, labelAt, alignTopLeft, view.TextDim, row.Strip.W-70)
	if row.Hidden > 0 {
		at := view.Point{X: row.Strip.Right(), Y: row.LabelAt.Y + 1}
		s.drawText(img, fmt.Sprintf("+%d older", row.Hidden), 9, at, alignTopRight, view.TextDim, 0)
	}
	for _, c := range row.Cells {
		fillRect(img, c.Rect, c.Fill(), sc)
		if c.Reordered {
			strokeRect(img, c.Rect, 2, view.Reordered, sc)
		} else {
			strokeRect(img, c.Rect, 1, view.Grid, sc)
		}
		msg := c.Label()
		size := 9.5
		if len(msg) > 5 { // COMMIT, p1#123: a size smaller, to fit the cell
			size = 7.5
		}
		if c.Rect.H >= 22 {
			s.drawText(img, fmt.Sprint(c.Offset), 8.5, view.Point{X: c.Rect.X + 3, Y: c.Rect.Y + 1}, alignTopLeft, view.TextDim, c.Rect.W-4)
			if c.Seq != "" && c.Rect.W >= 30 { // the idempotent producer's id and sequence number
				s.drawText(img, c.Seq, 7.5, view.Point{X: c.Rect.Right() - 2, Y: c.Rect.Y + 1}, alignTopRight, view.TextDim, c.Rect.W-18)
			}
			s.drawText(img, msg, size, view.Point{X: c.Rect.Center().X, Y: c.Rect.Bottom() - 7}, alignCenter, view.Text, c.Rect.W-4)
		} else {
			s.drawText(img, msg, min(size, 9), c.Rect.Center(), alignCenter, view.Text, c.Rect.W-4)
		}
	}
	for _, c := range row.Cut { // truncated away: struck out in the down colour
		strokeRect(img, c.Rect, 1.5, view.Down, sc)
		vector.StrokeLine(img, float32(c.Rect.X*sc), float32(c.Rect.Bottom()*sc), float32(c.Rect.Right()*sc), float32(c.Rect.Y*sc), float32(1.5*sc), view.Down, true)
		s.drawText(img, c.Label(), 9, c.Rect.Center(), alignCenter, view.TextDim, c.Rect.W-4)
	}
	x := float32(row.HWX * sc)
	vector.StrokeLine(img, x, float32((row.Strip.Y-2)*sc), x, float32((row.Strip.Bottom()+2)*sc), float32(2*sc), view.HighWater, true)
	if row.HasLSO && row.LSOX != row.HWX { // the LSO, short of the HW: an open transaction holds read_committed back
		lx := float32(row.LSOX * sc)
		vector.StrokeLine(img, lx, float32((row.Strip.Y-4)*sc), lx, float32((row.Strip.Bottom()+4)*sc), float32(2*sc), view.StableMark, true)
	}
	for _, m := range row.Marks {
		p.drawMark(img, f, row, m)
	}
}

// drawMark draws where a reader stands in a leader's log: a thin line before the record
// it reads next, labelled with the group (its committed offset, at the bottom) or the
// consumer (its position, at the top).
func (p *painter) drawMark(img *ebiten.Image, f frame, row view.LogRow, m view.MarkAt) {
	sc := f.scale
	line := float64(m.Line) * view.MarkLineH
	c, at, align := view.ReaderMark, view.Point{X: m.X + 2, Y: row.Strip.Y + 1 + line}, alignTopLeft
	if m.Kind == show.CommittedMark {
		c, at, align = view.GroupMark, view.Point{X: m.X + 2, Y: row.Strip.Bottom() - 1 - line}, alignBottomLeft
	}
	x := float32(m.X * sc)
	vector.StrokeLine(img, x, float32(row.Strip.Y*sc), x, float32(row.Strip.Bottom()*sc), float32(1.5*sc), c, true)
	p.sprites.drawText(img, m.Label, 8, at, align, c, row.Strip.Right()-at.X)
}

func (p *painter) drawChip(img *ebiten.Image, f frame, c view.Chip) {
	sc := f.scale
	if c.Refused { // a duplicate the unique key refused: outlined and struck out, not a row
		strokeRect(img, c.Rect, 1.5, view.Duplicate, sc)
		vector.StrokeLine(img, float32(c.Rect.X*sc), float32(c.Rect.Bottom()*sc), float32(c.Rect.Right()*sc), float32(c.Rect.Y*sc), float32(1.5*sc), view.Duplicate, true)
		p.sprites.drawText(img, c.Msg, 9, c.Rect.Center(), alignCenter, view.TextDim, c.Rect.W-3)
		return
	}
	border := view.Grid
	if c.Dup {
		border = view.Duplicate
	}
	fillRect(img, c.Rect, view.Pending, sc)
	strokeRect(img, c.Rect, 1, border, sc)
	p.sprites.drawText(img, c.Msg, 9, c.Rect.Center(), alignCenter, view.Text, c.Rect.W-3)
}

// drawCut draws a cut link as a dashed red line with a cross in the middle.
func (p *painter) drawCut(img *ebiten.Image, f frame, l play.Link) {
	path, ok := f.layout.Path(l.From, l.To)
	if !ok {
		return
	}
	sc := float32(f.scale)
	const steps = 24
	for i := 0; i < steps; i += 2 {
		a, b := path.At(float64(i)/steps), path.At(float64(i+1)/steps)
		vector.StrokeLine(img, float32(a.X)*sc, float32(a.Y)*sc, float32(b.X)*sc, float32(b.Y)*sc, 2*sc, view.CutLink, true)
	}
	m := path.At(0.5)
	const d = 5
	vector.StrokeLine(img, float32(m.X-d)*sc, float32(m.Y-d)*sc, float32(m.X+d)*sc, float32(m.Y+d)*sc, 2.5*sc, view.CutLink, true)
	vector.StrokeLine(img, float32(m.X-d)*sc, float32(m.Y+d)*sc, float32(m.X+d)*sc, float32(m.Y-d)*sc, 2.5*sc, view.CutLink, true)
}

func fillRect(img *ebiten.Image, r view.Rect, c color.Color, scale float64) {
	vector.DrawFilledRect(img, float32(r.X*scale), float32(r.Y*scale), float32(r.W*scale), float32(r.H*scale), c, false)
}

func strokeRect(img *ebiten.Image, r view.Rect, width float64, c color.Color, scale float64) {
	vector.StrokeRect(img, float32(r.X*scale), float32(r.Y*scale), float32(r.W*scale), float32(r.H*scale), float32(width*scale), c, true)
}
