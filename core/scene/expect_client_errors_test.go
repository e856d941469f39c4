package scene

import (
	"fmt"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A zombie and its successor: p2's InitProducerId hears CONCURRENT_TRANSACTIONS while
// the coordinator aborts p1's transaction, and p1 none.
const zombieScene = `cluster:
  brokers: 3
  topics: [{name: orders, partitions: 1, replication.factor: 3}]
apps:
  - producer: p1
    config: {acks: all, transactional.id: app}
    send: {topic: orders, count: 2, interval.ms: 2000}
    transaction.size: 2
  - producer: p2
    config: {acks: all, transactional.id: app}
    send: {topic: orders, count: 1}
    transaction.size: 1
    start.ms: 1000
  - consumer: c1
    topics: [orders]
    config: {enable.auto.commit: false, auto.offset.reset: earliest, isolation.level: read_committed}
`

// expect.errors holds each client named in it to the errors that client alone received,
// beside the counts over every client.
func TestExpectErrorsOfOneClient(t *testing.T) {
	src := zombieScene + "expect:\n  errors: {CONCURRENT_TRANSACTIONS: \">=1\", p1: {CONCURRENT_TRANSACTIONS: 0}, p2: {CONCURRENT_TRANSACTIONS: 0}}\n"
	r, rep := runYAML(t, src)
	require.Contains(t, rep.ClientErrors, "p2")
	got := rep.ClientErrors["p2"]["CONCURRENT_TRANSACTIONS"]
	assert.Positive(t, got, "p2 waits for the fencing abort")
	assert.Equal(t, []string{fmt.Sprintf("errors.p2.CONCURRENT_TRANSACTIONS: expected 0, got %d", got)}, r.Scene.Check(rep),
		"p1's errors hold; p2's do not")
	assert.Equal(t, rep.Errors["CONCURRENT_TRANSACTIONS"], got+rep.ClientErrors["p1"]["CONCURRENT_TRANSACTIONS"])
}
