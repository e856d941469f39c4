// Package storage is a broker's durable state of one partition replica, as Kafka's
// storage module keeps it: the log of record batches (UnifiedLog), the leader-epoch
// cache (LeaderEpochFileCache) that KIP-101 truncation reads, and the idempotent
// producers' state derived from the batches (ProducerStateManager, producer_state.go).
package storage

import (
	"iter"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
)

// Log is one replica's log: record batches at contiguous offsets from 0, and the leader
// epoch cache. It survives a crash.
type Log struct {
	batches batchList
	epochs  []EpochEntry
	// runs says where each run of records with one leader epoch begins, oldest first: the
	// boundaries of the log itself, which the epoch cache only approximates (it also holds
	// an epoch a leader began at its log end and never wrote in, and it never takes an
	// epoch below its last). Kept on append and truncation, so that comparing two logs
	// costs their epochs, not their records.
	runs []EpochEntry
	// irregular is set while the log holds a batch that Problems reports (empty, or with
	// an epoch below the one before): the runs alone do not decide divergence then.
	irregular bool
	// checked counts the first batches Problems found nothing wrong with: batches are
	// never changed once appended, so it checks only what came after (truncation lowers
	// it). Tests check invariants at every instant; a whole walk would make a long run
	// quadratic.
	checked int
	// seqs is the highest sequence of each producer epoch in the first seqsUpTo batches
	// (Problems: no sequence is appended twice).
	seqs     map[producerEpoch]int32
	seqsUpTo int
	// producers is the producer state (producer_state.go), derived from the batches.
	producers map[int64]*ProducerStateEntry
	txns      txnState // the transactions' state (txn.go), derived from the batches too
	// spare is the rest of the chunk a leader's records are kept in (keepRecords).
	spare []protocol.Record
}

// recordChunk is how many records one allocation holds: a run's __consumer_offsets is a
// batch of one commit a millisecond, and a slice of its own for each had been a quarter
// of a million objects, which the collector marks at every cycle (on the page's one
// thread, while it learns a long run).
const recordChunk = 256

// keepRecords copies a batch's records into the log's chunk, numbered from base.
// Records are never changed once in a log, and each batch's are clipped: an append to
// them never reaches the next batch's.
func (l *Log) keepRecords(records []protocol.Record, base int64) []protocol.Record {
	n := len(records)
	if n == 0 || n > recordChunk/4 {
		kept := slices.Clone(records) // a big batch in an allocation of its own, at its size
		for i := range kept {
			kept[i].Offset = base + int64(i)
		}
		return kept
	}
	if cap(l.spare)-len(l.spare) < n {
		l.spare = make([]protocol.Record, 0, recordChunk)
	}
	start := len(l.spare)
	l.spare = append(l.spare, records...)
	kept := l.spare[start:len(l.spare):len(l.spare)]
	for i := range kept {
		kept[i].Offset = base + int64(i)
	}
	return kept
}

// EpochEntry says that leader epoch Epoch began at StartOffset (KIP-101).
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// LEO is the log end offset: the offset the next record gets.
func (l *Log) LEO() int64 {
	if b := l.batches.end(); b != nil {
		return b.NextOffset()
	}
	return 0
}

// All yields the whole log's batches, oldest first, with their indexes; callers must
// not change them.
func (l *Log) All() iter.Seq2[int, *protocol.RecordBatch] { return l.batches.from(0) }

func (l *Log) Epochs() []EpochEntry { return l.epochs }

// LastEpoch is the leader epoch of the last batch, or -1 for an empty log.
func (l *Log) LastEpoch() int32 {
	if b := l.batches.end(); b != nil {
		return b.LeaderEpoch
	}
	return -1
}

// AppendAsLeader appends a batch at the log end with the leader's epoch, assigning its
// offsets, and returns the batch as stored.
func (l *Log) AppendAsLeader(b protocol.RecordBatch, epoch int32) protocol.RecordBatch {
	b.LeaderEpoch = epoch
	return l.append(b)
}

// AppendAsFollower appends batches copied from the leader, keeping their epochs; they
// must start at the log end (the follower fetched from its LEO).
func (l *Log) AppendAsFollower(batches []protocol.RecordBatch) {
	for _, b := range batches {
		l.append(b)
	}
}

func (l *Log) append(b protocol.RecordBatch) protocol.RecordBatch {
	base := l.LEO()
	b.BaseOffset = base
	if numberedFrom(b.Records, base) {
		// A follower's copy of the leader's batch: records are never changed once in a
		// log, so the replicas share them (a long run's __consumer_offsets holds a
		// quarter of a million one-record batches on each replica).
		b.Records = slices.Clip(b.Records)
	} else {
		b.Records = l.keepRecords(b.Records, base)
	}
	l.AssignEpochStart(b.LeaderEpoch, base)
	if len(b.Records) == 0 || b.LeaderEpoch < l.LastEpoch() {
		l.irregular = true
	}
	l.addRun(b)
	l.batches.push(b)
	l.updateProducer(b)
	return b
}

