package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/play"
	"deliverylab/core/scene"
)

// ownScene is a teacher's scene, not one of the shipped ones: three messages with acks=1
// and no fault, so it settles exactly once.
const ownScene = `title: {en: "A teacher's acks=1 scene", zh: "老师自己的 acks=1 场景"}
summary: {en: "Three messages with acks=1, and nothing goes wrong.", zh: "三条 acks=1 的消息，一切正常。"}
seed: 7
cluster:
  brokers: 3
  topics:
    - {name: orders, partitions: 1, replication.factor: 3, leaders: [broker-1]}
apps:
  - producer: p1
    config: {acks: 1}
    send: {topic: orders, count: 3, interval.ms: 200, value: "{n}"}
  - consumer: c1
    group: g
    topics: [orders]
    config: {enable.auto.commit: false, auto.offset.reset: earliest}
    commit: after-processing
    sink: db
sinks:
  - {name: db, kind: table}
`

// brokenScene has a misspelt key on line 11: the page must say so and keep the text.
var brokenScene = strings.Replace(ownScene, "    send:", "    sendd:", 1)

// toolsState is state() with the fields the tools read.
type toolsState struct {
	pageState
	Source struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"source"`
	Settings []struct {
		Key     string   `json:"key"`
		Value   string   `json:"value"`
		Choices []string `json:"choices"`
		Changed bool     `json:"changed"`
	} `json:"settings"`
	FaultList []struct {
		AtMs   int64  `json:"atMs"`
		Syntax string `json:"syntax"`
	} `json:"faultList"`
	Links []struct {
		From string `json:"from"`
		To   string `json:"to"`
		Cut  bool   `json:"cut"`
		A    struct{ X, Y float64 }
		B    struct{ X, Y float64 }
	} `json:"links"`
}

// openTools opens the page at path (say "/#acks-1-lost"), in English, and waits until
// the game is ready and the tools have opened the hash.
func openTools(t testing.TB, path string) *page {
	t.Helper()
	p := open(t)
	p.goTo(path)
	// The language is remembered across tabs: each test starts in English.
	require.NoError(t, p.do(evalVoid(`window.deliverylab.setLang("en")`)))
	p.waitJS(5*time.Second, `document.documentElement.lang === "en" && document.getElementById("share-link").textContent === "Copy link"`)
	return p
}

// goTo navigates the tab to path and waits for the game and for tools.js.
func (p *page) goTo(path string) {
	p.t.Helper()
	// From another document: a navigation that changes only the hash keeps the page.
	require.NoError(p.t, p.do(chromedp.Navigate("about:blank"), chromedp.Navigate(env.baseURL+path)))
	ready := `window.deliverylabCrashed || (window.deliverylab && window.deliverylab.ready &&
		document.getElementById("share-link") !== null && window.deliverylab.state().loaded)`
	ctx, done := context.WithTimeout(p.ctx, 60*time.Second)
	defer done()
	for {
		// The new document may still be replacing about:blank's: its context is then gone.
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](ready, chromedp.WithPollingInterval(20*time.Millisecond)))
		if err == nil || !navigationInterrupted(err) {
			require.NoError(p.t, err, "waiting for the page at %s\nconsole:\n%s", path, p.consoleText())
			break
		}
	}
	p.failIfCrashed()
}

// tools reads state() with the tools' fields once the DOM shows it.
func (p *page) tools() toolsState {
	p.t.Helper()
	p.waitJS(10*time.Second, `window.deliverylab.renderedView === window.deliverylab.version()`)
	raw := eval[[]byte](p, `window.deliverylab.state()`)
	var s toolsState
	require.NoError(p.t, json.Unmarshal(raw, &s), "state: %s", raw)
	return s
}

func setValue(css, value string) chromedp.Action[chromedp.Void] {
	return chromedp.SetValue(chromedp.CSS(css), value)
}

// dispatch fires a DOM event on an element, as a select does once the user chose.
func dispatch(css, event string) chromedp.Action[chromedp.Void] {
	return evalVoid(fmt.Sprintf(`document.querySelector(%q).dispatchEvent(new Event(%q, {bubbles: true}))`, css, event))
}

func evalVoid(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](expr)
}

// sceneFile writes text to a file of that name in a fresh directory.
func sceneFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// noShippedSceneIsCurrent: an own scene is none of the list's.
func noShippedSceneIsCurrent(t *testing.T, p *page) {
	t.Helper()
	p.waitJS(5*time.Second, `document.querySelectorAll('#scene-list button[aria-current="true"]').length === 0`)
}

// A file opened with the page's own button plays like a shipped scene, to its verdict.
func TestTeacherOpensOwnSceneFile(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	require.Equal(t, "acks-1-lost", p.tools().Scene)

	require.NoError(t, p.do(chromedp.SetUploadFiles(chromedp.CSS("#scene-file"), []string{sceneFile(t, "my-scene.yaml", ownScene)})))
	p.waitJS(10*time.Second, `window.deliverylab.state().source.kind === "own"`)
	s := p.tools()
	assert.Equal(t, "own", s.Source.Kind)
	assert.Equal(t, "A teacher's acks=1 scene", s.Title.En)
	p.waitJS(5*time.Second, `document.getElementById("scene-title").textContent.includes("A teacher's acks=1 scene")`)
	noShippedSceneIsCurrent(t, p)
	assert.Contains(t, eval[string](p, `document.getElementById("notice").textContent`), "my-scene.yaml")

	require.NoError(t, clickSelector(p, "#run-end"))
	p.waitJS(30*time.Second, `window.deliverylab.state().ended`)
	s = p.tools()
	assert.Equal(t, "exactly-once", s.Ledger.Verdict, "the own scene plays to its verdict")
	assert.Equal(t, 3, s.Ledger.Counts["delivered"])
	p.waitJS(5*time.Second, `document.getElementById("verdict").textContent === "exactly-once"`)
	p.screenshot("teacher-own-scene-en")
}

// expectedSceneError is what the core itself says of text: the page must show the same
// line, key and message.
func expectedSceneError(t *testing.T, file, text string) *scene.Error {
	t.Helper()
	_, err := play.LoadSource(file, []byte(text))
	var perr *scene.Error
	require.True(t, errors.As(err, &perr), "the broken scene is refused with a scene error: %v", err)
	require.Positive(t, perr.Line)
	require.NotEmpty(t, perr.Key)
	return perr
}

// A broken file is refused with its line and key, and the text stays in the paste dialog
// with that line selected, so the teacher can mend it there.
func TestTeacherBrokenSceneShowsLineAndKey(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	want := expectedSceneError(t, "broken.yaml", brokenScene)

	require.NoError(t, p.do(chromedp.SetUploadFiles(chromedp.CSS("#scene-file"), []string{sceneFile(t, "broken.yaml", brokenScene)})))
	p.waitJS(10*time.Second, `document.getElementById("paste-dialog").open`)
	msg := eval[string](p, `document.getElementById("paste-error").textContent`)
	assert.Contains(t, msg, fmt.Sprintf("line %d, key %s: ", want.Line, want.Key))
	assert.Contains(t, msg, "unknown key")
	assert.NotContains(t, msg, "broken.yaml:", "where it is is said once")
	assert.Equal(t, brokenScene, eval[string](p, `document.getElementById("paste-text").value`), "nothing the user gave is lost")
	selected := eval[string](p, `(() => { const a = document.getElementById("paste-text"); return a.value.slice(a.selectionStart, a.selectionEnd); })()`)
	assert.Equal(t, strings.Split(brokenScene, "\n")[want.Line-1], selected, "the bad line is selected")
	s := p.tools()
	assert.Equal(t, "acks-1-lost", s.Scene, "a refused scene leaves the current one")
	p.screenshot("teacher-broken-scene-en")

	// Mended in the dialog and loaded with its button: the scene plays.
	require.NoError(t, p.do(setValue("#paste-text", ownScene)))
	require.NoError(t, clickSelector(p, "#paste-load"))
	p.waitJS(10*time.Second, `window.deliverylab.state().source.kind === "own" && !document.getElementById("paste-dialog").open`)

	// In Chinese the message is the core's Chinese one where it has one, with 行 and 键.
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.getElementById("paste-scene").textContent === "粘贴场景"`)
	require.NoError(t, clickSelector(p, "#paste-scene"))
	require.NoError(t, p.do(setValue("#paste-text", brokenScene)))
	require.NoError(t, clickSelector(p, "#paste-load"))
	p.waitJS(5*time.Second, fmt.Sprintf(`document.getElementById("paste-error").textContent.startsWith("第 %d 行，键 %s：")`, want.Line, want.Key))
	p.screenshot("teacher-broken-scene-zh")
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}

