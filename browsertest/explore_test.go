package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/explore"
	"deliverylab/core/play"
	"deliverylab/core/scene"
	"deliverylab/scenes"
)

// exploreState is window.deliverylabExplore.state(): the panel's figures (web/explore.js).
type exploreState struct {
	State     string    `json:"state"`
	Workers   int       `json:"workers"`
	Tasks     int       `json:"tasks"`
	Tried     int       `json:"tried"`
	Pruned    int       `json:"pruned"`
	Found     int       `json:"found"`
	Total     int       `json:"total"`
	Claim     string    `json:"claim"`
	Exhausted bool      `json:"exhausted"`
	Kinds     int       `json:"kinds"`
	Error     string    `json:"error"`
	ElapsedMs float64   `json:"elapsedMs"`
	FreeMs    []float64 `json:"freeMs"`
	Findings  []finding `json:"findings"`
}

// finding is wasm/explorer/shard's Finding as the page has it.
type finding struct {
	Kind     string         `json:"kind"`
	Verdict  string         `json:"verdict"`
	Breaks   bool           `json:"breaksClaim"`
	Messages map[string]int `json:"messages"`
	Faults   []play.Text    `json:"faults"`
	Syntax   []string       `json:"syntax"`
	Scene    string         `json:"scene"`
	File     string         `json:"file"`
}

// evalAsync is eval for an expression that gives a promise: its resolved value.
func evalAsync[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, done := context.WithTimeout(p.ctx, 60*time.Second)
	defer done()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	require.NoError(p.t, err, "evaluating %s", expr)
	return v
}

// elementShot saves a PNG of one element of the page under browsertest/out.
func (p *page) elementShot(name, css string) {
	p.t.Helper()
	ctx, done := context.WithTimeout(p.ctx, 30*time.Second)
	defer done()
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(css)))
	require.NoError(p.t, err)
	require.NoError(p.t, os.MkdirAll(env.outDir, 0o755))
	path := filepath.Join(env.outDir, name+".png")
	require.NoError(p.t, os.WriteFile(path, png, 0o644))
	p.t.Logf("screenshot: %s", path)
}

func (p *page) explore() exploreState {
	p.t.Helper()
	raw := eval[[]byte](p, `window.deliverylabExplore.state()`)
	var s exploreState
	require.NoError(p.t, json.Unmarshal(raw, &s), "explore state: %s", raw)
	return s
}

// nativeSearch is what `deliverylab explore` finds in a shipped scene.
func nativeSearch(t *testing.T, name string) explore.Result {
	t.Helper()
	data, err := scenes.Read(name)
	require.NoError(t, err)
	sc, err := scene.Parse(name+".yaml", data)
	require.NoError(t, err)
	return explore.Run(sc, explore.Options{})
}

