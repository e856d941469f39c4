package browsertest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chromedp/chromedp"

	"deliverylab/wasm/view"
)

// flinkJobScene is a keyed Flink job, totals, between orders and out, with no fault of
// its own.
const flinkJobScene = `title: {en: "a keyed Flink job", zh: "一个按键分区的 Flink 作业"}
seed: 1
cluster:
  brokers: 3
  config: {min.insync.replicas: 2}
  topics:
    - {name: orders, partitions: 2, replication.factor: 3}
    - {name: out, partitions: 1, replication.factor: 3}
apps:
  - producer: p1
    send: {topic: orders, count: 10, interval.ms: 200, value: "{n}"}
  - job: totals
    keyed: true
    checkpointing: {interval.ms: 1000, mode: EXACTLY_ONCE}
    restart.delay.ms: 500
    source: {topic: orders, parallelism: 2}
    parallelism: 2
    operator: map
    sink:
      kafka: {topic: out, delivery.guarantee: NONE}
  - consumer: audit
    group: audit
    topics: [out]
    config: {enable.auto.commit: false, auto.offset.reset: earliest, isolation.level: read_committed}
`

// partClientRect is where a part of a job is in the viewport.
func (p *page) partClientRect(node, part string) view.Rect {
	p.t.Helper()
	r := eval[view.Rect](p, fmt.Sprintf(`(() => { const s = window.deliverylab.state();
		const n = s.nodes.find(n => n.name === %q); const r = n.partRects[%q];
		return {x: r.x + s.canvasClientRect.x, y: r.y + s.canvasClientRect.y, w: r.w, h: r.h}; })()`, node, part))
	require.Positive(p.t, r.W, "%s/%s has a box", node, part)
	return r
}

func (p *page) partRunning(node, part string) bool {
	return eval[bool](p, fmt.Sprintf(`window.deliverylab.state().nodes.find(n => n.name === %q).parts.find(p => p.name === %q).running`, node, part))
}

// A Flink job on the canvas: a right-click on a subtask offers its faults, a click
// crashes it (a task failure), and its region comes back.
func TestFlinkJobSubtaskFaults(t *testing.T) {
	p := openEn(t)
	src, err := json.Marshal(flinkJobScene)
	require.NoError(t, err)
	p.call(fmt.Sprintf(`loadSource(%s, "flink-job.yaml")`, src))
	p.call("seek(1001)")
	p.waitTicks(p.stateNow().Ticks, 3)
	p.viewportScreenshot("flink-job-en")
	rect := p.partClientRect("totals", "map-0")

	items := p.openMenu(rect.Center(), "node")
	var faults []string
	for _, it := range items {
		faults = append(faults, it.Fault)
		// nothing to resume until the subtask is paused
		assert.Equal(t, strings.HasPrefix(it.Fault, "{resume"), it.Disabled, "%+v", it)
	}
	joined := strings.Join(faults, "\n")
	assert.Contains(t, joined, "{pause: totals/map-0}")
	assert.Contains(t, joined, "{crash: totals/map-0}")
	assert.Contains(t, joined, "event: processed}, crash: totals/map-0}")
	assert.Contains(t, joined, "{when: {node: totals/jobmanager, event: checkpoint-triggered}, crash: totals/map-0}")
	p.viewportScreenshot("flink-job-menu-en")
	require.NoError(t, p.do(chromedp.KeyEvent(kb.Escape)))
	p.waitJS(5*time.Second, `document.getElementById("fault-menu").hidden`)

	require.True(t, p.partRunning("totals", "map-0"))
	p.click(rect.Center())
	p.waitJS(5*time.Second, `window.deliverylab.state().lastClick.fault.includes("totals/map-0")`)
	assert.False(t, p.partRunning("totals", "map-0"), "the click crashed map-0")
	p.waitTicks(p.stateNow().Ticks, 3)
	p.viewportScreenshot("flink-job-failed-en")
	p.call("seek(2000)")
	p.waitJS(5*time.Second, `window.deliverylab.state().nowMs >= 2000`)
	assert.True(t, p.partRunning("totals", "map-0"), "its region restarted")
	p.checkHealthy()
}
