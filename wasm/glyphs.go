//go:build js

package main

import (
	"image"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"deliverylab/wasm/view"
)

// glyphFace draws text at one size: each rune from the first of its faces that has it
// (Go Regular, then the Chinese subset), as view.TextWidth measures it. Each glyph is
// rendered once into a small white image and then only copied, tinted, which Ebiten
// batches like the message sprites.
//
// The canvas draws its own glyphs rather than through Ebiten's text/v2: that package
// links go-text/typesetting, whose font package registers the JPEG, PNG and TIFF
// decoders (for bitmap fonts) and brings x/text's language tables — about 100 KB of
// gzipped main.wasm for text the canvas never shapes.
type glyphFace struct {
	faces []font.Face
	// ascent and descent are the tallest of the faces', in device pixels.
	ascent, descent float64
	glyphs          map[rune]*glyph
}

// glyph is one rendered rune: img (nil for a blank one such as a space) sits at off
// from the pen on the baseline; advance moves the pen.
type glyph struct {
	img     *ebiten.Image
	off     image.Point
	advance float64
}

func newGlyphFace(size float64, fonts ...*opentype.Font) *glyphFace {
	g := &glyphFace{glyphs: map[rune]*glyph{}}
	for _, f := range fonts {
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
		if err != nil {
			panic(err) // a valid font and a positive size: cannot fail
		}
		m := face.Metrics()
		g.ascent = math.Max(g.ascent, fixedToFloat(m.Ascent))
		g.descent = math.Max(g.descent, fixedToFloat(m.Descent))
		g.faces = append(g.faces, face)
	}
	return g
}

func fixedToFloat(v fixed.Int26_6) float64 { return float64(v) / 64 }

// glyph renders r the first time it is asked for; a rune no face has is drawn by the
// first face's notdef box, as a MultiFace would.
func (g *glyphFace) glyph(r rune) *glyph {
	if gl, ok := g.glyphs[r]; ok {
		return gl
	}
	face := g.faces[0]
	for _, f := range g.faces {
		if _, ok := f.GlyphAdvance(r); ok {
			face = f
			break
		}
	}
	gl := &glyph{}
	dr, mask, maskp, adv, _ := face.Glyph(fixed.Point26_6{}, r)
	gl.advance = fixedToFloat(adv)
	if !dr.Empty() {
		// White at the mask's coverage, premultiplied; the face reuses its mask, so it is
		// copied now.
		img := image.NewRGBA(image.Rect(0, 0, dr.Dx(), dr.Dy()))
		for y := 0; y < dr.Dy(); y++ {
			for x := 0; x < dr.Dx(); x++ {
				_, _, _, a := mask.At(maskp.X+x, maskp.Y+y).RGBA()
				v := uint8(a >> 8)
				i := img.PixOffset(x, y)
				img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = v, v, v, v
			}
		}
		gl.img, gl.off = ebiten.NewImageFromImage(img), dr.Min
	}
	g.glyphs[r] = gl
	return gl
}

// width is how far s moves the pen, in device pixels.
func (g *glyphFace) width(s string) float64 {
	w := 0.0
	for _, r := range s {
		w += g.glyph(r).advance
	}
	return w
}

// draw draws s with its anchor at (x, y) in device pixels, placed as a says, tinted c.
func (g *glyphFace) draw(dst *ebiten.Image, s string, x, y float64, a view.Align, c color.Color) {
	switch a {
	case view.TopRight, view.BottomRight:
		x -= g.width(s)
	case view.Center:
		x -= g.width(s) / 2
	}
	top := y
	switch a {
	case view.Center, view.LeftMid:
		top -= (g.ascent + g.descent) / 2
	case view.BottomRight, view.BottomLeft:
		top -= g.ascent + g.descent
	}
	baseline := math.Round(top + g.ascent)
	op := &ebiten.DrawImageOptions{}
	for _, r := range s {
		gl := g.glyph(r)
		if gl.img != nil {
			op.GeoM.Reset()
			op.GeoM.Translate(math.Round(x)+float64(gl.off.X), baseline+float64(gl.off.Y))
			op.ColorScale.Reset()
			op.ColorScale.ScaleWithColor(c)
			dst.DrawImage(gl.img, op)
		}
		x += gl.advance
	}
}
