//go:build js

package main

import (
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"deliverylab/wasm/view"
)

// A picture of the canvas for slides: the moment the page stands at, painted again at
// projector resolution with a layout of its own (the canvas on the page may be any
// size), read back from the GPU and handed to the page, which saves it as a PNG. The
// canvas's own WebGL buffer cannot be read from outside once it is shown, and a picture
// at the page's size would be as small as the page.

// The picture: captureCSSW×captureCSSH CSS pixels at captureScale, 1920×1080 pixels.
const (
	captureCSSW, captureCSSH = 1280, 720
	captureScale             = 1.5
)

// captured is a picture read back, until the page takes it.
type captured struct {
	pix  []byte // RGBA, premultiplied (opaque: the background fills it)
	w, h int
}

// requestCapture asks the next Draw for a picture.
func (g *Game) requestCapture() {
	g.mu.Lock()
	g.captureWanted = true
	g.mu.Unlock()
}

// takeCapture hands over the picture, once, if there is one.
func (g *Game) takeCapture() (captured, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.capture, g.capture.pix != nil
	g.capture = captured{}
	return c, ok
}

// paintCapture paints f again at projector resolution and reads it back.
func (g *Game) paintCapture(f frame) captured {
	g.mu.Lock()
	talked := view.SortedLinks(g.talked)
	g.mu.Unlock()
	w, h := int(captureCSSW*captureScale), int(captureCSSH*captureScale)
	f.w, f.h, f.scale, f.screenSize = captureCSSW, captureCSSH, captureScale, [2]int{w, h}
	f.hover = view.Hit{}
	if f.loaded && f.layout != nil {
		f.layout = view.ComputeWith(f.st.Nodes, f.w, f.h, view.MetricsFor(f.w, f.h, f.projector))
		f.lanes = f.layout.Lanes(talked, f.st.CutLinks)
	}
	img := ebiten.NewImage(w, h)
	p := &painter{}
	p.paint(img, f, drawKey{scale: f.scale, w: f.w, h: f.h, screen: f.screenSize})
	c := captured{pix: make([]byte, 4*w*h), w: w, h: h}
	img.ReadPixels(c.pix)
	img.Deallocate()
	p.dispose()
	return c
}

// dispose frees a painter's GPU images (a capture's, painted once).
func (p *painter) dispose() {
	for _, img := range []*ebiten.Image{p.static, p.lanes.img} {
		if img != nil {
			img.Deallocate()
		}
	}
	if p.sprites != nil {
		p.sprites.dispose()
	}
}

// installCapture adds the bridge's capture methods: capturePNG asks for a picture (the
// next frame paints it), takeCapture hands it over as {width, height, data} with data a
// Uint8ClampedArray the page can put into an ImageData, or null while there is none.
func installCapture(b *bridge) {
	g := b.g
	b.method("capturePNG", func([]js.Value) (any, error) {
		g.mu.Lock()
		scene := g.st.Scene
		g.mu.Unlock()
		if scene == "" {
			return nil, errNoScene
		}
		g.requestCapture()
		return map[string]any{"file": scene + ".png", "width": captureCSSW * captureScale, "height": captureCSSH * captureScale}, nil
	})
	b.obj.Set("takeCapture", js.FuncOf(func(js.Value, []js.Value) any {
		c, ok := g.takeCapture()
		if !ok {
			return js.Null()
		}
		data := js.Global().Get("Uint8ClampedArray").New(len(c.pix))
		js.CopyBytesToJS(data, c.pix)
		return map[string]any{"width": c.w, "height": c.h, "data": data}
	}))
}
