package browsertest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/wasm/view"
)

// rightClick presses the right button at a point of the viewport for two game ticks:
// the frame's contextmenu opens the page's fault menu.
func (p *page) rightClick(at view.Point) {
	p.t.Helper()
	p.press(at, input.MouseButtonRight)
}

// viewportScreenshot saves what the viewport shows under browsertest/out.
func (p *page) viewportScreenshot(name string) {
	p.t.Helper()
	require.NoError(p.t, os.MkdirAll(env.outDir, 0o755))
	path := filepath.Join(env.outDir, name+".png")
	require.NoError(p.t, os.WriteFile(path, p.viewportShot(), 0o644))
	p.t.Logf("screenshot: %s", path)
}

// menuItem is one entry of the open fault menu, as the DOM shows it.
type menuItem struct {
	Fault    string `json:"fault"`
	Label    string `json:"label"`
	Disabled bool   `json:"disabled"`
	Why      string `json:"why"`
	Title    string `json:"title"`
}

// openMenu right-clicks at a point and returns the menu's items.
func (p *page) openMenu(at view.Point, kind string) []menuItem {
	p.t.Helper()
	p.rightClick(at)
	p.waitJS(5*time.Second, fmt.Sprintf(`!document.getElementById("fault-menu").hidden && document.getElementById("fault-menu").dataset.target === %q`, kind))
	return eval[[]menuItem](p, `[...document.querySelectorAll('#fault-menu [role="menuitem"]')].map(b => ({
		fault: b.dataset.fault, label: b.querySelector(".menu-label").textContent,
		disabled: b.getAttribute("aria-disabled") === "true",
		why: (b.querySelector(".menu-why") || {}).textContent || "", title: b.title }))`)
}

// chooseItem clicks the menu item whose fault text contains word.
func chooseItem(t *testing.T, p *page, items []menuItem, word string) menuItem {
	t.Helper()
	for i, it := range items {
		if strings.Contains(it.Fault, word) {
			require.NoError(t, clickSelector(p, fmt.Sprintf(`#fault-menu [role="menuitem"]:nth-of-type(%d)`, i+1)))
			return it
		}
	}
	t.Fatalf("no menu item with %q in %+v", word, items)
	return menuItem{}
}

func (p *page) faultCount() int {
	return eval[int](p, `window.deliverylab.state().faultList.length`)
}

func (p *page) nodePaused(name string) bool {
	return eval[bool](p, fmt.Sprintf(`!!window.deliverylab.state().nodes.find(n => n.name === %q).paused`, name))
}

