package browsertest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runIdentity is what a share link must reproduce.
type runIdentity struct {
	Scene     string
	Source    string
	NowMs     int64
	Trace     []string
	FaultList []string
	Settings  []string
	Ledger    string
}

func (s toolsState) identity() runIdentity {
	id := runIdentity{Scene: s.Scene, Source: s.Source.Kind + ":" + s.Source.Name, NowMs: s.NowMs, Trace: s.Trace,
		Ledger: fmt.Sprint(s.Ledger.Verdict, s.Ledger.Counts)}
	for _, f := range s.FaultList {
		id.FaultList = append(id.FaultList, fmt.Sprintf("%d %s", f.AtMs, f.Syntax))
	}
	for _, st := range s.Settings {
		id.Settings = append(id.Settings, st.Key+"="+st.Value)
	}
	return id
}

// A share link carries the scene, its settings, the user's faults and the time: opened
// in a new tab it shows the same run, trace for trace.
func TestShareLinkRoundTrip(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	require.NoError(t, clickSelector(p, `#scene-list button[data-scene="acks-all-safe"]`))
	p.waitJS(10*time.Second, `window.deliverylab.state().scene === "acks-all-safe"`)
	p.call(`seek(700)`)
	p.call(`inject("{crash: broker-2}")`)
	p.call(`seek(2500)`)
	require.NoError(t, clickSelector(p, "#share-link"))
	p.waitJS(5*time.Second, `!document.getElementById("share-url").hidden && document.getElementById("share-url").value.includes("#v1.")`)
	url := eval[string](p, `document.getElementById("share-url").value`)
	assert.Equal(t, url, eval[string](p, `location.href`), "the address bar carries the same link")
	want := p.tools().identity()
	require.Len(t, want.FaultList, 1)
	require.Equal(t, int64(2500), want.NowMs)

	q := openTools(t, strings.TrimPrefix(url, env.baseURL))
	q.waitJS(10*time.Second, `window.deliverylab.state().faultList.length === 1`)
	got := q.tools().identity()
	assert.Equal(t, want, got, "the link reproduces the run")
	q.waitJS(5*time.Second, `document.querySelector('#scene-list button[data-scene="acks-all-safe"]').getAttribute("aria-current") === "true"`)
	q.screenshot("share-opened-en")

	// An own scene travels in the link too, with a changed setting.
	require.NoError(t, clickSelector(q, "#paste-scene"))
	q.waitJS(5*time.Second, `document.getElementById("paste-dialog").open`)
	require.NoError(t, q.do(setValue("#paste-text", ownScene)))
	require.NoError(t, clickSelector(q, "#paste-load"))
	q.waitJS(10*time.Second, `window.deliverylab.state().source.kind === "own"`)
	acks, _, _ := q.tools().setting(t, "acks")
	q.call("seek(400)")
	q.waitJS(5*time.Second, fmt.Sprintf(`document.querySelector(%q) !== null`, settingControl(acks)))
	require.NoError(t, q.changeSetting(acks, "0"))
	q.waitJS(10*time.Second, `window.deliverylab.state().settings.some(s => s.changed)`)
	q.waitJS(5*time.Second, `location.hash.startsWith("#v1.")`)
	own := q.tools().identity()
	ownURL := eval[string](q, `location.href`)

	r := openTools(t, strings.TrimPrefix(ownURL, env.baseURL))
	r.waitJS(10*time.Second, `window.deliverylab.state().source.kind === "own"`)
	assert.Equal(t, own, r.tools().identity(), "an own scene's link reproduces its run")
	noShippedSceneIsCurrent(t, r)
}

// A damaged link says so in the page's language and shows the first shipped scene.
func TestShareDamagedLinkShowsDefault(t *testing.T) {
	p := openTools(t, "/#v1.this-is-not-a-link")
	first := eval[string](p, `window.deliverylab.scenes()[0].name`)
	p.waitJS(10*time.Second, fmt.Sprintf(`window.deliverylab.state().scene === %q`, first))
	p.waitJS(5*time.Second, `!document.getElementById("link-error").hidden`)
	assert.Contains(t, eval[string](p, `document.getElementById("link-error").textContent`), "This link is damaged")
	p.screenshot("share-damaged-en")
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.getElementById("link-error").textContent.includes("这个链接已损坏")`)
	p.screenshot("share-damaged-zh")
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))

	// Opening a scene clears the message, and the address bar carries a good link again.
	require.NoError(t, clickSelector(p, `#scene-list button[data-scene="acks-1-lost"]`))
	p.waitJS(10*time.Second, `window.deliverylab.state().scene === "acks-1-lost"`)
	p.waitJS(5*time.Second, `document.getElementById("link-error").hidden && location.hash.startsWith("#v1.")`)
}

// Changing the hash switches scenes: to a shipped scene's name, and to a share link.
func TestShareHashChangeSwitchesScenes(t *testing.T) {
	p := openTools(t, "/#acks-1-lost")
	p.waitJS(5*time.Second, `location.hash.startsWith("#v1.")`)
	atLoad := eval[string](p, `location.hash`)
	p.call(`seek(1200)`)
	p.waitJS(5*time.Second, fmt.Sprintf(`location.hash !== %q`, atLoad)) // kept current once paused elsewhere
	link := eval[string](p, `location.hash`)
	assert.Equal(t, "#"+eval[string](p, `window.deliverylabPage.call("shareLink").hash`), link)
	want := p.tools().identity()

	require.NoError(t, p.do(evalVoid(`location.hash = "acks-0-vanish"`)))
	p.waitJS(10*time.Second, `window.deliverylab.state().scene === "acks-0-vanish"`)
	p.waitJS(5*time.Second, `document.querySelector('#scene-list button[data-scene="acks-0-vanish"]').getAttribute("aria-current") === "true"`)

	require.NoError(t, p.do(evalVoid(fmt.Sprintf(`location.hash = %q`, link))))
	p.waitJS(10*time.Second, `window.deliverylab.state().scene === "acks-1-lost"`)
	assert.Equal(t, want, p.tools().identity(), "the link's run, at its time")
}