// numberedFrom reports whether the records already carry the offsets from base on.
func numberedFrom(records []protocol.Record, base int64) bool {
	for i := range records {
		if records[i].Offset != base+int64(i) {
			return false
		}
	}
	return true
}

// addRun starts a run at the batch unless it goes on with the last run's epoch (an empty
// batch holds no record, so it starts none).
func (l *Log) addRun(b protocol.RecordBatch) {
	if n := len(l.runs); len(b.Records) > 0 && (n == 0 || l.runs[n-1].Epoch != b.LeaderEpoch) {
		l.runs = append(l.runs, EpochEntry{Epoch: b.LeaderEpoch, StartOffset: b.BaseOffset})
	}
}

// AssignEpochStart records that epoch starts at offset, unless the cache already knows
// it or a later one (a new leader does this at its LEO when it takes over).
func (l *Log) AssignEpochStart(epoch int32, offset int64) {
	if n := len(l.epochs); n == 0 || l.epochs[n-1].Epoch < epoch {
		l.epochs = append(l.epochs, EpochEntry{Epoch: epoch, StartOffset: offset})
	}
}

// Read returns the batches holding offsets from from (inclusive) to to (exclusive): a
// batch that starts before from is returned whole, as Kafka returns it, and the reader
// skips the records it has.
func (l *Log) Read(from, to int64) []protocol.RecordBatch {
	if from < 0 || from >= to {
		return nil
	}
	i := l.batches.search(func(b *protocol.RecordBatch) bool { return b.LastOffset() >= from })
	j := i
	for j < l.batches.len() && l.batches.at(j).BaseOffset < to {
		j++
	}
	if i == j {
		return nil
	}
	return l.batches.copyRange(i, j)
}

// TruncateTo removes every record at or after offset (KIP-101 truncation) and returns the
// batches removed. A batch that straddles the offset is cut there.
func (l *Log) TruncateTo(offset int64) []protocol.RecordBatch {
	if offset >= l.LEO() {
		return nil
	}
	offset = max(offset, 0)
	i := l.batches.search(func(b *protocol.RecordBatch) bool { return b.LastOffset() >= offset })
	removed := l.batches.cut(i)
	l.checked = min(l.checked, i)
	if first := removed[0]; first.BaseOffset < offset {
		kept := first
		kept.Records = slices.Clone(first.Records[:offset-first.BaseOffset])
		l.batches.push(kept)
		removed[0] = first.Tail(offset)
	}
	for len(l.epochs) > 0 && l.epochs[len(l.epochs)-1].StartOffset >= offset {
		l.epochs = l.epochs[:len(l.epochs)-1]
	}
	for len(l.runs) > 0 && l.runs[len(l.runs)-1].StartOffset >= offset {
		l.runs = l.runs[:len(l.runs)-1]
	}
	if l.irregular {
		l.recheck() // rare: only a log with a batch Problems reports
	}
	if l.producers != nil {
		l.rebuildProducerState()
	}
	return removed
}

// recheck rebuilds the runs and the irregular flag from the batches.
func (l *Log) recheck() {
	l.runs, l.irregular = nil, false
	last := int32(-1)
	for _, b := range l.batches.from(0) {
		if len(b.Records) == 0 || b.LeaderEpoch < last {
			l.irregular = true
		}
		last = b.LeaderEpoch
		l.addRun(*b)
	}
}

// EndOffsetForEpoch answers OffsetsForLeaderEpoch: the largest epoch at or below epoch
// this log knows, and the offset where it ended (the next epoch's start, or the LEO);
// (-1, 0) when it knows none.
func (l *Log) EndOffsetForEpoch(epoch int32) (int32, int64) {
	for i := len(l.epochs) - 1; i >= 0; i-- {
		if l.epochs[i].Epoch <= epoch {
			if i == len(l.epochs)-1 {
				return l.epochs[i].Epoch, l.LEO()
			}
			return l.epochs[i].Epoch, l.epochs[i+1].StartOffset
		}
	}
	if len(l.epochs) > 0 {
		// Older than any epoch it knows: those records are gone from this log, which
		// begins with its first epoch (LeaderEpochFileCache.endOffsetFor).
		return epoch, l.epochs[0].StartOffset
	}
	return -1, 0
}

// EpochStart is where the given epoch starts in this log (the LEO if it has not started).
func (l *Log) EpochStart(epoch int32) int64 {
	for _, e := range l.epochs {
		if e.Epoch == epoch {
			return e.StartOffset
		}
	}
	return l.LEO()
}

// Clone copies the log. Batches are never changed in place once appended, so the copy
// shares them (batchList) and their records. A long run's keyframes had each copied
// every replica's hundreds of thousands of batches.
func (l *Log) Clone() Log {
	// spare stays nil: the clone's records go into chunks of its own, never after the ones
	// this log goes on filling.
	return Log{batches: l.batches.clone(), epochs: slices.Clone(l.epochs), runs: slices.Clone(l.runs), irregular: l.irregular,
		checked: l.checked, seqs: maps.Clone(l.seqs), seqsUpTo: l.seqsUpTo, producers: cloneProducers(l.producers), txns: l.txns.clone()}
}
