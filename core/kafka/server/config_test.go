package server

import (
	"maps"
	"strings"
	"testing"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/props"

	"github.com/stretchr/testify/assert"
)

// Every key cluster.config accepts appears in Properties, so a real broker is given every
// setting the simulated one runs with — but the historical toggle, which no real broker
// has (a scene that sets it is simulator-only).
func TestPropertiesCoverEveryKey(t *testing.T) {
	c := DefaultConfig()
	for _, k := range ConfigKeys.Keys() {
		if err := ConfigKeys.Set(&c, k, props.Value{Text: "1"}); err != nil && strings.Contains(err.Error(), "not modelled yet") {
			continue
		}
		if k == TransactionVersionKey || k == EligibleLeaderReplicasVersionKey {
			// a feature, not a property: a real cluster is formatted with it
			assert.Contains(t, DefaultConfigFor(protocol.Kafka4).Features(), k)
			assert.Empty(t, DefaultConfig().Features(), "3.9's plans keep the runner's defaults")
			continue
		}
		if k == TruncateToHighWatermarkKey {
			assert.NotContains(t, DefaultConfig().Properties(), k)
			continue
		}
		if strings.HasPrefix(k, "group.consumer.") {
			// the consumer protocol's: a Kafka 4 broker's, 3.9's properties stay as they were
			assert.Contains(t, DefaultConfigFor(protocol.Kafka4).Properties(), k)
			assert.NotContains(t, DefaultConfig().Properties(), k)
			continue
		}
		all := DefaultConfig().Properties()
		maps.Copy(all, DefaultConfig().TransactionProperties()) // given to a cluster that runs transactions
		assert.Contains(t, all, k)
	}
}

// The transaction coordinator's settings, with Kafka 3.9's defaults, as a real broker
// that runs transactions is given them; Properties leaves them out.
func TestTransactionProperties(t *testing.T) {
	p := DefaultConfig().TransactionProperties()
	assert.Equal(t, map[string]string{"transaction.state.log.num.partitions": "50", "transaction.state.log.min.isr": "2",
		"transaction.max.timeout.ms": "900000", "transaction.abort.timed.out.transaction.cleanup.interval.ms": "10000",
		"transaction.partition.verification.enable": "true", "transactional.id.expiration.ms": "604800000",
		"transaction.remove.expired.transaction.cleanup.interval.ms": "3600000"}, p)
	assert.NotContains(t, DefaultConfig().Properties(), "transaction.max.timeout.ms")
}

// The consumer protocol's keys: Kafka 4.4's defaults, given to a Kafka 4 broker only,
// with the bounds a real broker holds them to widened for a value outside them.
func TestConsumerGroupProperties(t *testing.T) {
	c := DefaultConfigFor(protocol.Kafka4)
	p := c.Properties()
	assert.Equal(t, "45000", p["group.consumer.session.timeout.ms"])
	assert.Equal(t, "5000", p["group.consumer.heartbeat.interval.ms"])
	assert.Equal(t, "1000", p["group.consumer.assignment.interval.ms"])
	assert.NotContains(t, p, "group.consumer.min.session.timeout.ms")
	assert.NotContains(t, p, "group.consumer.min.heartbeat.interval.ms")

	for k, v := range map[string]string{"group.consumer.session.timeout.ms": "10000",
		"group.consumer.heartbeat.interval.ms": "1000", "group.consumer.assignment.interval.ms": "0"} {
		assert.NoError(t, ConfigKeys.Set(&c, k, props.Value{Text: v}))
	}
	assert.NoError(t, c.Validate())
	p = c.Properties()
	assert.Equal(t, "10000", p["group.consumer.min.session.timeout.ms"], "the real broker's min is 45000")
	assert.Equal(t, "1000", p["group.consumer.min.heartbeat.interval.ms"], "the real broker's min is 5000")
	assert.Equal(t, "0", p["group.consumer.assignment.interval.ms"])
	assert.Equal(t, int64(10000), c.groupConfig().ConsumerSessionTimeoutMs)
	assert.Equal(t, int64(1000), c.groupConfig().ConsumerHeartbeatIntervalMs)
	assert.Equal(t, int64(0), c.groupConfig().ConsumerAssignmentIntervalMs)

	assert.NoError(t, ConfigKeys.Set(&c, "group.consumer.session.timeout.ms", props.Value{Text: "90000"}))
	assert.Equal(t, "90000", c.Properties()["group.consumer.max.session.timeout.ms"], "the real broker's max is 60000")

	assert.Error(t, ConfigKeys.Set(&c, "group.consumer.assignment.interval.ms", props.Value{Text: "15001"}))
	assert.NoError(t, ConfigKeys.Set(&c, "group.consumer.heartbeat.interval.ms", props.Value{Text: "90000"}))
	assert.EqualError(t, c.Validate(), "group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms (90000 >= 90000)")
}

// Kafka 3.9 runs no consumer-protocol group: a 3.9 scene keeps the keys' defaults.
func TestConsumerGroupKeysNeedKafka4(t *testing.T) {
	c := DefaultConfig()
	assert.NoError(t, ConfigKeys.Set(&c, "group.consumer.session.timeout.ms", props.Value{Text: "45000"}))
	assert.NoError(t, c.Validate(), "the default is accepted")
	assert.NoError(t, ConfigKeys.Set(&c, "group.consumer.session.timeout.ms", props.Value{Text: "30000"}))
	err := c.Validate()
	assert.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "group.consumer.session.timeout.ms 30000 needs kafka.version 4.x"), err.Error())
}
