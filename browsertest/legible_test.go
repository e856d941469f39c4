package browsertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resize sets the tab's viewport and waits until the canvas has followed its frame.
func resize(p *page, w, h int64) {
	p.t.Helper()
	require.NoError(p.t, p.do(chromedp.EmulateViewport(w, h)))
	p.waitJS(10*time.Second, fmt.Sprintf(`innerWidth === %d && innerHeight === %d && (() => {
		const f = document.getElementById("game"), s = window.deliverylab.state();
		return Math.abs(s.canvas.w - f.clientWidth) < 2 && Math.abs(s.canvas.h - f.clientHeight) < 2;
	})()`, w, h))
}

// box is an element's getBoundingClientRect.
type box struct{ X, Y, W, H, Bottom, Right float64 }

func rectOf(p *page, css string) box {
	p.t.Helper()
	return eval[box](p, fmt.Sprintf(`(() => {
		const r = document.querySelector(%q).getBoundingClientRect();
		return {X: r.x, Y: r.y, W: r.width, H: r.height, Bottom: r.bottom, Right: r.right};
	})()`, css))
}

// At the sizes classrooms use, the verdict and counts are in sight without scrolling and
// the canvas takes the height the controls leave.
func TestLayoutKeepsVerdictInSight(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	p.call(`runToEnd()`)
	for _, size := range [][2]int64{{1024, 768}, {1280, 800}, {1920, 1080}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			p.t = t
			resize(p, w, h)
			p.waitJS(10*time.Second, `document.getElementById("verdict").textContent === window.deliverylab.state().ledger.verdict`)
			require.Zero(t, eval[float64](p, `scrollY`), "the page is not scrolled")
			for _, css := range []string{"#verdict", "#counts", "#play", "#seek"} {
				r := rectOf(p, css)
				assert.Positive(t, r.W, "%s is shown", css)
				assert.True(t, r.Y >= 0 && r.Bottom <= float64(h) && r.Right <= float64(w), "%s %+v is inside the %dx%d viewport", css, r, w, h)
			}
			game := rectOf(p, "#game")
			assert.GreaterOrEqual(t, game.H, 0.55*float64(h), "the canvas takes most of the height: %+v", game)
			assert.LessOrEqual(t, game.Bottom, float64(h), "the canvas ends inside the viewport")
			assert.GreaterOrEqual(t, game.W, 0.55*float64(w), "the canvas takes most of the width: %+v", game)
			p.state()
			assert.InDelta(t, game.W, eval[float64](p, `window.deliverylab.state().canvas.w`), 2, "Ebiten follows its frame")
		})
	}
}

// A narrow window puts the canvas first and the scenes after it, with a compact scene
// select above the canvas.
func TestNarrowWindowPutsCanvasFirst(t *testing.T) {
	p := openEn(t)
	resize(p, 700, 900)
	game, list := rectOf(p, "#game"), rectOf(p, "#scene-list")
	assert.Less(t, game.Bottom, list.Y, "the canvas (%+v) comes before the scene list (%+v)", game, list)
	assert.GreaterOrEqual(t, game.H, 300.0)
	sel := rectOf(p, "#scene-select")
	assert.Positive(t, sel.W, "the scene select is shown")
	assert.Less(t, sel.Bottom, game.Y+1, "the scene select is above the canvas")

	// The select loads the scene it names.
	require.NoError(t, p.do(chromedp.SetValue(chromedp.CSS("#scene-select"), "acks-all-safe"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("scene-select").dispatchEvent(new Event("change"))`)))
	p.waitJS(10*time.Second, `window.deliverylab.state().scene === "acks-all-safe"`)
}

// Projector mode: the P key and the button switch it; the page gets large type and the
// canvas is told (state().projector, when the canvas supports it).
func TestProjectorMode(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	base := eval[float64](p, `parseFloat(getComputedStyle(document.body).fontSize)`)
	pressKey(p, "p")
	p.waitJS(5*time.Second, `document.body.classList.contains("projector")`)
	big := eval[float64](p, `parseFloat(getComputedStyle(document.body).fontSize)`)
	assert.GreaterOrEqual(t, big, base+4, "large type")
	assert.Equal(t, "true", eval[string](p, `document.getElementById("projector").getAttribute("aria-pressed")`))
	if eval[bool](p, `"projector" in window.deliverylab.state()`) {
		p.waitJS(5*time.Second, `window.deliverylab.state().projector === true`)
	}
	verdict := rectOf(p, "#verdict")
	assert.True(t, verdict.Y >= 0 && verdict.Bottom <= viewportH, "the verdict stays in sight: %+v", verdict)
	require.NoError(t, clickSelector(p, "#projector"))
	p.waitJS(5*time.Second, `!document.body.classList.contains("projector")`)
}

// The legend explains every badge, line and cell kind the canvas draws, in both
// languages.
func TestLegendListsEveryMark(t *testing.T) {
	p := openEn(t)
	en := eval[string](p, `document.getElementById("legend-list").textContent`)
	for _, word := range []string{"L:", "F:", "DOWN", "BLOCKED", "FENCED", "PAUSED", "cut link", "lso", "hw", "leo", "isr",
		"0:3", "COMMIT", "ABORT", "aborted", "reordered", "truncation", "committed offset", "stored more than once", "refused", "+N follower rows", "…N"} {
		assert.Contains(t, en, word)
	}
	n := eval[int](p, `document.querySelectorAll("#legend-list li .sw").length`)
	assert.Equal(t, eval[int](p, `document.querySelectorAll("#legend-list li").length`), n, "every item has a swatch")
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	zh := eval[string](p, `document.getElementById("legend-list").textContent`)
	for _, word := range []string{"高水位", "同步副本", "最后稳定位移", "提交标记", "截断", "宕机", "已暂停", "阻塞", "已隔离", "+N 行副本未显示"} {
		assert.Contains(t, zh, word)
	}
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}
