package scene

import (
	"fmt"
	"testing"

	"deliverylab/scenes"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var sprintf = fmt.Sprintf

func shippedScenes(t *testing.T) []*Scene {
	t.Helper()
	var out []*Scene
	for _, name := range scenes.Names() {
		data, err := scenes.Read(name)
		require.NoError(t, err)
		s, err := Parse(name+".yaml", data)
		require.NoError(t, err, name)
		out = append(out, s)
	}
	require.NotEmpty(t, out)
	return out
}

// Every shipped scene runs to its end and meets its expect block, and every expect says
// what is delivered as well as what is lost and duplicated, so that a scene in which
// nothing flows cannot pass.
func TestShippedScenesMeetTheirExpectations(t *testing.T) {
	for _, s := range shippedScenes(t) {
		t.Run(s.Name, func(t *testing.T) {
			for _, k := range []string{"delivered", "lost", "duplicated"} {
				_, ok := s.Expect.Counts[k]
				assert.True(t, ok, "expect must state %s", k)
			}
			assert.NotEmpty(t, s.Expect.Verdict, "expect must state the verdict")
			assert.Greater(t, s.Expect.Counts["delivered"].N+boolInt(s.Expect.Counts["delivered"].Op == ">="), 0, "something must be delivered")
			assert.NotEmpty(t, s.Title.Zh)
			assert.NotEmpty(t, s.Summary.En)
			assert.NotEmpty(t, s.Summary.Zh)
			r := s.NewRun()
			r.ToEnd()
			rep := r.Judge()
			assert.Empty(t, s.Check(rep))
			assert.Empty(t, s.QuizProblems(rep), "every question can be answered from its choices")
			assert.Equal(t, EndSettled, r.EndNote)
		})
	}
}

// A shipped scene that says it holds for another Kafka release (holds.for) meets its
// expect there too: switched as the page's toggle switches it, its run has the same
// outcome. make conformance runs it on each of those releases.
func TestShippedScenesHoldForTheReleasesTheyName(t *testing.T) {
	for _, name := range scenes.Names() {
		data, err := scenes.Read(name)
		require.NoError(t, err)
		s, err := Parse(name+".yaml", data)
		require.NoError(t, err)
		assert.True(t, s.ExpectApplies(), "%s: its own kafka.version %s is not among holds.for", name, s.KafkaVersion)
		for _, v := range s.HoldsFor {
			if v == s.KafkaVersion {
				continue
			}
			t.Run(name+"@"+v.String(), func(t *testing.T) {
				sv, err := WithSettings(name+".yaml", data, [][2]string{{KafkaVersionKey, v.String()}})
				require.NoError(t, err)
				require.Equal(t, v, sv.KafkaVersion)
				r := sv.NewRun()
				r.ToEnd()
				assert.Empty(t, sv.Check(r.Judge()))
				assert.Equal(t, EndSettled, r.EndNote)
			})
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestARunIsDeterministic(t *testing.T) {
	for _, s := range shippedScenes(t) {
		a, b := s.NewRun(), s.NewRun()
		a.ToEnd()
		b.ToEnd()
		assert.Equal(t, a.World.Trace().Hash(), b.World.Trace().Hash(), s.Name)
	}
}

func TestACopiedRunGoesOnToTheSameEnd(t *testing.T) {
	s := shippedScenes(t)[1]
	r := s.NewRun()
	r.AdvanceTo(3000)
	c := &Run{Scene: s, World: r.World.Clone()}
	r.ToEnd()
	c.ToEnd()
	assert.Equal(t, r.World.Trace().Hash(), c.World.Trace().Hash())
	assert.Equal(t, r.Judge().Messages, c.Judge().Messages)
}

// Every caption of a shipped scene is reached in the scene's own run: a caption whose
// trigger never fires would leave a teacher's story with a hole.
func TestEveryCaptionOfAShippedSceneIsReached(t *testing.T) {
	for _, s := range shippedScenes(t) {
		r := s.NewRun()
		r.ToEnd()
		reached := map[int]bool{}
		for _, n := range r.World.Narrated() {
			reached[n.Index] = true
		}
		for i, n := range s.Narration {
			assert.True(t, reached[i], "%s: caption %d (%q) is never reached", s.Name, i, n.Text.En)
		}
	}
}
