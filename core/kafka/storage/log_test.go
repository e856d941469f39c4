package storage

import (
	"testing"

	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func batch(msgs ...string) protocol.RecordBatch {
	recs := make([]protocol.Record, len(msgs))
	for i, m := range msgs {
		recs[i] = protocol.DataRecord(m, "", "")
	}
	return protocol.NewBatch(recs)
}

func TestTruncateToTheLeadersEpochEnd(t *testing.T) {
	var leader, follower Log
	leader.AppendAsLeader(batch("a", "b"), 0)
	leader.AppendAsLeader(batch("c"), 2)
	follower.AppendAsLeader(batch("a", "b"), 0)
	follower.AppendAsLeader(batch("x", "y"), 0)

	epoch, end := leader.EndOffsetForEpoch(follower.LastEpoch())
	assert.Equal(t, int32(0), epoch)
	assert.Equal(t, int64(2), end, "epoch 0 ended where epoch 2 began")
	removed := follower.TruncateTo(end)
	assert.Equal(t, []string{"x", "y"}, protocol.MsgsOf(removed))
	assert.Equal(t, int64(2), follower.LEO())

	epoch, end = leader.EndOffsetForEpoch(2)
	assert.Equal(t, int32(2), epoch)
	assert.Equal(t, leader.LEO(), end, "the latest epoch ends at the log end")
	epoch, _ = leader.EndOffsetForEpoch(1)
	assert.Equal(t, int32(0), epoch, "an unknown epoch maps to the largest one below it")
	epoch, _ = leader.EndOffsetForEpoch(-1)
	assert.Equal(t, int32(-1), epoch, "no epoch at or below -1")

	var later Log
	later.AssignEpochStart(3, 0) // a leader elected uncleanly with nothing of epochs 0..2
	later.AppendAsLeader(batch("z"), 3)
	epoch, end = later.EndOffsetForEpoch(1)
	assert.Equal(t, int32(1), epoch, "older than any epoch known: the epoch asked")
	assert.Equal(t, int64(0), end, "ended where the first known epoch begins (LeaderEpochFileCache.endOffsetFor)")
}

func TestReadReturnsWholeBatchesAndTruncateCutsOne(t *testing.T) {
	var l Log
	l.AppendAsLeader(batch("a", "b", "c"), 0)
	l.AppendAsLeader(batch("d"), 1)
	got := l.Read(1, 4)
	require.Len(t, got, 2, "the batch holding offset 1 comes whole")
	assert.Equal(t, int64(0), got[0].BaseOffset)
	assert.Empty(t, l.Read(4, 4))
	assert.Len(t, l.Read(0, 3), 1, "up to the HW at the batch boundary")

	removed := l.TruncateTo(1)
	assert.Equal(t, []string{"b", "c", "d"}, protocol.MsgsOf(removed))
	assert.Equal(t, int64(1), l.LEO())
	assert.Empty(t, l.Problems())
	assert.Equal(t, int32(0), l.LastEpoch(), "epoch 1 started after the cut and is gone")
}

func TestProblemsFire(t *testing.T) {
	var l Log
	l.AppendAsLeader(batch("a"), 2)
	l.batches.push(protocol.RecordBatch{BaseOffset: 1, LeaderEpoch: 1,
		Records: []protocol.Record{{Offset: 1, Body: protocol.ControlMarker{Type: protocol.ControlCommit}}}})
	bad := l.Problems()
	require.Len(t, bad, 2)
	assert.Contains(t, bad[0], "leader epoch goes back from 2 to 1 at offset 1")
	assert.Contains(t, bad[1], "a transaction marker at offset 1 outside a control batch")

	l = Log{}
	l.batches.push(protocol.RecordBatch{BaseOffset: 0, Records: []protocol.Record{{Offset: 0}, {Offset: 2}}})
	assert.Contains(t, l.Problems()[0], "offset 2 stored at position 1")

	// A control batch is one marker of a transactional producer.
	l = Log{}
	l.AppendAsLeader(protocol.RecordBatch{Control: true, ProducerID: 7, Transactional: true,
		Records: []protocol.Record{{Body: protocol.ControlMarker{Type: protocol.ControlAbort}}}}, 0)
	assert.Empty(t, l.Problems())
	l.AppendAsLeader(protocol.RecordBatch{Control: true, ProducerID: protocol.NoProducerID,
		Records: []protocol.Record{{Body: protocol.ControlMarker{Type: protocol.ControlCommit}}}}, 0)
	assert.Contains(t, l.Problems()[0], "the control batch at offset 1 has no transactional producer")
	l.AppendAsLeader(protocol.RecordBatch{Control: true, ProducerID: 7, Transactional: true, Records: []protocol.Record{
		{Body: protocol.ControlMarker{}}, {Body: protocol.Data{Msg: "p1#1"}}}}, 0)
	assert.Contains(t, l.Problems()[1], "holds 2 records, 1 of them markers")
}

// A producer's (id, epoch, sequence) is written once; a follower copies what its leader
// holds without checking sequences, so a leader that appended a retry twice shows there.
func TestASequenceAppendedTwiceIsAProblem(t *testing.T) {
	idem := func(seq int32, msgs ...string) protocol.RecordBatch {
		b := batch(msgs...)
		b.ProducerID, b.ProducerEpoch, b.BaseSequence = 4, 0, seq
		return b
	}
	var l Log
	l.AppendAsFollower([]protocol.RecordBatch{idem(0, "p1#1", "p1#2"), idem(2, "p1#3")})
	require.Empty(t, l.Problems())
	bumped := idem(0, "p1#4")
	bumped.ProducerEpoch = 1 // a new epoch starts again at 0
	l.AppendAsFollower([]protocol.RecordBatch{bumped})
	require.Empty(t, l.Problems())
	l.AppendAsFollower([]protocol.RecordBatch{idem(1, "p1#2")})
	bad := l.Problems()
	require.Len(t, bad, 1)
	assert.Contains(t, bad[0], "producer 4 epoch 0: sequence 1 appended again at offset 4 (the log holds up to 2)")

	l.TruncateTo(4)
	assert.Empty(t, l.Problems(), "gone with the truncation")
	l.AppendAsFollower([]protocol.RecordBatch{idem(3, "p1#5")})
	assert.Empty(t, l.Problems())
}

// A follower that already holds the head of a batch appends its tail with the sequences
// its records had: its producer state then ends where the leader's does.
func TestATailKeepsItsRecordsSequences(t *testing.T) {
	b := batch("a", "b", "c")
	b.ProducerID, b.ProducerEpoch, b.BaseSequence = 4, 0, 7
	tail := b.Tail(1)
	assert.Equal(t, int64(1), tail.BaseOffset)
	assert.Equal(t, int32(8), tail.BaseSequence)
	assert.Equal(t, b.LastSequence(), tail.LastSequence())
	assert.Equal(t, b, b.Tail(0))
}

// The LSO is held to the log itself: a transaction the log holds no marker for keeps it
// back, whatever the transaction state says. A log whose state forgot its open
// transaction (its batches put in place by hand) breaks it.
func TestTheLSOStopsAtAnOpenTransaction(t *testing.T) {
	txnBatch := func(msg string) protocol.RecordBatch {
		b := batch(msg)
		b.ProducerID, b.ProducerEpoch, b.BaseSequence, b.Transactional = 7, 0, 0, true
		return b
	}
	var l Log
	l.AppendAsLeader(batch("a"), 0)
	l.AppendAsLeader(txnBatch("p1#1"), 0)
	l.AppendAsLeader(batch("b"), 0)
	assert.Equal(t, int64(1), l.LastStableOffset(3))
	assert.Empty(t, l.LSOProblems(3))

	forgot := Log{batches: l.batches.clone()}
	bad := forgot.LSOProblems(3)
	require.Len(t, bad, 1)
	assert.Contains(t, bad[0], "last stable offset 3 passes the open transaction of producer 7 at offset 1")
}
