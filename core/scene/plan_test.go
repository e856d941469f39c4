package scene

import (
	"encoding/json"
	"os"
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

// A job writing to a database sink reaches the conformance runner as its Plan.Job reads
// it: sink.db.sink names the sink, and nothing of a KafkaSink is set. The JSON is the
// fixture the Java side's FlinkDbSinkTest reads with the runner's own strict mapper
// (every field Go writes must be one Plan.Job knows), so the two sides agree on these
// bytes; regenerate it with DELIVERYLAB_UPDATE_PLAN_FIXTURE=1 after a deliberate change.
func TestPlanJobWritesToItsDbSink(t *testing.T) {
	s, err := Parse("plan.yaml", []byte(`
cluster:
  brokers: 1
  topics: [{name: orders}]
apps:
  - producer: p1
    send: {topic: orders, count: 2}
  - job: totals
    checkpointing: {interval.ms: 5000, mode: EXACTLY_ONCE}
    restart.delay.ms: 1000
    source: {topic: orders, parallelism: 1}
    operator: map
    sink:
      db: {sink: orders_db}
sinks:
  - {name: orders_db, kind: table}
`))
	require.NoError(t, err)
	plan, err := s.Plan(10000)
	require.NoError(t, err)
	require.Len(t, plan.Jobs, 1)
	sink := plan.Jobs[0].Sink
	require.NotNil(t, sink.Db)
	assert.Equal(t, "orders_db", sink.Db.Sink)
	assert.Empty(t, sink.Topic)
	assert.Empty(t, sink.DeliveryGuarantee)
	assert.Empty(t, sink.TransactionalIDPrefix)
	assert.Empty(t, sink.Properties)

	got, err := json.MarshalIndent(plan.Jobs[0], "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	const fixture = "../../conformance/src/test/resources/plan-job-db.json"
	if os.Getenv("DELIVERYLAB_UPDATE_PLAN_FIXTURE") != "" {
		require.NoError(t, os.WriteFile(fixture, got, 0o644))
	}
	want, err := os.ReadFile(fixture)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "the planner's job JSON changed: check Plan.java, then regenerate %s", fixture)

	// A job with a KafkaSink has no db at all (omitted, so Java's null).
	b, err := json.Marshal(PlanJobSink{Topic: "out"})
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"db"`)
}
