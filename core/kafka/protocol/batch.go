package protocol

import (
	"fmt"
	"strings"
)

// RecordBatch is the unit of a partition log, of a produce request and of replication,
// as in Kafka's record format v2: the records of one producer request to one partition,
// with the leader epoch that appended them and the producer's identity. Offsets are kept
// per record; BaseOffset is the first record's.
//
// The fields are in the order that packs them (56 bytes, not 64: a long run's logs hold
// hundreds of thousands of batches).
type RecordBatch struct {
	BaseOffset    int64
	LeaderEpoch   int32
	BaseSequence  int32 // NoSequence unless the producer is idempotent
	ProducerID    int64 // NoProducerID likewise
	ProducerEpoch int16 // NoProducerEpoch likewise
	Transactional bool
	// Control marks a batch holding one transaction marker (a ControlMarker record)
	// rather than data.
	Control bool
	Records []Record
}

// The "none" values of a batch's producer fields, as Kafka's RecordBatch spells them.
const (
	NoProducerID    int64 = -1
	NoProducerEpoch int16 = -1
	NoSequence      int32 = -1
)

// NewBatch makes a data batch of a producer without an id (not idempotent).
func NewBatch(records []Record) RecordBatch {
	return RecordBatch{ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch, BaseSequence: NoSequence, Records: records}
}

// LastOffset is the last record's offset.
func (b RecordBatch) LastOffset() int64 { return b.BaseOffset + int64(len(b.Records)) - 1 }

// NextOffset is the offset after the batch.
func (b RecordBatch) NextOffset() int64 { return b.BaseOffset + int64(len(b.Records)) }

// Msgs lists the application identities the batch carries.
func (b RecordBatch) Msgs() []string { return MsgsOf([]RecordBatch{b}) }

// Record is one record of a batch: its offset and what it holds.
type Record struct {
	Offset int64
	Body   Body
}

// Body is what a record holds: application Data, an OffsetCommit (in
// __consumer_offsets), or a ControlMarker (in a control batch).
type Body interface {
	// Describe is the body's short text: "p1#3", "commit g orders-0=4", "COMMIT".
	Describe() string
}

// Data is an application record: its key, value and the identity header the ledger
// follows ("p1#3").
type Data struct {
	Msg, Key, Value string
	// Folds is an aggregate's lineage (a header the ledger reads, as it reads Msg): the
	// identities folded into the total this record carries, in fold order, repeats kept,
	// joined by ","; "" for a record that is not an aggregate's. A string, not a slice, so
	// that a Data stays comparable and a clone of the world shares it safely.
	Folds string
}

func (d Data) Describe() string { return d.Msg }

// OffsetCommit is a record of __consumer_offsets: a group's committed position in a
// partition (Kafka's OffsetCommitKey and OffsetCommitValue).
type OffsetCommit struct {
	Group  string
	TP     TP
	Offset int64
	// Msgs: the identities a transactional commit covers, on its first record (a
	// simulator annotation, as Data.Msg is): a coordinator that loads the commit from the
	// log still tells the ledger which messages its COMMIT marker makes committed.
	Msgs []string
}

func (c OffsetCommit) Describe() string {
	b := append(append([]byte("commit "), c.Group...), ' ')
	return string(TPOffset{TP: c.TP, Offset: c.Offset}.appendTo(b))
}

// ControlType is a transaction marker's type; the numbers are Kafka's.
type ControlType int8

// The two markers a transaction coordinator writes.
const (
	ControlAbort  ControlType = 0
	ControlCommit ControlType = 1
)

func (t ControlType) String() string {
	if t == ControlCommit {
		return "COMMIT"
	}
	return "ABORT"
}

// ControlMarker is the one record of a control batch: the end of a transaction on this
// partition.
type ControlMarker struct {
	Type             ControlType
	CoordinatorEpoch int32
}

func (m ControlMarker) Describe() string { return m.Type.String() }

// DataRecord makes an application record.
func DataRecord(msg, key, value string) Record {
	return Record{Body: Data{Msg: msg, Key: key, Value: value}}
}

// FoldsOf splits a lineage into its identities (none for "").
func FoldsOf(folds string) []string {
	if folds == "" {
		return nil
	}
	return strings.Split(folds, ",")
}

// Data returns the record's application data, if it holds any.
func (r Record) Data() (Data, bool) {
	d, ok := r.Body.(Data)
	return d, ok
}

// Msg is the record's application identity, or "" for an internal record.
func (r Record) Msg() string {
	d, _ := r.Body.(Data)
	return d.Msg
}

// MsgsOf lists the application identities in batches, in offset order.
func MsgsOf(batches []RecordBatch) []string {
	var out []string
	for _, b := range batches {
		for _, r := range b.Records {
			if m := r.Msg(); m != "" {
				out = append(out, m)
			}
		}
	}
	return out
}

// RecordCount counts the records in batches.
func RecordCount(batches []RecordBatch) int {
	n := 0
	for _, b := range batches {
		n += len(b.Records)
	}
	return n
}

// rangeText is "p1#1..p1#5" for what batches carry, or "3 records" for internal ones.
func rangeText(batches []RecordBatch) string {
	ids := MsgsOf(batches)
	switch len(ids) {
	case 0:
		return fmt.Sprintf("%d records", RecordCount(batches))
	case 1:
		return ids[0]
	default:
		return ids[0] + ".." + ids[len(ids)-1]
	}
}

// idsLabel is the canvas's short form of the identities: "p1#1..#5", or "p1#1,p1#2".
func idsLabel(batches []RecordBatch) string {
	ids := MsgsOf(batches)
	if len(ids) > 2 {
		app, _, _ := strings.Cut(ids[0], "#")
		return ids[0] + ".." + strings.TrimPrefix(ids[len(ids)-1], app)
	}
	return strings.Join(ids, ",")
}
