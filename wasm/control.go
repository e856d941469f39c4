//go:build js

package main

import (
	"fmt"
	"math"

	"deliverylab/core/play"
	"deliverylab/wasm/view"
)

// The session commands, shared by the JS bridge and the pointer. Each takes g.mu.

var errNoScene = fmt.Errorf("no scene is loaded")

func (g *Game) load(name string) error {
	s, err := play.Load(name)
	if err != nil {
		return err
	}
	g.use(s)
	return nil
}

// use puts a session on the canvas, in place of the one before.
func (g *Game) use(s *play.Session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sess, g.st, g.fresh, g.accumUs = s, play.State{}, false, 0
	g.perf.UpdateUsMax = 0
	g.layout, g.laidNodes, g.laidCuts, g.hover = nil, nil, nil, hitNone
	g.talked, g.lanes, g.highlight = map[play.Link]bool{}, nil, view.Highlight{}
	g.view++
	g.layoutView = math.MaxUint64
	g.learnFor(learnBudget)
	g.refresh()
}

// do runs fn on the loaded session and takes a new snapshot.
func (g *Game) do(fn func(s *play.Session) error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sess == nil {
		return errNoScene
	}
	err := fn(g.sess)
	g.accumUs = 0
	g.learnFor(learnBudget) // a change that relearns the timeline: as much as a frame allows
	g.refresh()
	return err
}

func (g *Game) setSpeed(x float64) error {
	if math.IsNaN(x) || x < speedMin || x > speedMax {
		return fmt.Errorf("speed must be between %g and %g, not %g", speedMin, speedMax, x)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.speed = x
	g.view++
	return nil
}

// setLang switches the canvas's words (view.Words) to lang.
func (g *Game) setLang(s string) error {
	lang, err := view.ParseLang(s)
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.lang = lang
	g.view++
	g.layoutGen++ // the static layer's texts change
	return nil
}

// setProjector switches projector mode: the type scale a step up (so the geometry
// changes) and the high-contrast palette.
func (g *Game) setProjector(on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.projector = on
	g.view++
	g.layoutView = math.MaxUint64 // new sizes: relayout
	g.relayout()
}

// setHighlight marks nodes and a message; the zero value clears it.
func (g *Game) setHighlight(h view.Highlight) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.highlight = h
	g.view++
}
