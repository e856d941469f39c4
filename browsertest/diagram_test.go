package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The diagram button saves the run so far as an SVG file, through the browser's own
// download; the file opens in a tab of its own and shows every node of the scene, and
// the highlighted message's arrows stand out.
func TestDiagramExportOpensAndShowsEveryNode(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	p.call(`runToEnd()`)
	nodes := p.state().Nodes
	require.NotEmpty(t, nodes)
	// The teacher selects the lost message in the ledger: the page seeks to its fate
	// and highlights it.
	var lost string
	for _, msg := range p.more().Ledger.Messages {
		if msg.Fate == "lost" {
			lost = msg.ID
		}
	}
	require.NotEmpty(t, lost, "acks-1-lost loses a message")
	require.NoError(t, clickSelector(p, fmt.Sprintf(`#ledger-body tr[data-id=%q]`, lost)))
	p.waitJS(10*time.Second, fmt.Sprintf(`window.deliverylab.state().highlight.message === %q`, lost))

	name, data := downloadByClick(t, p, "#save-diagram")
	assert.Equal(t, "acks-1-lost-diagram.svg", name, "the file is named after the scene")
	dir := t.TempDir()
	require.Contains(t, string(data[:min(len(data), 200)]), "<svg")
	named := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(named, data, 0o644))

	// Opened on its own, as a teacher would open it: every node has its line.
	tab, cancel := chromedp.NewContext(env.browser)
	defer cancel()
	ctx, stop := context.WithTimeout(tab, 20*time.Second)
	defer stop()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+named)))
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("g.node")].map(g => g.dataset.node)`))
	require.NoError(t, err)
	highlighted, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('g.msg[data-label=%q] line[stroke="#e6007e"]').length`, lost)))
	require.NoError(t, err)
	for _, n := range nodes {
		assert.Contains(t, names, n.Name, fmt.Sprintf("%s has its line in the diagram", n.Name))
	}
	assert.Positive(t, highlighted, "the highlighted message's arrows stand out")
	assert.Equal(t, "Save diagram (SVG)", eval[string](p, `document.getElementById("save-diagram").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	assert.Equal(t, "保存时空图（SVG）", eval[string](p, `document.getElementById("save-diagram").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}

// Save run (JSON) downloads the run so far: the outcome the page shows, every trace line
// (the page itself keeps only a tail), the protocol points, and the link that opens it.
func TestSaveRunDownloadsTheRunAsJSON(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	p.call(`runToEnd()`)
	st := p.state()
	name, data := downloadByClick(t, p, "#save-run")
	assert.Equal(t, "acks-1-lost-run.json", name)
	var run struct {
		Scene  string `json:"scene"`
		Link   string `json:"link"`
		NowMs  int64  `json:"nowMs"`
		Report struct {
			Verdict  string         `json:"verdict"`
			Messages map[string]int `json:"messages"`
		} `json:"report"`
		Trace        []string         `json:"trace"`
		Observations []map[string]any `json:"observations"`
	}
	require.NoError(t, json.Unmarshal(data, &run), "the file is JSON")
	assert.Equal(t, "acks-1-lost", run.Scene)
	assert.Equal(t, st.NowMs, run.NowMs)
	assert.Equal(t, "at-most-once", run.Report.Verdict)
	assert.Equal(t, 1, run.Report.Messages["lost"])
	assert.Greater(t, len(run.Trace), 40, "every trace line, not the page's tail")
	assert.NotEmpty(t, run.Observations)
	assert.Equal(t, eval[string](p, `window.deliverylab.shareLink().hash`), run.Link, "the link opens this run")
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	assert.Equal(t, "保存运行（JSON）", eval[string](p, `document.getElementById("save-run").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}

// downloadByClick clicks the element with a real mouse click and returns the name the
// page gave the file it downloads, and the file's bytes, as the browser saved them.
func downloadByClick(t *testing.T, p *page, css string) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	done, suggested := make(chan string, 1), make(chan string, 1)
	chromedp.ListenBrowser(p.ctx, func(ev any) {
		if e, ok := ev.(*browser.EventDownloadWillBegin); ok {
			select {
			case suggested <- e.SuggestedFilename:
			default:
			}
		}
		if e, ok := ev.(*browser.EventDownloadProgress); ok && e.State == browser.DownloadProgressStateCompleted {
			select {
			case done <- e.GUID:
			default:
			}
		}
	})
	events := true
	_, err := chromedp.CallBrowser(p.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &events})
	require.NoError(t, err)
	require.NoError(t, clickSelector(p, css))
	var guid string
	select {
	case guid = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("clicking %s downloaded nothing", css)
	}
	// The browser names a download by its id; the page's name comes with the event.
	data, err := os.ReadFile(filepath.Join(dir, guid))
	require.NoError(t, err)
	return <-suggested, data
}

// The diagram view on the page: opened with a click, it draws the whole run with every
// node; its red line follows the scrubber; a click on the picture seeks to the moment
// clicked; the switch draws the background traffic too; in Chinese too.
func TestDiagramViewFollowsTheScrubberAndSeeks(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	nodes := len(p.state().Nodes)
	require.NoError(t, clickSelector(p, "#diagram-h"))
	p.waitJS(10*time.Second, fmt.Sprintf(`document.querySelectorAll("#diagram-box svg g.node").length === %d`, nodes))
	assert.Zero(t, eval[int](p, `document.querySelectorAll('#diagram-box g.msg[data-background="true"]').length`))

	// yOf maps a time to the picture's height through the axis the SVG says.
	const yOf = `((ms) => { const k = document.querySelector("#diagram-box svg").getAttribute("data-axis").split(";").map(s => s.split(",").map(Number));
		for (let i = 1; i < k.length; i++) if (ms <= k[i][0]) return k[i-1][1] + (ms - k[i-1][0]) / (k[i][0] - k[i-1][0]) * (k[i][1] - k[i-1][1]);
		return k[k.length-1][1]; })`
	p.call(`seek(1500)`)
	p.waitJS(10*time.Second, `document.getElementById("diagram-panel").dataset.nowMs === "1500"`)
	assert.InDelta(t, eval[float64](p, yOf+`(1500)`), eval[float64](p, `+document.querySelector("#diagram-box line.now").getAttribute("y1")`), 0.5)

	// A real click where 1000 ms is drawn.
	at := eval[map[string]float64](p, `(() => { const svg = document.querySelector("#diagram-box svg"); const box = document.getElementById("diagram-box");
		box.scrollIntoView({block: "center"});
		const scale = svg.getBoundingClientRect().height / Number(svg.getAttribute("height"));
		box.scrollTop = Math.max(0, `+yOf+`(1000) * scale - box.clientHeight / 2);
		const pt = new DOMPoint(30, `+yOf+`(1000)).matrixTransform(svg.getScreenCTM());
		return {x: pt.x, y: pt.y}; })()`)
	ctx, done := context.WithTimeout(p.ctx, 10*time.Second)
	defer done()
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseClickXY(at["x"], at["y"])))
	p.waitJS(10*time.Second, `Math.abs(window.deliverylab.state().nowMs - 1000) <= 20`)

	require.NoError(t, clickSelector(p, "#diagram-background"))
	p.waitJS(10*time.Second, `document.querySelectorAll('#diagram-box g.msg[data-background="true"]').length > 0`)
	p.elementShot("diagram-view-en", "#diagram-panel")
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.getElementById("diagram-h").textContent === "运行时空图"`)
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}
