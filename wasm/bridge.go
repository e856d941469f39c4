//go:build js

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"syscall/js"

	"deliverylab/core/play"
	"deliverylab/wasm/view"
)

// bridge is window.deliverylab inside the canvas frame: the page's controls and the
// browser tests drive the game through it. Every method returns a plain object; a
// failure is {error: "..."} with user-facing text, never a thrown exception.
type bridge struct {
	g   *Game
	obj js.Value
}

func newBridge(g *Game) *bridge {
	return &bridge{g: g, obj: js.Global().Get("Object").New()}
}

// install publishes the bridge with ready=false; the game's first frame sets it.
func (b *bridge) install() {
	g := b.g
	b.obj.Set("ready", false)
	b.method("scenes", func([]js.Value) (any, error) { return play.Scenes(), nil })
	b.method("load", func(args []js.Value) (any, error) {
		name, err := stringArg(args, "scene name")
		if err != nil {
			return nil, err
		}
		return ok(), g.load(name)
	})
	b.method("play", b.command(func(s *play.Session) error { s.Play(); return nil }))
	b.method("pause", b.command(func(s *play.Session) error { s.Pause(); return nil }))
	b.method("runToEnd", b.command(func(s *play.Session) error { s.RunToEnd(); return nil }))
	b.method("step", func([]js.Value) (any, error) {
		more := false
		err := g.do(func(s *play.Session) error {
			s.Pause() // stepping is for looking closely: stop the clock first
			more = s.Step()
			return nil
		})
		return map[string]any{"ok": true, "more": more}, err
	})
	b.method("seek", func(args []js.Value) (any, error) {
		if len(args) < 1 || args[0].Type() != js.TypeNumber {
			return nil, errors.New("seek needs a time in milliseconds")
		}
		ms := int64(args[0].Float())
		return ok(), g.do(func(s *play.Session) error { return s.SeekTo(ms) })
	})
	b.method("inject", func(args []js.Value) (any, error) {
		fault, err := faultArg(args)
		if err != nil {
			return nil, err
		}
		return ok(), g.do(func(s *play.Session) error { return s.Inject(fault) })
	})
	b.method("setSpeed", func(args []js.Value) (any, error) {
		if len(args) < 1 || args[0].Type() != js.TypeNumber {
			return nil, errors.New("setSpeed needs a number")
		}
		return ok(), g.setSpeed(args[0].Float())
	})
	b.method("setLang", func(args []js.Value) (any, error) {
		lang, err := stringArg(args, `language, "en" or "zh"`)
		if err != nil {
			return nil, err
		}
		return ok(), g.setLang(lang)
	})
	b.method("setProjector", func(args []js.Value) (any, error) {
		if len(args) < 1 || args[0].Type() != js.TypeBoolean {
			return nil, errors.New("setProjector needs true or false")
		}
		g.setProjector(args[0].Bool())
		return ok(), nil
	})
	b.method("highlight", func(args []js.Value) (any, error) {
		h, err := highlightArg(args)
		if err != nil {
			return nil, err
		}
		g.setHighlight(h)
		return ok(), nil
	})
	b.method("state", func([]js.Value) (any, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.snapshot(), nil
	})
	// version is cheap; state() is worth calling only when it changed.
	b.method("version", func([]js.Value) (any, error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		return float64(g.view), nil
	})
	installSession(b)
	installFaults(b)
	installCapture(b)
	g.onReady = func() {
		b.obj.Set("ready", true)
		b.report("ready", "")
	}
	// The page re-renders its DOM when told, instead of polling every animation frame:
	// a paused page then runs no JavaScript of its own at all.
	g.onChange = func() { b.report("changed", "") }
	g.onIdle = func() { callHook("deliverylabIdle") }
	js.Global().Set("deliverylab", b.obj)
}

func ok() map[string]any { return map[string]any{"ok": true} }

// reads are the methods that change nothing: they do not wake a sleeping game loop, so
// a test or page may poll them without keeping the loop busy.
var reads = map[string]bool{"scenes": true, "state": true, "version": true, "diagram": true, "runJSON": true, "chart": true, "wholeDiagram": true}

