//go:build js

package main

import (
	"errors"
	"syscall/js"

	"deliverylab/core/play"
	"deliverylab/core/scene"
)

// installSession publishes the bridge methods of the timeline, the settings, the
// user's own scenes, share links and the scene's source.
func installSession(b *bridge) {
	g := b.g
	b.method("stepBack", b.refusable(func(s *play.Session) error { return s.StepBack() }))
	b.method("continue", b.command(func(s *play.Session) error { s.Continue(); return nil }))
	b.method("loadSource", func(args []js.Value) (any, error) {
		if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
			return nil, errors.New("loadSource needs the scene text and its file name")
		}
		// A teacher's scene may run to the event limit: the session learns its timeline a
		// chunk at once, and the game the rest by its clock (Game.learn).
		s, err := play.LoadSource(args[1].String(), []byte(args[0].String()), play.LearnAtOnce(learnChunk))
		if err != nil {
			return failure(err), nil
		}
		g.use(s)
		return ok(), nil
	})
	b.method("setSetting", func(args []js.Value) (any, error) {
		if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
			return nil, errors.New(`setSetting needs a key and a value, e.g. setSetting("producers.p1.config.acks", "all")`)
		}
		key, value := args[0].String(), args[1].String()
		return b.refusable(func(s *play.Session) error { return s.SetSetting(key, value) })(nil)
	})
	b.method("setSeed", func(args []js.Value) (any, error) {
		if len(args) < 1 || args[0].Type() != js.TypeNumber || args[0].Float() != float64(int64(args[0].Float())) {
			return nil, errors.New("setSeed needs a whole number")
		}
		seed := int64(args[0].Float())
		return ok(), g.do(func(s *play.Session) error { s.SetSeed(seed); return nil })
	})
	b.method("shareLink", func([]js.Value) (any, error) {
		var hash string
		err := g.do(func(s *play.Session) error { hash = s.Link(); return nil })
		return map[string]any{"hash": hash}, err
	})
	// sceneSource is the scene file as loaded, with the settings and seed changed since:
	// what the page's "Find a failure" searches (web/explore.js). It only reads.
	reads["sceneSource"] = true
	b.method("sceneSource", func([]js.Value) (any, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.sess == nil {
			return nil, errNoScene
		}
		return g.sess.SourceFile(), nil
	})
	// diagram: the run so far as a space-time diagram (SVG, core/diagram), the
	// highlighted message's arrows standing out. The page saves it as a file.
	b.method("diagram", func([]js.Value) (any, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.sess == nil {
			return nil, errNoScene
		}
		return map[string]any{"svg": string(g.sess.Diagram(g.highlight.Message)), "file": g.st.Scene + "-diagram.svg"}, nil
	})
	// chart: every partition's offsets over the whole run (play.Chart), for the chart
	// under the canvas; it changes when the timeline does.
	b.method("chart", func([]js.Value) (any, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.sess == nil {
			return nil, errNoScene
		}
		return g.sess.Chart(), nil
	})
	// wholeDiagram: the whole run as a space-time diagram (play.WholeDiagram), for the
	// page's diagram view, which marks where the run stands on it; its argument draws
	// the background traffic too.
	b.method("wholeDiagram", func(args []js.Value) (any, error) {
		background := len(args) > 0 && args[0].Truthy()
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.sess == nil {
			return nil, errNoScene
		}
		return map[string]any{"svg": string(g.sess.WholeDiagram(g.highlight.Message, background))}, nil
	})
	// runJSON: the run so far as one document (play.Export): the scene, the share link,
	// the outcome, every trace line and observation. The page saves it as a file.
	b.method("runJSON", func([]js.Value) (any, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.sess == nil {
			return nil, errNoScene
		}
		return map[string]any{"run": g.sess.Export(), "file": g.st.Scene + "-run.json"}, nil
	})
	b.method("openLink", func(args []js.Value) (any, error) {
		hash, err := stringArg(args, "share link (the part after #)")
		if err != nil {
			return nil, err
		}
		s, err := play.OpenLink(hash)
		if err != nil {
			return failure(err), nil
		}
		g.use(s)
		return ok(), nil
	})
}

// refusable runs a session command whose refusal the user reads in both languages.
func (b *bridge) refusable(fn func(*play.Session) error) func([]js.Value) (any, error) {
	return func([]js.Value) (any, error) {
		if err := b.g.do(fn); err != nil {
			return failure(err), nil
		}
		return ok(), nil
	}
}

// failure is a refusal as the page shows it: {error, errorZh} for a play.UserError, and
// for a scene file's error also where it is (line, 0 unknown; key, dotted, "" unknown).
func failure(err error) map[string]any {
	out := map[string]any{"error": err.Error()}
	var ue play.UserError
	if errors.As(err, &ue) {
		out["errorZh"] = ue.Zh
	}
	var se *scene.Error
	if errors.As(err, &se) {
		out["line"], out["key"] = se.Line, se.Key
	}
	return out
}
