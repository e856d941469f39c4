package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"deliverylab/core/play"
	"deliverylab/wasm/view"
)

// Viewport of every tab: a laptop screen.
const viewportW, viewportH = 1280, 900

// page is one tab with the playground loaded.
type page struct {
	t      testing.TB
	ctx    context.Context
	cancel context.CancelFunc // closes the tab (also done when the test ends)
	closed bool

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// pageState is what window.deliverylab.state() returns: play.State plus geometry.
type pageState struct {
	play.State
	Nodes []struct {
		play.NodeState
		Rect       view.Rect `json:"rect"`
		ClientRect view.Rect `json:"clientRect"`
	} `json:"nodes"`
	InFlight         []flight  `json:"inFlight"`
	CanvasClientRect view.Rect `json:"canvasClientRect"`

	LastError struct {
		Seq  int    `json:"seq"`
		Text string `json:"text"`
	} `json:"lastError"`
	LastClick struct {
		Tick  int64      `json:"tick"`
		At    view.Point `json:"at"`
		Fault string     `json:"fault"`
	} `json:"lastClick"`
	Hover struct {
		Node   string `json:"node"`
		Flight int64  `json:"flight"`
	} `json:"hover"`

	Loaded bool    `json:"loaded"`
	Asleep bool    `json:"asleep"`
	View   uint64  `json:"view"`
	Ticks  int64   `json:"ticks"`
	Speed  float64 `json:"speed"`
	Perf   struct {
		Draws       int64   `json:"draws"`
		UpdateUsAvg float64 `json:"updateUsAvg"`
		UpdateUsMax int64   `json:"updateUsMax"`
		DrawUsAvg   float64 `json:"drawUsAvg"`
		DrawUsMax   int64   `json:"drawUsMax"`
	} `json:"perf"`
}

// flight is a message on the wire as state() reports it.
type flight struct {
	play.Flight
	OnCanvas  bool       `json:"onCanvas"`
	ClientPos view.Point `json:"clientPos"`
}

// flight returns the first message in flight that matches.
func (s pageState) flight(t *testing.T, match func(flight) bool) flight {
	t.Helper()
	for _, f := range s.InFlight {
		if match(f) {
			return f
		}
	}
	t.Fatalf("no such message in flight at %d ms", s.NowMs)
	return flight{}
}

// node returns the named node of s.
func (s pageState) node(t *testing.T, name string) (play.NodeState, view.Rect) {
	t.Helper()
	for _, n := range s.Nodes {
		if n.Name == name {
			return n.NodeState, n.ClientRect
		}
	}
	t.Fatalf("no node %q in state (nodes: %v)", name, s.names())
	return play.NodeState{}, view.Rect{}
}

func (s pageState) names() []string {
	var out []string
	for _, n := range s.Nodes {
		out = append(out, n.Name)
	}
	return out
}

// leaderOf is the broker whose replica of partition leads, or "".
func (s pageState) leaderOf(partition string) string {
	for _, n := range s.Nodes {
		for _, r := range n.Partitions {
			if r.Partition == partition && r.Leader && n.Up {
				return n.Name
			}
		}
	}
	return ""
}

// open starts a tab, loads the page and waits for the game. When the test ends it fails
// the test on any console error, uncaught exception or crash of the page.
func open(t testing.TB) *page {
	t.Helper()
	requireEnv(t)
	tab, cancel := chromedp.NewContext(env.browser)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(tab), "opening a tab")
	p := &page{t: t, ctx: tab, cancel: cancel}
	messages := chromedp.Console(tab) // subscribed now, before the navigation
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, m)
			p.mu.Unlock()
		}
	}()
	t.Cleanup(p.checkHealthy)

	ctx, done := context.WithTimeout(tab, 30*time.Second)
	defer done()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(viewportW, viewportH),
		chromedp.Navigate(env.baseURL+"/"),
	))
	p.waitJS(60*time.Second, `window.deliverylabCrashed || (window.deliverylab && window.deliverylab.ready)`)
	p.failIfCrashed()
	// The shell must paint long before the game is ready; both are logged, not asserted
	// (timings on a shared CI machine vary too much).
	times := eval[[]float64](p, `[(performance.getEntriesByName("first-contentful-paint")[0] || {startTime: -1}).startTime, performance.now()]`)
	t.Logf("page: first paint at %.0f ms, game ready by %.0f ms", times[0], times[1])
	return p
}

// close checks the page is healthy and closes its tab before the test ends.
func (p *page) close() {
	p.checkHealthy()
	p.closed = true
	p.cancel()
}

// checkHealthy fails the test on a crash flag or on any console error or exception.
func (p *page) checkHealthy() {
	if p.closed {
		return // checked when it was closed
	}
	p.failIfCrashed()
	p.mu.Lock()
	defer p.mu.Unlock()
	var bad []string
	for _, m := range p.console {
		if m.Type == chromedp.ConsoleError || m.IsException() || strings.HasPrefix(m.Text, "panic:") {
			bad = append(bad, fmt.Sprintf("%s %s:%d: %s", m.Type, m.URL, m.Line+1, m.Text))
		}
	}
	if len(bad) > 0 {
		p.t.Errorf("the page logged errors:\n%s", strings.Join(bad, "\n"))
	}
}

