package browsertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/wasm/view"
)

// openEn opens the page in English: the language is remembered between tabs.
func openEn(t *testing.T) *page {
	t.Helper()
	p := open(t)
	p.call(`setLang("en")`)
	return p
}

// pressKey sends a real key press (down, char, up) to whatever has focus in the tab.
func pressKey(p *page, key string) {
	p.t.Helper()
	require.NoError(p.t, p.do(chromedp.KeyEvent(key)))
}

// clickCanvasEmpty presses and releases the mouse on an empty corner of the canvas,
// which moves the focus into the canvas frame and injects nothing.
func clickCanvasEmpty(p *page) {
	p.t.Helper()
	s := p.state()
	p.click(view.Point{X: s.CanvasClientRect.X + 4, Y: s.CanvasClientRect.Y + s.CanvasClientRect.H - 4})
	p.waitJS(5*time.Second, `document.activeElement === document.getElementById("game")`)
	require.Empty(p.t, p.state().Faults, "the empty corner injects nothing")
}

// After a click on the canvas the keys still drive the playground: the frame forwards
// them to the page.
func TestKeysWorkAfterACanvasClick(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	start := p.more().EventsRun // the events at 0 ms: the nodes boot
	clickCanvasEmpty(p)

	pressKey(p, " ")
	p.waitJS(5*time.Second, `window.deliverylab.state().playing`)
	pressKey(p, " ")
	p.waitJS(5*time.Second, `!window.deliverylab.state().playing`)

	before := p.more()
	pressKey(p, kb.ArrowRight)
	p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().eventsRun === %d`, before.EventsRun+1))
	pressKey(p, kb.ArrowRight)
	p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().eventsRun === %d`, before.EventsRun+2))
	pressKey(p, kb.ArrowLeft)
	p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().eventsRun === %d`, before.EventsRun+1))

	speed := p.state().Speed
	pressKey(p, "+")
	p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().speed > %g`, speed))
	pressKey(p, "-")
	p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().speed === %g`, speed))

	pressKey(p, "l")
	p.waitJS(5*time.Second, `document.documentElement.lang === "zh-CN" && document.getElementById("play").textContent === "播放"`)
	if eval[bool](p, `"lang" in window.deliverylab.state()`) {
		p.waitJS(5*time.Second, `window.deliverylab.state().lang === "zh"`)
	}
	pressKey(p, "l")
	p.waitJS(5*time.Second, `document.documentElement.lang === "en"`)

	pressKey(p, "r")
	p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().nowMs === 0 && window.deliverylab.state().eventsRun === %d`, start))

	assert.Equal(t, eval[string](p, `document.activeElement.id`), "game", "the focus is still in the canvas frame")
	pressKey(p, "?")
	p.waitJS(5*time.Second, `!document.getElementById("help").hidden`)
	help := eval[string](p, `document.getElementById("help-keys").textContent`)
	for _, k := range []string{"Space", "→", "←", "+", "−", "R", "L", "P", "?", "Esc"} {
		assert.Contains(t, help, k)
	}
	pressKey(p, kb.Escape)
	p.waitJS(5*time.Second, `document.getElementById("help").hidden`)
}

// A focused button does not take the Space: it plays or pauses, and the button is not
// clicked.
func TestSpaceNeverClicksAFocusedButton(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	eval[bool](p, `(() => {
		window.__stepClicks = 0;
		document.getElementById("step").addEventListener("click", () => window.__stepClicks++);
		return true;
	})()`)
	require.NoError(t, clickSelector(p, "#step")) // a real click: the button has the focus
	p.waitJS(5*time.Second, `window.__stepClicks === 1 && document.activeElement.id === "step"`)
	pressKey(p, " ")
	p.waitJS(5*time.Second, `window.deliverylab.state().playing`)
	pressKey(p, " ")
	p.waitJS(5*time.Second, `!window.deliverylab.state().playing`)
	waitPageFrames(p, 3)
	assert.Equal(t, 1, eval[int](p, `window.__stepClicks`), "Space did not click Step")

	// The fault box keeps its keys.
	require.NoError(t, p.do(chromedp.Focus(chromedp.CSS("#fault")), chromedp.KeyEvent("a b")))
	assert.Equal(t, "a b", eval[string](p, `document.getElementById("fault").value`))
	assert.False(t, p.state().Playing, "a Space typed into the fault box does not play")
}

// sendKeysTo types text into a field with real key events.
func sendKeysTo(css, text string) chromedp.Action[chromedp.Void] {
	return chromedp.SendKeys(chromedp.CSS(css), text)
}
