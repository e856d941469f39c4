package clients

import (
	"testing"

	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
)

// The producer's timers are described from their Kind; the trace text of each is what
// the golden traces hold.
func TestProducerTimerLines(t *testing.T) {
	for want, timer := range map[string]sim.Payload{
		"timer drain":                    drainTick{},
		"timer request-timeout":          requestTimeout{ReqID: 3},
		"timer delivery-expiry":          deliveryExpiry{BatchID: 4},
		"timer max-block":                blockExpiry{Seq: 5},
		"timer init-producer-id-retry":   initRetry{},
		"timer init-producer-id-timeout": initTimeout{ReqID: 6},
		"timer txn-retry":                txnRetry{},
		"timer txn-request-timeout":      txnTimeout{ReqID: 7},
	} {
		assert.Equal(t, want, timer.Describe())
	}
}
