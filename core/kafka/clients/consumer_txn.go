package clients

import (
	"fmt"
	"slices"
	"sort"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// What the fetcher does with transactions (CompletedFetch.nextFetchedRecord): it never
// returns a control record, at either isolation level, and with read_committed it drops
// the records of the aborted transactions the fetch response lists. Both leave gaps in
// the offsets Poll returns; the position moves past them all the same.

// txnFilter is the state of one fetch response's walk: the aborted transactions not yet
// reached, by first offset, and the producers whose aborted transaction the walk is in.
type txnFilter struct {
	pending []protocol.AbortedTxn
	aborted map[int64]bool
}

func newTxnFilter(r protocol.FetchResponse, level protocol.IsolationLevel) *txnFilter {
	if level != protocol.ReadCommitted {
		return nil
	}
	f := &txnFilter{pending: slices.Clone(r.Aborted), aborted: map[int64]bool{}}
	sort.SliceStable(f.pending, func(i, j int) bool { return f.pending[i].FirstOffset < f.pending[j].FirstOffset })
	return f
}

// skips reports whether a batch's records are left out of what Poll returns: a control
// batch always; with read_committed, a transactional batch of a producer whose aborted
// transaction began at or before it (consumeAbortedTransactionsUpTo, isBatchAborted). An
// ABORT marker ends the producer's aborted transaction (containsAbortMarker).
func (f *txnFilter) skips(b protocol.RecordBatch) bool {
	if f != nil && b.HasProducerID() {
		for len(f.pending) > 0 && f.pending[0].FirstOffset <= b.LastOffset() {
			f.aborted[f.pending[0].ProducerID] = true
			f.pending = f.pending[1:]
		}
		if isAbortMarker(b) {
			delete(f.aborted, b.ProducerID)
		} else if b.Transactional && f.aborted[b.ProducerID] {
			return true
		}
	}
	return b.Control
}

func isAbortMarker(b protocol.RecordBatch) bool {
	if !b.Control || len(b.Records) == 0 {
		return false
	}
	m, ok := b.Records[0].Body.(protocol.ControlMarker)
	return ok && m.Type == protocol.ControlAbort
}

// txnRead is a transactional record a read_committed consumer returned: the invariant
// checks that its transaction did not abort.
type txnRead struct {
	TP     protocol.TP
	PID    int64
	Offset int64
	Msg    string
}

// abortedRecords is a broker: whether its replica of a partition knows that the record
// at offset, written by pid, belongs to an aborted transaction.
type abortedRecords interface {
	InAbortedTxn(tp protocol.TP, pid, offset int64) bool
}

// abortedReads lists what is wrong with what the fetcher returned: under read_committed
// it returned a record of an aborted transaction (G1a, aborted read), as some broker's
// aborted-transaction index says. Each record is checked once; client names the client.
func (f *fetcher) abortedReads(v sim.View, client string) []string {
	var bad []string
	for _, r := range f.txnReads[f.txnChecked:] {
		if abortedOnSomeBroker(v, r) {
			bad = append(bad, fmt.Sprintf("%s (read_committed) returned %s at %s@%d, a record of an aborted transaction of pid %d",
				client, r.Msg, r.TP, r.Offset, r.PID))
		}
	}
	f.txnChecked = len(f.txnReads)
	return bad
}

func abortedOnSomeBroker(v sim.View, r txnRead) bool {
	for _, name := range v.NodeNames() {
		n, _ := v.Node(name)
		if b, ok := n.(abortedRecords); ok && b.InAbortedTxn(r.TP, r.PID, r.Offset) {
			return true
		}
	}
	return false
}
