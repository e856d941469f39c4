package storage

import (
	"testing"

	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func idem(pid int64, epoch int16, seq int32, msgs ...string) protocol.RecordBatch {
	b := batch(msgs...)
	b.ProducerID, b.ProducerEpoch, b.BaseSequence = pid, epoch, seq
	return b
}

// A truncation removes the state of the batches it cuts: a batch cut away is no longer
// a duplicate, and the next sequence expected is the one after what remains.
func TestTruncationRemovesProducerState(t *testing.T) {
	var l Log
	l.AppendAsLeader(idem(7, 0, 0, "a", "b"), 0)
	l.AppendAsLeader(idem(7, 0, 2, "c"), 0)
	require.True(t, l.CheckProducer(idem(7, 0, 2, "c")).Duplicate)
	l.TruncateTo(2)
	assert.False(t, l.CheckProducer(idem(7, 0, 2, "c")).Duplicate, "the cut batch is forgotten")
	assert.Equal(t, protocol.Error(""), l.CheckProducer(idem(7, 0, 2, "c")).Err, "and its sequence is next again")
	assert.Equal(t, protocol.ErrOutOfOrderSequenceNumber, l.CheckProducer(idem(7, 0, 3, "d")).Err)
}

// Only the last five batches are kept; a clone's state is its own.
func TestProducerStateKeepsFiveBatches(t *testing.T) {
	var l Log
	for i := range int32(6) {
		l.AppendAsLeader(idem(7, 0, i, "x"), 0)
	}
	e, ok := l.Producer(7)
	require.True(t, ok)
	require.Len(t, e.Batches, BatchesToRetain)
	assert.Equal(t, int32(1), e.Batches[0].FirstSeq)
	c := l.Clone()
	c.AppendAsLeader(idem(7, 0, 6, "y"), 0)
	e, _ = l.Producer(7)
	assert.Equal(t, int32(5), e.LastSeq(), "the original does not see the clone's append")
}
