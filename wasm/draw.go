//go:build js

package main

import (
	"image/color"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"deliverylab/core/play"
	"deliverylab/wasm/view"
)

// frame is what one Draw paints, copied out of the game under its lock so painting
// never holds the lock.
type frame struct {
	loaded     bool
	st         play.State
	layout     *view.Layout
	layoutGen  uint64
	lanes      []view.Lane
	nowMs      float64
	speed      float64
	hover      view.Hit
	scale      float64
	w, h       float64 // CSS pixels
	screenSize [2]int
	lang       view.Lang
	projector  bool
	pal        view.Palette
	highlight  view.Highlight
}

// drawKey is everything a picture depends on; equal keys mean an identical picture.
// (Language, projector mode and highlight bump view.)
type drawKey struct {
	view, layoutGen uint64
	nowMs, speed    float64
	hover           view.Hit
	scale, w, h     float64
	screen          [2]int
}

// painter holds the draw-side state: sprites, the static layer and the last key drawn.
type painter struct {
	sprites        *sprites
	static         *ebiten.Image // links, boxes, logs and rows: repainted only when they change
	staticGen      uint64
	staticKey      drawKey
	staticStats    textStats // the static layer's texts, counted when it was painted
	staticRepaints int64     // how often the static layer was painted (perf.StaticRepaint)
	drawn          drawKey
	drewOnce       bool
	// The messages on the wire, drawn a layer at a time (outlines, bodies, highlights)
	// with one DrawTriangles per sprite image: kept here so their buffers are reused.
	flightLayers [6]spriteBatch
	lanes        lanesLayer
	labels       []flightLabelAt
}

// flightLabelAt is a message's label and where it goes, drawn once every dot is.
type flightLabelAt struct {
	text   string
	pill   view.Rect
	colour color.RGBA
}

// Draw paints the latest snapshot, or nothing at all when the picture would be the same
// as the one on screen: with SetScreenClearedEveryFrame(false) Ebiten then skips the frame.
func (g *Game) Draw(screen *ebiten.Image) {
	g.mu.Lock()
	f := frame{
		loaded: g.sess != nil, st: g.st, layout: g.layout, layoutGen: g.layoutGen, lanes: g.lanes,
		nowMs: g.drawNowMs(), speed: g.speed, hover: g.hover, scale: g.scale,
		w: g.widthCSS, h: g.heightCSS,
		screenSize: [2]int{screen.Bounds().Dx(), screen.Bounds().Dy()},
		lang:       g.lang, projector: g.projector, pal: view.PaletteFor(g.projector), highlight: g.highlight,
	}
	key := drawKey{g.view, g.layoutGen, f.nowMs, f.speed, f.hover, f.scale, f.w, f.h, f.screenSize}
	wanted := g.captureWanted
	g.captureWanted = false
	g.mu.Unlock()
	if wanted {
		c := g.paintCapture(f)
		g.mu.Lock()
		g.capture = c
		g.mu.Unlock()
	}

	p := &g.painter
	if p.drewOnce && key == p.drawn {
		return
	}
	start := time.Now()
	stats := p.paint(screen, f, key)
	took := time.Since(start) // the painting alone, not the wait for the lock
	p.drawn, p.drewOnce = key, true

	g.mu.Lock()
	g.perf.addDraw(took)
	g.perf.StaticRepaint, g.perf.LaneRepaints = p.staticRepaints, p.lanes.repaints
	g.textStats = stats
	g.quiet = 0 // something was painted: not idle yet
	onReady := g.onReady
	g.onReady = nil
	g.mu.Unlock()
	if onReady != nil {
		onReady()
	}
}

// paint draws the frame and returns what its texts were.
func (p *painter) paint(screen *ebiten.Image, f frame, key drawKey) textStats {
	if p.sprites == nil || p.sprites.scale != f.scale {
		if p.sprites != nil {
			p.sprites.dispose()
		}
		p.sprites = newSprites(f.scale)
	}
	if p.static == nil || p.static.Bounds().Size() != screen.Bounds().Size() ||
		p.staticGen != f.layoutGen || p.staticKey.scale != f.scale || !f.loaded {
		p.repaintStatic(screen.Bounds().Dx(), screen.Bounds().Dy(), f)
		p.staticGen, p.staticKey = f.layoutGen, key
		p.staticRepaints++
	}
	screen.DrawImage(p.static, nil)
	stats := p.staticStats
	if !f.loaded || f.layout == nil {
		return stats
	}
	var dyn textStats
	p.drawHover(screen, f)
	p.drawHighlight(screen, f)
	p.drawFlights(screen, f, &dyn)
	p.drawTopBar(screen, f, &dyn)
	stats.add(dyn)
	return stats
}

// maxLabelledFlights: beyond this many messages on the wire, labels would pile up;
// only the hovered (or highlighted) message keeps its label.
const maxLabelledFlights = 24

