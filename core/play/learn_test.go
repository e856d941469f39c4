package play

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deliverylab/scenes"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Learning the timeline a few events at a time gives what learning it at once gives:
// the same timeline, the same keyframes and the same chart, for every shipped scene with
// a fault of the user's recorded.
func TestLearningInSlicesLearnsWhatLearningAtOnceDoes(t *testing.T) {
	for _, name := range scenes.Names() {
		base, err := Load(name)
		require.NoError(t, err)
		base.Advance(150)
		require.NoError(t, base.Inject(`{crash: broker-1, for.ms: 1000}`), name)
		base.learnAll()

		whole, sliced := *base, *base
		whole.startLearning()
		whole.learn(1 << 40)
		require.Nil(t, whole.learner)
		sliced.startLearning()
		slices := 0
		for sliced.learner != nil {
			sliced.learn(97)
			slices++
			if sliced.learner != nil {
				require.True(t, sliced.timeline.Learning, "%s: the timeline says it is being learned", name)
			}
		}
		assert.Greater(t, slices, 1, name)
		assert.Equal(t, whole.timeline, sliced.timeline, name)
		assert.Equal(t, base.timeline, sliced.timeline, "%s: as the session learned it", name)
		assert.Equal(t, whole.chart, sliced.chart, name)
		require.Equal(t, len(whole.keys), len(sliced.keys), name)
		for i := range whole.keys {
			assert.Equal(t, whole.keys[i].run.World.EventsRun(), sliced.keys[i].run.World.EventsRun(), "%s: keyframe %d", name, i)
			assert.Equal(t, whole.keys[i].next, sliced.keys[i].next, "%s: keyframe %d", name, i)
		}
	}
}

// A run longer than a slice is learned a slice at a time: loading it returns at once
// with the timeline as far as the first slice got; each Learn runs one more slice, the
// length grows, and the page may play meanwhile; at the end the timeline is whole.
func TestALongRunIsLearnedASliceAtATime(t *testing.T) {
	s, err := LoadSource("long.yaml", neverSettles(t, 12000))
	require.NoError(t, err)
	require.True(t, s.Learning(), "54,000 events are more than one slice")
	st := s.State()
	require.True(t, st.Timeline.Learning)
	assert.Positive(t, st.Timeline.LengthMs)
	assert.Equal(t, int64(learnSliceEvents), s.learner.run.World.EventsRun(), "the first slice ran, no more")

	s.Play()
	s.Advance(500)
	last, slices := st.Timeline.LengthMs, 1
	for s.Learning() {
		before := s.learner.run.World.EventsRun()
		version := s.Version()
		s.LearnFor(learnSliceEvents)
		slices++
		assert.Greater(t, s.Version(), version, "a slice changes what the page shows")
		if s.Learning() {
			assert.Equal(t, int64(learnSliceEvents), s.learner.run.World.EventsRun()-before, "slice %d", slices)
			assert.GreaterOrEqual(t, s.timeline.LengthMs, last)
			last = s.timeline.LengthMs
		}
	}
	assert.GreaterOrEqual(t, slices, 6)
	assert.False(t, s.State().Timeline.Learning)
	assert.Equal(t, int64(12000), s.timeline.LengthMs)
	assert.Equal(t, int64(500), s.NowMs(), "playing went on while the timeline was learned")
	assert.False(t, s.LearnFor(learnSliceEvents), "a learned timeline has nothing more to learn")

	// Once learned, Run to end goes to the end's keyframe.
	s.RunToEnd()
	assert.Equal(t, int64(12000), s.NowMs())
}

// learnAll finishes learning the timeline at once, for a test that looks at the whole.
func (s *Session) learnAll() {
	for s.learner != nil {
		s.learn(learnSliceEvents)
	}
}

// neverSettles is the CLI's event-limit scene (auto-commit every 0 ms keeps a commit on
// the wire, so the run never settles), with stop.ms as given.
func neverSettles(t *testing.T, stopMs int) []byte {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "..", "cmd", "deliverylab", "testdata", "never-settles.yaml"))
	require.NoError(t, err)
	return []byte(strings.Replace(string(text), "seed: 1\n", fmt.Sprintf("seed: 1\nstop.ms: %d\n", stopMs), 1))
}
