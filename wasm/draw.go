//go:build js

package main

import (
	"fmt"
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
	nowMs      float64
	speed      float64
	hover      view.Hit
	scale      float64
	w, h       float64 // CSS pixels
	screenSize [2]int
}

// drawKey is everything a picture depends on; equal keys mean an identical picture.
type drawKey struct {
	view, layoutGen uint64
	nowMs, speed    float64
	hover           view.Hit
	scale, w, h     float64
	screen          [2]int
}

// painter holds the draw-side state: sprites, the static layer and the last key drawn.
type painter struct {
	sprites   *sprites
	static    *ebiten.Image // boxes, logs, rows and cut links: repainted only when they change
	staticGen uint64
	staticKey drawKey
	drawn     drawKey
	drewOnce  bool
}

// Draw paints the latest snapshot, or nothing at all when the picture would be the same
// as the one on screen: with SetScreenClearedEveryFrame(false) Ebiten then skips the frame.
func (g *Game) Draw(screen *ebiten.Image) {
	g.mu.Lock()
	f := frame{
		loaded: g.sess != nil, st: g.st, layout: g.layout, layoutGen: g.layoutGen,
		nowMs: g.drawNowMs(), speed: g.speed, hover: g.hover, scale: g.scale,
		w: g.widthCSS, h: g.heightCSS,
		screenSize: [2]int{screen.Bounds().Dx(), screen.Bounds().Dy()},
	}
	key := drawKey{g.view, g.layoutGen, f.nowMs, f.speed, f.hover, f.scale, f.w, f.h, f.screenSize}
	g.mu.Unlock()

	p := &g.painter
	if p.drewOnce && key == p.drawn {
		return
	}
	start := time.Now()
	p.paint(screen, f, key)
	p.drawn, p.drewOnce = key, true

	g.mu.Lock()
	g.perf.addDraw(time.Since(start))
	g.quiet = 0 // something was painted: not idle yet
	onReady := g.onReady
	g.onReady = nil
	g.mu.Unlock()
	if onReady != nil {
		onReady()
	}
}

func (p *painter) paint(screen *ebiten.Image, f frame, key drawKey) {
	if p.sprites == nil || p.sprites.scale != f.scale {
		if p.sprites != nil {
			p.sprites.dispose()
		}
		p.sprites = newSprites(f.scale)
	}
	if p.static == nil || p.static.Bounds().Size() != screen.Bounds().Size() ||
		p.staticGen != f.layoutGen || p.staticKey.scale != f.scale {
		p.repaintStatic(screen.Bounds().Dx(), screen.Bounds().Dy(), f)
		p.staticGen, p.staticKey = f.layoutGen, key
	}
	screen.DrawImage(p.static, nil)
	if !f.loaded || f.layout == nil {
		return
	}
	p.drawHover(screen, f)
	p.drawFlights(screen, f)
	p.drawTopBar(screen, f)
}

// maxLabelledFlights: beyond this many messages on the wire, labels would pile up;
// only the hovered message keeps its label.
const maxLabelledFlights = 24

func (p *painter) drawFlights(screen *ebiten.Image, f frame) {
	s := p.sprites
	labelled := len(f.st.InFlight) <= maxLabelledFlights
	for _, fl := range f.st.InFlight {
		pos, ok := f.layout.FlightPos(fl, f.nowMs)
		if !ok {
			continue
		}
		s.drawSprite(screen, s.ring, pos, view.Background)
		c := view.MessageColor(fl.Kind)
		if fl.Bounced { // a duplicate the leader had already: it bounces back with its original offset
			c = view.Duplicate
		}
		s.drawSprite(screen, s.dot, pos, c)
		hovered := f.hover.Flight && f.hover.FlightID == fl.ID
		if hovered {
			s.drawSprite(screen, s.ring, pos, view.Hover)
		}
		if label := flightLabel(fl); label != "" && (labelled || hovered) {
			at := view.Point{X: pos.X + view.FlightRadius + 1, Y: pos.Y - view.FlightRadius - 2}
			s.drawLabel(screen, label, 9.5, at, view.Text, 100)
		}
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
	if f.hover.Node == "" {
		return
	}
	if _, ok := f.layout.Fault(f.hover); !ok {
		return
	}
	b, ok := f.layout.Box(f.hover.Node)
	if !ok {
		return
	}
	strokeRect(screen, b.Rect, 2.5, view.Hover, f.scale)
}

// drawTopBar shows the virtual time and whether the run plays, is paused or has ended.
func (p *painter) drawTopBar(screen *ebiten.Image, f frame) {
	status := "paused"
	switch {
	case f.st.Ended:
		status = "ended"
		if f.st.EndNote != "" {
			status += ": " + f.st.EndNote
		}
	case f.st.Playing:
		status = fmt.Sprintf("playing  x%g", f.speed)
	}
	s := p.sprites
	fillRect(screen, view.Rect{W: f.w, H: view.TopBarH}, view.Background, f.scale)
	s.drawText(screen, fmt.Sprintf("t = %d ms", f.st.NowMs), 12, view.Point{X: view.Margin, Y: 6}, alignTopLeft, view.Text, 0)
	s.drawText(screen, status, 11, view.Point{X: view.Margin + 110, Y: 7}, alignTopLeft, view.TextDim, 0)
	if n := len(f.st.InFlight); n > 0 {
		s.drawText(screen, fmt.Sprintf("%d in flight", n), 11, view.Point{X: f.w - view.Margin, Y: 7}, alignTopRight, view.TextDim, 0)
	}
}
