package sinks

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Upsert is a table written with an idempotent PUT keyed by the record key (INSERT … ON
// CONFLICT UPDATE): a re-delivered record rewrites its own row with the same value, so it
// leaves one row. A different message with the same key replaces the row too: the
// earlier one is no longer there.
type Upsert struct {
	base
	Rows     []Row // one per key, in the order the keys first came
	Rewrites int   // writes that replaced a row
	at       map[string]int
}

// NewUpsert makes an empty upsert sink.
func NewUpsert(name string) *Upsert { return &Upsert{base: base{name: name}, at: map[string]int{}} }

// Clone implements sim.Node.
func (u *Upsert) Clone() sim.Node {
	c := *u
	c.Rows, c.at = slices.Clone(u.Rows), maps.Clone(u.at)
	return &c
}

// Receive writes the row of the record's key.
func (u *Upsert) Receive(env *sim.Env, m sim.Message) {
	w, ok := m.Payload.(Write)
	if !ok {
		return
	}
	row := Row{Msg: w.Msg, Key: w.Key, Value: w.Value}
	if i, ok := u.at[w.Key]; ok {
		u.Rows[i] = row
		u.Rewrites++
	} else {
		u.at[w.Key] = len(u.Rows)
		u.Rows = append(u.Rows, row)
	}
	u.written(env, m, w)
}

// Effects counts the rows present per message identity.
func (u *Upsert) Effects() map[string]int { return countRows(u.Rows) }

// Show implements show.Shower: one row per key.
func (u *Upsert) Show(sim.View) show.Node {
	return show.Node{Kind: show.Sink, Rows: rowNames(u.Rows), Detail: fmt.Sprintf("%d rows %d rewrites", len(u.Rows), u.Rewrites)}
}
