package browsertest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

	// Asleep: neither ticks nor frames, and the browser is nearly idle. For some seconds
	// after the start Chromium still optimises and caches the 15 MB module in the
	// background, which is no cost of a paused page: the quietest of a few one-second
	// windows is the page's own cost.
	p.waitJS(10*time.Second, `window.deliverylab.state().asleep`)
	asleep := p.state()
	cpu := 1.0
	for range 4 {
		cpu = min(cpu, chromeCPU(t, time.Second))
	}
	after := p.state()
	t.Logf("asleep: Chromium used %.0f%% of one core; game Update %.0f µs, Draw %.0f µs avg (max %d µs)",
		cpu*100, after.Perf.UpdateUsAvg, after.Perf.DrawUsAvg, after.Perf.DrawUsMax)
	assert.Equal(t, asleep.Ticks, after.Ticks, "no Update while asleep")
	assert.Equal(t, asleep.Perf.Draws, after.Perf.Draws, "no frame while asleep")
	// A page that redraws every frame keeps about two cores busy with software GL here,
	// an idle Ebiten loop that stays awake about 15% of a core, this one about 4%.
	assert.Less(t, cpu, 0.10, "a paused page must cost next to nothing")

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

// chromeCPU is the share of one core the whole Chromium process tree used over d.
func chromeCPU(t *testing.T, d time.Duration) float64 {
	t.Helper()
	proc := chromedp.FromContext(env.browser).Browser.Process()
	require.NotNil(t, proc, "the browser process")
	start := treeCPUTicks(proc.Pid)
	time.Sleep(d) // measuring a rate needs wall time
	used := treeCPUTicks(proc.Pid) - start
	const clockTicks = 100 // USER_HZ on Linux
	return float64(used) / clockTicks / d.Seconds()
}

// treeCPUTicks sums utime+stime of pid and its descendants, from /proc.
func treeCPUTicks(root int) int64 {
	parent := map[int]int{}
	ticks := map[int]int64{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command may contain spaces: fields start after the last ')'.
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		parent[pid], ticks[pid] = ppid, ut+st
	}
	var sum int64
	for pid, tk := range ticks {
		for p := pid; p > 1; p = parent[p] {
			if p == root {
				sum += tk
				break
			}
		}
	}
	return sum
}
