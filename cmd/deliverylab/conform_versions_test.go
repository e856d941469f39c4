package main

import (
	"strings"
	"testing"

	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scene is run on every release it holds for, each simulated as that release and
// planned for its real cluster; --kafka keeps one release, --try runs every scene there.
func TestConformRunsEachSceneOnTheReleasesItHoldsFor(t *testing.T) {
	k4 := protocol.Kafka4
	k39 := protocol.Kafka39
	releases := func(cs []conformCase) (out []string) {
		for _, c := range cs {
			out = append(out, c.version.String()+" "+c.sim.plan.KafkaVersion+" "+c.scene.KafkaVersion.String())
		}
		return out
	}
	both, err := conformCases("txn-commit-and-abort", nil, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"3.9  3.9", "4.x 4.4 4.x"}, releases(both), "3.9's plan leaves the release to the runner's default")
	assert.Equal(t, map[string]int{"transaction.version": 2, "eligible.leader.replicas.version": 1}, both[1].sim.plan.Features)
	assert.NotEqual(t, both[0].key(), both[1].key(), "a Kafka 4 run needs a cluster of its own")
	assert.True(t, strings.HasPrefix(both[1].key(), "4.4 "))

	only, err := conformCases("txn-commit-and-abort", &k4, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"4.x 4.4 4.x"}, releases(only))
	none, err := conformCases("kip-890-late-produce-hangs", &k4, false)
	require.NoError(t, err)
	assert.Empty(t, none, "kip-890-late-produce-hangs holds for 3.9 only")
	tried, err := conformCases("kip-890-late-produce-hangs", &k4, true)
	require.NoError(t, err)
	assert.Equal(t, []string{"4.x 4.4 4.x"}, releases(tried))
	assert.False(t, tried[0].scene.ExpectApplies(), "tried, not held to its expect")
	own, err := conformCases("txn-late-produce-kafka-4", &k39, false)
	require.NoError(t, err)
	assert.Empty(t, own, "a Kafka 4 scene holds for 4.x only")
}

// The matrix after the table: one line a scene, a column a release.
func TestVersionMatrixHasAColumnPerRelease(t *testing.T) {
	var b strings.Builder
	printVersionMatrix(&b, []conformRow{{Scene: "a", Kafka: "3.9", Result: resultAgree}, {Scene: "a", Kafka: "4.x", Result: resultDisagree},
		{Scene: "b", Kafka: "4.x", Result: resultAgree}})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, []string{"scene", "Kafka", "3.9", "Kafka", "4.x"}, strings.Fields(lines[0]))
	assert.Equal(t, []string{"a", "agree", "DISAGREE"}, strings.Fields(lines[1]))
	assert.Equal(t, []string{"b", "-", "agree"}, strings.Fields(lines[2]))
	assert.Equal(t, "3.9 and 4.4", releasesText([]conformRow{{Kafka: "4.x"}, {Kafka: "3.9"}}))
}