// Paste: the dialog's text loads with its Load button.
func TestTeacherPastesScene(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	require.NoError(t, clickSelector(p, "#paste-scene"))
	p.waitJS(5*time.Second, `document.getElementById("paste-dialog").open`)
	require.NoError(t, p.do(setValue("#paste-text", ownScene)))
	require.NoError(t, clickSelector(p, "#paste-load"))
	p.waitJS(10*time.Second, `window.deliverylab.state().source.kind === "own"`)
	assert.False(t, eval[bool](p, `document.getElementById("paste-dialog").open`), "a scene that loads closes the dialog")
	assert.Equal(t, "A teacher's acks=1 scene", p.tools().Title.En)
	noShippedSceneIsCurrent(t, p)
}

// Drop: a file dropped on the page opens; while it is dragged the drop target shows.
func TestTeacherDropsScene(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	shown := eval[bool](p, fmt.Sprintf(`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File([%q], "dropped.yaml", { type: "application/yaml" }));
		document.body.dispatchEvent(new DragEvent("dragenter", { bubbles: true, cancelable: true, dataTransfer: dt }));
		const shown = !document.getElementById("drop-target").hidden;
		document.getElementById("drop-target").dispatchEvent(new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: dt }));
		return shown;
	})()`, ownScene))
	assert.True(t, shown, "a dragged file shows the drop target")
	p.waitJS(10*time.Second, `window.deliverylab.state().source.kind === "own"`)
	assert.True(t, eval[bool](p, `document.getElementById("drop-target").hidden`), "the drop target goes once dropped")
	s := p.tools()
	assert.Equal(t, "A teacher's acks=1 scene", s.Title.En)
	assert.Equal(t, "dropped.yaml", s.Source.Name)
}