// callHook calls a function the loader (web/game.js) put on window, if it is there.
func callHook(name string) {
	if f := js.Global().Get(name); f.Type() == js.TypeFunction {
		f.Invoke()
	}
}

// command wraps a session command that takes no arguments.
func (b *bridge) command(fn func(*play.Session) error) func([]js.Value) (any, error) {
	return func([]js.Value) (any, error) { return ok(), b.g.do(fn) }
}

// method publishes fn. Results cross to JS as JSON (JSON.parse of Go's encoding), which
// keeps the JSON tags of play.State as the one definition of the data. A panic becomes
// an {error} and a console.error, so a bug is loud but the page keeps running.
func (b *bridge) method(name string, fn func([]js.Value) (any, error)) {
	b.obj.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) (result any) {
		defer func() {
			if r := recover(); r != nil {
				msg := fmt.Sprintf("internal error in %s: %v", name, r)
				js.Global().Get("console").Call("error", "deliverylab: "+msg+"\n"+string(debug.Stack()))
				result = errorObject(msg)
			}
		}()
		if !reads[name] {
			callHook("deliverylabWake") // a command: let the game loop see it
		}
		v, err := fn(args)
		if err != nil {
			return errorOf(err)
		}
		out, err := json.Marshal(v)
		if err != nil {
			return errorObject(fmt.Sprintf("%s: %v", name, err))
		}
		return js.Global().Get("JSON").Call("parse", string(out))
	}))
}

// errorOf is errorObject for an error; a play.UserError also gives its Chinese, as
// errorZh.
func errorOf(err error) js.Value {
	o := errorObject(err.Error())
	var u play.UserError
	if errors.As(err, &u) {
		o.Set("errorZh", u.Zh)
	}
	return o
}

func errorObject(msg string) js.Value {
	o := js.Global().Get("Object").New()
	o.Set("error", msg)
	return o
}

// report tells the loader (web/game.js) about the game's life: ready or crashed.
func (b *bridge) report(event, detail string) {
	if hook := js.Global().Get("deliverylabReport"); hook.Type() == js.TypeFunction {
		hook.Invoke(event, detail)
	}
}

// crashed marks the page as dead: tests watch window.deliverylabCrashed.
func (b *bridge) crashed(reason string) {
	js.Global().Get("console").Call("error", "deliverylab crashed: "+reason)
	js.Global().Set("deliverylabCrashed", reason)
	b.obj.Set("ready", false)
	b.report("crashed", reason)
}

func stringArg(args []js.Value, what string) (string, error) {
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return "", fmt.Errorf("expected a %s", what)
	}
	return args[0].String(), nil
}

// faultArg accepts a fault as a string (YAML or JSON, the scene file's syntax) or as a
// plain object, which is turned into JSON.
func faultArg(args []js.Value) (string, error) {
	if len(args) < 1 {
		return "", errors.New(`inject needs a fault, e.g. {"crash":"broker-1"}`)
	}
	switch a := args[0]; a.Type() {
	case js.TypeString:
		return a.String(), nil
	case js.TypeObject:
		return js.Global().Get("JSON").Call("stringify", a).String(), nil
	default:
		return "", fmt.Errorf(`inject needs a fault object or string, e.g. {"crash":"broker-1"}, not a %s`, a.Type())
	}
}

// highlightArg reads {nodes: [...], message: "p1#3"}; no argument, null, undefined or
// an empty object clears the highlight.
func highlightArg(args []js.Value) (view.Highlight, error) {
	var h view.Highlight
	if len(args) < 1 || args[0].IsNull() || args[0].IsUndefined() {
		return h, nil
	}
	if args[0].Type() != js.TypeObject {
		return h, fmt.Errorf(`highlight needs an object like {nodes: ["broker-1"], message: "p1#3"}, not a %s`, args[0].Type())
	}
	text := js.Global().Get("JSON").Call("stringify", args[0]).String()
	if err := json.Unmarshal([]byte(text), &h); err != nil {
		return view.Highlight{}, fmt.Errorf(`highlight needs {nodes: [names], message: "p1#3"}: %v`, err)
	}
	return h, nil
}
