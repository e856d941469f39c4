package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twinB is an expression on the twin pane's bridge.
func twinB(expr string) string {
	return `document.getElementById("game-b").contentWindow.deliverylab.` + expr
}

// Twin runs, as a teacher drives them: acks-1-lost beside acks-all-safe (a preset); a
// scrub moves both; a fault typed on A is made on B at the same moment; a real click on
// B's canvas crashes a broker there and on A; play and pause keep them on one clock; at
// the end both verdicts are there and the messages whose fates differ are listed.
func TestTwinLockstepAfterAFaultAndAScrub(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	p.waitJS(10*time.Second, `[...document.getElementById("twin-with").options].some(o => o.value === "scene:acks-all-safe")`)
	eval[bool](p, `(() => { document.getElementById("twin-with").value = "scene:acks-all-safe"; return true; })()`)
	require.NoError(t, clickSelector(p, "#twin-open"))
	p.waitJS(60*time.Second, `(() => { try { return `+twinB(`ready && `)+twinB(`state().scene === "acks-all-safe"`)+`; } catch (e) { return false; } })()`)
	assert.Equal(t, "B · the scene acks-all-safe", eval[string](p, `document.getElementById("pane-b").textContent`))

	// The scrubber moves both.
	p.call(`seek(300)`)
	p.waitJS(10*time.Second, twinB(`state().nowMs === 300`))

	// A fault typed on A is made on B at the same moment.
	require.NoError(t, chromedp.Do(p.ctx, chromedp.SetValue(chromedp.CSS("#fault"), `{"crash": "broker-2"}`)))
	require.NoError(t, clickSelector(p, `#inject-form button[type="submit"]`))
	p.waitJS(10*time.Second, twinB(`state().faultList.some(f => f.atMs === 300 && f.syntax.includes("broker-2"))`))

	// A real click on B's canvas: its broker-3 box crashes broker-3 there, and on A.
	box := eval[map[string]float64](p, `(() => { document.getElementById("game-b").scrollIntoView({block: "center"});
		const f = document.getElementById("game-b").getBoundingClientRect();
		const n = `+twinB(`state().nodes.find(n => n.name === "broker-3")`)+`;
		return {x: f.left + n.rect.x + n.rect.w / 2, y: f.top + n.rect.y + n.rect.h / 2}; })()`)
	ctx, done := context.WithTimeout(p.ctx, 20*time.Second)
	defer done()
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseMoved, box["x"], box["y"])))
	p.waitJS(10*time.Second, twinB(`state().hover.node === "broker-3"`)) // the twin's canvas sees the pointer on the box
	ticks := eval[float64](p, twinB(`state().ticks`))
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MousePressed, box["x"], box["y"], chromedp.ButtonLeft, chromedp.ClickCount(1))))
	p.waitJS(10*time.Second, fmt.Sprintf(twinB(`state().ticks >= %d`), int64(ticks)+2))
	require.NoError(t, chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseReleased, box["x"], box["y"], chromedp.ButtonLeft, chromedp.ClickCount(1))))
	p.waitJS(10*time.Second, twinB(`state().faultList.some(f => f.syntax.includes("broker-3"))`))
	p.waitJS(10*time.Second, `window.deliverylab.state().faultList.some(f => f.syntax.includes("broker-3"))`)

	// Play and pause: one clock.
	p.call(`setSpeed(10)`)
	require.NoError(t, clickSelector(p, "#play"))
	p.waitJS(20*time.Second, `window.deliverylab.state().nowMs > 600`)
	require.NoError(t, clickSelector(p, "#play"))
	p.waitJS(10*time.Second, `!window.deliverylab.state().playing && `+twinB(`state().nowMs`)+` === window.deliverylab.state().nowMs`)

	// To the end: both verdicts, and the differences.
	require.NoError(t, clickSelector(p, "#run-end"))
	p.waitJS(30*time.Second, `window.deliverylab.state().ended && `+twinB(`state().ended`))
	p.waitJS(10*time.Second, `document.getElementById("twin-verdicts").textContent.startsWith("A: ") && !document.getElementById("twin-verdicts").textContent.includes("A: —")`)
	assert.Contains(t, eval[string](p, `document.getElementById("twin-verdicts").textContent`), " · B: ")
	rows := eval[int](p, `document.querySelectorAll("#twin-diff-body tr[data-id]").length`)
	assert.Positive(t, rows, "acks=1 and acks=all end differently for some messages")
	p.elementShot("twin-en", ".stage")
	p.elementShot("twin-panel-en", "#twin-panel")

	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.getElementById("twin-h").textContent === "对照运行"`)
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
	// The share link carries the twin: opened in another tab, the run comes with it.
	hash := eval[string](p, `location.hash`)
	assert.Contains(t, hash, "~twin=scene%3Aacks-all-safe")
	q := openEn(t)
	q.goTo("/" + hash)
	q.waitJS(60*time.Second, `(() => { try { return `+twinB(`ready && `)+twinB(`state().scene === "acks-all-safe"`)+`; } catch (e) { return false; } })()`)
	assert.Equal(t, "acks-1-lost", q.state().Scene)

	require.NoError(t, clickSelector(p, "#twin-close"))
	p.waitJS(5*time.Second, `!document.querySelector(".canvas-wrap").classList.contains("twin") && !location.hash.includes("~twin=")`)
}

// A twin with more than one setting changed (Change on B too), which the share link
// carries; and a twin from a scene file of the user's own.
func TestTwinWithTwoSettingsAndFromAFile(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	choose := func(v string) {
		p.waitJS(10*time.Second, fmt.Sprintf(`[...document.getElementById("twin-with").options].some(o => o.value === %q)`, v))
		eval[bool](p, fmt.Sprintf(`(() => { document.getElementById("twin-with").value = %q; return true; })()`, v))
	}
	choose("set:producers.p1.config.acks=all")
	require.NoError(t, clickSelector(p, "#twin-open"))
	p.waitJS(60*time.Second, `(() => { try { return `+twinB(`ready && `)+twinB(`state().settings.some(s => s.key === "producers.p1.config.acks" && s.value === "all")`)+`; } catch (e) { return false; } })()`)
	choose("set:producers.p1.config.enable.idempotence=true")
	require.NoError(t, clickSelector(p, "#twin-add"))
	p.waitJS(10*time.Second, twinB(`state().settings.some(s => s.key === "producers.p1.config.enable.idempotence" && s.value === "true")`))
	assert.True(t, eval[bool](p, twinB(`state().settings.some(s => s.key === "producers.p1.config.acks" && s.value === "all")`)), "both changes")
	assert.Contains(t, eval[string](p, `document.getElementById("pane-b").textContent`), "enable.idempotence = true")
	p.waitJS(10*time.Second, `decodeURIComponent(location.hash).includes("~twin=set:producers.p1.config.acks=all;producers.p1.config.enable.idempotence=true")`)
	assert.Equal(t, "1", eval[string](p, `window.deliverylab.state().settings.find(s => s.key === "producers.p1.config.acks").value`), "A keeps its own settings")
	require.NoError(t, clickSelector(p, "#twin-close"))

	// A scene file of one's own as the twin.
	data, err := os.ReadFile(filepath.Join("..", "scenes", "acks-all-safe.yaml"))
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "my-twin.yaml")
	require.NoError(t, os.WriteFile(file, data, 0o644))
	require.NoError(t, p.do(chromedp.SetUploadFiles(chromedp.CSS("#twin-file-input"), []string{file})))
	p.waitJS(60*time.Second, `(() => { try { return `+twinB(`ready && `)+twinB(`state().source.name === "my-twin.yaml"`)+`; } catch (e) { return false; } })()`)
	assert.Equal(t, "acks-1-lost", p.state().Scene)
	assert.Equal(t, "B · my-twin.yaml", eval[string](p, `document.getElementById("pane-b").textContent`))
}
