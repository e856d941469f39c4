package browsertest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"deliverylab/wasm/view"
)

// monkeyKeys are the playground's keys, and a few it does not handle.
var monkeyKeys = []string{" ", kb.ArrowRight, kb.ArrowLeft, "+", "-", "r", "l", "?", kb.Escape, "p", "x", kb.Tab, kb.Enter}

// monkeyTargets are the page's controls a monkey may click, when shown and enabled.
const monkeyTargets = `.controls button:not(:disabled), #marks .mark, #captions .cap, #captions .continue,
	#ledger-body tr[data-id], #scene-list button, [data-lang], #projector, #help-button, #help-close`

// A seeded monkey clicks the canvas and the controls and presses keys for a bounded
// number of steps; any Go panic or console error fails the test (checkHealthy).
func TestMonkey(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	rng := rand.New(rand.NewPCG(11, 2026))
	const steps = 60
	for i := range steps {
		switch rng.IntN(3) {
		case 0: // the canvas, anywhere
			s := p.stateNow()
			c := s.CanvasClientRect
			at := view.Point{X: c.X + rng.Float64()*c.W, Y: c.Y + rng.Float64()*c.H}
			t.Logf("%d: click the canvas at %.0f,%.0f", i, at.X, at.Y)
			p.click(at)
		case 1:
			k := monkeyKeys[rng.IntN(len(monkeyKeys))]
			t.Logf("%d: key %q", i, k)
			pressKey(p, k)
		default:
			targets := eval[[]view.Point](p, fmt.Sprintf(`[...document.querySelectorAll(%q)].map(el => el.getBoundingClientRect())
				.filter(r => r.width > 0 && r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth)
				.map(r => ({x: r.x + r.width / 2, y: r.y + r.height / 2}))`, monkeyTargets))
			if len(targets) == 0 {
				continue
			}
			at := targets[rng.IntN(len(targets))]
			what := eval[string](p, fmt.Sprintf(`(e => e ? (e.id || e.className || e.tagName) + " " + e.textContent.slice(0, 30) : "")(document.elementFromPoint(%g, %g))`, at.X, at.Y))
			t.Logf("%d: click %q", i, what)
			require.NoError(t, p.do(chromedp.MouseClickXY(at.X, at.Y)))
		}
		p.failIfCrashed()
	}
	s := p.state()
	t.Logf("after %d steps: %s at %d ms, faults %v", steps, s.Scene, s.NowMs, s.Faults)
}
