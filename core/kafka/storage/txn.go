package storage

import (
	"math"
	"slices"
	"sort"

	"deliverylab/core/kafka/protocol"
)

// The transaction state of one partition replica, as Kafka's ProducerStateManager and
// TransactionIndex keep it: per producer, the first offset of its open transaction
// (ProducerStateEntry.currentTxnFirstOffset) and the coordinator epoch of its last
// marker; the transactions whose marker the high watermark has not yet passed
// (unreplicatedTxns); and the aborted transactions a read_committed fetch must list
// (TransactionIndex). Like the producer state, it is derived from the log alone: a
// follower builds it from what it replicates, a restarted broker and a truncation
// rebuild it from the batches.

// CompletedTxn is a transaction a marker ended on this partition (Kafka's CompletedTxn):
// its producer, its first offset and the marker's offset.
type CompletedTxn struct {
	ProducerID  int64
	FirstOffset int64
	LastOffset  int64
	Aborted     bool
}

// txnState is the part of the log's derived state that transactions add.
type txnState struct {
	unreplicated []CompletedTxn // ended, marker not yet below the HW; by marker offset
	aborted      []CompletedTxn // the aborted-transaction index, by marker offset
}

func (t txnState) clone() txnState {
	return txnState{unreplicated: slices.Clone(t.unreplicated), aborted: slices.Clone(t.aborted)}
}

// updateTxn records a transactional data batch or a marker in the producer entry e
// (ProducerAppendInfo.appendDataBatch, appendEndTxnMarker): the first transactional
// batch opens the transaction at its base offset; a marker ends it, and only a marker
// that ends a transaction with data here completes one (an empty one leaves no trace in
// the index or the LSO). The marker's epoch becomes the producer's, forgetting the older
// epoch's batches (ProducerStateEntry.update).
func (l *Log) updateTxn(e *ProducerStateEntry, b protocol.RecordBatch) {
	if !b.Control {
		if b.Transactional && e.TxnFirstOffset < 0 {
			e.TxnFirstOffset = b.BaseOffset
		}
		return
	}
	m, ok := b.Records[0].Body.(protocol.ControlMarker)
	if !ok {
		return // Problems reports it
	}
	if e.TxnFirstOffset >= 0 {
		done := CompletedTxn{ProducerID: e.ProducerID, FirstOffset: e.TxnFirstOffset, LastOffset: b.BaseOffset, Aborted: m.Type == protocol.ControlAbort}
		l.txns.unreplicated = append(l.txns.unreplicated, done)
		if done.Aborted {
			l.txns.aborted = append(l.txns.aborted, done) // TransactionIndex.append
		}
	}
	if e.Epoch != b.ProducerEpoch {
		e.Epoch, e.Batches = b.ProducerEpoch, nil
	}
	e.CoordinatorEpoch, e.TxnFirstOffset = m.CoordinatorEpoch, -1
}

// CheckMarker validates a marker the transaction coordinator asks the leader to write,
// as ProducerAppendInfo.appendEndTxnMarker does for an append of origin COORDINATOR: an
// epoch below the producer's is INVALID_PRODUCER_EPOCH (checkProducerEpoch), a
// coordinator epoch below the last marker's is TRANSACTION_COORDINATOR_FENCED
// (checkCoordinatorEpoch). Under transactions version 2 a marker carries the epoch its
// EndTxn bumped to, so one not above the producer's is refused too — a marker of an
// ended transaction must not end the next one, begun at that epoch (Kafka 4.4's
// checkProducerEpoch, "<= the last seen epoch (TV2)") — except a retry of the marker
// that ended the last transaction: the same epoch with none open. A producer the state
// does not know is accepted: the marker of a transaction that wrote nothing here is
// appended all the same.
func (l *Log) CheckMarker(pid int64, epoch int16, coordinatorEpoch int32, transactionVersion int16) protocol.Error {
	e, known := l.producers[pid]
	switch {
	case !known:
		return ""
	case epoch < e.Epoch:
		return protocol.ErrInvalidProducerEpoch
	case transactionVersion >= 2 && epoch == e.Epoch && e.TxnFirstOffset >= 0 && epoch != math.MaxInt16:
		return protocol.ErrInvalidProducerEpoch
	case coordinatorEpoch < e.CoordinatorEpoch:
		return protocol.ErrTransactionCoordinatorFenced
	}
	return ""
}

