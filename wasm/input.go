//go:build js

package main

import (
	"errors"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"deliverylab/core/play"
	"deliverylab/wasm/view"
)

var hitNone = view.Hit{}

// pointerInput is the pointer as one tick saw it, in screen pixels.
type pointerInput struct {
	x, y    int
	pressed bool // a mouse button or a finger went down this tick
	touch   bool
}

// readPointer samples the mouse and touch screen. Ebiten samples input once per tick,
// so a press shorter than a tick can be missed; the browser tests hold it for two.
func readPointer() pointerInput {
	if ids := inpututil.AppendJustPressedTouchIDs(nil); len(ids) > 0 {
		x, y := ebiten.TouchPosition(ids[0])
		return pointerInput{x: x, y: y, pressed: true, touch: true}
	}
	x, y := ebiten.CursorPosition()
	return pointerInput{x: x, y: y, pressed: inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft)}
}

// pointer updates the hover highlight and turns a press into a fault: crash or restart
// a broker, drop a message, cut or heal one direction of a link. Called with g.mu held.
func (g *Game) pointer(in pointerInput) {
	if g.layout == nil {
		return
	}
	p := view.Point{X: float64(in.x) / g.scale, Y: float64(in.y) / g.scale}
	h := g.layout.HitTest(p, g.st.InFlight, g.drawNowMs(), g.lanes)
	fault, clickable := g.layout.Fault(h)
	if !in.touch && h != g.hover {
		g.hover = h
		shape := ebiten.CursorShapeDefault
		if clickable {
			shape = ebiten.CursorShapePointer
		}
		ebiten.SetCursorShape(shape)
	}
	if !in.pressed {
		return
	}
	g.lastClick = click{Tick: g.ticks, At: p, Fault: fault}
	if !clickable {
		return
	}
	if err := g.sess.Inject(fault); err != nil {
		g.notice = notice{Seq: g.notice.Seq + 1, Text: err.Error()}
		if ue := (play.UserError{}); errors.As(err, &ue) {
			g.notice.TextZh = ue.Zh
		}
		g.view++
	}
	g.accumUs = 0
	g.refresh()
}

// click is the last press on the canvas and the fault it injected ("" when it hit
// nothing clickable), so a test or a puzzled user can see what a click did.
type click struct {
	Tick  int64      `json:"tick"`
	At    view.Point `json:"at"`
	Fault string     `json:"fault"`
}
