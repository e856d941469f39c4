package explore

import (
	"testing"

	"deliverylab/core/scene"
	"deliverylab/scenes"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func shipped(t testing.TB, name string) (*scene.Scene, []byte) {
	src, err := scenes.Read(name)
	require.NoError(t, err)
	s, err := scene.Parse(name+".yaml", src)
	require.NoError(t, err)
	return s, src
}

// Every finding is a fault schedule in the scene format: the scene's text with its faults
// replaced by it runs, from the start, to the same outcome and the same trace as the
// branch the search judged.
func TestEveryFindingReplaysFromItsSceneText(t *testing.T) {
	for _, name := range []string{"acks-1-lost", "retry-duplicate", "idempotent-retry"} {
		t.Run(name, func(t *testing.T) {
			s, src := shipped(t, name)
			c := *s
			c.Explore = Defaults(s) // every node crashes, every answer may be lost
			res := Run(&c, Options{Depth: 1})
			require.NotEmpty(t, res.Findings, "the default faults break %s somehow", name)
			for _, f := range res.Findings {
				replays(t, src, f)
			}
		})
	}
}

// The same scene gives the same search: order, figures and findings.
func TestTheSearchIsDeterministic(t *testing.T) {
	s, _ := shipped(t, "acks-1-lost")
	a, b := Run(s, Options{Depth: 1}), Run(s, Options{Depth: 1})
	assert.Equal(t, a, b)
	assert.True(t, a.Exhausted)
	assert.Positive(t, a.Pruned, "a crash of a node already down is not run")
}

// A budget stops the search, and says it did.
func TestABudgetStopsTheSearch(t *testing.T) {
	s, _ := shipped(t, "acks-1-lost")
	res := Run(s, Options{Depth: 1, Budget: 10})
	assert.Equal(t, 10, res.Schedules)
	assert.False(t, res.Exhausted)
}

// Each key of the explore block changes the search: faults what is tried, depth how
// many at once, budget how many schedules.
func TestExploreKeysSteerTheSearch(t *testing.T) {
	s, _ := shipped(t, "acks-1-lost")
	search := func(block string) Result {
		e, err := s.ParseExplore([]byte(block))
		require.NoError(t, err)
		c := *s
		c.Explore = e
		return Run(&c, Options{})
	}
	crashC1 := search("explore: {faults: [{crash: p1, for.ms: 1000}]}")
	crashBrokers := search("explore: {faults: [{crash: \"broker-*\", for.ms: 1000}]}")
	assert.Equal(t, 1, crashC1.Faults)
	assert.Equal(t, 3, crashBrokers.Faults)
	assert.NotEqual(t, crashC1.Schedules, crashBrokers.Schedules)

	pairs := search("explore: {faults: [{crash: p1, for.ms: 1000}], depth: 2, budget: 300}")
	assert.Equal(t, 300, pairs.Schedules, "depth 2 goes on to pairs after the singles")
	assert.Greater(t, pairs.Schedules, crashC1.Schedules)
	assert.Equal(t, 7, search("explore: {faults: [{crash: p1, for.ms: 1000}], budget: 7}").Schedules)
}

// acks=all with min.insync.replicas=1 loses only to two faults: broker-1 cut off from its
// followers (it then acknowledges alone), and its crash. Every single fault is tried
// first; the loss is a pair, the partition first.
func TestAPairFindsWhatNoSingleFaultDoes(t *testing.T) {
	s, src := shipped(t, "acks-all-isr-of-one")
	res := Run(s, Options{})
	var loss *Finding
	for i, f := range res.Findings {
		if f.Verdict == "at-most-once" {
			loss = &res.Findings[i]
		}
	}
	require.NotNil(t, loss, "the pairs within the budget find the loss")
	require.Len(t, loss.Faults, 2)
	assert.Equal(t, "partition", string(loss.Faults[0].Fault.Kind))
	assert.Equal(t, "crash", string(loss.Faults[1].Fault.Kind))
	singles := Run(s, Options{Depth: 1})
	for _, f := range singles.Findings {
		assert.NotEqual(t, "at-most-once", f.Verdict, "no single fault loses: %s", scene.FaultsYAML(f.Faults))
	}
	replays(t, src, *loss)
}
