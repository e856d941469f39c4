package server

import (
	"testing"

	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
)

// logWith builds a replica whose log holds one record per epoch listed, in order.
func logWith(epochs ...int32) *Partition {
	p := newPartition(protocol.TP{Topic: "t"}, "broker-2")
	for i, e := range epochs {
		p.Log.AppendAsLeader(protocol.NewBatch([]protocol.Record{protocol.DataRecord("m#"+string(rune('a'+i)), "", "")}), e)
	}
	return p
}

// The three answers of AbstractFetcherThread.getOffsetTruncationState.
func TestDivergenceTruncation(t *testing.T) {
	// Log e0 e0 e3 e3: epoch 0 ends at 2, epoch 3 at the end, 4.
	p := logWith(0, 0, 3, 3)

	at, done := p.divergenceTruncation(2, 5)
	assert.Equal(t, int64(2), at, "epoch 2 is unknown here: keep what epoch 0, the largest below it, wrote")
	assert.False(t, done, "and ask the leader again with epoch 0")

	at, done = p.divergenceTruncation(0, 1)
	assert.Equal(t, int64(1), at, "both know epoch 0: the shorter end wins")
	assert.True(t, done)

	at, done = p.divergenceTruncation(3, 9)
	assert.Equal(t, int64(4), at, "never past the follower's own log end")
	assert.True(t, done)

	at, done = p.divergenceTruncation(-1, 0)
	assert.Equal(t, int64(0), at, "the leader knows no epoch this old: its end is all there is")
	assert.True(t, done)
}
