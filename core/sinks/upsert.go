package sinks

import (
	"maps"
	"slices"
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Upsert is a table written with an idempotent PUT keyed by the record key (INSERT … ON
// CONFLICT UPDATE): a re-delivered record rewrites its own row with the same value, so it
// leaves one row. A different message with the same key replaces the row too: the
// earlier one is no longer there.
type Upsert struct {
	base
	rows         // one per key, in the order the keys first came
	Rewrites int // writes that replaced a row
	at       map[string]int
	replaced map[string]string // message -> the other message that overwrote its row
}

// NewUpsert makes an empty upsert sink.
func NewUpsert(name string) *Upsert {
	return &Upsert{base: base{name: name}, at: map[string]int{}, replaced: map[string]string{}}
}

// Clone implements sim.Node.
func (u *Upsert) Clone() sim.Node {
	c := *u
	c.Rows, c.at, c.replaced = slices.Clone(u.Rows), maps.Clone(u.at), maps.Clone(u.replaced)
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
		if old := u.Rows[i].Msg; old != w.Msg {
			u.replaced[old] = w.Msg
		}
		delete(u.replaced, w.Msg)
		u.Rows[i] = row
		u.Rewrites++
	} else {
		u.at[w.Key] = len(u.Rows)
		u.Rows = append(u.Rows, row)
	}
	u.written(env, m, w)
}

// NoEffectWhy implements the ledger's question for messages that reached the sink and
// left no row: which message overwrote theirs.
func (u *Upsert) NoEffectWhy() map[string]fate.Reason {
	out := map[string]fate.Reason{}
	for m, by := range u.replaced {
		out[m] = fate.Because(fate.Overwritten, "by", by, "output", u.name)
	}
	return out
}

// Show implements show.Shower: one row per key.
func (u *Upsert) Show(sim.View) show.Node {
	return show.Node{Kind: show.Sink, Rows: rowNames(u.Rows), Status: rowsStatus(len(u.Rows)).And(fate.StatusRewrites, "count", strconv.Itoa(u.Rewrites))}
}