// setting returns the setting whose key ends with suffix.
func (s toolsState) setting(t *testing.T, suffix string) (key, value string, changed bool) {
	t.Helper()
	for _, st := range s.Settings {
		if strings.HasSuffix(st.Key, suffix) {
			return st.Key, st.Value, st.Changed
		}
	}
	t.Fatalf("no setting ending in %q in %+v", suffix, s.Settings)
	return "", "", false
}

// settingControl is the CSS selector of the panel's control for a setting.
func settingControl(key string) string {
	return fmt.Sprintf(`#config-panel [data-key=%q] .control`, key)
}

// changeSetting sets a setting's control in the settings panel to value, as a user's
// choice does.
func (p *page) changeSetting(key, value string) error {
	return p.do(setValue(settingControl(key), value), dispatch(settingControl(key), "change"))
}

// The settings panel: acks=all instead of acks=1 keeps the message the scene loses; its
// Reset brings acks=1 and the loss back; a refused combination says why and the control
// shows the value in force.
func TestTeacherSettingsRerunTheScene(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	require.NoError(t, clickSelector(p, "#run-end"))
	p.waitJS(30*time.Second, `window.deliverylab.state().ended`)
	s := p.tools()
	require.Equal(t, 1, s.Ledger.Counts["lost"], "acks=1 loses p1#5")
	endMs := s.NowMs
	acks, value, changed := s.setting(t, "acks")
	require.Equal(t, "1", value)
	require.False(t, changed)
	p.waitJS(5*time.Second, fmt.Sprintf(`document.querySelector(%q) !== null`, settingControl(acks)))

	// Changed at 3 s, the scene runs again from the start with acks=all and stops at 3 s.
	p.call("seek(3000)")
	require.NoError(t, p.changeSetting(acks, "all"))
	p.waitJS(10*time.Second, `window.deliverylab.state().settings.some(s => s.value === "all" && s.changed)`)
	s = p.tools()
	assert.Equal(t, int64(3000), s.NowMs, "back at the same time")
	require.NoError(t, clickSelector(p, "#run-end"))
	p.waitJS(30*time.Second, `window.deliverylab.state().ended`)
	s = p.tools()
	assert.Zero(t, s.Ledger.Counts["lost"], "acks=all keeps every acknowledged message")
	t.Logf("acks=1 ended at %d ms, acks=all at %d ms", endMs, s.NowMs)
	p.waitJS(5*time.Second, fmt.Sprintf(`document.querySelector('#config-panel [data-key=%q]').classList.contains("changed")`, acks))
	p.screenshot("teacher-settings-en")

	require.NoError(t, clickSelector(p, fmt.Sprintf(`#config-panel [data-key=%q] .reset`, acks)))
	p.waitJS(10*time.Second, `window.deliverylab.state().settings.every(s => !s.changed)`)
	require.NoError(t, clickSelector(p, "#run-end"))
	p.waitJS(30*time.Second, `window.deliverylab.state().ended`)
	assert.Equal(t, 1, p.tools().Ledger.Counts["lost"], "Reset brings acks=1 back")

	// enable.idempotence=true with acks=1 is Kafka's own error.
	idem, before, _ := p.tools().setting(t, "enable.idempotence")
	require.NoError(t, clickSelector(p, settingControl(idem)))
	p.waitJS(5*time.Second, `!document.getElementById("config-error").hidden`)
	assert.Contains(t, eval[string](p, `document.getElementById("config-error").textContent`), "acks")
	_, after, changed := p.tools().setting(t, "enable.idempotence")
	assert.Equal(t, before, after, "a refused setting changes nothing")
	assert.False(t, changed)
	assert.Equal(t, before, eval[string](p, fmt.Sprintf(`document.querySelector(%q).textContent`, settingControl(idem))), "the control shows the value in force")
}
