package browsertest

import (
	"context"
	"fmt"
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

// rightClick presses the right button at a point of the viewport, holds it for two game
// ticks and releases it: the frame's contextmenu opens the page's fault menu.
func (p *page) rightClick(at view.Point) {
	p.t.Helper()
	ctx, done := context.WithTimeout(p.ctx, 10*time.Second)
	defer done()
	require.NoError(p.t, chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseMoved, at.X, at.Y)))
	require.NoError(p.t, chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MousePressed, at.X, at.Y,
		chromedp.ButtonType(input.MouseButtonRight), chromedp.ClickCount(1))))
	p.waitTicks(p.stateNow().Ticks, 2)
	require.NoError(p.t, chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseReleased, at.X, at.Y,
		chromedp.ButtonType(input.MouseButtonRight), chromedp.ClickCount(1))))
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
	p.screenshot("faultclick-menu-en")

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
	lane := s.Links[0]
	for _, l := range s.Links {
		if l.From == "broker-1" && l.To == "broker-2" {
			lane = l
		}
	}
	mid := view.Point{X: s.CanvasClientRect.X + (lane.A.X+lane.B.X)/2, Y: s.CanvasClientRect.Y + (lane.A.Y+lane.B.Y)/2}
	p.click(mid)
	p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().cutLinks.some(l => l.from === %q && l.to === %q)`, lane.From, lane.To))
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
	p.waitJS(5*time.Second, fmt.Sprintf(`!window.deliverylab.state().cutLinks.some(l => l.from === %q && l.to === %q)`, lane.From, lane.To))
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
		it := chooseItem(t, p, items, word)
		require.False(t, it.Disabled, "%s is offered for a message in flight: %+v", word, items)
		p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().faultList.length === %d`, before+1))
		s = p.tools()
		assert.Contains(t, s.FaultList[before].Syntax, word)
		if word == "drop" {
			for _, g := range s.InFlight {
				assert.NotEqual(t, f.ID, g.ID, "the dropped message is gone")
			}
		}
		t.Logf("%s: %s", word, s.FaultList[before].Syntax)
	}
}