// Find a failure, end to end: the button searches acks-1-lost in Web Workers while the
// canvas keeps playing and the keys keep working, shows its figures, finds what the
// command line finds, and a finding loads as a scene of its own, its fault listed and
// marked on the scrubber, that plays to the finding's verdict, shares as a link and saves
// as a file.
func TestFindAFailureFindsLoadsAndPlays(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	want := nativeSearch(t, "acks-1-lost")
	require.NotEmpty(t, want.Findings)
	assert.False(t, eval[bool](p, `performance.getEntriesByType("resource").some(e => e.name.includes("explore.wasm"))`),
		"the page's first load does not fetch the search")
	assert.Equal(t, "idle", p.explore().State)

	// (A search this short may end before a frame shows it running: the panel while a
	// search runs, and the page answering meanwhile, are TestFindAFailureStops's.)
	require.NoError(t, clickSelector(p, "#explore-find"))
	p.waitJS(180*time.Second, `["done", "failed"].includes(window.deliverylabExplore.state().state)`)
	x := p.explore()
	require.Equal(t, "done", x.State, "the search ends: %s", x.Error)
	t.Logf("acks-1-lost: %d schedules (%d pruned, %d found) in %.1f s, %d tasks in %d workers; natively %d schedules",
		x.Tried, x.Pruned, x.Found, x.ElapsedMs/1000, x.Tasks, x.Workers, want.Schedules)
	assert.True(t, x.Exhausted)
	assert.Equal(t, want.Schedules, x.Tried, "the page tries the schedules the command line tries")
	assert.Equal(t, want.Pruned, x.Pruned)
	assert.Equal(t, want.Found, x.Found)
	assert.Equal(t, want.Claim, x.Claim)
	require.Len(t, x.Findings, len(want.Findings))
	for _, w := range want.Findings {
		var got *finding
		for i := range x.Findings {
			if x.Findings[i].Kind == w.Verdict {
				got = &x.Findings[i]
			}
		}
		require.NotNil(t, got, "the page finds a %s", w.Verdict)
		var syntax []string
		for _, f := range w.Faults {
			syntax = append(syntax, play.SceneFaultSyntax(f))
		}
		assert.Equal(t, syntax, got.Syntax, "the %s counterexample is the command line's", w.Verdict)
		assert.Equal(t, w.Breaks, got.Breaks)
		assert.Equal(t, w.Report.Messages, got.Messages)
	}
	p.waitJS(5*time.Second, fmt.Sprintf(`document.querySelectorAll("#explore-findings button.finding").length === %d`, len(want.Findings)))
	p.waitJS(5*time.Second, `document.getElementById("explore-status").textContent.includes("every schedule tried")`)
	p.elementShot("explore-panel-found-en", "#explore-panel")

	// Load the counterexample that breaks the claim.
	var f finding
	for _, c := range x.Findings {
		if c.Breaks {
			f = c
		}
	}
	require.NotEmpty(t, f.Kind, "acks-1-lost's claim (at-most-once) is broken: a duplicate")

	// It opens as a twin of the scene: the scene as it is beside the run with its faults.
	require.NoError(t, clickSelector(p, fmt.Sprintf(`#explore-findings button.finding-twin[data-kind=%q]`, f.Kind)))
	p.waitJS(60*time.Second, `(() => { try { return `+twinB(`ready && `)+twinB(`state().source.name === "acks-1-lost-found.yaml"`)+`; } catch (e) { return false; } })()`)
	assert.Equal(t, "acks-1-lost", p.state().Scene, "A stays the scene")
	assert.Equal(t, "B · acks-1-lost-found.yaml", eval[string](p, `document.getElementById("pane-b").textContent`))
	require.NoError(t, clickSelector(p, "#twin-close"))

	require.NoError(t, clickSelector(p, fmt.Sprintf(`#explore-findings button.finding[data-kind=%q]`, f.Kind)))
	p.waitJS(10*time.Second, `window.deliverylab.state().source.name === "acks-1-lost-found.yaml"`)
	s := p.tools()
	assert.Equal(t, "own", s.Source.Kind)
	assert.Equal(t, "Found: acks=1: acknowledged, then lost", s.Title.En)
	assert.Zero(t, s.NowMs, "ready to play from the start")
	assert.Empty(t, s.FaultList, "the faults are the scene's, not the user's")

	// Its faults are listed and marked on the scrubber.
	require.Len(t, s.SceneFaults, len(f.Faults))
	p.waitJS(5*time.Second, fmt.Sprintf(`!document.getElementById("scene-faults").hidden && document.querySelectorAll("#scene-faults li").length === %d`, len(f.Faults)))
	listed := eval[string](p, `document.getElementById("scene-faults").textContent`)
	for _, ft := range f.Faults {
		assert.Contains(t, listed, ft.En)
	}
	assert.Equal(t, f.Syntax[0], eval[string](p, `document.querySelector("#scene-faults li").dataset.syntax`))
	p.waitJS(5*time.Second, fmt.Sprintf(`document.querySelectorAll("#marks .mark-scene-fault").length === %d`, len(f.Faults)))
	assert.True(t, eval[bool](p, `document.querySelector("#explore-findings button.finding[aria-current=true]") !== null`))
	assert.False(t, eval[bool](p, `document.getElementById("explore-loaded").hidden`))

	// Save as scene: the finding's scene file, named after it.
	assert.Equal(t, f.File, eval[string](p, `document.getElementById("explore-save").download`))
	saved := evalAsync[string](p, `fetch(document.getElementById("explore-save").href).then(r => r.text())`)
	assert.Equal(t, f.Scene, saved)

	// Play it, then on to the end with the page's Run to end (at ×100 the canvas of
	// headless Chromium's software GL takes over a minute to get there): the page's
	// verdict is the finding's.
	p.call("setSpeed(100)")
	require.NoError(t, clickSelector(p, "#explore-play"))
	p.waitJS(10*time.Second, `window.deliverylab.state().playing && window.deliverylab.state().nowMs > 1000`)
	assert.Less(t, rectOf(p, "#game").Y, float64(viewportH)/2, "Play brought the canvas into sight")
	require.NoError(t, clickSelector(p, "#run-end"))
	p.waitJS(60*time.Second, `window.deliverylab.state().ended`)
	s = p.tools()
	assert.Equal(t, f.Verdict, s.Ledger.Verdict, "it plays to the finding's verdict")
	assert.Equal(t, f.Messages, s.Ledger.Counts)
	p.waitJS(5*time.Second, fmt.Sprintf(`document.getElementById("verdict").dataset.verdict === %q`, f.Verdict))
	p.waitJS(5*time.Second, `[...document.querySelectorAll("#scene-faults li")].every(li => li.dataset.done === "true")`)
	p.screenshot("explore-loaded-en")
	p.elementShot("explore-panel-loaded-en", "#explore-panel")
	p.elementShot("explore-story-loaded-en", ".story")
	p.elementShot("explore-scrubber-loaded-en", ".scrubber")

	// Chinese: the panel and the fault list follow.
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.getElementById("explore-find").textContent === "寻找反例"`)
	p.waitJS(5*time.Second, fmt.Sprintf(`document.getElementById("scene-faults").textContent.includes(%q)`, f.Faults[0].Zh))
	assert.Contains(t, eval[string](p, `document.getElementById("explore-status").textContent`), "每组故障都试过了")
	assert.Contains(t, eval[string](p, `document.getElementById("explore-findings").textContent`), "打破了场景的保证")
	p.elementShot("explore-panel-loaded-zh", "#explore-panel")
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))

	// On a projector the panel stays, in large type.
	p.call("setProjector(true)")
	p.waitJS(5*time.Second, `document.body.classList.contains("projector")`)
	assert.Positive(t, rectOf(p, "#explore-panel").W, "the panel is shown in projector mode")
	assert.GreaterOrEqual(t, eval[float64](p, `parseFloat(getComputedStyle(document.querySelector("#explore-findings .finding-faults")).fontSize)`), 16.0)
	p.elementShot("explore-panel-projector-en", "#explore-panel")
	p.call("setProjector(false)")

	// Copy link: the address carries the found scene, and opens it elsewhere.
	require.NoError(t, clickSelector(p, "#explore-share"))
	p.waitJS(5*time.Second, `!document.getElementById("share-url").hidden && location.hash.startsWith("#v1.")`)
	link := eval[string](p, `location.hash`)
	q := openTools(t, "/"+link)
	q.waitJS(10*time.Second, `window.deliverylab.state().source.name === "acks-1-lost-found.yaml"`)
	got := q.tools()
	assert.Equal(t, s.SceneFaults, got.SceneFaults, "the link's run has the finding's faults, as far as it went")
	q.call("runToEnd()")
	assert.Equal(t, f.Verdict, q.tools().Ledger.Verdict)
}

// Stop stops the search at once: the workers are gone, the figures stay as they were,
// and the button searches again.
func TestFindAFailureStops(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	// A long search: about 900 schedules.
	p.call(loadBusiestWithDefaultFaults(t))

	// The canvas plays while the search runs: its frames must keep coming.
	p.call("setSpeed(0.1)")
	p.call("play()")
	ticks := p.stateNow().Ticks
	require.NoError(t, clickSelector(p, "#explore-find"))
	p.waitJS(60*time.Second, `(() => { const s = window.deliverylabExplore.state(); return s.state === "running" && s.tried > 0 || s.state === "failed"; })()`)
	p.elementShot("explore-panel-running-en", "#explore-panel")
	x := p.explore()
	require.Equal(t, "running", x.State, "the search runs: %s", x.Error)
	assert.Positive(t, x.Total)
	p.waitJS(5*time.Second, `/schedules tried of at most \d+/.test(document.getElementById("explore-status").textContent)`)
	assert.True(t, eval[bool](p, `!document.getElementById("explore-stop").disabled && document.getElementById("explore-find").disabled`))

	// The page answers while the workers search: frames come, and a key pauses the run.
	p.waitJS(30*time.Second, fmt.Sprintf(`window.deliverylab.state().ticks >= %d && window.deliverylabExplore.state().state === "running"`, ticks+20))
	pressKey(p, " ")
	p.waitJS(5*time.Second, `!window.deliverylab.state().playing`)
	require.Equal(t, "running", p.explore().State, "the key was answered during the search")
	t.Logf("during the search: %d frames (game updates) so far", p.stateNow().Ticks-ticks)

	require.NoError(t, clickSelector(p, "#explore-stop"))
	p.waitJS(5*time.Second, `window.deliverylabExplore.state().state === "stopped"`)
	x = p.explore()
	assert.Less(t, x.Tried, x.Total, "stopped before the end")
	p.waitJS(5*time.Second, `document.getElementById("explore-status").textContent.startsWith("Stopped after")`)
	assert.True(t, eval[bool](p, `!document.getElementById("explore-find").disabled && document.getElementById("explore-stop").hidden`))

	// Nothing more comes: a worker still searching would post its progress every 100 ms.
	// The game's frames stand in for a clock.
	p.call("play()")
	ticks = p.stateNow().Ticks
	p.waitTicks(ticks, 30)
	assert.Equal(t, x.Tried, p.explore().Tried, "the figures stand still after Stop")

	// Loading another scene clears the panel; the button searches that one.
	p.call(`load("acks-0-vanish")`)
	p.waitJS(5*time.Second, `window.deliverylabExplore.state().state === "idle" && document.querySelectorAll("#explore-findings li").length === 0`)
	require.NoError(t, clickSelector(p, "#explore-find"))
	p.waitJS(120*time.Second, `["done", "failed"].includes(window.deliverylabExplore.state().state)`)
	x = p.explore()
	require.Equal(t, "done", x.State, x.Error)
	assert.Equal(t, nativeSearch(t, "acks-0-vanish").Schedules, x.Tried)
}

// When the search cannot start, the panel says why in the page's language, and the
// button tries again; a scene the search cannot read says why, at its line and key, and
// nothing crashes (the worker is given a broken scene directly).
func TestFindAFailureBadSceneSaysWhy(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	require.NoError(t, p.do(evalVoid(`window.realFetch = window.fetch;
		window.fetch = (url, ...rest) => String(url).includes("explore.wasm") ? Promise.resolve(new Response("", { status: 404 })) : window.realFetch(url, ...rest);`)))
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	require.NoError(t, clickSelector(p, "#explore-find"))
	p.waitJS(10*time.Second, `window.deliverylabExplore.state().state === "failed"`)
	p.waitJS(5*time.Second, `!document.getElementById("explore-error").hidden`)
	assert.Contains(t, eval[string](p, `document.getElementById("explore-error").textContent`), "无法加载搜索程序（explore.wasm）：explore.wasm: HTTP 404")
	p.elementShot("explore-panel-failed-zh", "#explore-panel")
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
	p.waitJS(5*time.Second, `document.getElementById("explore-error").textContent.startsWith("Could not load the search (explore.wasm): ")`)
	require.NoError(t, p.do(evalVoid(`window.fetch = window.realFetch`)))
	require.NoError(t, clickSelector(p, "#explore-find"))
	p.waitJS(60*time.Second, `window.deliverylabExplore.state().tried > 0`)
	assert.True(t, eval[bool](p, `document.getElementById("explore-error").hidden`), "the next press searches")
	require.NoError(t, clickSelector(p, "#explore-stop"))

	data, err := scenes.Read("acks-1-lost")
	require.NoError(t, err)
	broken := strings.Replace(string(data), "    send:", "    sendd:", 1)
	msg := evalAsync[map[string]any](p, fmt.Sprintf(`(async () => {
		const module = await WebAssembly.compileStreaming(fetch("explore.wasm"));
		const w = new Worker("explore-worker.js");
		const first = new Promise((resolve) => { w.onmessage = (e) => resolve(JSON.parse(e.data)); });
		w.postMessage({ module, job: { file: "broken.yaml", text: %q, changes: [], seed: 1 } });
		const m = await first;
		w.terminate();
		return m;
	})()`, broken))
	assert.Equal(t, "error", msg["type"])
	assert.Contains(t, msg["error"], "unknown key")
	assert.Equal(t, "apps[0].sendd", msg["key"])
	assert.Positive(t, msg["line"])
}

// loadBusiestWithDefaultFaults is the page call that loads the busiest shipped scene
// (exactly-once-needs-read-committed, the most events a run) with its explore block taken
// out, so that Find a failure tries the default faults, as for a teacher's own scene
// without one: a long search.
func loadBusiestWithDefaultFaults(t testing.TB) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "scenes", busiest+".yaml"))
	require.NoError(t, err)
	block := regexp.MustCompile(`(?ms)^explore:.*?\n(expect:)`)
	require.True(t, block.Match(src), "the explore block just before expect")
	text, err := json.Marshal(string(block.ReplaceAll(src, []byte("$1"))))
	require.NoError(t, err)
	return fmt.Sprintf(`loadSource(%s, %q)`, text, busiest+"-default-faults.yaml")
}

const busiest = "exactly-once-needs-read-committed"