// A right-click on a broker offers its faults: pause pauses it; restart, for a broker
// that is up, is greyed with its reason and cannot be chosen; the keyboard works the
// menu too.
func TestFaultClickMenuPausesBroker(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	p.call("seek(300)")
	s := p.tools()
	_, rect := s.node(t, "broker-2")
	items := p.openMenu(rect.Center(), "node")
	require.NotEmpty(t, items)
	p.viewportScreenshot("faultclick-menu-en") // a full-page one resizes the window, which closes the menu

	var restart menuItem
	for _, it := range items {
		if strings.Contains(it.Fault, "restart") {
			restart = it
		}
	}
	require.True(t, restart.Disabled, "restart is refused for a broker that is up: %+v", items)
	assert.NotEmpty(t, restart.Why, "a greyed item says why")
	assert.Equal(t, restart.Why, restart.Title)
	faults := p.faultCount()
	for i, it := range items {
		if it.Disabled {
			require.NoError(t, clickSelector(p, fmt.Sprintf(`#fault-menu [role="menuitem"]:nth-of-type(%d)`, i+1)))
			break
		}
	}
	assert.Equal(t, faults, p.faultCount(), "a greyed item injects nothing")
	assert.False(t, eval[bool](p, `document.getElementById("fault-menu").hidden`), "and leaves the menu open")

	chooseItem(t, p, items, "pause")
	p.waitJS(5*time.Second, `document.getElementById("fault-menu").hidden`)
	require.True(t, p.nodePaused("broker-2"), "the menu paused broker-2")
	s = p.tools()
	require.Len(t, s.FaultList, faults+1)
	assert.Contains(t, s.FaultList[faults].Syntax, "pause")

	// Keyboard: the menu opens focused; arrows move, Enter chooses, Esc closes.
	items = p.openMenu(rect.Center(), "node")
	p.waitJS(5*time.Second, `document.activeElement && document.activeElement.closest("#fault-menu") !== null`)
	require.NoError(t, p.do(chromedp.KeyEvent(kb.Escape)))
	p.waitJS(5*time.Second, `document.getElementById("fault-menu").hidden`)
	assert.Len(t, p.tools().FaultList, faults+1, "Esc injects nothing")

	items = p.openMenu(rect.Center(), "node")
	resume := -1
	for i, it := range items {
		if strings.Contains(it.Fault, "resume") && !it.Disabled {
			resume = i
		}
	}
	require.GreaterOrEqual(t, resume, 0, "a paused broker can be resumed: %+v", items)
	for range 8 {
		if eval[string](p, `document.activeElement.dataset.fault || ""`) == items[resume].Fault {
			break
		}
		require.NoError(t, p.do(chromedp.KeyEvent(kb.ArrowDown)))
	}
	require.NoError(t, p.do(chromedp.KeyEvent(kb.Enter)))
	p.waitJS(5*time.Second, `document.getElementById("fault-menu").hidden`)
	assert.False(t, p.nodePaused("broker-2"), "Enter on resume resumed broker-2")

	// Outside the menu a click closes it.
	p.openMenu(rect.Center(), "node")
	require.NoError(t, clickSelector(p, "#scene-title"))
	p.waitJS(5*time.Second, `document.getElementById("fault-menu").hidden`)
}

// A real click on a link lane cuts that direction; a click again heals it.
func TestFaultClickCutsLink(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	p.call("seek(200)")
	s := p.tools()
	require.NotEmpty(t, s.Links, "state() lists the drawn links")
	// A lane whose middle no other lane passes near: the click is that lane's.
	type seg = struct{ ax, ay, bx, by float64 }
	dist := func(px, py float64, l seg) float64 {
		dx, dy := l.bx-l.ax, l.by-l.ay
		u := 0.0
		if n := dx*dx + dy*dy; n > 0 {
			u = max(0, min(1, ((px-l.ax)*dx+(py-l.ay)*dy)/n))
		}
		return math.Hypot(px-(l.ax+u*dx), py-(l.ay+u*dy))
	}
	best, clear := -1, 0.0
	for i, l := range s.Links {
		mx, my := (l.A.X+l.B.X)/2, (l.A.Y+l.B.Y)/2
		near := math.Inf(1)
		for j, o := range s.Links {
			if j != i {
				near = min(near, dist(mx, my, seg{o.A.X, o.A.Y, o.B.X, o.B.Y}))
			}
		}
		if near > clear {
			best, clear = i, near
		}
	}
	require.GreaterOrEqual(t, best, 0)
	require.Greater(t, clear, 4.0, "some lane stands clear of the others (the nearest lane wins a click)")
	lane := s.Links[best]
	mid := view.Point{X: s.CanvasClientRect.X + (lane.A.X+lane.B.X)/2, Y: s.CanvasClientRect.Y + (lane.A.Y+lane.B.Y)/2}
	p.click(mid)
	p.waitJS(5*time.Second, fmt.Sprintf(`(window.deliverylab.state().cutLinks || []).some(l => l.from === %q && l.to === %q)`, lane.From, lane.To))
	s = p.tools()
	for _, l := range s.Links {
		if l.From == lane.From && l.To == lane.To {
			assert.True(t, l.Cut, "the lane is drawn cut")
		}
		if l.From == lane.To && l.To == lane.From {
			assert.False(t, l.Cut, "only that direction is cut")
		}
	}
	p.screenshot("faultclick-cut-en")

	p.click(mid)
	p.waitJS(5*time.Second, fmt.Sprintf(`!(window.deliverylab.state().cutLinks || []).some(l => l.from === %q && l.to === %q)`, lane.From, lane.To))
}

