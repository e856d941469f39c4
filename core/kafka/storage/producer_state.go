package storage

import (
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
)

// The producer state of one partition replica, as Kafka's ProducerStateManager keeps
// it: per producer id, the epoch and the metadata of its last five batches
// (ProducerStateEntry.NUM_BATCHES_TO_RETAIN). It is derived from the log alone: every
// append adds to it, leader's and follower's alike, and a truncation rebuilds it from
// the batches that remain (UnifiedLog.truncateTo, rebuildProducerState). Kafka keeps
// snapshots so as not to read the whole log on a restart; the result is the same state,
// so a restarted broker and a new leader know what the old leader wrote.

// BatchesToRetain is how many batches per producer the state remembers.
const BatchesToRetain = 5

// BatchMetadata is what the state keeps of one batch (Kafka's BatchMetadata).
type BatchMetadata struct {
	FirstSeq, LastSeq       int32
	FirstOffset, LastOffset int64
}

// ProducerStateEntry is one producer's state on a partition.
type ProducerStateEntry struct {
	ProducerID int64
	Epoch      int16
	Batches    []BatchMetadata // oldest first, at most BatchesToRetain
	// TxnFirstOffset is the first offset of the producer's open transaction, -1 when
	// none; CoordinatorEpoch is the coordinator epoch of its last marker, -1 before one
	// (txn.go).
	TxnFirstOffset   int64
	CoordinatorEpoch int32
}

// LastSeq is the last sequence written, or NoSequence.
func (e ProducerStateEntry) LastSeq() int32 {
	if len(e.Batches) == 0 {
		return protocol.NoSequence
	}
	return e.Batches[len(e.Batches)-1].LastSeq
}

// addBatch records an appended batch; a new epoch forgets the old one's batches
// (ProducerStateEntry.addBatch, maybeUpdateProducerEpoch).
func (e *ProducerStateEntry) addBatch(b protocol.RecordBatch) {
	if e.Epoch != b.ProducerEpoch {
		e.Epoch, e.Batches = b.ProducerEpoch, nil
	}
	if len(e.Batches) == BatchesToRetain {
		e.Batches = slices.Clone(e.Batches[1:])
	}
	e.Batches = append(slices.Clip(e.Batches), BatchMetadata{FirstSeq: b.BaseSequence, LastSeq: b.LastSequence(),
		FirstOffset: b.BaseOffset, LastOffset: b.LastOffset()})
}

// findDuplicate is the cached batch with the same epoch and sequence range
// (ProducerStateEntry.findDuplicateBatch).
func (e ProducerStateEntry) findDuplicate(b protocol.RecordBatch) (BatchMetadata, bool) {
	if e.Epoch != b.ProducerEpoch {
		return BatchMetadata{}, false
	}
	for _, m := range e.Batches {
		if m.FirstSeq == b.BaseSequence && m.LastSeq == b.LastSequence() {
			return m, true
		}
	}
	return BatchMetadata{}, false
}

// ProducerCheck is what the leader decides about a client's batch before appending it.
type ProducerCheck struct {
	Duplicate bool           // an earlier append of the same batch: answer with its offsets
	Original  BatchMetadata  // set when Duplicate
	Err       protocol.Error // OUT_OF_ORDER_SEQUENCE_NUMBER or INVALID_PRODUCER_EPOCH
}

