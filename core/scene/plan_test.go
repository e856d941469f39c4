package scene

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A transactional producer's transaction size and the transactions it aborts reach the
// conformance runner under the names its Plan.Producer reads (transactionSize,
// abortTransactions); a producer that is not transactional says 0 and no aborts.
func TestPlanCarriesTheProducersTransactions(t *testing.T) {
	s, err := Parse("plan.yaml", []byte(`
cluster:
  brokers: 1
  topics: [{name: orders}]
apps:
  - producer: p1
    send: {topic: orders, count: 5}
  - producer: p2
    send: {topic: orders, count: 1}
`))
	require.NoError(t, err)
	s.Producers[0].TransactionSize = 2
	s.Producers[0].AbortTransactions = []int{2}
	plan, err := s.Plan(10000)
	require.NoError(t, err)
	require.Len(t, plan.Producers, 2)
	b, err := json.Marshal(plan.Producers[0])
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, float64(2), got["transactionSize"])
	assert.Equal(t, []any{float64(2)}, got["abortTransactions"])
	assert.Equal(t, 0, plan.Producers[1].TransactionSize)
	assert.Empty(t, plan.Producers[1].AbortTransactions)
}
