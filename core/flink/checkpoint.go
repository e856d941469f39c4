package flink

import (
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
)

// Snapshot is one subtask's part of a checkpoint.
type Snapshot struct {
	// Offsets: a source's next offset to read in each of its partitions.
	Offsets []protocol.TPOffset
	// Committables: an EXACTLY_ONCE sink's transactions pre-committed and not yet
	// committed (the committer's state, KafkaCommittable): committed once their checkpoint
	// completes, or again on a restore.
	Committables []Committable
	// Totals: a count or sum subtask's keyed state, key -> its total and lineage.
	Totals map[string]Total
}

// Total is one key's keyed state of a count or sum: the total, and the identities folded
// into it in order (repeats kept), the lineage its output records carry.
type Total struct {
	Value int64
	Folds string
}

// Committable is a pre-committed Kafka transaction: its transactional id and the
// producer id and epoch that wrote it (FlinkKafkaInternalProducer.resumeTransaction
// commits it with them). For a two-phase-commit database sink it is a prepared XA
// branch: TransactionalID is its xid, and there is no producer.
type Committable struct {
	TransactionalID string
	ProducerID      int64
	Epoch           int16
	Checkpoint      int64 // the checkpoint it was pre-committed at
}

// Checkpoint is a completed checkpoint in checkpoint storage: every subtask's snapshot,
// by part name.
type Checkpoint struct {
	ID    int64
	Parts map[string]Snapshot
}

func (c Checkpoint) clone() Checkpoint {
	n := Checkpoint{ID: c.ID, Parts: make(map[string]Snapshot, len(c.Parts))}
	for k, v := range c.Parts {
		v.Offsets = slices.Clone(v.Offsets)
		v.Committables = slices.Clone(v.Committables)
		v.Totals = maps.Clone(v.Totals)
		n.Parts[k] = v
	}
	return n
}

// pendingCheckpoint is a checkpoint triggered and not yet completed: the tasks that
// acknowledged it and their snapshots.
type pendingCheckpoint struct {
	ID    int64
	Acked map[int]bool
	Parts map[string]Snapshot
}

func (p *pendingCheckpoint) clone() *pendingCheckpoint {
	if p == nil {
		return nil
	}
	return &pendingCheckpoint{ID: p.ID, Acked: maps.Clone(p.Acked), Parts: maps.Clone(p.Parts)}
}
