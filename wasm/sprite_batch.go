//go:build js

package main

import (
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"

	"deliverylab/wasm/view"
)

// spriteBatch gathers copies of one sprite (a tinted quad each) and draws them with one
// DrawTriangles. Two DrawImage calls a message, each with its own options on the heap,
// cost the page 9.2 ms a frame with 661 messages on the wire (issue 22's crowd
// benchmark, budget 4 ms); one call per sprite image does the same drawing.
type spriteBatch struct {
	img *ebiten.Image
	vs  []ebiten.Vertex
	is  []uint16
}

// maxBatchQuads keeps a batch's vertex indices within uint16.
const maxBatchQuads = (1 << 16) / 4

// add places a copy of the sprite centred on p (CSS pixels), tinted c.
func (b *spriteBatch) add(dst *ebiten.Image, img *ebiten.Image, p view.Point, scale float64, c color.Color) {
	if b.img != img || len(b.vs)/4 >= maxBatchQuads {
		b.flush(dst)
		b.img = img
	}
	w, h := float32(img.Bounds().Dx()), float32(img.Bounds().Dy())
	x, y := float32(p.X*scale)-w/2, float32(p.Y*scale)-h/2
	r, g, bl, a := c.RGBA() // premultiplied, as the batch draws them
	cr, cg, cb, ca := float32(r)/0xffff, float32(g)/0xffff, float32(bl)/0xffff, float32(a)/0xffff
	n := uint16(len(b.vs))
	for _, corner := range [4][2]float32{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
		b.vs = append(b.vs, ebiten.Vertex{DstX: x + corner[0]*w, DstY: y + corner[1]*h, SrcX: corner[0] * w, SrcY: corner[1] * h,
			ColorR: cr, ColorG: cg, ColorB: cb, ColorA: ca})
	}
	b.is = append(b.is, n, n+1, n+2, n+1, n+3, n+2)
}

// flush draws what the batch holds and empties it, keeping its buffers.
func (b *spriteBatch) flush(dst *ebiten.Image) {
	if len(b.vs) > 0 {
		op := &ebiten.DrawTrianglesOptions{ColorScaleMode: ebiten.ColorScaleModePremultipliedAlpha, Filter: ebiten.FilterLinear}
		dst.DrawTriangles(b.vs, b.is, b.img, op)
	}
	b.vs, b.is = b.vs[:0], b.is[:0]
}
