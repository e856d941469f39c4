package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func traceWith(w *World, part string) []string {
	var out []string
	for _, l := range w.Trace().Lines {
		if strings.Contains(l.Text, part) {
			out = append(out, l.Text)
		}
	}
	return out
}

// A paused echo answers nothing while paused; on resume it handles every ping that
// waited, in the order they came, at the resume time.
func TestAPausedNodeHoldsItsDeliveriesAndHandlesThemInOrderOnResume(t *testing.T) {
	w := newPingWorld(1, 0)
	w.RunUntil(0, nil)
	w.Inject(Fault{Kind: FaultPause, Node: "b"})
	w.Schedule(100, Fault{Kind: FaultResume, Node: "b"})
	w.RunUntil(99, nil)
	assert.True(t, w.Paused("b"))
	_, up := w.Node("b")
	assert.True(t, up, "a paused process is not down")
	assert.Empty(t, pingerOf(w).Pongs)
	held := w.Held("b")
	require.Greater(t, held, 3)
	assert.Len(t, traceWith(w, "(b paused)"), held)
	assert.Empty(t, traceWith(w, "refused"), "the pings reached b's host")
	w.RunUntil(100, nil)
	assert.False(t, w.Paused("b"))
	assert.Zero(t, w.Held("b"))
	w.RunUntil(105, nil)
	want := make([]int, held)
	for i := range want {
		want[i] = i + 1
	}
	assert.Equal(t, want, pingerOf(w).Pongs, "every held ping answered, in order, right after the resume")
}

// pausedEcho is a ping world whose echo b was paused from the start, 50 ms on: it holds
// pings.
func pausedEcho(t *testing.T) (*World, int) {
	w := newPingWorld(1, 0)
	w.RunUntil(0, nil)
	w.Inject(Fault{Kind: FaultPause, Node: "b"})
	w.RunUntil(50, nil)
	held := w.Held("b")
	require.Positive(t, held)
	return w, held
}

// What reached a paused node's host is past the network: a cut made meanwhile does not
// lose it.
func TestACutDuringAPauseDoesNotLoseWhatWaitsAtTheHost(t *testing.T) {
	w, held := pausedEcho(t)
	w.Inject(Fault{Kind: FaultCutOneway, From: "a", To: "b"})
	w.Inject(Fault{Kind: FaultResume, Node: "b"})
	w.RunUntil(60, nil)
	assert.Len(t, pingerOf(w).Pongs, held)
}

// A paused node's timers wait too, and fire when the pause (for.ms) ends.
func TestAPausedNodesTimersWaitForTheEndOfForMs(t *testing.T) {
	w := newPingWorld(1, 0)
	w.Schedule(15, Fault{Kind: FaultPause, Node: "a", ForMs: 100})
	w.RunUntil(114, nil)
	p := pingerOf(w)
	sent := p.Sent
	assert.Equal(t, 1, sent, "the first tick fired at 10 ms, the next came due in the pause")
	assert.Equal(t, 2, w.Held("a"), "the pong to ping 1 and the next tick")
	w.RunUntil(115, nil)
	assert.Equal(t, sent+1, p.Sent, "the held tick fires at the resume")
	assert.Equal(t, []string{"115 fault resume a"}, traceWith(w, "resume"))
	runAll(w)
	assert.Equal(t, 20, p.Sent)
}

// A crash ends a pause: what waited at the host dies with the process, its senders'
// connections are reset, and the restarted node starts afresh, not paused.
func TestACrashOfAPausedNodeLosesWhatItHeld(t *testing.T) {
	w, held := pausedEcho(t)
	assert.Equal(t, 1, w.pausedNodes)
	w.Inject(Fault{Kind: FaultCrash, Node: "b"})
	assert.False(t, w.Paused("b"))
	assert.Zero(t, w.pausedNodes, "a crash ends the pause: Settled looks for paused nodes no more")
	assert.Zero(t, w.Held("b"))
	assert.Len(t, traceWith(w, "lost in the crash"), held)
	w.Inject(Fault{Kind: FaultRestart, Node: "b"})
	runAll(w)
	p := pingerOf(w)
	assert.Equal(t, 1, p.Resets, "the held pings were requests: their connection was reset")
	assert.NotEmpty(t, p.Pongs)
	assert.NotContains(t, p.Pongs, 1, "ping 1 waited at b when it crashed")
}

