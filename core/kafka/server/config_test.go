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
