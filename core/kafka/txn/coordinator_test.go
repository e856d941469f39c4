package txn

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The transactional id's partition is Utils.abs(hashCode) mod the partition count
// (TransactionStateManager.partitionFor): "tx-1".hashCode() is 3572520, 3572520 mod 50
// is 20.
func TestPartitionFor(t *testing.T) {
	assert.Equal(t, int32(20), PartitionFor("tx-1", DefaultLogPartitions))
	assert.Equal(t, int32(0), PartitionFor("tx-1", 1))
	assert.Equal(t, "__transaction_state-20", LogTP("tx-1", DefaultLogPartitions).String())
}
