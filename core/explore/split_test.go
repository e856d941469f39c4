package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A search cut into parts, each searched on its own and merged in order, is the search
// whole: the same figures, the same findings under the same schedule numbers, however
// many parts.
func TestPartsMergedAreTheWholeSearch(t *testing.T) {
	for _, name := range []string{"acks-1-lost", "retry-duplicate", "flink-sink-none-duplicates"} {
		s, _ := shipped(t, name)
		whole := Run(s, Options{Depth: 1})
		require.NotEmpty(t, whole.Findings, name)
		for _, n := range []int{2, 5, 16} {
			search := New(s, Options{Depth: 1})
			parts := search.Split(n)
			require.Len(t, parts, n, "%s splits in %d", name, n)
			var results []Result
			for _, p := range parts {
				x := search.Part(p)
				for x.Step() {
				}
				results = append(results, x.Result())
			}
			assert.Equal(t, whole, Merge(results), "%s in %d parts", name, n)
		}
	}
}

// A search that cannot be cut is one part: pairs (acks-all-isr-of-one's own depth 2), and
// singles whose budget could stop the search before every one is tried.
func TestASearchThatCannotBeCutIsOnePart(t *testing.T) {
	s, _ := shipped(t, "acks-all-isr-of-one")
	x := New(s, Options{})
	assert.Equal(t, []Part{{From: 0, To: x.Result().Points}}, x.Split(4), "depth 2")
	x = New(s, Options{Depth: 1, Budget: 50})
	assert.Equal(t, []Part{{From: 0, To: x.Result().Points}}, x.Split(4), "a budget of 50")
	assert.Len(t, New(s, Options{Depth: 1}).Split(4), 4)
}
