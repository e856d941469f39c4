package browsertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/wasm/view"
)

// A paused playground costs next to nothing. While awake, Update keeps ticking but
// Draw returns early, so Ebiten presents no frames; after a quiet second the frame
// loop sleeps altogether until input arrives. Playing draws again.
func TestPausedPageSleeps(t *testing.T) {
	p := open(t)
	p.call(`load("acks-1-lost")`)
	p.call(`pause()`)

	// Awake and paused, with the mouse on an empty spot: ticks but no frames.
	s := p.state()
	empty := view.Point{X: s.CanvasClientRect.X + 4, Y: s.CanvasClientRect.Y + s.CanvasClientRect.H - 4}
	require.NoError(t, p.do(chromedp.MouseEvent(chromedp.MouseMoved, empty.X, empty.Y)))
	p.waitTicks(p.state().Ticks, 5) // the frame of the load and the hover are drawn
	settled := p.state()
	p.waitTicks(settled.Ticks, 30)
	awake := p.state()
	assert.Equal(t, settled.Perf.Draws, awake.Perf.Draws, "no frame drawn while paused (%d ticks)", awake.Ticks-settled.Ticks)

	// Asleep: neither ticks nor frames while the page itself goes on rendering (its own
	// animation frames are the clock here, not a sleep). What a sleeping page costs in
	// CPU is measured by BenchmarkPausedPageCPU (make bench), not asserted.
	p.waitJS(10*time.Second, `window.deliverylab.state().asleep`)
	asleep := p.state()
	waitPageFrames(p, 60)
	after := p.state()
	assert.Equal(t, asleep.Ticks, after.Ticks, "no Update while asleep")
	assert.Equal(t, asleep.Perf.Draws, after.Perf.Draws, "no frame while asleep")

	// Input wakes it.
	require.NoError(t, p.do(chromedp.MouseEvent(chromedp.MouseMoved, empty.X+2, empty.Y)))
	p.waitTicks(after.Ticks, 2)

	p.call(`setSpeed(1)`)
	p.call(`play()`)
	p.waitTicks(p.stateNow().Ticks, 30)
	playing := p.stateNow()
	p.call(`pause()`)
	assert.Greater(t, playing.Perf.Draws, after.Perf.Draws, "playing draws frames")
	assert.Greater(t, playing.NowMs, after.NowMs, "playing advances virtual time")
	t.Logf("playing: %d frames in %d ticks, Draw %.0f µs avg", playing.Perf.Draws-after.Perf.Draws,
		playing.Ticks-after.Ticks, playing.Perf.DrawUsAvg)
}

// waitPageFrames waits until the outer page has rendered n more animation frames.
func waitPageFrames(p *page, n int) {
	eval[bool](p, fmt.Sprintf(`(() => {
		window.__frames = 0;
		const count = () => { window.__frames++; if (window.__frames < %d) requestAnimationFrame(count); };
		requestAnimationFrame(count);
		return true;
	})()`, n))
	p.waitJS(10*time.Second, fmt.Sprintf(`window.__frames >= %d`, n))
}