// CheckCoordinatorBatch validates a transactional batch a coordinator role appends for
// a producer (the group coordinator's TxnOffsetCommit records, an append of origin
// COORDINATOR): only the epoch is checked (ProducerAppendInfo.checkProducerEpoch; the
// sequence is not, it is a client's), an older one is INVALID_PRODUCER_EPOCH.
func (l *Log) CheckCoordinatorBatch(pid int64, epoch int16) protocol.Error {
	if e, known := l.producers[pid]; known && epoch < e.Epoch {
		return protocol.ErrInvalidProducerEpoch
	}
	return ""
}

// FirstUnstableOffset is the first offset of the earliest transaction that is open, or
// ended by a marker the high watermark hw has not passed
// (ProducerStateManager.firstUnstableOffset), if there is one.
func (l *Log) FirstUnstableOffset(hw int64) (int64, bool) {
	first, found := int64(0), false
	take := func(off int64) {
		if !found || off < first {
			first, found = off, true
		}
	}
	for _, e := range l.producers {
		if e.TxnFirstOffset >= 0 {
			take(e.TxnFirstOffset)
		}
	}
	for _, t := range l.txns.unreplicated {
		if t.LastOffset >= hw {
			take(t.FirstOffset)
		}
	}
	return first, found
}

// LastStableOffset is where a read_committed consumer reads up to: the first unstable
// offset, bounded by the high watermark (UnifiedLog.lastStableOffset).
func (l *Log) LastStableOffset(hw int64) int64 {
	if first, ok := l.FirstUnstableOffset(hw); ok {
		return min(first, hw)
	}
	return hw
}

// HighWatermarkUpdated forgets the ended transactions whose marker is now below the high
// watermark: they no longer hold the LSO back (ProducerStateManager.onHighWatermarkUpdated).
func (l *Log) HighWatermarkUpdated(hw int64) {
	l.txns.unreplicated = slices.DeleteFunc(slices.Clone(l.txns.unreplicated), func(t CompletedTxn) bool { return t.LastOffset < hw })
}

// AbortedTxns lists the aborted transactions that overlap the offsets from from to to
// (exclusive), by first offset, as a fetch response carries them
// (UnifiedLog.collectAbortedTransactions, TransactionIndex.collectAbortedTxns).
func (l *Log) AbortedTxns(from, to int64) []protocol.AbortedTxn {
	var out []protocol.AbortedTxn
	for _, t := range l.txns.aborted {
		if t.LastOffset >= from && t.FirstOffset < to {
			out = append(out, protocol.AbortedTxn{ProducerID: t.ProducerID, FirstOffset: t.FirstOffset})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].FirstOffset < out[j].FirstOffset })
	return out
}

// AbortedIndex is the aborted-transaction index, oldest marker first.
func (l *Log) AbortedIndex() []CompletedTxn { return slices.Clone(l.txns.aborted) }

// InAbortedTxn reports whether the record at offset, written by pid, belongs to a
// transaction this log knows aborted.
func (l *Log) InAbortedTxn(pid, offset int64) bool {
	return slices.ContainsFunc(l.txns.aborted, func(t CompletedTxn) bool {
		return t.ProducerID == pid && t.FirstOffset <= offset && offset < t.LastOffset
	})
}

// HasTransactions reports whether the log has seen a transactional batch or marker.
func (l *Log) HasTransactions() bool {
	if len(l.txns.aborted) > 0 || len(l.txns.unreplicated) > 0 {
		return true
	}
	for _, e := range l.producers {
		if e.TxnFirstOffset >= 0 || e.CoordinatorEpoch >= 0 {
			return true
		}
	}
	return false
}
