// Package sinks holds the external systems applications write to.
package sinks

import (
	"fmt"

	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Write asks a sink to store one processed record.
type Write struct {
	ReqID int64
	Msg   string // the identity of the message the row came from
	Key   string
	Value string
}

// IsRequest makes a write to a crashed sink fail fast.
func (Write) IsRequest() bool    { return true }
func (Write) Kind() string       { return "Write" }
func (w Write) Describe() string { return fmt.Sprintf("Write req=%d %s", w.ReqID, w.Msg) }
func (w Write) Label() string    { return w.Msg }

// WriteAck confirms a write.
type WriteAck struct {
	ReqID int64
	Err   string
}

func (WriteAck) Kind() string { return "WriteAck" }
func (a WriteAck) Describe() string {
	if a.Err != "" {
		return fmt.Sprintf("WriteAck req=%d %s", a.ReqID, a.Err)
	}
	return fmt.Sprintf("WriteAck req=%d", a.ReqID)
}

// Row is one stored row.
type Row struct {
	Msg   string
	Key   string
	Value string
}

// Table is a plain table: every write is a new row, so a re-delivered record is a
// duplicate row. Its rows are durable.
type Table struct {
	name string
	Rows []Row
}

// NewTable makes an empty table sink.
func NewTable(name string) *Table { return &Table{name: name} }

// Name implements sim.Node.
func (t *Table) Name() string { return t.name }

// Start implements sim.Node: a table needs no boot work.
func (t *Table) Start(*sim.Env) {}

// Crash keeps the rows: they are committed.
func (t *Table) Crash() {}

// Fire implements sim.Node: a table sets no timers.
func (t *Table) Fire(*sim.Env, sim.Payload) {}

// Clone implements sim.Node.
func (t *Table) Clone() sim.Node {
	c := *t
	c.Rows = append([]Row(nil), t.Rows...)
	return &c
}

// Receive stores a row and acknowledges it.
func (t *Table) Receive(env *sim.Env, m sim.Message) {
	w, ok := m.Payload.(Write)
	if !ok {
		return
	}
	t.Rows = append(t.Rows, Row{Msg: w.Msg, Key: w.Key, Value: w.Value})
	env.Observe(sim.Observation{Event: Written, Msgs: []string{w.Msg}, Output: t.name})
	env.Send(m.From, WriteAck{ReqID: w.ReqID})
}

// Effects counts the rows per message identity: a table's effects in the ledger.
func (t *Table) Effects() map[string]int {
	out := map[string]int{}
	for _, r := range t.Rows {
		out[r.Msg]++
	}
	return out
}

// Show implements show.Shower: the rows' identities in order.
func (t *Table) Show(sim.View) show.Node {
	rows := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = r.Msg
	}
	return show.Node{Kind: show.Sink, Rows: rows, Detail: fmt.Sprintf("%d rows", len(rows))}
}
