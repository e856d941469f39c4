//go:build js

package main

import (
	"slices"

	"github.com/hajimehoshi/ebiten/v2"
)

// lanesLayer is the links between the nodes, painted once into an image of their own and
// copied under the boxes at each repaint of the static layer. The boxes' logs and rows
// change with nearly every record, the lanes only when the layout or a cut does: a crowd
// of 30 producers on 9 brokers has hundreds of lanes, and stroking each again (24
// antialiased segments a lane) was half of the page's CPU while it played (Chromium's
// profiler, issue 22's crowd benchmark).
type lanesLayer struct {
	img *ebiten.Image
	key lanesKey
}

// lanesKey is what the picture of the lanes depends on.
type lanesKey struct {
	layoutGen uint64
	scale     float64
	projector bool
	w, h      int
	lanes     []laneKey
}

type laneKey struct {
	from, to string
	cut      bool
}

func (k lanesKey) equal(o lanesKey) bool {
	return k.layoutGen == o.layoutGen && k.scale == o.scale && k.projector == o.projector && k.w == o.w && k.h == o.h &&
		slices.Equal(k.lanes, o.lanes)
}

// image returns the lanes' picture for the frame, painting it again only when it changed.
func (l *lanesLayer) image(p *painter, w, h int, f frame) *ebiten.Image {
	key := lanesKey{layoutGen: f.layoutGen, scale: f.scale, projector: f.projector, w: w, h: h}
	for _, ln := range f.lanes {
		key.lanes = append(key.lanes, laneKey{ln.From, ln.To, ln.Cut})
	}
	if l.img != nil && l.key.equal(key) {
		return l.img
	}
	if l.img == nil || l.img.Bounds().Dx() != w || l.img.Bounds().Dy() != h {
		if l.img != nil {
			l.img.Deallocate()
		}
		l.img = ebiten.NewImage(w, h)
	}
	l.img.Clear()
	for _, ln := range f.lanes {
		p.drawLane(l.img, f, ln)
	}
	l.key = key
	return l.img
}
