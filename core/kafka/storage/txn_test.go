package storage

import (
	"testing"

	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func txnBatch(pid int64, seq int32, msgs ...string) protocol.RecordBatch {
	b := idem(pid, 0, seq, msgs...)
	b.Transactional = true
	return b
}

func marker(pid int64, t protocol.ControlType) protocol.RecordBatch {
	return protocol.RecordBatch{ProducerID: pid, BaseSequence: protocol.NoSequence, Transactional: true, Control: true,
		Records: []protocol.Record{{Body: protocol.ControlMarker{Type: t}}}}
}

// The LSO stops at the first open transaction, and at an ended one until the HW passes
// its marker; an ABORT indexes the transaction, a marker without data here indexes
// nothing.
func TestLastStableOffset(t *testing.T) {
	var l Log
	l.AppendAsLeader(txnBatch(7, 0, "a", "b"), 0) // 0..1
	l.AppendAsLeader(idem(8, 0, 0, "c"), 0)       // 2
	assert.Equal(t, int64(0), l.LastStableOffset(3))
	l.AppendAsLeader(marker(7, protocol.ControlAbort), 0) // 3
	assert.Equal(t, int64(0), l.LastStableOffset(3), "the HW has not passed the marker")
	assert.Equal(t, int64(4), l.LastStableOffset(4))
	l.HighWatermarkUpdated(4)
	assert.Equal(t, int64(4), l.LastStableOffset(4))
	assert.Equal(t, []protocol.AbortedTxn{{ProducerID: 7, FirstOffset: 0}}, l.AbortedTxns(0, 4))
	assert.Empty(t, l.AbortedTxns(4, 5), "the transaction ends before the range")
	assert.True(t, l.InAbortedTxn(7, 1))
	assert.False(t, l.InAbortedTxn(8, 2))
	l.AppendAsLeader(marker(9, protocol.ControlAbort), 0) // 4: nothing of pid 9 here
	assert.Len(t, l.AbortedIndex(), 1)
}

// A truncation below a marker reopens the transaction and removes it from the aborted
// index; a restart rebuilds the same state.
func TestTruncationRemovesTxnState(t *testing.T) {
	var l Log
	l.AppendAsLeader(txnBatch(7, 0, "a"), 0)
	l.AppendAsLeader(marker(7, protocol.ControlAbort), 0)
	require.Len(t, l.AbortedIndex(), 1)
	c := l.Clone()
	l.TruncateTo(1)
	assert.Empty(t, l.AbortedIndex())
	e, _ := l.Producer(7)
	assert.Equal(t, int64(0), e.TxnFirstOffset, "open again")
	assert.Equal(t, protocol.ErrInvalidTxnState, l.CheckProducer(idem(7, 0, 1, "b")).Err, "a plain write inside it is refused")
	c.RecoverProducerState()
	assert.Len(t, c.AbortedIndex(), 1, "the clone keeps its own state, and rebuilds it")
}

// Markers check the producer epoch and the coordinator epoch.
func TestCheckMarker(t *testing.T) {
	var l Log
	assert.Equal(t, protocol.Error(""), l.CheckMarker(7, 0, 0, 0), "an unknown producer's marker is accepted")
	m := marker(7, protocol.ControlAbort)
	m.ProducerEpoch, m.Records[0].Body = 2, protocol.ControlMarker{Type: protocol.ControlAbort, CoordinatorEpoch: 3}
	l.AppendAsLeader(m, 0)
	assert.Equal(t, protocol.ErrInvalidProducerEpoch, l.CheckMarker(7, 1, 3, 0))
	assert.Equal(t, protocol.ErrTransactionCoordinatorFenced, l.CheckMarker(7, 2, 2, 0))
	assert.Equal(t, protocol.Error(""), l.CheckMarker(7, 2, 3, 0))
	assert.Equal(t, protocol.Error(""), l.CheckMarker(7, 2, 3, 2), "version 2: a retry of the marker that ended the transaction")
}

// Under transactions version 2 a marker at the epoch of the transaction open on the
// partition is refused: it belongs to the transaction before, which that epoch's EndTxn
// ended (Kafka 4.4's ProducerAppendInfo.checkProducerEpoch). Version 0 takes it.
func TestCheckMarkerVersion2(t *testing.T) {
	var l Log
	b := txnBatch(7, 0, "a")
	b.ProducerEpoch = 3 // the transaction open at epoch 3
	l.AppendAsLeader(b, 0)
	assert.Equal(t, protocol.ErrInvalidProducerEpoch, l.CheckMarker(7, 3, 0, 2))
	assert.Equal(t, protocol.Error(""), l.CheckMarker(7, 3, 0, 0), "version 0 ends the open transaction with it")
	assert.Equal(t, protocol.Error(""), l.CheckMarker(7, 4, 0, 2), "its own marker, at the bumped epoch")
}

// A marker at a new epoch leaves an entry with that epoch and no batches: it accepts only
// sequence 0 at that epoch (ProducerAppendInfo.checkSequence: the last sequence is
// NO_SEQUENCE, and any sequence goes only for an entry with no epoch at all).
func TestEntryWithAnEpochAndNoBatchesAcceptsOnlySequenceZero(t *testing.T) {
	var l Log
	l.AppendAsLeader(txnBatch(7, 0, "a", "b"), 0) // seq 0..1 at epoch 0
	fence := marker(7, protocol.ControlAbort)
	fence.ProducerEpoch = 1 // the coordinator's fencing abort, at the bumped epoch
	l.AppendAsLeader(fence, 0)
	e, ok := l.Producer(7)
	require.True(t, ok)
	require.Equal(t, int16(1), e.Epoch)
	require.Empty(t, e.Batches)

	late := txnBatch(7, 2, "c")
	late.ProducerEpoch = 1
	assert.Equal(t, protocol.ErrOutOfOrderSequenceNumber, l.CheckProducer(late).Err)
	first := txnBatch(7, 0, "c")
	first.ProducerEpoch = 1
	assert.Equal(t, protocol.Error(""), l.CheckProducer(first).Err)
	assert.Equal(t, protocol.Error(""), l.CheckProducer(txnBatch(8, 5, "d")).Err, "an unknown producer: any sequence")
}
