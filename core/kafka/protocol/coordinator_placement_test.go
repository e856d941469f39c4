package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The values are Java's: "my-group".hashCode() is -1906497762 (computed by hand from
// s[0]*31^(n-1) + ... + s[n-1] with 32-bit wrap-around), Utils.abs makes it 1906497762,
// and 1906497762 % 50 is 12. With n & 0x7fffffff it would be 36: a different broker.
func TestPartitionForIsJavas(t *testing.T) {
	assert.Equal(t, int32(-1906497762), javaStringHash("my-group"))
	assert.Equal(t, int32(12), PartitionFor("my-group", 50))
	assert.Equal(t, int32(-1047860588), javaStringHash("dashboard"))
	assert.Equal(t, int32(38), PartitionFor("dashboard", 50))
	assert.Equal(t, int32(2), PartitionFor("dashboard", 3))
	assert.Equal(t, int32(3118), javaStringHash("c1"))
	assert.Equal(t, int32(18), PartitionFor("c1", 50))
	assert.Equal(t, int32(0), PartitionFor("", 50), "the empty string hashes to 0")
	assert.Equal(t, int32(0), PartitionFor("dashboard", 1))
	// Java hashes UTF-16 code units: "é" is one unit (233), "😀" two (a surrogate pair).
	assert.Equal(t, int32(233), javaStringHash("é"))
	assert.Equal(t, int32(0xD83D*31+0xDE00), javaStringHash("😀"))
}

// A hash of Integer.MIN_VALUE: Utils.abs gives 0, where Math.abs would stay negative.
// "polygenelubricants".hashCode() is Integer.MIN_VALUE (a well-known Java example).
func TestPartitionForMinValue(t *testing.T) {
	assert.Equal(t, int32(-1<<31), javaStringHash("polygenelubricants"))
	assert.Equal(t, int32(0), PartitionFor("polygenelubricants", 50))
}

// A transactional id is placed by the same hash (TransactionStateManager.partitionFor):
// "tx-1".hashCode() is 3572520, 3572520 mod 50 is 20.
func TestTransactionStatePlacement(t *testing.T) {
	assert.Equal(t, int32(20), PartitionFor("tx-1", 50))
	assert.Equal(t, int32(0), PartitionFor("tx-1", 1))
	assert.Equal(t, "__transaction_state-20", TransactionStateTP("tx-1", 50).String())
	assert.Equal(t, "__consumer_offsets-12", OffsetsTP("my-group", 50).String())
}
