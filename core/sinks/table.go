package sinks

import (
	"slices"

	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Table is a plain table: every write is a new row, so a re-delivered record is a
// duplicate row.
type Table struct {
	base
	rows
}

// NewTable makes an empty table sink.
func NewTable(name string) *Table { return &Table{base: base{name: name}} }

// Clone implements sim.Node.
func (t *Table) Clone() sim.Node {
	c := *t
	c.Rows = slices.Clone(t.Rows)
	return &c
}

// Receive stores a row and acknowledges it.
func (t *Table) Receive(env *sim.Env, m sim.Message) {
	if w, ok := m.Payload.(Write); ok {
		t.Rows = append(t.Rows, Row{Msg: w.Msg, Key: w.Key, Value: w.Value})
		t.written(env, m, w)
	}
}

// Show implements show.Shower: the rows' identities in order.
func (t *Table) Show(sim.View) show.Node {
	return show.Node{Kind: show.Sink, Rows: rowNames(t.Rows), Status: rowsStatus(len(t.Rows))}
}
