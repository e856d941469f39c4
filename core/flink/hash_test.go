package flink

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The values below were printed by Flink 2.0.2's own code (KeyGroupRangeAssignment
// .assignKeyToParallelOperator with computeDefaultMaxParallelism, Java's String.hashCode)
// and by flink-connector-kafka 4.0.1's KafkaSourceEnumerator.getSplitOwner formula.
func TestKeysGoToTheOperatorSubtaskFlinkPicks(t *testing.T) {
	for _, c := range []struct {
		key    string
		hash   int32
		p2, p3 int
	}{
		{"k1", 3366, 0, 0}, {"k2", 3367, 1, 1}, {"k3", 3368, 0, 0}, {"k4", 3369, 0, 0},
		{"k5", 3370, 1, 2}, {"k6", 3371, 0, 0}, {"k7", 3372, 1, 2}, {"k8", 3373, 1, 2},
		{"orders", -1008770331, 0, 0}, {"p1#1", 3384815, 0, 0}, {"a", 97, 1, 1}, {"日本", 835047, 1, 2},
	} {
		assert.Equal(t, c.hash, javaHash(c.key), c.key)
		assert.Equal(t, c.p2, keyOwner(c.key, 2), "%s of 2", c.key)
		assert.Equal(t, c.p3, keyOwner(c.key, 3), "%s of 3", c.key)
	}
}

func TestPartitionsGoToTheSourceSubtaskTheEnumeratorPicks(t *testing.T) {
	want := map[string][4][4]int{ // topic -> readers-1 -> partition -> owner
		"orders": {{0, 0, 0, 0}, {1, 0, 1, 0}, {0, 1, 2, 0}, {3, 0, 1, 2}},
		"out":    {{0, 0, 0, 0}, {0, 1, 0, 1}, {2, 0, 1, 2}, {2, 3, 0, 1}},
		"events": {{0, 0, 0, 0}, {1, 0, 1, 0}, {2, 0, 1, 2}, {3, 0, 1, 2}},
	}
	for topic, byReaders := range want {
		for r, owners := range byReaders {
			for p, owner := range owners {
				assert.Equal(t, owner, splitOwner(topic, int32(p), r+1), "%s-%d of %d readers", topic, p, r+1)
			}
		}
	}
}
