package storage

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
)

// Problems lists what is wrong with the log: offsets that are not contiguous from 0, a
// batch whose base offset is not its first record's, leader epochs that go backwards,
// and control batches that are not one transaction marker of a transactional producer
// (or a marker outside a control batch), and a producer's sequence appended twice in one
// epoch (an idempotent or transactional producer's (producer id, epoch, sequence) is
// written once: the leader answers a retry with the first append's offset). Tests check
// it after every event; the browser reports it instead of panicking.
func (l *Log) Problems() []string {
	var bad []string
	start := min(l.checked, l.batches.len())
	seqs := l.sequencesUpTo(start)
	var fresh map[producerEpoch]int32 // the batches after start, until they are checked
	next := int64(0)
	var lastEpoch int32 = -1
	if start > 0 {
		// The checked batches are contiguous with rising epochs: the last one says where
		// the next must begin and the highest epoch so far.
		prev := l.batches.at(start - 1)
		next, lastEpoch = prev.NextOffset(), prev.LeaderEpoch
	}
	for k, bp := range l.batches.from(start) {
		i, b := k-start, *bp
		found := len(bad)
		if len(b.Records) == 0 {
			bad = append(bad, fmt.Sprintf("an empty batch at offset %d", b.BaseOffset))
			continue
		}
		if b.BaseOffset != b.Records[0].Offset {
			bad = append(bad, fmt.Sprintf("a batch with base offset %d starts with offset %d", b.BaseOffset, b.Records[0].Offset))
		}
		for _, r := range b.Records {
			if r.Offset != next {
				return append(bad, fmt.Sprintf("offset %d stored at position %d", r.Offset, next))
			}
			next++
		}
		if b.LeaderEpoch < lastEpoch {
			bad = append(bad, fmt.Sprintf("leader epoch goes back from %d to %d at offset %d", lastEpoch, b.LeaderEpoch, b.BaseOffset))
		}
		lastEpoch = max(lastEpoch, b.LeaderEpoch)
		bad = append(bad, controlProblems(b)...)
		if k, ok := sequenced(b); ok {
			last, seen := fresh[k]
			if !seen {
				last, seen = seqs[k]
			}
			if seen && b.BaseSequence <= last {
				bad = append(bad, fmt.Sprintf("producer %d epoch %d: sequence %d appended again at offset %d (the log holds up to %d)",
					k.pid, k.epoch, b.BaseSequence, b.BaseOffset, last))
			}
			if fresh == nil {
				fresh = map[producerEpoch]int32{}
			}
			fresh[k] = max(last, b.LastSequence())
		}
		if len(bad) == 0 && found == 0 && l.checked == start+i {
			l.checked = start + i + 1
			if k, ok := sequenced(b); ok {
				seqs[k] = fresh[k]
			}
			l.seqsUpTo = l.checked
		}
	}
	return bad
}

// LSOProblems checks the last stable offset against the log itself: the LSO never passes
// the first record of a transaction the log holds no marker for (an open transaction,
// found from the batches alone, not from the transaction state the LSO is computed from),
// nor the high watermark.
func (l *Log) LSOProblems(hw int64) []string {
	open := map[int64]int64{} // producer id -> first offset of its open transaction
	for _, b := range l.batches.from(0) {
		switch {
		case b.Control:
			delete(open, b.ProducerID)
		case b.Transactional:
			if _, ok := open[b.ProducerID]; !ok {
				open[b.ProducerID] = b.BaseOffset
			}
		}
	}
	lso := l.LastStableOffset(hw)
	var bad []string
	if lso > hw {
		bad = append(bad, fmt.Sprintf("last stable offset %d passes the high watermark %d", lso, hw))
	}
	for _, pid := range slices.Sorted(maps.Keys(open)) {
		if first := open[pid]; lso > first {
			bad = append(bad, fmt.Sprintf("last stable offset %d passes the open transaction of producer %d at offset %d", lso, pid, first))
		}
	}
	return bad
}

// producerEpoch is one epoch of one producer id.
type producerEpoch struct {
	pid   int64
	epoch int16
}

// sequenced says whether a batch carries sequences: a data batch of a producer with an id.
func sequenced(b protocol.RecordBatch) (producerEpoch, bool) {
	if b.Control || !b.HasProducerID() || b.BaseSequence == protocol.NoSequence {
		return producerEpoch{}, false
	}
	return producerEpoch{b.ProducerID, b.ProducerEpoch}, true
}

// sequencesUpTo is the highest sequence per producer epoch in the first n batches: kept
// as the checked batches grow, rebuilt when a truncation took some of them away.
func (l *Log) sequencesUpTo(n int) map[producerEpoch]int32 {
	if l.seqs != nil && l.seqsUpTo == n {
		return l.seqs
	}
	l.seqs, l.seqsUpTo = map[producerEpoch]int32{}, n
	for i := range n {
		b := *l.batches.at(i)
		if k, ok := sequenced(b); ok {
			l.seqs[k] = max(l.seqs[k], b.LastSequence())
		}
	}
	return l.seqs
}

func controlProblems(b protocol.RecordBatch) []string {
	markers := 0
	for _, r := range b.Records {
		if _, ok := r.Body.(protocol.ControlMarker); ok {
			markers++
		}
	}
	switch {
	case !b.Control && markers > 0:
		return []string{fmt.Sprintf("a transaction marker at offset %d outside a control batch", b.BaseOffset)}
	case b.Control && (markers != 1 || len(b.Records) != 1):
		return []string{fmt.Sprintf("the control batch at offset %d holds %d records, %d of them markers; expected one marker", b.BaseOffset, len(b.Records), markers)}
	case b.Control && (b.ProducerID < 0 || !b.Transactional):
		return []string{fmt.Sprintf("the control batch at offset %d has no transactional producer", b.BaseOffset)}
	}
	return nil
}
