package play

import (
	"testing"

	"deliverylab/scenes"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A seek or a step back that starts from a keyframe gives the state one from 0 ms gives:
// the same trace and the same State, for every shipped scene, at points across its run,
// with a fault of the user's recorded on the way.
func TestKeyframesGiveTheStateAReplayFromTheStartGives(t *testing.T) {
	for _, name := range scenes.Names() {
		s, err := Load(name)
		require.NoError(t, err)
		s.Advance(150)
		require.NoError(t, s.Inject(`{crash: broker-2, for.ms: 2000}`), name)
		s.learnAll() // a run with the crash may take more than one slice
		require.NotEmpty(t, s.keys, "%s: relearn took keyframes", name)
		end := s.timeline.LengthMs
		for _, ms := range []int64{end / 3, end / 2, end - 1, end} {
			with, without := s, fresh(t, s)
			require.NoError(t, with.SeekTo(ms))
			require.NoError(t, without.SeekTo(ms))
			assertSameRun(t, without, with, "%s: seek to %d ms", name, ms)

			require.NoError(t, with.StepBack())
			require.NoError(t, without.StepBack())
			assertSameRun(t, without, with, "%s: step back at %d ms", name, ms)
		}
	}
}

// fresh is a session at the same place as s whose seeks and steps back start from 0 ms.
func fresh(t *testing.T, s *Session) *Session {
	t.Helper()
	c := *s
	c.run, c.keys = s.run.Clone(), nil
	return &c
}

func assertSameRun(t *testing.T, want, got *Session, what string, args ...any) {
	t.Helper()
	h1, _ := traceOf(want)
	h2, _ := traceOf(got)
	require.Equal(t, want.run.World.EventsRun(), got.run.World.EventsRun(), append([]any{what}, args...)...)
	assert.Equal(t, h1, h2, append([]any{what}, args...)...)
	assert.Equal(t, comparable(want.State()), comparable(got.State()), append([]any{what}, args...)...)
}

// A long run keeps at most maxKeyframes keyframes, evenly spaced, and one at its end.
func TestALongRunKeepsFewKeyframes(t *testing.T) {
	s, err := Load("exactly-once-needs-read-committed")
	require.NoError(t, err)
	require.Greater(t, len(s.keys), 4)
	assert.LessOrEqual(t, len(s.keys), maxKeyframes+1)
	gap := s.keys[1].run.World.EventsRun() - s.keys[0].run.World.EventsRun()
	last := len(s.keys) - 1
	for i, k := range s.keys[:last] {
		assert.Equal(t, int64(i+1)*gap, k.run.World.EventsRun(), "keyframe %d", i)
	}
	s.RunToEnd()
	assert.Equal(t, s.run.World.EventsRun(), s.keys[last].run.World.EventsRun(), "the last keyframe is the end")
}
