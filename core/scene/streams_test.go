package scene

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Streams thread cut off from its transaction coordinator for longer than its
// transaction.timeout.ms has its open transaction aborted, with the epoch bumped: its
// next request is fenced. Streams takes that as TaskMigratedException — a new producer,
// initialized anew, and the records processed again from the committed offsets — and
// the pipeline goes on exactly once instead of stopping for good.
func TestStreamsThreadFencedRejoinsAndGoesOn(t *testing.T) {
	const text = `
seed: 1
cluster:
  brokers: 3
  config: {min.insync.replicas: 2, transaction.abort.timed.out.transaction.cleanup.interval.ms: 500}
  topics:
    - {name: orders, partitions: 1, replication.factor: 3}
    - {name: enriched, partitions: 1, replication.factor: 3}
apps:
  - producer: p1
    config: {acks: all}
    send: {topic: orders, count: 5, interval.ms: 1000, value: "{n}"}
    start.ms: 4000
  - streams: enrich
    from: orders
    to: enriched
    config: {processing.guarantee: exactly_once_v2, session.timeout.ms: 10000, transaction.timeout.ms: 2000, commit.interval.ms: 1500}
  - consumer: audit
    topics: [enriched]
    config: {enable.auto.commit: false, auto.offset.reset: earliest, isolation.level: read_committed}
faults:
  - when: {node: enrich, event: written, message: p1#2}
    cut: [enrich, broker-2]
    for.ms: 4000
`
	s, err := Parse("fenced.yaml", []byte(text))
	require.NoError(t, err)
	r := s.NewRun()
	r.ToEnd()
	rep := r.Judge()
	assert.Equal(t, EndSettled, r.EndNote, "the run ends: the thread recovered")
	assert.Positive(t, rep.Errors["PRODUCER_FENCED"], "the coordinator's abort fenced the thread producer")
	assert.Equal(t, "exactly-once", rep.Verdict)
	assert.Equal(t, 5, rep.Messages["delivered"])
	migrated := false
	for _, l := range r.World.Trace().Texts(false) {
		migrated = migrated || strings.Contains(l, "enrich task migrated")
	}
	assert.True(t, migrated, "the thread rejoined with a new producer")
}