func (p *painter) drawFlights(screen *ebiten.Image, f frame, st *textStats) {
	s, pal, m := p.sprites, f.pal, f.layout.M
	labelled := len(f.st.InFlight) <= maxLabelledFlights
	// The layers, bottom to top: each sprite's outline in the background colour, its
	// body in the message's colour, then the highlight or hover ring.
	under, underBar, body, bodyBar, halo, hover := &p.flightLayers[0], &p.flightLayers[1], &p.flightLayers[2],
		&p.flightLayers[3], &p.flightLayers[4], &p.flightLayers[5]
	p.labels = p.labels[:0]
	var taken []view.Rect // labels placed so far: the next goes elsewhere or is left out
	for _, fl := range f.st.InFlight {
		pos, ok := f.layout.FlightPos(fl, f.nowMs)
		if !ok {
			continue
		}
		c := view.MessageColor(fl.Family, fl.Kind)
		if fl.Bounced { // a duplicate the leader had already: it bounces back with its original offset
			c = pal.Duplicate
		}
		if fl.Kind == "Barrier" { // a checkpoint barrier: a bar moving with the records
			underBar.add(screen, s.barEdge, pos, s.scale, pal.Background)
			bodyBar.add(screen, s.bar, pos, s.scale, c)
		} else {
			under.add(screen, s.ring, pos, s.scale, pal.Background)
			body.add(screen, s.dot, pos, s.scale, c)
		}
		hovered := f.hover.Flight && f.hover.FlightID == fl.ID
		marked := f.highlight.Marks(fl.Label)
		switch {
		case marked:
			halo.add(screen, s.halo, pos, s.scale, pal.Highlight)
		case hovered:
			hover.add(screen, s.ring, pos, s.scale, pal.Hover)
		}
		label := flightLabel(fl)
		if label == "" || !(labelled || hovered || marked) {
			continue
		}
		// On the wire, never over a box: a label with no free place is left out.
		pill, ok := f.layout.PlaceLabel(pos, view.TextWidth(label, m.Base)+6, m.Base+4, taken)
		if !ok {
			continue
		}
		taken = append(taken, pill)
		tc := pal.Text
		if marked {
			tc = pal.Highlight
		}
		p.labels = append(p.labels, flightLabelAt{label, pill, tc})
	}
	for i := range p.flightLayers {
		p.flightLayers[i].flush(screen)
	}
	for _, l := range p.labels {
		s.drawLabel(screen, l.text, m.Base, l.pill, l.colour, pal.Background, st)
	}
}

// flightLabel is the message's own label, or its kind when it has none.
func flightLabel(fl play.Flight) string {
	if fl.Label != "" {
		return fl.Label
	}
	return fl.Kind
}

func (p *painter) drawHover(screen *ebiten.Image, f frame) {
	if f.hover.Link {
		for _, ln := range f.lanes {
			if ln.From == f.hover.From && ln.To == f.hover.To {
				p.strokePath(screen, ln.Path, f.layout.M.LineW+1, f.pal.Hover, f.scale)
			}
		}
		return
	}
	if f.hover.Node == "" {
		return
	}
	if _, ok := f.layout.Fault(f.hover); !ok {
		return
	}
	r, ok := f.layout.NodeRect(f.hover.Node) // a node, or a job's subtask
	if !ok {
		return
	}
	strokeRect(screen, r, 2.5, f.pal.Hover, f.scale)
}

// drawHighlight outlines the highlighted nodes with a glow, and the log cells and sink
// rows of the highlighted message.
func (p *painter) drawHighlight(screen *ebiten.Image, f frame) {
	h := f.highlight
	if h.Empty() {
		return
	}
	c, sc := f.pal.Highlight, f.scale
	for _, b := range f.layout.Boxes {
		if h.HasNode(b.Name) {
			glow := c
			glow.A = 0x50
			strokeRect(screen, grow(b.Rect, 4), 6, premultiply(glow), sc)
			strokeRect(screen, grow(b.Rect, 1), 2.5, c, sc)
		}
		for _, pt := range b.Parts { // a caption about a job's subtask ("totals/map-0")
			if h.HasNode(b.Name + "/" + pt.Name) {
				strokeRect(screen, grow(pt.Rect, 1), 2.5, c, sc)
			}
		}
		if h.Message == "" {
			continue
		}
		for _, row := range b.Logs {
			for _, cell := range row.Cells {
				if cell.Msg == h.Message {
					strokeRect(screen, grow(cell.Rect, 1), 2.5, c, sc)
				}
			}
		}
		for _, chip := range b.Chips {
			if chip.Msg == h.Message {
				strokeRect(screen, grow(chip.Rect, 1), 2.5, c, sc)
			}
		}
	}
}

func grow(r view.Rect, d float64) view.Rect {
	return view.Rect{X: r.X - d, Y: r.Y - d, W: r.W + 2*d, H: r.H + 2*d}
}

// drawTopBar shows the virtual time and whether the run plays, is paused or has ended.
func (p *painter) drawTopBar(screen *ebiten.Image, f frame, st *textStats) {
	fillRect(screen, view.Rect{W: f.w, H: f.layout.M.TopBarH}, f.pal.Background, f.scale)
	p.sprites.drawTexts(screen, f.layout.TopBarTexts(f.st, f.speed, f.lang, f.pal), st, f.pal.Background)
}
