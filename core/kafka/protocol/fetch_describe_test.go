package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A fetch's and its answer's text written into a buffer is Describe's, byte for byte, in
// every form (the trace hashes it): empty, with batches, read_committed, an error, a
// divergence, aborted transactions.
func TestFetchAppendDescribeIsDescribe(t *testing.T) {
	tp := TP{Topic: "orders", Partition: 3}
	batches := []RecordBatch{NewBatch([]Record{{Offset: 4, Body: Data{Msg: "p1#1"}}, {Offset: 5, Body: Data{Msg: "p1#2"}}})}
	batches[0].BaseOffset = 4
	for _, m := range []FetchRequest{
		{ReqID: 7, TP: tp, FetchOffset: 12},
		{ReqID: 8, TP: tp, FetchOffset: 0, Isolation: ReadCommitted, Replica: "broker-2"},
	} {
		assert.Equal(t, m.Describe(), string(m.AppendDescribe([]byte{})))
	}
	for _, m := range []FetchResponse{
		{ReqID: 7, TP: tp, HW: 9},
		{ReqID: 7, TP: tp, HW: 9, Batches: batches},
		{ReqID: 7, TP: tp, HW: 9, Batches: batches, Isolation: ReadCommitted, LastStable: 6},
		{ReqID: 7, TP: tp, HW: 9, Isolation: ReadCommitted, LastStable: 6},
		{ReqID: 7, TP: tp, HW: 9, Batches: batches, Isolation: ReadCommitted, LastStable: 6, Aborted: []AbortedTxn{{ProducerID: 3, FirstOffset: 4}}},
		{ReqID: 7, TP: tp, Err: "NOT_LEADER_OR_FOLLOWER"},
		{ReqID: 7, TP: tp, Diverging: true, DivergedEpoch: 2, DivergedEnd: 5},
		{ReqID: 7, TP: tp, HW: 9, Batches: []RecordBatch{NewBatch([]Record{{Offset: 0, Body: OffsetCommit{Group: "g", TP: tp, Offset: 1}}})}},
	} {
		assert.Equal(t, m.Describe(), string(m.AppendDescribe([]byte("x")))[1:])
	}
}
