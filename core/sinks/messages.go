// Package sinks holds the external systems applications write to: databases of the kinds
// a consumer-side exactly-once recipe needs (a plain table, a unique key, an upsert, a
// transaction that stores rows and offsets together) and a dashboard counter.
package sinks

import (
	"fmt"
	"strings"

	"deliverylab/core/sim"
)

// Write asks a sink to store one processed record. With Partition set it also stores,
// in the same database transaction, the consumer's next offset in that partition (a
// transactional sink, commit: with-results).
type Write struct {
	ReqID int64
	Msg   string // the identity of the message the row came from
	Key   string
	Value string
	// Offsets stored with the row: the group, the partition ("orders-0") and the offset
	// of the record after this one.
	Group     string
	Partition string
	Next      int64
}

// IsRequest makes a write to a crashed sink fail fast.
func (Write) IsRequest() bool { return true }
func (Write) Kind() string    { return "Write" }
func (w Write) Describe() string {
	if w.Partition != "" {
		return fmt.Sprintf("Write req=%d %s offset %s=%d", w.ReqID, w.Msg, w.Partition, w.Next)
	}
	return fmt.Sprintf("Write req=%d %s", w.ReqID, w.Msg)
}
func (w Write) Label() string { return w.Msg }

// WriteAck confirms a write. Duplicate: a unique key refused it because a row with its
// key is there already; the record was written before, and the writer moves on.
type WriteAck struct {
	ReqID     int64
	Duplicate bool
}

func (WriteAck) Kind() string { return "WriteAck" }
func (a WriteAck) Describe() string {
	if a.Duplicate {
		return fmt.Sprintf("WriteAck req=%d duplicate key", a.ReqID)
	}
	return fmt.Sprintf("WriteAck req=%d", a.ReqID)
}

// ReadOffsets asks a transactional sink for the offsets a group stored with its rows.
type ReadOffsets struct {
	ReqID int64
	Group string
}

// IsRequest makes a read from a crashed sink fail fast.
func (ReadOffsets) IsRequest() bool    { return true }
func (ReadOffsets) Kind() string       { return "ReadOffsets" }
func (r ReadOffsets) Describe() string { return fmt.Sprintf("ReadOffsets req=%d %s", r.ReqID, r.Group) }
func (ReadOffsets) Label() string      { return "offsets?" }

// StoredOffset is a group's next offset in one partition, as a sink stored it.
type StoredOffset struct {
	Partition string
	Next      int64
}

// Offsets answers ReadOffsets, sorted by partition.
type Offsets struct {
	ReqID   int64
	Offsets []StoredOffset
}

func (Offsets) Kind() string { return "Offsets" }
func (o Offsets) Describe() string {
	parts := make([]string, len(o.Offsets))
	for i, s := range o.Offsets {
		parts[i] = fmt.Sprintf("%s=%d", s.Partition, s.Next)
	}
	return fmt.Sprintf("Offsets req=%d [%s]", o.ReqID, strings.Join(parts, " "))
}

// Row is one stored row.
type Row struct {
	Msg   string
	Key   string
	Value string
}

// An application's traffic with its database is the sink family (sim.Familied).
func (Write) Family() sim.Family       { return sim.Sink }
func (WriteAck) Family() sim.Family    { return sim.Sink }
func (ReadOffsets) Family() sim.Family { return sim.Sink }
func (Offsets) Family() sim.Family     { return sim.Sink }
