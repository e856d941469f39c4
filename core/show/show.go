// Package show is what a node gives the canvas to draw: its kind, a short status,
// its partition logs (a broker) or its rows (a sink). Each protocol package fills it for
// its own nodes (the Shower interface), so the session and the front end never look
// inside a node.
package show

import (
	"deliverylab/core/fate"
	"deliverylab/core/sim"
)

// Kind is the kind of node, which decides where and how the canvas draws it.
type Kind string

// The node kinds the canvas knows.
const (
	Controller Kind = "controller"
	Broker     Kind = "broker"
	Producer   Kind = "producer"
	Consumer   Kind = "consumer"
	Streams    Kind = "streams" // a Kafka Streams application: a consumer and a producer in one
	Sink       Kind = "sink"
	Job        Kind = "job" // a Flink job: its job manager and subtasks (Parts)
)

// Node is what one node shows.
type Node struct {
	Kind Kind
	// Status is its short status line as codes and arguments (fate's status codes),
	// rendered in the viewer's language only when drawn.
	Status fate.Reason
	// Blocked: a producer application whose send() waits for buffer memory
	// (max.block.ms); it sends nothing meanwhile.
	Blocked bool
	// Fenced: a broker the controller has fenced while it is up; it may still believe
	// it leads partitions the controller moved away (a zombie until it catches up).
	Fenced bool
	Logs   []Log // brokers: one per partition replica, sorted
	// Txns: a broker's transaction coordinator, the transactional ids it coordinates,
	// sorted.
	Txns []Txn
	Rows []string // sinks: the rows' message identities, in order
	// Refused: a unique-key sink's inserts refused as duplicates, drawn struck out.
	Refused []string
	// Parts: a Flink job's subtasks, in order (sources, operators, sinks).
	Parts []Part
}

// Part is one subtask of a Flink job.
type Part struct {
	Name    string `json:"name"`    // "source-0", "map-1", "sink-0"
	Running bool   `json:"running"` // false: failed, waiting for its region's restart
	// Blocked: its task waits for the sink's flush at a barrier.
	Blocked bool `json:"blocked,omitempty"`
	// Paused: its task's thread is stopped (pause: JOB/part); what comes for it waits.
	Paused bool `json:"paused,omitempty"`
	// Offsets: a source's next offset in each partition it reads ("orders-0@4").
	Offsets []string `json:"offsets,omitempty"`
	// BlockedInputs: an operator's inputs held back while it aligns a checkpoint's barriers.
	BlockedInputs []string `json:"blockedInputs,omitempty"`
	// Totals: a count or sum subtask's keyed state, "region-0=6", sorted by key.
	Totals []string `json:"totals,omitempty"`
	// Txns: an EXACTLY_ONCE sink's transactions, oldest first: those pre-committed and
	// waiting for their checkpoint to complete (or being committed), then the open one.
	Txns []PartTxn `json:"txns,omitempty"`
	// Snapshot: what the latest completed checkpoint (SnapshotOf) holds of this subtask,
	// in the forms above: a source's offsets, a count's or sum's totals.
	Snapshot   []string `json:"snapshot,omitempty"`
	SnapshotOf int64    `json:"snapshotOf,omitempty"`
}

// PartTxn is one of a sink subtask's transactions: its transactional id and state.
type PartTxn struct {
	ID    string   `json:"id"` // "cases-0-3": prefix-subtask-checkpoint
	State TxnState `json:"state"`
}

// TxnState is where a sink's transaction is in the two-phase commit.
type TxnState string

// The sink transaction states the canvas draws.
const (
	TxnOpen         TxnState = "open"          // begun: the writer writes into it
	TxnPreCommitted TxnState = "pre-committed" // flushed at its barrier, in the checkpoint, waiting for it to complete
	TxnCommitting   TxnState = "committing"    // its checkpoint completed: the commit is under way
)

// Txn is one transactional id as its coordinator holds it.
type Txn struct {
	ID         string   `json:"id"`
	ProducerID int64    `json:"producerId"`
	Epoch      int16    `json:"epoch"`
	State      string   `json:"state"` // Kafka's TransactionState name: "Ongoing", "PrepareCommit"
	Partitions []string `json:"partitions"`
}

// Bouncer is a message that can answer a request its receiver had already handled: a
// leader's answer to an idempotent batch it already had. The canvas draws such an answer
// as a duplicate bouncing back.
type Bouncer interface {
	Bounced() bool
}

