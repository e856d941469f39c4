package storage

import (
	"fmt"

	"deliverylab/core/kafka/protocol"
)

// Problems lists what is wrong with the log: offsets that are not contiguous from 0, a
// batch whose base offset is not its first record's, leader epochs that go backwards,
// and control batches that are not one transaction marker of a transactional producer
// (or a marker outside a control batch). Tests check it after every event; the browser
// reports it instead of panicking.
func (l *Log) Problems() []string {
	var bad []string
	start := min(l.checked, len(l.batches))
	next := int64(0)
	var lastEpoch int32 = -1
	if start > 0 {
		// The checked batches are contiguous with rising epochs: the last one says where
		// the next must begin and the highest epoch so far.
		prev := l.batches[start-1]
		next, lastEpoch = prev.NextOffset(), prev.LeaderEpoch
	}
	for i, b := range l.batches[start:] {
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
		if len(bad) == 0 && found == 0 && l.checked == start+i {
			l.checked = start + i + 1
		}
	}
	return bad
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
