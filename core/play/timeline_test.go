package play

import (
	"encoding/json"
	"strings"
	"testing"

	"deliverylab/core/sim"
	"deliverylab/scenes"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoFaults is a session of acks-all-safe with two recorded faults, ended at 5100 ms.
func twoFaults(t *testing.T) *Session {
	s, err := Load("acks-all-safe")
	require.NoError(t, err)
	s.Advance(100)
	require.NoError(t, s.Inject(`{crash: broker-2, for.ms: 3000}`))
	s.Step()
	s.Step()
	require.NoError(t, s.Inject(`{cut: [p1, broker-1]}`))
	s.Advance(5000)
	return s
}

func traceOf(s *Session) (string, []string) {
	return s.run.World.Trace().Hash(), s.State().Trace
}

func TestScrubbingBackAndForthKeepsTheFaults(t *testing.T) {
	s := twoFaults(t)
	at, events := s.NowMs(), s.run.World.EventsRun()
	wantHash, wantLines := traceOf(s)

	require.NoError(t, s.SeekTo(50))
	st := s.State()
	require.Len(t, st.FaultList, 2)
	assert.True(t, st.FaultList[0].Future && st.FaultList[1].Future, "both faults lie ahead after the rewind")
	require.NoError(t, s.SeekTo(100)) // half way: the first one happened again
	assert.False(t, s.State().FaultList[0].Future)
	assert.True(t, s.State().FaultList[1].Future)
	require.NoError(t, s.SeekTo(at))
	gotHash, gotLines := traceOf(s)
	assert.Equal(t, wantHash, gotHash, "seeking forward replays the kept faults at their recorded points")
	assert.Equal(t, wantLines, gotLines)
	assert.Equal(t, events, s.run.World.EventsRun())
	assert.Nil(t, s.State().Branch)

	// And to the end: the same run as one never scrubbed.
	straight := twoFaults(t)
	straight.RunToEnd()
	s.RunToEnd()
	h1, _ := traceOf(straight)
	h2, _ := traceOf(s)
	assert.Equal(t, h1, h2)
}

func TestAFaultInjectedAfterRewindingStartsABranch(t *testing.T) {
	s := twoFaults(t)
	require.NoError(t, s.SeekTo(60))
	require.NoError(t, s.Inject(`{crash: broker-3}`))
	st := s.State()
	require.NotNil(t, st.Branch)
	assert.Equal(t, int64(60), st.Branch.AtMs)
	assert.Equal(t, 2, st.Branch.Discarded)
	assert.Contains(t, st.Branch.Text.En, "2 later fault(s) were discarded: this is a new branch from 60 ms")
	assert.Contains(t, st.Branch.Text.Zh, "新分支")
	require.Len(t, st.FaultList, 1)
	assert.Contains(t, st.FaultList[0].Syntax, "broker-3")
	// A fault at the end of the recorded ones discards nothing.
	s2 := twoFaults(t)
	require.NoError(t, s2.Inject(`{crash: broker-3}`))
	assert.Nil(t, s2.State().Branch)
	assert.Len(t, s2.State().FaultList, 3)
	// Loading starts without one.
	s3, err := Load("acks-all-safe")
	require.NoError(t, err)
	assert.Nil(t, s3.State().Branch)
}

// comparable is the part of a state that one event changes.
func comparable(st State) State {
	st.Version, st.Timeline = 0, Timeline{}
	return st
}

func TestStepBackIsTheStateOfOneEventFewer(t *testing.T) {
	play := func(steps int) *Session {
		s, err := Load("acks-all-safe")
		require.NoError(t, err)
		s.Advance(100)
		require.NoError(t, s.Inject(`{crash: broker-2, for.ms: 3000}`))
		for range steps {
			s.Step()
		}
		return s
	}
	s := play(30)
	events := s.State().EventsRun
	require.True(t, s.State().CanStepBack)
	require.NoError(t, s.StepBack())
	assert.Equal(t, events-1, s.State().EventsRun)
	want := play(29)
	h1, _ := traceOf(want)
	h2, _ := traceOf(s)
	assert.Equal(t, h1, h2)
	assert.Equal(t, comparable(want.State()), comparable(s.State()))

	// Back over the fault's point: it has not happened yet, and lies ahead.
	for s.State().EventsRun > 0 && len(s.State().Faults) > 0 {
		require.NoError(t, s.StepBack())
	}
	assert.True(t, s.State().FaultList[0].Future)
	for s.State().CanStepBack {
		require.NoError(t, s.StepBack())
	}
	var ue UserError
	require.ErrorAs(t, s.StepBack(), &ue)
	assert.Contains(t, ue.En, "start of the run")
}

func TestTheTimelineIsTheWholeRun(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	tl := s.State().Timeline
	end, err := Load("acks-1-lost")
	require.NoError(t, err)
	end.RunToEnd()
	assert.Equal(t, end.NowMs(), tl.LengthMs, "known at load, before the run got there")
	assert.True(t, tl.Settled)
	var captions []int
	for _, m := range tl.Marks {
		if m.Kind == "caption" {
			captions = append(captions, m.Index)
		}
	}
	assert.Len(t, captions, len(end.State().Captions))

	// A fault changes the run, and the timeline learns its new end at once.
	s.Advance(30)
	require.NoError(t, s.Inject(`{crash: broker-2}`))
	tl = s.State().Timeline
	require.Equal(t, "fault", tl.Marks[0].Kind)
	assert.Equal(t, int64(30), tl.Marks[0].AtMs)
	s.RunToEnd()
	assert.Equal(t, s.NowMs(), tl.LengthMs)
}

// pausing is acks-1-lost, whose second caption (broker-1 crashed) stops the run.
func pausing(t *testing.T) *Session {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	require.True(t, s.sc.Narration[1].Pause)
	return s
}

func TestAPausingCaptionStopsTheRunUntilContinue(t *testing.T) {
	s := pausing(t)
	s.Play()
	for range 1000 {
		if s.State().WaitingCaption >= 0 || s.State().Ended {
			break
		}
		s.Advance(250) // a frame's worth at a fast pace: it must not run past the caption
	}
	st := s.State()
	require.Equal(t, 1, st.WaitingCaption)
	assert.False(t, st.Playing)
	last := st.Captions[len(st.Captions)-1]
	assert.Equal(t, 1, last.Index)
	assert.True(t, last.Pause)
	assert.Equal(t, []string{"broker-1", "p1"}, last.Nodes)
	assert.Equal(t, last.AtMs, st.NowMs, "stopped right at the caption, not later in the tick")
	events := st.EventsRun
	s.Advance(1000)
	assert.Equal(t, events, s.State().EventsRun, "it waits for Continue")

	s.Continue()
	assert.True(t, s.State().Playing)
	assert.Equal(t, -1, s.State().WaitingCaption)
	s.Advance(1000)
	assert.Greater(t, s.State().EventsRun, events)

	// The run itself is the scene's: pausing changes no event.
	s.RunToEnd()
	var kept []string
	for _, line := range strings.Split(string(mustRead(t, "acks-1-lost")), "\n") {
		if !strings.Contains(line, "pause: true") {
			kept = append(kept, line)
		}
	}
	plain, err := LoadSource("acks-1-lost.yaml", []byte(strings.Join(kept, "\n")))
	require.NoError(t, err)
	require.False(t, plain.sc.Narration[1].Pause)
	plain.RunToEnd()
	h1, _ := traceOf(plain)
	h2, _ := traceOf(s)
	assert.Equal(t, h1, h2)
	// A caption without highlight talks about its trigger's node, or nothing.
	assert.Equal(t, []string{}, s.State().Captions[0].Nodes)
	assert.Equal(t, []string{}, s.State().Captions[2].Nodes)
}

func TestStepStopsAtAPausingCaptionToo(t *testing.T) {
	s := pausing(t)
	for s.State().WaitingCaption < 0 && s.Step() {
	}
	assert.Equal(t, 1, s.State().WaitingCaption)
}

func TestTheLedgerSaysWhenAndWhereEachFateWasDecided(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	s.RunToEnd()
	var truncatedMs int64 = -1
	for _, o := range s.run.World.Observations().All() {
		if o.Event == "truncated" && truncatedMs < 0 {
			truncatedMs = o.AtMs
		}
	}
	require.GreaterOrEqual(t, truncatedMs, int64(0))
	lost, delivered := 0, 0
	for _, m := range s.State().Ledger.Messages {
		require.NotEmpty(t, m.Path, m.ID)
		assert.Equal(t, "p1", m.Path[0], "%s starts at its producer", m.ID)
		for i := 1; i < len(m.Path); i++ {
			assert.NotEqual(t, m.Path[i-1], m.Path[i], "no repeats side by side")
		}
		switch m.Fate {
		case "lost":
			lost++
			assert.Equal(t, "p1#5", m.ID)
			assert.Equal(t, truncatedMs, m.AtMs, "lost when broker-1 truncated it away")
			assert.Contains(t, m.Path, "broker-1")
			assert.NotContains(t, m.Path, "db")
		case "delivered":
			delivered++
			assert.Contains(t, m.Path, "db", "%s reached the sink", m.ID)
			assert.Equal(t, writtenAt(s.run.World, m.ID), m.AtMs)
		}
	}
	assert.Equal(t, 1, lost)
	assert.Equal(t, 9, delivered)
}

func writtenAt(w *sim.World, msg string) int64 {
	for _, o := range w.Observations().All() {
		if o.Event == "written" && o.Output == "db" && len(o.Msgs) == 1 && o.Msgs[0] == msg {
			return o.AtMs
		}
	}
	return -1
}

func mustRead(t *testing.T, name string) []byte {
	data, err := scenes.Read(name)
	require.NoError(t, err)
	return data
}

// TestStateSpeaksTheContractsNames: the JSON the bridge hands the page names the new
// fields as the page and the browser tests read them.
func TestStateSpeaksTheContractsNames(t *testing.T) {
	s := twoFaults(t)
	require.NoError(t, s.SeekTo(60))
	s.RunToEnd()
	js, err := json.Marshal(s.State())
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(js, &m))
	for _, k := range []string{"eventsRun", "canStepBack", "timeline", "faultList", "branch", "waitingCaption", "settings", "source"} {
		assert.Contains(t, m, k)
	}
	tl := m["timeline"].(map[string]any)
	for _, k := range []string{"lengthMs", "settled", "marks"} {
		assert.Contains(t, tl, k)
	}
	mark := tl["marks"].([]any)[0].(map[string]any)
	for _, k := range []string{"atMs", "kind", "index", "text"} {
		assert.Contains(t, mark, k)
	}
	fault := m["faultList"].([]any)[0].(map[string]any)
	for _, k := range []string{"atMs", "text", "syntax", "future"} {
		assert.Contains(t, fault, k)
	}
	caption := m["captions"].([]any)[0].(map[string]any)
	for _, k := range []string{"index", "nodes", "pause"} {
		assert.Contains(t, caption, k)
	}
	msg := m["ledger"].(map[string]any)["messages"].([]any)[0].(map[string]any)
	for _, k := range []string{"atMs", "path"} {
		assert.Contains(t, msg, k)
	}
	setting := m["settings"].([]any)[0].(map[string]any)
	for _, k := range []string{"key", "label", "value", "choices", "changed"} {
		assert.Contains(t, setting, k)
	}
	assert.Equal(t, map[string]any{"kind": "shipped", "name": "acks-all-safe"}, m["source"])
}
