package kafka_test

import (
	"testing"

	"deliverylab/core/kafka"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/server"

	"github.com/stretchr/testify/assert"
)

// The simulation runs the __transaction_state partitions its transactional ids live on;
// a real cluster is created with all transaction.state.log.num.partitions of them, each
// with min(3, brokers) replicas; without transactional ids there is none.
func TestTransactionStatePlacement(t *testing.T) {
	c := kafka.Cluster{Brokers: 2, Config: server.DefaultConfig(), Topics: []kafka.Topic{{Name: "orders", Partitions: 1, RF: 2}}}
	count := func(parts []protocol.PartitionState) (n int) {
		for _, p := range parts {
			if p.TP.Topic == protocol.TransactionStateTopic {
				n++
				assert.Len(t, p.Replicas, 2)
			}
		}
		return n
	}
	assert.Equal(t, 0, count(c.Placement()))
	assert.Equal(t, 0, count(c.Created()))
	c.TransactionalIDs = []string{"tx-1", "tx-1"}
	assert.Equal(t, 1, count(c.Placement()))
	assert.Equal(t, 50, count(c.Created()))
	c.Config.TransactionStateLogNumPartitions = 3
	assert.Equal(t, 3, count(c.Created()))
}
