//go:build js

package main

import (
	"slices"

	"github.com/hajimehoshi/ebiten/v2"

	"deliverylab/wasm/view"
)

// lanesLayer is the links between the nodes, painted into an image of their own and
// copied under the boxes at each repaint of the static layer. The boxes' logs and rows
// change with nearly every record, and every change recomputes the layout; the lanes come
// out the same unless a link appeared, was cut or a box moved. A crowd of 30 producers on
// 9 brokers has hundreds of lanes of 24 antialiased segments each: painting them again
// with every record kept Draw at 8–9 ms with 661 messages in flight, 3.2–4.3 ms without
// (issue 22's crowd benchmark).
type lanesLayer struct {
	img      *ebiten.Image
	key      lanesKey
	repaints int64 // how often the lanes were painted (perf.LaneRepaints)
}

// lanesKey is what the picture of the lanes depends on: the lanes themselves (their ends,
// geometry and cuts: a relayout for a grown log gives the same ones again) and the canvas.
type lanesKey struct {
	lanes     []view.Lane
	scale     float64
	projector bool
	w, h      int
}

func (k lanesKey) equal(o lanesKey) bool {
	return k.scale == o.scale && k.projector == o.projector && k.w == o.w && k.h == o.h && slices.Equal(k.lanes, o.lanes)
}

// image returns the lanes' picture for the frame, painting it again only when it changed.
func (l *lanesLayer) image(p *painter, w, h int, f frame) *ebiten.Image {
	key := lanesKey{lanes: f.lanes, scale: f.scale, projector: f.projector, w: w, h: h}
	if l.img != nil && l.key.equal(key) {
		return l.img
	}
	if l.img == nil || l.img.Bounds().Dx() != w || l.img.Bounds().Dy() != h {
		if l.img != nil {
			l.img.Deallocate()
		}
		l.img = ebiten.NewImage(w, h)
	}
	l.repaints++
	l.img.Clear()
	for _, ln := range f.lanes {
		p.drawLane(l.img, f, ln)
	}
	l.key = key
	return l.img
}
