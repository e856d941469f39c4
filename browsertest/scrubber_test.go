package browsertest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/play"
)

// text is a {en, zh} pair as the bridge sends it.
type text struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// more is the part of state() that issue 11 added (its fields are core/play's State,
// core/play/state.go), read on its own so these tests do not depend on which package
// defines each field.
type more struct {
	NowMs       int64 `json:"nowMs"`
	EventsRun   int   `json:"eventsRun"`
	CanStepBack bool  `json:"canStepBack"`
	Playing     bool  `json:"playing"`
	Ended       bool  `json:"ended"`
	Timeline    *struct {
		LengthMs int64 `json:"lengthMs"`
		Settled  bool  `json:"settled"`
		Marks    []struct {
			AtMs  int64  `json:"atMs"`
			Kind  string `json:"kind"`
			Index int    `json:"index"`
			Text  text   `json:"text"`
		} `json:"marks"`
	} `json:"timeline"`
	FaultList []struct {
		AtMs   int64  `json:"atMs"`
		Text   text   `json:"text"`
		Syntax string `json:"syntax"`
		Future bool   `json:"future"`
	} `json:"faultList"`
	Branch *struct {
		AtMs      int64 `json:"atMs"`
		Discarded int   `json:"discarded"`
		Text      text  `json:"text"`
	} `json:"branch"`
	Captions []struct {
		Index int      `json:"index"`
		AtMs  int64    `json:"atMs"`
		Nodes []string `json:"nodes"`
		Pause bool     `json:"pause"`
	} `json:"captions"`
	WaitingCaption int `json:"waitingCaption"`
	Ledger         struct {
		Messages []struct {
			ID   string   `json:"id"`
			Fate string   `json:"fate"`
			AtMs int64    `json:"atMs"`
			Path []string `json:"path"`
		} `json:"messages"`
	} `json:"ledger"`
	Highlight struct {
		Nodes   []string `json:"nodes"`
		Message string   `json:"message"`
	} `json:"highlight"`
	Speed     float64 `json:"speed"`
	Lang      string  `json:"lang"`
	Projector bool    `json:"projector"`
}

// more reads state() at once into the issue 11 fields.
func (p *page) more() more {
	p.t.Helper()
	raw := eval[[]byte](p, `window.deliverylab.state()`)
	var m more
	require.NoError(p.t, json.Unmarshal(raw, &m), "state: %s", raw)
	return m
}

// The scrubber spans the whole run from the moment the scene is loaded, with a mark for
// every caption and fault; a mark seeks to its moment.
func TestScrubberSpansTheWholeRun(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	p.state()
	m := p.more()
	require.NotNil(t, m.Timeline, "state().timeline")
	require.Positive(t, m.Timeline.LengthMs)
	assert.Zero(t, m.NowMs)
	p.waitJS(5*time.Second, fmt.Sprintf(`document.getElementById("seek").max === "%d"`, m.Timeline.LengthMs))
	assert.Contains(t, eval[string](p, `document.getElementById("length").textContent`), fmt.Sprint(m.Timeline.LengthMs))

	captions := 0
	for _, mk := range m.Timeline.Marks {
		if mk.Kind == "caption" {
			captions++
		}
	}
	require.Positive(t, captions, "the scene's captions are marked")
	assert.Equal(t, captions, eval[int](p, `document.querySelectorAll("#marks .mark-caption").length`))

	// A real click on the last caption mark seeks there.
	at := eval[int64](p, `Number([...document.querySelectorAll("#marks .mark-caption")].pop().dataset.at)`)
	require.Positive(t, at)
	require.NoError(t, clickSelector(p, `#marks .mark-caption:last-of-type`))
	p.waitJS(10*time.Second, fmt.Sprintf(`window.deliverylab.state().nowMs === %d`, at))

	// A fault gets a mark too, and the list of faults names it.
	p.call(`seek(100)`)
	p.call(`inject({crash: "broker-2"})`)
	p.state()
	p.waitJS(5*time.Second, `document.querySelectorAll("#marks .mark-fault").length === 1 && document.querySelectorAll("#faults li[data-at]").length === 1`)
	assert.Contains(t, eval[string](p, `document.getElementById("faults").textContent`), "broker-2")

	// Rewinding keeps the fault (dimmed, in the future); a new fault before it starts a
	// new branch, and the page says so.
	p.call(`seek(50)`)
	p.waitJS(5*time.Second, `document.querySelector("#faults li.future") !== null && document.querySelector("#marks .mark-fault.future") !== null`)
	p.call(`inject({crash: "broker-3"})`)
	p.waitJS(5*time.Second, `!document.getElementById("branch").hidden`)
	b := p.more().Branch
	require.NotNil(t, b)
	assert.Equal(t, b.Text.En, eval[string](p, `document.getElementById("branch").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, fmt.Sprintf(`document.getElementById("branch").textContent === %q`, b.Text.Zh))
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))

	// Speeds from 1/10× to 100×.
	speeds := eval[[]float64](p, `[...document.querySelectorAll("#speed option")].map(o => Number(o.value))`)
	assert.Equal(t, []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 100}, speeds)
}

// Step back returns the state with one event fewer; the button is off at the start.
func TestStepBackButton(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	p.state()
	p.waitJS(5*time.Second, `document.getElementById("step-back").disabled === !window.deliverylab.state().canStepBack`)
	for range 3 {
		require.NoError(t, clickSelector(p, "#step"))
	}
	p.waitJS(5*time.Second, `window.deliverylab.state().canStepBack && !document.getElementById("step-back").disabled`)
	n := p.more().EventsRun
	require.NoError(t, clickSelector(p, "#step-back"))
	p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().eventsRun === %d`, n-1))
}

