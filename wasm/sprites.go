//go:build js

package main

import (
	"bytes"
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"
	"golang.org/x/image/font/gofont/goregular"

	"deliverylab/wasm/view"
)

// fontSource is Go Regular: Latin only, which is all the canvas shows; prose in other
// scripts lives in the page's DOM.
var fontSource = func() *text.GoTextFaceSource {
	s, err := text.NewGoTextFaceSource(bytes.NewReader(goregular.TTF))
	if err != nil {
		panic(err) // the font is compiled in; failing here is a build problem
	}
	return s
}()

// sprites are images rendered once per device scale and then only copied: a dot is a
// DrawImage from one shared source, which Ebiten batches, instead of a vector path
// filled every frame.
type sprites struct {
	scale float64
	dot   *ebiten.Image // white disc, tinted per message kind
	ring  *ebiten.Image // white ring around a dot: outline and hover highlight
	faces map[float64]*text.GoTextFace
}

func newSprites(scale float64) *sprites {
	s := &sprites{scale: scale, faces: map[float64]*text.GoTextFace{}}
	r := view.FlightRadius * scale
	size := int(2*r + 4*scale + 2)
	c := float32(size) / 2
	s.dot = ebiten.NewImage(size, size)
	vector.DrawFilledCircle(s.dot, c, c, float32(r), color.White, true)
	s.ring = ebiten.NewImage(size, size)
	vector.StrokeCircle(s.ring, c, c, float32(r+scale), float32(1.5*scale), color.White, true)
	return s
}

func (s *sprites) dispose() {
	s.dot.Deallocate()
	s.ring.Deallocate()
}

// face is Go Regular at px CSS pixels.
func (s *sprites) face(px float64) *text.GoTextFace {
	f, ok := s.faces[px]
	if !ok {
		f = &text.GoTextFace{Source: fontSource, Size: px * s.scale}
		s.faces[px] = f
	}
	return f
}

// drawSprite draws img centred on p (CSS pixels), tinted with c.
func (s *sprites) drawSprite(dst, img *ebiten.Image, p view.Point, c color.Color) {
	op := &ebiten.DrawImageOptions{}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	op.GeoM.Translate(p.X*s.scale-float64(w)/2, p.Y*s.scale-float64(h)/2)
	op.ColorScale.ScaleWithColor(c)
	op.Filter = ebiten.FilterLinear
	dst.DrawImage(img, op)
}

// textAlign says where a text's anchor point is.
type textAlign struct{ h, v text.Align }

var (
	alignTopLeft     = textAlign{text.AlignStart, text.AlignStart}
	alignTopRight    = textAlign{text.AlignEnd, text.AlignStart}
	alignCenter      = textAlign{text.AlignCenter, text.AlignCenter}
	alignLeftMid     = textAlign{text.AlignStart, text.AlignCenter}
	alignBottomRight = textAlign{text.AlignEnd, text.AlignEnd}
	alignBottomLeft  = textAlign{text.AlignStart, text.AlignEnd}
)

// drawText draws str at p (CSS pixels) in Go Regular at px, shortened with "…" to
// maxW CSS pixels when maxW > 0.
func (s *sprites) drawText(dst *ebiten.Image, str string, px float64, p view.Point, a textAlign, c color.Color, maxW float64) {
	f := s.face(px)
	if maxW > 0 {
		str = fitText(str, f, maxW*s.scale)
	}
	if str == "" {
		return
	}
	op := &text.DrawOptions{}
	op.GeoM.Translate(p.X*s.scale, p.Y*s.scale)
	op.ColorScale.ScaleWithColor(c)
	op.PrimaryAlign, op.SecondaryAlign = a.h, a.v
	text.Draw(dst, str, f, op)
}

// drawLabel draws a short label on a translucent pill of the canvas colour, so it stays
// legible over boxes and other messages. at is the pill's left middle.
func (s *sprites) drawLabel(dst *ebiten.Image, str string, px float64, at view.Point, c color.Color, maxW float64) {
	f := s.face(px)
	str = fitText(str, f, maxW*s.scale)
	if str == "" {
		return
	}
	w := text.Advance(str, f)/s.scale + 6
	h := px + 4
	pill := view.Rect{X: at.X, Y: at.Y - h/2, W: w, H: h}
	bg := view.Background
	bg.A = 0xc0
	vector.DrawFilledRect(dst, float32(pill.X*s.scale), float32(pill.Y*s.scale), float32(pill.W*s.scale), float32(pill.H*s.scale), premultiply(bg), false)
	s.drawText(dst, str, px, view.Point{X: at.X + 3, Y: at.Y}, alignLeftMid, c, 0)
}

// premultiply turns a straight-alpha colour into the premultiplied form color.RGBA means.
func premultiply(c color.RGBA) color.RGBA {
	m := func(v uint8) uint8 { return uint8(uint16(v) * uint16(c.A) / 0xff) }
	return color.RGBA{m(c.R), m(c.G), m(c.B), c.A}
}

// fitText drops characters from the end until str fits in maxW device pixels.
func fitText(str string, f text.Face, maxW float64) string {
	if text.Advance(str, f) <= maxW {
		return str
	}
	r := []rune(str)
	for len(r) > 0 {
		r = r[:len(r)-1]
		if s := string(r) + "…"; text.Advance(s, f) <= maxW {
			return s
		}
	}
	return ""
}
