//go:build js

package main

import (
	"fmt"
	"math"

	"deliverylab/core/play"
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
	g.layout, g.laidNodes, g.laidCuts, g.hover = nil, nil, nil, hitNone
	g.view++
	g.layoutView = math.MaxUint64
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