// Shower is a node that says what to draw; the view of a node that is not is its name.
type Shower interface {
	Show(v sim.View) Node
}

// Log is one replica of one partition on one broker.
type Log struct {
	Partition string `json:"partition"` // "orders-0"
	Leader    bool   `json:"leader"`
	// Internal: a partition of one of Kafka's internal topics (__consumer_offsets,
	// __transaction_state), whose followers the canvas leaves out first when short of room.
	Internal bool  `json:"internal,omitempty"`
	Epoch    int32 `json:"epoch"`
	LEO      int64 `json:"leo"`
	HW       int64 `json:"hw"`
	// LSO is the last stable offset, where read_committed consumers read up to; shown
	// (HasLSO) on the leader of a partition with transactional data.
	LSO    int64    `json:"lso,omitempty"`
	HasLSO bool     `json:"has_lso,omitempty"`
	ISR    []string `json:"isr"` // as the leader knows it; followers: as last told
	// ELR are the partition's eligible leader replicas (Kafka 4, KIP-966), as last told.
	ELR     []string `json:"elr,omitempty"`
	Records []Cell   `json:"records"`
	// Truncated are the records this replica's last truncation cut away, for a few
	// seconds after it (KIP-101/KIP-320 truncation, drawn struck out after the log end).
	Truncated []Cell `json:"truncated"`
	// Marks are the readers' places in the leader's log of a topic partition: each
	// group's committed offset and each consumer's position, sorted by kind and name.
	Marks []Mark `json:"marks"`
}

// MarkKind is what a mark on a log stands for.
type MarkKind string

// The mark kinds.
const (
	CommittedMark MarkKind = "committed" // a group's committed offset (Who is the group)
	PositionMark  MarkKind = "position"  // a consumer's position: the next offset it reads (Who is the consumer)
)

// Mark is an offset in a log that a reader stands at.
type Mark struct {
	Kind   MarkKind `json:"kind"`
	Who    string   `json:"who"`
	Offset int64    `json:"offset"`
}

// CellKind is what a log cell holds.
type CellKind string

// The cell kinds: application records, internal records, transaction markers.
const (
	Data         CellKind = "data"          // an application message
	OffsetCommit CellKind = "offset-commit" // a __consumer_offsets record
	CommitMarker CellKind = "commit-marker" // a control batch's COMMIT marker
	AbortMarker  CellKind = "abort-marker"  // a control batch's ABORT marker
	TxnLog       CellKind = "txn-log"       // a __transaction_state record: its state, "prep C" (PrepareCommit)
)

// Cell is one record of a log.
type Cell struct {
	Offset int64    `json:"offset"`
	Kind   CellKind `json:"kind"`
	Msg    string   `json:"msg"`  // data: "p1#3"
	Key    string   `json:"key"`  // data: the record key ("" unkeyed)
	Note   string   `json:"note"` // what an internal record holds: "@4" for an offset commit to 4
	Epoch  int32    `json:"epoch"`
	// Seq: an idempotent producer's record, "0:3": its producer id and sequence number,
	// by which the leader knows a retried batch.
	Seq string `json:"seq,omitempty"`
	// Aborted: a record of an aborted transaction: a read_committed consumer skips it.
	Aborted bool `json:"aborted,omitempty"`
	// Txn: a transactional record's transaction as this log knows it (RecordTxnOpen,
	// RecordTxnCommitted, RecordTxnAborted); "" for a record written outside one.
	Txn RecordTxn `json:"txn,omitempty"`
}

// RecordTxn is the state of the transaction a record was written in.
type RecordTxn string

// The states of a transactional record's transaction.
const (
	RecordTxnOpen      RecordTxn = "open"      // not ended yet: read_committed consumers wait at the LSO
	RecordTxnCommitted RecordTxn = "committed" // its COMMIT marker is written
	RecordTxnAborted   RecordTxn = "aborted"   // its ABORT marker is written: read_committed skips it
)

// Offsets is one partition's offsets at a moment, for the chart of offsets over time:
// its live leader's log end, high watermark and last stable offset (Leader "" and the
// three -1 while it has none), and its readers' places (each group's committed offset,
// each consumer's position).
type Offsets struct {
	Partition    string
	Leader       string
	LEO, HW, LSO int64
	Marks        []Mark
}
