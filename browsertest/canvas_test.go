package browsertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/play"
	"deliverylab/wasm/view"
)

// canvasState is the canvas's own part of state().
type canvasState struct {
	LabelFontPx float64        `json:"labelFontPx"`
	Truncated   int            `json:"truncated"`
	Projector   bool           `json:"projector"`
	Lang        string         `json:"lang"`
	Links       []view.Lane    `json:"links"`
	Highlight   view.Highlight `json:"highlight"`
	CutLinks    []play.Link    `json:"cutLinks"`
	Canvas      view.Rect      `json:"canvas"`
	Perf        struct {
		Draws          int64 `json:"draws"`
		StaticRepaints int64 `json:"staticRepaints"`
		LaneRepaints   int64 `json:"laneRepaints"`
	} `json:"perf"`
}

// frameCall calls the canvas frame's own bridge (the page forwards only the methods it
// uses itself) and fails the test on an {error} result.
func frameCall(p *page, expr string) map[string]any {
	p.t.Helper()
	res := eval[map[string]any](p, `document.getElementById("game").contentWindow.deliverylab.`+expr)
	if msg, ok := res["error"]; ok {
		p.t.Fatalf("frame deliverylab.%s: %v", expr, msg)
	}
	return res
}

func canvasNow(p *page) canvasState {
	p.t.Helper()
	raw := eval[[]byte](p, `document.getElementById("game").contentWindow.deliverylab.state()`)
	var s canvasState
	require.NoError(p.t, json.Unmarshal(raw, &s))
	return s
}

// waitRedrawn waits until the canvas has drawn a frame after draws frames.
func waitRedrawn(p *page, draws int64) canvasState {
	p.t.Helper()
	p.waitJS(10*time.Second, fmt.Sprintf(`document.getElementById("game").contentWindow.deliverylab.state().perf.draws > %d`, draws))
	return canvasNow(p)
}

// loadPaused loads a scene, pauses it and waits for the frame that shows it.
func loadPaused(p *page, scene string) canvasState {
	p.t.Helper()
	draws := canvasNow(p).Perf.Draws
	p.call(fmt.Sprintf("load(%q)", scene))
	p.call(`pause()`)
	return waitRedrawn(p, draws)
}

func openAt(t *testing.T, w, h int64) *page {
	p := open(t)
	require.NoError(t, p.do(chromedp.EmulateViewport(w, h)))
	return p
}

// At the 1280×800 and 1024×768 windows every text on the canvas is at least 14 CSS px
// and none is cut, in a scene with transactions (the longest labels) while it runs.
func TestCanvasLabelsAreLegibleAt1280x800(t *testing.T) {
	for _, size := range [][2]int64{{1280, 800}, {1024, 768}} {
		p := openAt(t, size[0], size[1])
		p.waitJS(10*time.Second, fmt.Sprintf(`document.getElementById("game").contentWindow.deliverylab.state().canvas.w < %d`, size[0]))
		for _, scene := range []string{"acks-1-lost", "txn-commit-and-abort"} {
			draws := canvasNow(p).Perf.Draws
			p.call(fmt.Sprintf("load(%q)", scene))
			p.call(`pause()`)
			p.call(`seek(2500)`)
			s := waitRedrawn(p, draws)
			t.Logf("%v %s: canvas %.0f×%.0f, smallest text %.1f px, %d cut", size, scene, s.Canvas.W, s.Canvas.H, s.LabelFontPx, s.Truncated)
			assert.GreaterOrEqual(t, s.LabelFontPx, 14.0, "%v %s", size, scene)
			assert.Zero(t, s.Truncated, "%v %s", size, scene)
		}
		if size[0] == 1024 {
			p.screenshot("canvas-1024x768")
		}
	}
}

// Projector mode is bigger type and another palette, and back.
func TestCanvasProjectorModeChangesTypeAndPixels(t *testing.T) {
	p := openAt(t, 1280, 800)
	before := loadPaused(p, "acks-1-lost")
	shotOff := p.viewportShot()

	frameCall(p, `setProjector(true)`)
	on := waitRedrawn(p, before.Perf.Draws)
	p.waitJS(10*time.Second, `document.getElementById("game").contentWindow.deliverylab.state().labelFontPx > 14.5`)
	on = canvasNow(p)
	assert.True(t, on.Projector)
	assert.Greater(t, on.LabelFontPx, before.LabelFontPx, "a step up")
	assert.False(t, bytes.Equal(shotOff, p.viewportShot()), "the picture changed")

	frameCall(p, `setProjector(false)`)
	off := waitRedrawn(p, on.Perf.Draws)
	assert.False(t, off.Projector)
	r := eval[map[string]any](p, `document.getElementById("game").contentWindow.deliverylab.setProjector("yes")`)
	assert.Contains(t, r, "error", "a non-boolean is refused")
}

