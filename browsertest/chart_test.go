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

// The chart of offsets over time, under the canvas: one per partition with the log end,
// high watermark, committed offset and position; its line follows the scrubber, and a
// real click on it seeks the run to that moment; in Chinese too.
func TestChartFollowsTheScrubberAndSeeks(t *testing.T) {
	p := openEn(t)
	p.call(`load("commit-after-processing")`)
	chart := `#chart-panel svg[data-partition="orders-0"]`
	p.waitJS(10*time.Second, `!document.getElementById("chart-panel").hidden && !!document.querySelector('`+chart+`')`)
	for _, kind := range []string{"leo", "hw", "committed", "position"} {
		assert.Positive(t, eval[int](p, fmt.Sprintf(`document.querySelectorAll('%s path[data-kind=%q]').length`, chart, kind)), kind)
	}
	assert.Equal(t, "Offsets over time", eval[string](p, `document.getElementById("chart-h").textContent`))
	length := p.state().Timeline.LengthMs
	require.Positive(t, length)

	// The scrubber moves; the chart's line goes with it.
	p.call(fmt.Sprintf(`seek(%d)`, length/2))
	p.waitJS(10*time.Second, fmt.Sprintf(`document.getElementById("chart-panel").dataset.cursorMs === "%d"`, length/2))
	cursorX := eval[float64](p, `+document.querySelector('`+chart+` .chart-cursor').getAttribute("x1")`)
	plotX := eval[float64](p, `+document.querySelector('`+chart+` .chart-plot').getAttribute("x")`)
	plotW := eval[float64](p, `+document.querySelector('`+chart+` .chart-plot').getAttribute("width")`)
	assert.InDelta(t, plotX+plotW/2, cursorX, 1, "the line stands at the middle of the run")

	// A click at a quarter of the plot seeks to a quarter of the run.
	require.NoError(t, chromedp.Do(p.ctx, chromedp.ScrollIntoView(chromedp.CSS(chart))))
	box := eval[map[string]float64](p, `(() => { const r = document.querySelector('`+chart+`').getBoundingClientRect(); return {left: r.left, top: r.top, width: r.width, height: r.height}; })()`)
	scale := box["width"] / eval[float64](p, `document.querySelector('`+chart+`').viewBox.baseVal.width`)
	x := box["left"] + (plotX+plotW/4)*scale
	y := box["top"] + box["height"]/2
	ctx, done := context.WithTimeout(p.ctx, 10*time.Second)
	defer done()
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseClickXY(x, y)))
	p.waitJS(10*time.Second, fmt.Sprintf(`Math.abs(window.deliverylab.state().nowMs - %d) <= %d`, length/4, length/50+1))
	p.elementShot("chart-en", "#chart-panel")

	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.getElementById("chart-h").textContent === "偏移量随时间变化"`)
	assert.Contains(t, eval[string](p, `document.getElementById("chart-legend").textContent`), "高水位（HW）")
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}

// The ledger's transaction column, for a scene written in transactions: the retried
// message says its aborted copy, then its committed one; a scene without transactions
// has no such column.
func TestLedgerShowsTheTransactionColumn(t *testing.T) {
	p := openEn(t)
	p.call(`load("exactly-once-needs-read-committed")`)
	p.call(`runToEnd()`)
	p.waitJS(10*time.Second, `!document.getElementById("col-txn").hidden`)
	assert.Equal(t, "Transaction", eval[string](p, `document.getElementById("col-txn").textContent`))
	row := `#ledger-body td.txn[data-txn="aborted,committed"]`
	p.waitJS(5*time.Second, `!!document.querySelector('`+row+`')`)
	assert.Equal(t, "aborted → committed", eval[string](p, `document.querySelector('`+row+`').textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.querySelector('`+row+`').textContent === "已中止 → 已提交"`)
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
	p.call(`load("acks-1-lost")`)
	p.waitJS(10*time.Second, `document.getElementById("col-txn").hidden`)
}
