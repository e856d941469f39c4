//go:build js

package main

import (
	"errors"
	"syscall/js"

	"deliverylab/core/play"
	"deliverylab/wasm/view"
)

// installFaults publishes the fault tools: menuAt(x, y), the faults that fit what is
// under a canvas point (the page's context menu), and faultHelp(), the fault box's
// syntax with examples. Both only read.
func installFaults(b *bridge) {
	g := b.g
	reads["menuAt"], reads["faultHelp"] = true, true
	b.method("menuAt", func(args []js.Value) (any, error) {
		if len(args) < 2 || args[0].Type() != js.TypeNumber || args[1].Type() != js.TypeNumber {
			return nil, errors.New("menuAt needs a canvas point: x and y in CSS pixels")
		}
		p := view.Point{X: args[0].Float(), Y: args[1].Float()}
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.sess == nil {
			return nil, errNoScene
		}
		t := play.Target{Kind: "none"}
		if g.layout != nil {
			t = targetOf(g.layout.HitTest(p, g.st.InFlight, g.drawNowMs(), g.lanes))
		}
		return map[string]any{"target": t, "items": g.sess.Menu(t)}, nil
	})
	// injectLike: a fault a twin run made (web/twin.js), with what the message was for a
	// fault on a message ({from, to, kind, label}, or null): made here on this run's own
	// copy of that message (play.InjectLike).
	b.method("injectLike", func(args []js.Value) (any, error) {
		fault, err := faultArg(args)
		if err != nil {
			return nil, err
		}
		var wire *play.WireMatch
		if len(args) > 1 && args[1].Type() == js.TypeObject {
			str := func(k string) string {
				if v := args[1].Get(k); v.Type() == js.TypeString {
					return v.String()
				}
				return ""
			}
			wire = &play.WireMatch{From: str("from"), To: str("to"), Kind: str("kind"), Label: str("label")}
		}
		return ok(), g.do(func(s *play.Session) error { return s.InjectLike(fault, wire) })
	})
	b.method("faultHelp", func([]js.Value) (any, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.sess == nil {
			return nil, errNoScene
		}
		return map[string]any{"text": g.sess.FaultHelp()}, nil
	})
}

// targetOf turns a canvas hit into what the menu is for.
func targetOf(h view.Hit) play.Target {
	switch {
	case h.Flight:
		return play.Target{Kind: "message", ID: h.FlightID}
	case h.Node != "":
		return play.Target{Kind: "node", Name: h.Node}
	case h.Link:
		return play.Target{Kind: "link", From: h.From, To: h.To}
	default:
		return play.Target{Kind: "none"}
	}
}
