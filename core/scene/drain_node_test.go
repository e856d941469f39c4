package scene

import (
	"testing"

	"deliverylab/core/apps"
	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A leader whose partition has a batch past linger.ms takes the first batch of every
// partition it leads in the same request, lingering or not
// (RecordAccumulator.drainBatchesForOneNode): p1#2, handed to the client 600 ms after
// p1#1 and lingering 1000 ms, leaves with p1#1, 400 ms into its linger; on a partition
// led by another broker it would have waited out its linger.
func TestAReadyLeaderTakesEveryPartitionsBatch(t *testing.T) {
	appended := func(leaders string) map[string]int64 {
		r, _ := runYAML(t, `
cluster:
  brokers: 2
  topics: [{name: orders, partitions: 2, replication.factor: 1, leaders: [`+leaders+`]}]
apps:
  - producer: p1
    config: {acks: 1, linger.ms: 1000}
    send: {topic: orders, count: 2, interval.ms: 600, key: "a{n%2}"}
`)
		at := map[string]int64{}
		for _, o := range r.World.Observations().All() {
			if o.Event == protocol.Appended && len(o.Msgs) == 1 {
				at[o.Msgs[0]] = o.AtMs
			}
			if o.Event == apps.Sent && o.Msgs[0] == "p1#2" {
				at["sent p1#2"] = o.AtMs
			}
		}
		require.Len(t, at, 3)
		return at
	}
	one := appended("broker-1, broker-1")
	assert.Equal(t, one["p1#1"], one["p1#2"], "one request carries both batches")
	assert.Less(t, one["p1#2"]-one["sent p1#2"], int64(1000), "p1#2 left before its linger ended")
	two := appended("broker-1, broker-2")
	assert.Greater(t, two["p1#2"], two["p1#1"])
	assert.GreaterOrEqual(t, two["p1#2"]-two["sent p1#2"], int64(1000), "alone on its leader, p1#2 waits out its linger")
}
