package browsertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The page's own buttons drive the game: play, pause, step, speed and restart.
func TestPageControlsDriveTheGame(t *testing.T) {
	p := open(t)
	p.call(`load("acks-1-lost")`)
	p.call(`setSpeed(1)`) // the page starts slower (×½); the wait below counts on ×1
	require.NoError(t, clickSelector(p, "#play"))
	p.waitJS(10*time.Second, `window.deliverylab.state().nowMs > 20`)
	assert.True(t, p.stateNow().Playing)
	p.waitJS(5*time.Second, `document.getElementById("play").textContent === "Pause"`)

	require.NoError(t, clickSelector(p, "#play"))
	p.waitJS(5*time.Second, `!window.deliverylab.state().playing`)
	paused := p.state().NowMs

	require.NoError(t, clickSelector(p, "#step"))
	p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().nowMs >= %d`, paused))
	assert.False(t, p.state().Playing, "stepping leaves the run paused")

	ctx, done := context.WithTimeout(p.ctx, 10*time.Second)
	defer done()
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#speed"), "5"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("speed").dispatchEvent(new Event("change"))`)))
	assert.Equal(t, 5.0, p.state().Speed)

	require.NoError(t, clickSelector(p, "#restart"))
	p.waitJS(5*time.Second, `window.deliverylab.state().nowMs === 0`)
	p.waitJS(5*time.Second, `document.getElementById("time").textContent === "0 ms"`)
}

// Bad input comes back as {error: "..."} with a message for a person, never as a crash.
func TestBridgeReportsErrors(t *testing.T) {
	p := open(t)
	p.call(`load("acks-1-lost")`)
	for _, expr := range []string{
		`load("no-such-scene")`,
		`load(42)`,
		`inject("{not a fault")`,
		`inject({drop: "message", id: 999999})`,
		`inject()`,
		`seek("soon")`,
		`seek(-5)`,
		`setSpeed(0)`,
		`setSpeed(1e9)`,
	} {
		res := eval[map[string]any](p, "window.deliverylab."+expr)
		msg, _ := res["error"].(string)
		assert.NotEmpty(t, msg, "%s returns an error", expr)
		t.Logf("%s -> %q", expr, msg)
	}
	s := p.state()
	assert.Equal(t, "acks-1-lost", s.Scene, "a failed load keeps the scene that was loaded")
	assert.Empty(t, s.Faults)

	// The page's fault box shows the same errors.
	ctx, done := context.WithTimeout(p.ctx, 10*time.Second)
	defer done()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#fault"), `{"crash": "nobody"}`),
		chromedp.Click(chromedp.CSS("#inject-form button"), chromedp.NodeVisible),
	))
	p.waitJS(5*time.Second, `document.getElementById("fault-error").textContent !== ""`)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`document.getElementById("fault").value = ""`),
		chromedp.SendKeys(chromedp.CSS("#fault"), `{"crash": "broker-2"}`),
		chromedp.Click(chromedp.CSS("#inject-form button"), chromedp.NodeVisible),
	))
	p.waitJS(5*time.Second, `document.getElementById("fault-error").textContent === "" &&
		window.deliverylab.state().faults.length === 1`)
	b2, _ := p.state().node(t, "broker-2")
	assert.False(t, b2.Up)
}