// The play button reads the state when it is clicked, not the one last drawn: right
// after Run to end it replays; right after play it pauses.
func TestPlayButtonActsOnTheCurrentState(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	p.state()
	s := eval[map[string]any](p, `(() => {
		window.deliverylab.runToEnd();
		document.getElementById("play").click(); // before the page has drawn the end
		const s = window.deliverylab.state();
		return {playing: s.playing, nowMs: s.nowMs, ended: s.ended};
	})()`)
	assert.Equal(t, true, s["playing"], "Replay restarts: %v", s)
	assert.Equal(t, false, s["ended"])
	s = eval[map[string]any](p, `(() => {
		window.deliverylab.pause();
		window.deliverylab.play();
		document.getElementById("play").click();
		return {playing: window.deliverylab.state().playing};
	})()`)
	assert.Equal(t, false, s["playing"], "a click right after play pauses")

	// Run to end, then Replay, by real clicks.
	require.NoError(t, clickSelector(p, "#run-end"))
	p.waitJS(30*time.Second, `window.deliverylab.state().ended && document.getElementById("play").textContent === "Replay"`)
	require.NoError(t, clickSelector(p, "#play"))
	p.waitJS(5*time.Second, `window.deliverylab.state().playing && !window.deliverylab.state().ended`)
	require.NoError(t, clickSelector(p, "#play"))
	p.waitJS(5*time.Second, `!window.deliverylab.state().playing`)
}

// Changing the URL's hash switches scenes.
func TestHashChangeSwitchesScenes(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	eval[bool](p, `(location.hash = "#acks-all-safe", true)`)
	p.waitJS(10*time.Second, `window.deliverylab.state().scene === "acks-all-safe"`)
	p.waitJS(5*time.Second, `document.querySelector('#scene-list button[aria-current="true"]').dataset.scene === "acks-all-safe"`)
	eval[bool](p, `(location.hash = "#retry-duplicate", true)`)
	p.waitJS(10*time.Second, `window.deliverylab.state().scene === "retry-duplicate"`)
}

// The page's default pace lets a class follow every shipped scene end to end in a minute
// or two: its playing time at the default speed is what the game would take (25 virtual
// ms a real second ×speed, ×200 while only background traffic is on the wire: wasm/game.go),
// computed natively tick by tick, for the speed the page sets.
func TestDefaultPaceFitsAClass(t *testing.T) {
	p := openEn(t)
	speed := p.more().Speed
	require.Equal(t, 0.5, speed, "the page's default speed")
	var lines []string
	for _, sc := range play.Scenes() {
		secs := playSeconds(t, sc.Name, speed)
		lines = append(lines, fmt.Sprintf("%-38s %5.1f s", sc.Name, secs))
		assert.True(t, secs >= 10 && secs <= 120, "%s plays %.1f s at ×%g", sc.Name, secs, speed)
	}
	t.Logf("playing time at ×%g:\n%s", speed, strings.Join(lines, "\n"))
	require.NoError(t, os.MkdirAll(env.outDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(env.outDir, "play-times.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

// playSeconds is how long the game takes to play a scene from 0 ms to its end at speed,
// with 60 ticks a second.
func playSeconds(t *testing.T, name string, speed float64) float64 {
	s, err := play.Load(name)
	require.NoError(t, err)
	s.Play()
	const tps, limit = 60, 60 * 600
	add := int64(math.Round(speed * 25 * 1000 / tps))
	var owed int64
	ticks := 0
	for ; ticks < limit; ticks++ {
		st := s.State()
		if st.Ended {
			break
		}
		if st.WaitingCaption >= 0 { // the class reads the caption; the teacher goes on
			s.Continue()
			continue
		}
		step := add
		if st.Quiet {
			step *= 200
		}
		owed += step
		if ms := owed / 1000; ms > 0 {
			owed -= ms * 1000
			if st.Quiet {
				s.FastForward(ms)
			} else {
				s.Advance(ms)
			}
		}
	}
	return float64(ticks) / tps
}