func (p *page) failIfCrashed() {
	p.t.Helper()
	ctx, done := context.WithTimeout(p.ctx, 10*time.Second)
	defer done()
	crashed, err := chromedp.Run(ctx, chromedp.Evaluate[string](`String(window.deliverylabCrashed || "")`))
	if err != nil {
		p.t.Errorf("reading the crash flag: %v", err)
		return
	}
	if crashed != "" {
		p.t.Fatalf("the page crashed: %s\nconsole:\n%s", crashed, p.consoleText())
	}
}

func (p *page) consoleText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, m := range p.console {
		fmt.Fprintf(&b, "  %s: %s\n", m.Type, m.Text)
	}
	return b.String()
}

// do runs actions in the tab with a timeout.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) error {
	ctx, done := context.WithTimeout(p.ctx, 10*time.Second)
	defer done()
	return chromedp.Do(ctx, actions...)
}

// eval evaluates a JS expression and decodes its JSON value into T.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, done := context.WithTimeout(p.ctx, 30*time.Second)
	defer done()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(p.t, err, "evaluating %s", expr)
	return v
}

// call runs window.deliverylab.<expr> and fails the test on an {error} result.
func (p *page) call(expr string) map[string]any {
	p.t.Helper()
	res := eval[map[string]any](p, "window.deliverylab."+expr)
	if msg, ok := res["error"]; ok {
		p.t.Fatalf("deliverylab.%s: %v", expr, msg)
	}
	return res
}

// state reads window.deliverylab.state() once the page's DOM shows it, so that the
// page coordinates in it hold until something else changes. The wait is generous: after
// a run to the end the page re-renders a long ledger, and a loaded CI machine with
// software GL has taken more than 10 s for that.
func (p *page) state() pageState {
	p.t.Helper()
	p.waitJS(30*time.Second, `window.deliverylab.renderedView === window.deliverylab.version()`)
	return p.stateNow()
}

// stateNow reads window.deliverylab.state() at once: for a running game, whose DOM is
// always a frame behind.
func (p *page) stateNow() pageState {
	p.t.Helper()
	raw := eval[[]byte](p, `window.deliverylab.state()`)
	var s pageState
	require.NoError(p.t, json.Unmarshal(raw, &s), "state: %s", raw)
	require.True(p.t, s.Loaded, "no scene loaded: %s", raw)
	return s
}

// waitJS waits until a JS expression is truthy, for at most timeout (Poll's own limit,
// 30 s unless told, is set to it too).
func (p *page) waitJS(timeout time.Duration, expr string) {
	p.t.Helper()
	ctx, done := context.WithTimeout(p.ctx, timeout)
	defer done()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond),
		chromedp.WithPollingTimeout(timeout)))
	require.NoError(p.t, err, "waiting for %s\nconsole:\n%s", expr, p.consoleText())
}

// waitTicks waits until the game has run n more Updates than it had at ticks.
func (p *page) waitTicks(ticks int64, n int) {
	p.t.Helper()
	p.waitJS(10*time.Second, fmt.Sprintf(`window.deliverylab.state().ticks >= %d`, ticks+int64(n)))
}

// click presses the left button at a point of the viewport, holds it until the game has
// run two more Updates (Ebiten samples the button once per tick), and releases it.
func (p *page) click(at view.Point) {
	p.t.Helper()
	p.press(at, input.MouseButtonLeft)
}

// press presses a mouse button at a point of the viewport, holds it for two game ticks
// and releases it.
func (p *page) press(at view.Point, button input.MouseButton) {
	p.t.Helper()
	ctx, done := context.WithTimeout(p.ctx, 10*time.Second)
	defer done()
	require.NoError(p.t, chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseMoved, at.X, at.Y)))
	require.NoError(p.t, chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MousePressed, at.X, at.Y,
		chromedp.ButtonType(button), chromedp.ClickCount(1))))
	// Count from after the press: ticks that ran before it did not see it.
	p.waitTicks(p.stateNow().Ticks, 2)
	require.NoError(p.t, chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseReleased, at.X, at.Y,
		chromedp.ButtonType(button), chromedp.ClickCount(1))))
}

// screenshot saves a PNG of the whole page under browsertest/out and returns its path.
func (p *page) screenshot(name string) string {
	p.t.Helper()
	ctx, done := context.WithTimeout(p.ctx, 30*time.Second)
	defer done()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(p.t, err)
	require.NoError(p.t, os.MkdirAll(env.outDir, 0o755))
	path := filepath.Join(env.outDir, name+".png")
	require.NoError(p.t, os.WriteFile(path, png, 0o644))
	p.t.Logf("screenshot: %s", path)
	return path
}

// viewportShot is a PNG of what the viewport shows, for the README.
func (p *page) viewportShot() []byte {
	p.t.Helper()
	ctx, done := context.WithTimeout(p.ctx, 30*time.Second)
	defer done()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(p.t, err)
	return png
}

// clickSelector clicks a DOM element of the page with a real mouse click.
func clickSelector(p *page, css string) error {
	ctx, done := context.WithTimeout(p.ctx, 10*time.Second)
	defer done()
	return chromedp.Do(ctx, chromedp.Click(chromedp.CSS(css), chromedp.NodeVisible))
}
