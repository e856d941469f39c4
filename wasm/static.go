//go:build js

package main

import (
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"deliverylab/core/play"
	"deliverylab/core/show"
	"deliverylab/wasm/view"
)

// repaintStatic redraws the parts of the picture that change only when a node does:
// links, boxes, partition logs and sink rows. Vector paths are filled here and not in
// every frame.
func (p *painter) repaintStatic(w, h int, f frame) {
	if p.static == nil || p.static.Bounds().Dx() != w || p.static.Bounds().Dy() != h {
		if p.static != nil {
			p.static.Deallocate()
		}
		p.static = ebiten.NewImage(w, h)
	}
	img, pal := p.static, f.pal
	img.Fill(pal.Background)
	p.staticStats = textStats{}
	if !f.loaded || f.layout == nil {
		m := view.MetricsFor(f.w, f.h, f.projector)
		t := view.Text{S: view.T(f.lang, "pickScene"), Px: m.Base, At: view.Point{X: f.w / 2, Y: f.h / 2}, Align: view.Center, Color: pal.TextDim}
		p.sprites.drawTexts(img, []view.Text{t}, &p.staticStats, pal.Background)
		return
	}
	img.DrawImage(p.lanes.image(p, w, h, f), nil)
	for i, b := range f.layout.Boxes {
		p.drawBox(img, f, b, f.st.Nodes[i])
	}
	p.sprites.drawTexts(img, f.layout.BoxTexts(f.st.Nodes, f.lang, pal), &p.staticStats, pal.Background)
}

// drawBox draws a box's shapes; its texts come from view.BoxTexts.
func (p *painter) drawBox(img *ebiten.Image, f frame, b view.Box, n play.NodeState) {
	sc, pal, m := f.scale, f.pal, f.layout.M
	fill, border := pal.BoxFill, view.KindColor(b.Kind)
	switch {
	case !b.Up && !n.Waiting:
		fill, border = pal.DownFill, pal.Down
	case n.Paused:
		border = pal.Paused
	case b.Blocked:
		border = pal.Blocked
	case b.Fenced:
		border = pal.Fenced
	}
	fillRect(img, b.Rect, fill, sc)
	strokeRect(img, b.Rect, m.LineW, border, sc)
	for _, row := range b.Logs {
		p.drawLog(img, f, row)
	}
	for _, c := range b.Chips {
		p.drawChip(img, f, c)
	}
	for _, pt := range b.Parts {
		p.drawPart(img, f, pt)
	}
}

// drawPart draws one part of a Flink job: the job manager in the job's hue, a subtask
// in the grid's; a failed one in the down colours; one that waits (its sink's flush
// at a barrier) or aligns (inputs held back until every barrier n is in) in the
// blocked colour, an aligning one with a thick bar on its input side; a paused one in
// the paused colour.
func (p *painter) drawPart(img *ebiten.Image, f frame, pt view.PartBox) {
	sc, pal := f.scale, f.pal
	fill, border, w := pal.BoxFill, pal.TextDim, 1.5
	switch {
	case !pt.Up:
		fill, border = pal.DownFill, pal.Down
	case pt.Paused:
		border, w = pal.Paused, 2
	case pt.Blocked || len(pt.Aligning) > 0:
		border, w = pal.Blocked, 2
	case pt.Manager:
		border = view.KindColor("job")
	}
	fillRect(img, pt.Rect, fill, sc)
	strokeRect(img, pt.Rect, w, border, sc)
	if pt.Up && len(pt.Aligning) > 0 {
		fillRect(img, view.Rect{X: pt.Rect.X, Y: pt.Rect.Y, W: 4, H: pt.Rect.H}, pal.Blocked, sc)
	}
}

