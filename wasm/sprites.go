//go:build js

package main

import (
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"

	zhfont "deliverylab/wasm/font"
	"deliverylab/wasm/view"
)

// latinFont is Go Regular, for Latin; zhFont the subset of Noto Sans CJK SC with the
// glyphs of the canvas's Chinese words (wasm/font). A glyphFace takes each rune from the
// first that has it, as view.TextWidth measures it, with the same parser (x/image's
// sfnt).
var latinFont, zhFont = mustFont(goregular.TTF), mustFont(zhfont.ZhOTF)

func mustFont(b []byte) *opentype.Font {
	f, err := opentype.Parse(b)
	if err != nil {
		panic(err) // the font is compiled in; failing here is a build problem
	}
	return f
}

// sprites are images rendered once per device scale and then only copied: a dot is a
// DrawImage from one shared source, which Ebiten batches, instead of a vector path
// filled every frame.
type sprites struct {
	scale float64
	dot   *ebiten.Image // white disc, tinted per message kind
	ring  *ebiten.Image // white ring around a dot: outline and hover highlight
	halo  *ebiten.Image // a thick ring: the highlighted message
	// bar: a checkpoint barrier (a Flink job's Barrier), upright across the channel, and
	// barEdge the outline that keeps it apart from what it passes over.
	bar, barEdge *ebiten.Image
	faces        map[float64]*glyphFace
}

func newSprites(scale float64) *sprites {
	s := &sprites{scale: scale, faces: map[float64]*glyphFace{}}
	r := view.FlightRadius * scale
	size := int(2*r + 4*scale + 2)
	c := float32(size) / 2
	s.dot = ebiten.NewImage(size, size)
	vector.DrawFilledCircle(s.dot, c, c, float32(r), color.White, true)
	s.ring = ebiten.NewImage(size, size)
	vector.StrokeCircle(s.ring, c, c, float32(r+scale), float32(1.5*scale), color.White, true)
	s.halo = ebiten.NewImage(size, size)
	vector.StrokeCircle(s.halo, c, c, float32(r+scale), float32(3*scale), color.White, true)
	bw, bh := float32(0.45*r), float32(2*r+2*scale)
	s.bar = ebiten.NewImage(size, size)
	vector.DrawFilledRect(s.bar, c-bw/2, c-bh/2, bw, bh, color.White, true)
	s.barEdge = ebiten.NewImage(size, size)
	vector.StrokeRect(s.barEdge, c-bw/2-float32(scale), c-bh/2-float32(scale), bw+2*float32(scale), bh+2*float32(scale), float32(1.5*scale), color.White, true)
	return s
}

func (s *sprites) dispose() {
	s.dot.Deallocate()
	s.ring.Deallocate()
	s.halo.Deallocate()
	s.bar.Deallocate()
	s.barEdge.Deallocate()
}

// strokePath draws a message's route as a polyline.
func (p *painter) strokePath(dst *ebiten.Image, path view.Path, width float64, c color.Color, scale float64) {
	const steps = 24
	sc := float32(scale)
	for i := 0; i < steps; i++ {
		a, b := path.At(float64(i)/steps), path.At(float64(i+1)/steps)
		vector.StrokeLine(dst, float32(a.X)*sc, float32(a.Y)*sc, float32(b.X)*sc, float32(b.Y)*sc, float32(width)*sc, c, true)
	}
}

// face is Go Regular with the Chinese subset behind it, at px CSS pixels, unhinted as
// the canvas is scaled.
func (s *sprites) face(px float64) *glyphFace {
	f, ok := s.faces[px]
	if !ok {
		f = newGlyphFace(px*s.scale, latinFont, zhFont)
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

// textStats is what the texts of a Draw were: the smallest size drawn (CSS px) and
// how many had to be cut with "…".
type textStats struct {
	MinPx float64
	Cut   int
}

func (t *textStats) add(o textStats) {
	if o.MinPx > 0 && (t.MinPx == 0 || o.MinPx < t.MinPx) {
		t.MinPx = o.MinPx
	}
	t.Cut += o.Cut
}

// drawTexts draws texts view already fitted, and counts them into st. bg is the
// colour under a pill.
func (s *sprites) drawTexts(dst *ebiten.Image, texts []view.Text, st *textStats, bg color.RGBA) {
	for _, t := range texts {
		if t.Cut {
			st.Cut++
		}
		if t.S == "" {
			continue
		}
		if t.Pill {
			r := t.Bounds()
			s.fillPill(dst, view.Rect{X: r.X - 1, Y: r.Y, W: r.W + 2, H: r.H}, bg)
		}
		st.add(textStats{MinPx: t.Px})
		s.face(t.Px).draw(dst, t.S, t.At.X*s.scale, t.At.Y*s.scale, t.Align, t.Color)
	}
}

// drawLabel draws a flight's label on a translucent pill of the canvas colour, so it
// stays legible over lanes and other messages; pill is where view.PlaceLabel put it.
func (s *sprites) drawLabel(dst *ebiten.Image, str string, px float64, pill view.Rect, c, bg color.RGBA, st *textStats) {
	s.fillPill(dst, pill, bg)
	t := view.Text{S: str, Px: px, At: view.Point{X: pill.X + 3, Y: pill.Y + pill.H/2}, Align: view.LeftMid, Color: c}
	s.drawTexts(dst, []view.Text{t}, st, bg)
}

// fillPill lays a translucent patch of bg under a label.
func (s *sprites) fillPill(dst *ebiten.Image, r view.Rect, bg color.RGBA) {
	bg.A = 0xc0
	vector.DrawFilledRect(dst, float32(r.X*s.scale), float32(r.Y*s.scale), float32(r.W*s.scale), float32(r.H*s.scale), premultiply(bg), false)
}

// premultiply turns a straight-alpha colour into the premultiplied form color.RGBA means.
func premultiply(c color.RGBA) color.RGBA {
	m := func(v uint8) uint8 { return uint8(uint16(v) * uint16(c.A) / 0xff) }
	return color.RGBA{m(c.R), m(c.G), m(c.B), c.A}
}
