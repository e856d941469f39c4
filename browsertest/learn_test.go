package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// neverSettlesScene is the CLI's event-limit scene (auto-commit every 0 ms: it never
// settles and runs to 2,000,000 events), with stopMs as its stop.ms when above 0.
func neverSettlesScene(t testing.TB, stopMs int) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "cmd", "deliverylab", "testdata", "never-settles.yaml"))
	require.NoError(t, err)
	if stopMs > 0 {
		return strings.Replace(string(text), "seed: 1\n", fmt.Sprintf("seed: 1\nstop.ms: %d\n", stopMs), 1)
	}
	return string(text)
}

// A teacher's scene longer than the page learns at once (250,000 events): it loads at
// once, the scrubber says it is still learning how long the run lasts and grows while the
// paused canvas is not painted again for it, the page plays and answers meanwhile, and
// then the scrubber spans the whole run.
func TestALongRunIsLearnedWhileThePagePlays(t *testing.T) {
	p := open(t)
	p.call(`load("acks-1-lost")`)
	p.call(fmt.Sprintf(`loadSource(%s, "long.yaml")`, strconv.Quote(neverSettlesScene(t, 40000))))
	first := eval[map[string]any](p, `window.deliverylab.state().timeline`)
	require.Equal(t, true, first["learning"], "the first frame's timeline is still being learned")
	p.waitJS(10*time.Second, `document.getElementById("length").dataset.learning === "true"`)
	assert.Contains(t, eval[string](p, `document.getElementById("length").textContent`), "learning how long the run lasts")

	before := p.state()
	p.waitTicks(before.Ticks, 6)
	after := p.state()
	require.True(t, after.Timeline.Learning, "still learning six ticks on (this test needs a longer scene)")
	assert.Greater(t, after.Timeline.LengthMs, before.Timeline.LengthMs, "the scrubber grows")
	assert.Equal(t, before.Perf.Draws, after.Perf.Draws, "learning alone does not paint the paused canvas again")

	p.call(`play()`)
	p.waitJS(60*time.Second, `!window.deliverylab.state().timeline.learning`)
	st := p.state()
	assert.Equal(t, int64(40000), st.Timeline.LengthMs)
	assert.Positive(t, st.NowMs, "the run played while its length was learned")
	p.waitJS(10*time.Second, `document.getElementById("length").dataset.learning === "false"`)
	assert.Equal(t, " / 40000 ms", eval[string](p, `document.getElementById("length").textContent`))
	p.checkHealthy()
}

// BenchmarkLearningARunToTheEventLimit: a teacher's scene that runs to the 2,000,000-event
// limit, put on the page: how long the page stops answering at most while it learns the
// run's length (issue 22: ≤ 100 ms) — the load itself, which learns what a frame allows,
// and then the longest the page's one thread was busy: a message the page posts itself
// 2 ms after it handled the last, and the longest time between two of them (an
// overestimate by those 2 ms and a timer's slack: a click waits no longer) — and how long
// learning it takes. The longest wait between two animation frames is reported too: it
// also counts the frames the browser itself is late to show (headless Chromium draws
// with software GL, and after any load, a shipped scene's too, it is late once by a
// quarter of a second while the page's thread is idle and answers).
func BenchmarkLearningARunToTheEventLimit(b *testing.B) {
	text := neverSettlesScene(b, 0)
	p := open(b)
	for range b.N {
		p.call(`load("acks-1-lost")`)
		res := evalAsync[[]float64](p, fmt.Sprintf(`new Promise(done => {
			const d = window.deliverylab;
			let waited = 0, handled = 0, learning = true;
			const probe = new MessageChannel();
			probe.port1.onmessage = () => {
				const now = performance.now();
				waited = Math.max(waited, now - handled);
				handled = now;
				if (learning) setTimeout(() => probe.port2.postMessage(0), 2);
			};
			const began = performance.now();
			d.loadSource(%s, "never-settles.yaml");
			const loadMs = performance.now() - began;
			handled = performance.now();
			probe.port2.postMessage(0);
			let last = performance.now(), gap = 0, frames = 0;
			const tick = (now) => {
				gap = Math.max(gap, now - last);
				last = now;
				frames++;
				const s = d.state();
				if (s.timeline.learning) { requestAnimationFrame(tick); return; }
				learning = false;
				done([loadMs, s.perf.updateUsMax / 1000, (performance.now() - began) / 1000, s.timeline.lengthMs, gap, frames, waited]);
			};
			requestAnimationFrame(tick);
		})`, strconv.Quote(text)))
		require.Positive(b, res[3], "the run's length was learned")
		b.ReportMetric(max(res[0], res[6]), "longest-block-ms")
		b.ReportMetric(res[0], "load-ms")
		b.ReportMetric(res[6], "longest-wait-ms")
		b.ReportMetric(res[1], "longest-update-ms")
		b.ReportMetric(res[2], "s/learn")
		b.ReportMetric(res[4], "longest-frame-gap-ms")
		b.ReportMetric(res[5], "frames")
	}
}