// drawLog draws one partition replica's shapes: a leader/follower badge, the cells and
// the high-watermark line.
func (p *painter) drawLog(img *ebiten.Image, f frame, row view.LogRow) {
	sc, pal, m := f.scale, f.pal, f.layout.M
	badge := view.BadgeRect(row, m)
	if row.Leader {
		fillRect(img, badge, pal.LeaderMark, sc)
	} else {
		strokeRect(img, badge, 1, pal.TextDim, sc)
	}
	if row.Hidden > 0 && row.HiddenAt.W > 0 {
		strokeRect(img, row.HiddenAt, 1, pal.Grid, sc)
	}
	for _, c := range row.Cells {
		fillRect(img, c.Rect, c.Fill(pal), sc)
		if c.Reordered {
			strokeRect(img, c.Rect, 2, pal.Reordered, sc)
		} else {
			strokeRect(img, c.Rect, 1, pal.Grid, sc)
		}
	}
	for _, c := range row.Cut { // truncated away: struck out in the down colour
		strokeRect(img, c.Rect, 1.5, pal.Down, sc)
		vector.StrokeLine(img, float32(c.Rect.X*sc), float32(c.Rect.Bottom()*sc), float32(c.Rect.Right()*sc), float32(c.Rect.Y*sc), float32(1.5*sc), pal.Down, true)
	}
	x := float32(row.HWX * sc)
	vector.StrokeLine(img, x, float32((row.Strip.Y-2)*sc), x, float32((row.Strip.Bottom()+2)*sc), float32(2*sc), pal.HighWater, true)
	if row.HasLSO && row.LSOX != row.HWX { // the LSO, short of the HW: an open transaction holds read_committed back
		lx := float32(row.LSOX * sc)
		vector.StrokeLine(img, lx, float32((row.Strip.Y-4)*sc), lx, float32((row.Strip.Bottom()+4)*sc), float32(2*sc), pal.StableMark, true)
	}
	for _, mk := range row.Marks { // where a reader stands: a thin line before the record it reads next
		c := pal.ReaderMark
		if mk.Kind == show.CommittedMark {
			c = pal.GroupMark
		}
		mx := float32(mk.X * sc)
		vector.StrokeLine(img, mx, float32(row.Strip.Y*sc), mx, float32(row.Strip.Bottom()*sc), float32(1.5*sc), c, true)
	}
}

func (p *painter) drawChip(img *ebiten.Image, f frame, c view.Chip) {
	sc, pal := f.scale, f.pal
	if c.Refused { // a duplicate the unique key refused: outlined and struck out, not a row
		strokeRect(img, c.Rect, 1.5, pal.Duplicate, sc)
		vector.StrokeLine(img, float32(c.Rect.X*sc), float32(c.Rect.Bottom()*sc), float32(c.Rect.Right()*sc), float32(c.Rect.Y*sc), float32(1.5*sc), pal.Duplicate, true)
		return
	}
	border := pal.Grid
	if c.Dup {
		border = pal.Duplicate
	}
	fillRect(img, c.Rect, pal.Pending, sc)
	strokeRect(img, c.Rect, 1, border, sc)
}

// drawLane draws one direction of a link: a thin calm line, or, when cut, a dashed red
// one with a cross in the middle.
func (p *painter) drawLane(img *ebiten.Image, f frame, ln view.Lane) {
	sc := float32(f.scale)
	path := ln.Path
	if !ln.Cut {
		w := 1.0
		if f.projector {
			w = 1.5
		}
		p.strokePath(img, path, w, f.pal.Link, f.scale)
		return
	}
	const steps = 24
	w := float32(f.layout.M.LineW + 0.5)
	for i := 0; i < steps; i += 2 {
		a, b := path.At(float64(i)/steps), path.At(float64(i+1)/steps)
		vector.StrokeLine(img, float32(a.X)*sc, float32(a.Y)*sc, float32(b.X)*sc, float32(b.Y)*sc, w*sc, f.pal.CutLink, true)
	}
	m := path.At(0.5)
	const d = 5
	vector.StrokeLine(img, float32(m.X-d)*sc, float32(m.Y-d)*sc, float32(m.X+d)*sc, float32(m.Y+d)*sc, (w+0.5)*sc, f.pal.CutLink, true)
	vector.StrokeLine(img, float32(m.X-d)*sc, float32(m.Y+d)*sc, float32(m.X+d)*sc, float32(m.Y-d)*sc, (w+0.5)*sc, f.pal.CutLink, true)
}

func fillRect(img *ebiten.Image, r view.Rect, c color.Color, scale float64) {
	vector.DrawFilledRect(img, float32(r.X*scale), float32(r.Y*scale), float32(r.W*scale), float32(r.H*scale), c, false)
}

func strokeRect(img *ebiten.Image, r view.Rect, width float64, c color.Color, scale float64) {
	vector.StrokeRect(img, float32(r.X*scale), float32(r.Y*scale), float32(r.W*scale), float32(r.H*scale), float32(width*scale), c, true)
}