// A run whose paused node holds work has not settled, resume ahead or not, though the wire
// is quiet; once resumed and done it settles.
func TestAPausedNodeHoldingWorkKeepsTheRunFromSettling(t *testing.T) {
	w := newPingWorld(1, 0)
	w.RunUntil(0, nil)
	w.Inject(Fault{Kind: FaultPause, Node: "b"})
	runAll(w)
	assert.Equal(t, []string{"b"}, w.PausedHolding())
	assert.False(t, w.Settled(), "nothing resumes b, but it holds pings")
	assert.True(t, w.Quiet(), "the held pings are not on the wire")
	w.Schedule(w.NowMs()+10, Fault{Kind: FaultResume, Node: "b"})
	assert.True(t, w.Quiet(), "a resume ahead: the page may hurry to it")
	assert.False(t, w.Settled(), "the resume is ahead")
	w.RunUntil(w.NowMs()+100, nil)
	assert.Empty(t, w.PausedHolding())
	assert.True(t, w.Settled())
	assert.Len(t, pingerOf(w).Pongs, 20)
}

func TestPausingTwiceOrResumingARunningNodeChangesNothing(t *testing.T) {
	a, b := newPingWorld(1, 0), newPingWorld(1, 0)
	a.RunUntil(0, nil)
	b.RunUntil(0, nil)
	a.Inject(Fault{Kind: FaultPause, Node: "b"})
	a.Inject(Fault{Kind: FaultPause, Node: "b"})
	a.Inject(Fault{Kind: FaultResume, Node: "a"})
	b.Inject(Fault{Kind: FaultPause, Node: "b"})
	assert.Equal(t, 1, a.pausedNodes, "paused twice: one paused node")
	for _, w := range []*World{a, b} {
		w.Schedule(80, Fault{Kind: FaultResume, Node: "b"})
		runAll(w)
		assert.Zero(t, w.pausedNodes)
	}
	assert.Equal(t, pingerOf(a).Pongs, pingerOf(b).Pongs)
}

func TestACopyOfAPausedWorldRunsOnToTheSameTrace(t *testing.T) {
	w := newPingWorld(1, 2)
	w.Schedule(20, Fault{Kind: FaultPause, Node: "b", ForMs: 60})
	w.RunUntil(50, nil)
	assertACopyRunsOnAlike(t, w)
}

// A pause before a node's start keeps it from starting until the resume.
func TestAPauseBeforeTheStartDelaysTheBoot(t *testing.T) {
	w := newPingWorld(1, 0)
	w.Schedule(0, Fault{Kind: FaultPause, Node: "a", ForMs: 50})
	w.RunUntil(49, nil)
	assert.Zero(t, pingerOf(w).Sent)
	assert.True(t, w.Paused("a"))
	w.RunUntil(60, nil)
	assert.Equal(t, 1, pingerOf(w).Sent, "booted at 50 ms, first tick at 60 ms")
}

func TestHealOnewayUndoesCutOneway(t *testing.T) {
	w := newPingWorld(1, 0)
	w.Inject(Fault{Kind: FaultCut, From: "a", To: "b"})
	w.Inject(Fault{Kind: FaultHealOneway, From: "b", To: "a"})
	assert.Equal(t, [][2]string{{"a", "b"}}, w.CutLinks())
	assert.Equal(t, "heal-oneway b a", Fault{Kind: FaultHealOneway, From: "b", To: "a"}.Describe())
	assert.Equal(t, "pause b for 5ms", Fault{Kind: FaultPause, Node: "b", ForMs: 5}.Describe())
}

func TestATaggedTriggerSaysWhenItFired(t *testing.T) {
	w := newPingWorld(1, 0)
	w.AddTrigger(Trigger{Event: "pinged", Message: "m#2", Tag: "user-1", Fault: Fault{Kind: FaultPause, Node: "a"}})
	fired, _ := w.TriggerFired("user-1")
	assert.False(t, fired)
	runAll(w)
	fired, at := w.TriggerFired("user-1")
	require.True(t, fired)
	var pinged []int64
	for _, o := range w.Observations().All() {
		if o.Event == "pinged" {
			pinged = append(pinged, o.AtMs)
		}
	}
	assert.Equal(t, pinged[1], at)
	assert.True(t, w.Paused("a"))
	assert.Equal(t, 2, pingerOf(w).Sent)
}
