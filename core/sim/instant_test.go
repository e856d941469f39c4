package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// volley answers every pong with a new ping at once: over a zero-latency link the two
// never let the clock move.
type volley struct{ pinger }

func (v *volley) Receive(env *Env, m Message) {
	if p, ok := m.Payload.(pong); ok {
		env.Send(v.peer, ping{N: p.N + 1})
	}
}
func (v *volley) Clone() Node { c := *v; return &c }

func TestAnInstantThatNeverEndsFreezesTheRunAndNamesTheLoop(t *testing.T) {
	w := NewWorld(Config{Seed: 1, LatencyMs: 0})
	w.Add(&volley{pinger{name: "a", peer: "b"}}, 0)
	w.Add(&echo{name: "b"}, 0)
	w.Trace().Keep = false
	w.RunUntil(1000, nil)

	f := w.Frozen()
	require.NotNil(t, f, "the run must stop instead of spinning")
	assert.Equal(t, int64(10), f.AtMs, "the first ping goes out at 10 ms and the volley never ends")
	assert.Equal(t, int64(10), w.NowMs(), "the clock does not jump past the frozen instant")
	assert.Equal(t, []LoopStep{{What: "a -> b Ping", Count: loopWindow / 2}, {What: "b -> a Pong", Count: loopWindow / 2}}, f.Loop)
	assert.Contains(t, f.Describe(), "the clock stopped at 10 ms")
	assert.False(t, w.Step(), "a frozen world runs no more events")
}

func TestABusyInstantThatEndsIsNotFrozen(t *testing.T) {
	w := newPingWorld(1, 0)
	runAll(w)
	assert.Nil(t, w.Frozen())
}

func TestATraceWithATailKeepsTheEndAndHashesEverything(t *testing.T) {
	full, tail := newPingWorld(1, 0), newPingWorld(1, 0)
	tail.Trace().Tail = 5
	runAll(full)
	runAll(tail)
	assert.Equal(t, full.Trace().Hash(), tail.Trace().Hash())
	lines := full.Trace().Lines
	require.Greater(t, len(lines), 10)
	got := tail.Trace().Lines
	assert.Less(t, len(got), 10)
	assert.Equal(t, lines[len(lines)-len(got):], got, "the tail is the end of the whole trace")
}