// CheckProducer validates a client's batch against the producer state, as
// UnifiedLog.analyzeAndValidateProducerState and ProducerAppendInfo do for an append of
// origin CLIENT: a batch equal to one of the last five is a duplicate (looked for
// first); an epoch below the producer's is INVALID_PRODUCER_EPOCH (checkProducerEpoch:
// since 2.7 not PRODUCER_FENCED); a new epoch must start at sequence 0, and within the
// epoch a batch must start right after the last sequence (checkSequence), else
// OUT_OF_ORDER_SEQUENCE_NUMBER. A producer the state does not know, or knows without an
// epoch, is accepted at any sequence (there is no current epoch to check against).
func (l *Log) CheckProducer(b protocol.RecordBatch) ProducerCheck {
	if !b.HasProducerID() {
		return ProducerCheck{}
	}
	e, known := l.producers[b.ProducerID]
	if !known {
		return ProducerCheck{}
	}
	if m, ok := e.findDuplicate(b); ok {
		return ProducerCheck{Duplicate: true, Original: m}
	}
	switch {
	case b.ProducerEpoch < e.Epoch:
		return ProducerCheck{Err: protocol.ErrInvalidProducerEpoch}
	case b.ProducerEpoch != e.Epoch:
		if b.BaseSequence != 0 {
			return ProducerCheck{Err: protocol.ErrOutOfOrderSequenceNumber}
		}
	case (len(e.Batches) > 0 || e.Epoch != protocol.NoProducerEpoch) && !inSequence(e.LastSeq(), b.BaseSequence):
		// An entry with an epoch and no batches (a marker at a new epoch leaves one)
		// accepts only sequence 0: its last sequence is NO_SEQUENCE (checkSequence accepts
		// any sequence only when the entry has no epoch at all).
		return ProducerCheck{Err: protocol.ErrOutOfOrderSequenceNumber}
	}
	if e.TxnFirstOffset >= 0 && !b.Transactional {
		// A plain write while the producer's transaction is open
		// (ProducerAppendInfo.appendDataBatch).
		return ProducerCheck{Err: protocol.ErrInvalidTxnState}
	}
	return ProducerCheck{}
}

// inSequence reports whether next follows last (ProducerAppendInfo.inSequence).
func inSequence(last, next int32) bool {
	return int64(next) == int64(last)+1 || (next == 0 && last == 1<<31-1)
}

// Producer is the state of one producer id on this replica.
func (l *Log) Producer(pid int64) (ProducerStateEntry, bool) {
	e, ok := l.producers[pid]
	if !ok {
		return ProducerStateEntry{}, false
	}
	e.Batches = slices.Clone(e.Batches)
	return *e, true
}

// ProducerIDs lists the producer ids the state knows, sorted.
func (l *Log) ProducerIDs() []int64 { return slices.Sorted(maps.Keys(l.producers)) }

// updateProducer records an appended data batch or transaction marker in the producer
// state.
func (l *Log) updateProducer(b protocol.RecordBatch) {
	if !b.HasProducerID() || len(b.Records) == 0 {
		return
	}
	if l.producers == nil {
		l.producers = map[int64]*ProducerStateEntry{}
	}
	e := l.producers[b.ProducerID]
	if e == nil {
		e = &ProducerStateEntry{ProducerID: b.ProducerID, Epoch: protocol.NoProducerEpoch, TxnFirstOffset: -1, CoordinatorEpoch: -1}
		l.producers[b.ProducerID] = e
	}
	if !b.Control {
		e.addBatch(b)
	}
	l.updateTxn(e, b)
}

// RecoverProducerState rebuilds the producer state from the log, as a broker does when
// it loads a log after a restart (UnifiedLog.loadProducerState).
func (l *Log) RecoverProducerState() { l.rebuildProducerState() }

// rebuildProducerState replays the log into a fresh producer state
// (UnifiedLog.rebuildProducerState after a truncation).
func (l *Log) rebuildProducerState() {
	l.producers, l.txns = nil, txnState{}
	for _, b := range l.batches.from(0) {
		l.updateProducer(*b)
	}
}

func cloneProducers(in map[int64]*ProducerStateEntry) map[int64]*ProducerStateEntry {
	if in == nil {
		return nil
	}
	out := make(map[int64]*ProducerStateEntry, len(in))
	for pid, e := range in {
		c := *e
		out[pid] = &c // Batches is never written in place: addBatch appends to a clipped copy
	}
	return out
}
