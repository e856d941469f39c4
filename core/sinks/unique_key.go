package sinks

import (
	"fmt"
	"slices"

	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// UniqueKey is a table whose record key is its primary key (a dedup table): an insert
// whose key is there already is refused, as a primary key or unique index refuses it,
// and the writer takes the refusal to mean the record was processed before. Exactly
// once on the consumer side, as long as each message has a key of its own.
type UniqueKey struct {
	base
	Rows    []Row
	Refused []Row // the inserts refused as duplicates, for the canvas
	keys    map[string]bool
}

// NewUniqueKey makes an empty unique-key sink.
func NewUniqueKey(name string) *UniqueKey {
	return &UniqueKey{base: base{name: name}, keys: map[string]bool{}}
}

// Clone implements sim.Node.
func (u *UniqueKey) Clone() sim.Node {
	c := *u
	c.Rows, c.Refused = slices.Clone(u.Rows), slices.Clone(u.Refused)
	c.keys = make(map[string]bool, len(u.keys))
	for k := range u.keys {
		c.keys[k] = true
	}
	return &c
}

// Receive inserts a row, or refuses it when its key exists.
func (u *UniqueKey) Receive(env *sim.Env, m sim.Message) {
	w, ok := m.Payload.(Write)
	if !ok {
		return
	}
	row := Row{Msg: w.Msg, Key: w.Key, Value: w.Value}
	if u.keys[w.Key] {
		u.Refused = append(u.Refused, row)
		env.Observe(sim.Observation{Event: DuplicateRefused, Msgs: []string{w.Msg}, Output: u.name})
		env.Send(m.From, WriteAck{ReqID: w.ReqID, Duplicate: true})
		return
	}
	u.keys[w.Key] = true
	u.Rows = append(u.Rows, row)
	u.written(env, m, w)
}

// Effects counts the rows present per message identity.
func (u *UniqueKey) Effects() map[string]int { return countRows(u.Rows) }

// Show implements show.Shower: the rows, and the inserts refused as duplicates.
func (u *UniqueKey) Show(sim.View) show.Node {
	return show.Node{Kind: show.Sink, Rows: rowNames(u.Rows), Refused: rowNames(u.Refused),
		Detail: fmt.Sprintf("%d rows %d refused", len(u.Rows), len(u.Refused))}
}