// The canvas's words come in Chinese: setLang("zh") redraws them with the embedded glyphs.
func TestCanvasSpeaksChinese(t *testing.T) {
	p := openAt(t, 1280, 800)
	draws := canvasNow(p).Perf.Draws
	p.call(`load("acks-1-lost")`)
	p.call(`pause()`)
	p.call(`inject({"crash": "broker-1"})`) // a DOWN badge to translate
	frameCall(p, `setLang("en")`)
	en := waitRedrawn(p, draws)
	shotEn := p.viewportShot()

	frameCall(p, `setLang("zh")`)
	zh := waitRedrawn(p, en.Perf.Draws)
	assert.Equal(t, "zh", zh.Lang)
	shotZh := p.viewportShot()
	assert.False(t, bytes.Equal(shotEn, shotZh), "the Chinese canvas differs from the English one")
	require.NoError(t, os.MkdirAll(env.outDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(env.outDir, "canvas-en.png"), shotEn, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(env.outDir, "canvas-zh.png"), shotZh, 0o644))
	assert.GreaterOrEqual(t, zh.LabelFontPx, 14.0)

	r := eval[map[string]any](p, `document.getElementById("game").contentWindow.deliverylab.setLang("fr")`)
	assert.Contains(t, r, "error")
}

// A real mouse click on the middle of a lane cuts that direction of the link.
func TestCanvasClickOnALaneCutsIt(t *testing.T) {
	p := openAt(t, 1280, 800)
	p.call(`load("acks-1-lost")`)
	p.call(`pause()`)
	p.call(`seek(1500)`) // messages have been on the wire: their links are drawn
	s := p.state()
	c := canvasNow(p)
	require.NotEmpty(t, c.Links)
	// A lane whose middle is clear of every message and box.
	var lane *view.Lane
	for i, ln := range c.Links {
		m := view.Point{X: (ln.A.X + ln.B.X) / 2, Y: (ln.A.Y + ln.B.Y) / 2}
		clear := true
		for _, f := range s.InFlight {
			if f.OnCanvas && math.Hypot(f.ClientPos.X-s.CanvasClientRect.X-m.X, f.ClientPos.Y-s.CanvasClientRect.Y-m.Y) < 2*view.FlightHitRadius {
				clear = false
			}
		}
		for _, n := range s.Nodes {
			if n.Rect.Contains(m) {
				clear = false
			}
		}
		if clear && !ln.Cut {
			lane = &c.Links[i]
			break
		}
	}
	require.NotNil(t, lane, "a lane with a clear middle: %+v", c.Links)
	mid := view.Point{X: s.CanvasClientRect.X + (lane.A.X+lane.B.X)/2, Y: s.CanvasClientRect.Y + (lane.A.Y+lane.B.Y)/2}
	p.click(mid)
	want := play.Link{From: lane.From, To: lane.To}
	p.waitJS(10*time.Second, fmt.Sprintf(`window.deliverylab.state().cutLinks.some(l => l.from === %q && l.to === %q)`, want.From, want.To))
	after := canvasNow(p)
	assert.Contains(t, after.CutLinks, want)
	assert.NotContains(t, after.CutLinks, play.Link{From: lane.To, To: lane.From}, "one way only")
	for _, ln := range after.Links {
		if ln.From == want.From && ln.To == want.To {
			assert.True(t, ln.Cut, "the lane is drawn cut")
		}
	}
}

// highlight() marks nodes and a message and reports it; an empty call clears it.
func TestCanvasHighlight(t *testing.T) {
	p := openAt(t, 1280, 800)
	before := loadPaused(p, "acks-1-lost")
	shot := p.viewportShot()
	frameCall(p, `highlight({nodes: ["broker-1"], message: "p1#1"})`)
	on := waitRedrawn(p, before.Perf.Draws)
	assert.Equal(t, view.Highlight{Nodes: []string{"broker-1"}, Message: "p1#1"}, on.Highlight)
	assert.False(t, bytes.Equal(shot, p.viewportShot()), "the glow is drawn")
	frameCall(p, `highlight()`)
	off := waitRedrawn(p, on.Perf.Draws)
	assert.True(t, off.Highlight.Empty())
}

// The boxes are painted again whenever a node changes (a log grows, a row is written), the
// lanes under them only when a link appears, is cut or moves: once every link of a run has
// been drawn, seeking through it repaints the boxes at every stop and the lanes at none.
func TestCanvasLanesAreNotRepaintedWithTheBoxes(t *testing.T) {
	p := openEn(t)
	loadPaused(p, "acks-1-lost")
	stops := func(from canvasState) canvasState {
		// Stops before the end: by 16 s the page has made the canvas shorter (and moved every lane).
		for _, ms := range []int{4000, 8000, 12000} {
			p.call(fmt.Sprintf(`seek(%d)`, ms))
			from = waitRedrawn(p, from.Perf.Draws)
		}
		return from
	}
	// The first pass draws each link as it first carries a message.
	base := stops(canvasNow(p))
	require.Positive(t, base.Perf.LaneRepaints)
	now := stops(base)
	assert.Equal(t, base.Links, now.Links)
	assert.GreaterOrEqual(t, now.Perf.StaticRepaints-base.Perf.StaticRepaints, int64(3), "the boxes changed at every stop")
	assert.Equal(t, base.Perf.LaneRepaints, now.Perf.LaneRepaints, "the lanes did not")
}