// A message in flight: the menu duplicates, delays and drops it, each listed by what it
// hit.
func TestFaultClickMessageMenu(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	for _, word := range []string{"duplicate", "delay", "drop"} {
		found := eval[bool](p, `(() => {
			for (let i = 0; i < 3000; i++) {
				const s = window.deliverylab.state();
				if (s.ended) return false;
				if (s.inFlight.some(f => f.kind === "Produce" && f.onCanvas && f.arriveMs - s.nowMs > 2)) return true;
				window.deliverylab.step();
			}
			return false;
		})()`)
		require.True(t, found, "a Produce request is on the wire")
		s := p.tools()
		f := s.flight(t, func(f flight) bool { return f.Kind == "Produce" && f.OnCanvas })
		before := len(s.FaultList)
		items := p.openMenu(f.ClientPos, "message")
		target := eval[string](p, `document.getElementById("fault-menu").dataset.id`)
		it := chooseItem(t, p, items, word)
		require.False(t, it.Disabled, "%s is offered for a message in flight: %+v", word, items)
		p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().faultList.length === %d`, before+1))
		s = p.tools()
		assert.Contains(t, s.FaultList[before].Syntax, word)
		assert.Contains(t, s.FaultList[before].Syntax, "id: "+target, "the fault hit the message the menu was for")
		if word == "drop" {
			for _, g := range s.InFlight {
				assert.NotEqual(t, target, fmt.Sprint(g.ID), "the dropped message is gone")
			}
		}
		t.Logf("%s: %s", word, s.FaultList[before].Syntax)
	}
}

// The fault box's syntax is one click away: Syntax shows every kind with an example, a
// click on one puts it in the box, and Inject applies it; a refusal comes back in the
// page's language.
func TestFaultClickSyntaxHelpFillsTheBox(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	p.call("seek(300)")
	require.NoError(t, clickSelector(p, "#fault-help-toggle"))
	p.waitJS(5*time.Second, `!document.getElementById("fault-help-text").hidden &&
		document.getElementById("fault-help-toggle").getAttribute("aria-expanded") === "true"`)
	examples := eval[[]string](p, `[...document.querySelectorAll("#fault-help-text .help-example")].map(b => b.dataset.example)`)
	for _, kind := range []string{"crash", "restart", "pause", "resume", "cut", "cut-oneway", "heal", "heal-oneway", "drop", "delay", "duplicate", "when"} {
		assert.True(t, slices.ContainsFunc(examples, func(e string) bool { return strings.HasPrefix(e, "{"+kind+":") }), "an example of %s in %v", kind, examples)
	}
	i := slices.IndexFunc(examples, func(e string) bool { return strings.HasPrefix(e, "{pause: ") && !strings.Contains(e, ",") })
	require.GreaterOrEqual(t, i, 0, "an example pauses a node: %v", examples)
	paused := strings.TrimSuffix(strings.TrimPrefix(examples[i], "{pause: "), "}")
	require.NoError(t, clickSelector(p, fmt.Sprintf(`#fault-help-text .help-example[data-example=%q]`, examples[i])))
	assert.Equal(t, examples[i], eval[string](p, `document.getElementById("fault").value`), "the example is in the box")
	before := p.faultCount()
	require.NoError(t, clickSelector(p, `#inject-form button[type="submit"]`))
	p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().faultList.length === %d`, before+1))
	assert.True(t, p.nodePaused(paused), "the example paused %s", paused)

	// In Chinese, the help is Chinese.
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.getElementById("fault-help-toggle").textContent === "语法" &&
		document.getElementById("fault-help-text").textContent.includes("故障是场景文件语法")`)
	p.viewportScreenshot("faultclick-syntax-zh")
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}

// A fault the box refuses says why in the page's language (app.js shows errorText).
func TestFaultClickBoxRefusalInChinese(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.documentElement.lang === "zh-CN"`)
	before := p.faultCount()
	require.NoError(t, p.do(setValue("#fault", "{resume: broker-1}")))
	require.NoError(t, clickSelector(p, `#inject-form button[type="submit"]`))
	p.waitJS(5*time.Second, `/[\u4e00-\u9fff]/.test(document.getElementById("fault-error").textContent)`)
	assert.Equal(t, before, p.faultCount(), "a refused fault is not recorded")
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}
