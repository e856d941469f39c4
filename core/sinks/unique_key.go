package sinks

import (
	"maps"
	"slices"
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// UniqueKey is a table whose record key is its primary key (a dedup table): an insert
// whose key is there already is refused, as a primary key or unique index refuses it,
// and the writer takes the refusal to mean the record was processed before. Exactly
// once on the consumer side, as long as each message has a key of its own.
type UniqueKey struct {
	base
	rows
	Refused []Row             // the inserts refused as duplicates, for the canvas
	keys    map[string]string // key -> the message whose row holds it
}

// NewUniqueKey makes an empty unique-key sink.
func NewUniqueKey(name string) *UniqueKey {
	return &UniqueKey{base: base{name: name}, keys: map[string]string{}}
}

// Clone implements sim.Node.
func (u *UniqueKey) Clone() sim.Node {
	c := *u
	c.Rows, c.Refused = slices.Clone(u.Rows), slices.Clone(u.Refused)
	c.keys = maps.Clone(u.keys)
	return &c
}

// Receive inserts a row, or refuses it when its key exists.
func (u *UniqueKey) Receive(env *sim.Env, m sim.Message) {
	w, ok := m.Payload.(Write)
	if !ok {
		return
	}
	row := Row{Msg: w.Msg, Key: w.Key, Value: w.Value}
	if _, taken := u.keys[w.Key]; taken {
		u.Refused = append(u.Refused, row)
		env.Observe(sim.Observation{Event: DuplicateRefused, Msgs: []string{w.Msg}, Output: u.name})
		env.Send(m.From, WriteAck{ReqID: w.ReqID, Duplicate: true})
		return
	}
	u.keys[w.Key] = w.Msg
	u.Rows = append(u.Rows, row)
	u.written(env, m, w)
}

// NoEffectWhy implements the ledger's question for messages that reached the sink and
// left no row: another message holds their key.
func (u *UniqueKey) NoEffectWhy() map[string]fate.Reason {
	out := map[string]fate.Reason{}
	for _, r := range u.Refused {
		if holder := u.keys[r.Key]; holder != r.Msg {
			out[r.Msg] = fate.Because(fate.KeyTaken, "by", holder, "output", u.name)
		}
	}
	return out
}

// Show implements show.Shower: the rows, and the inserts refused as duplicates.
func (u *UniqueKey) Show(sim.View) show.Node {
	return show.Node{Kind: show.Sink, Rows: rowNames(u.Rows), Refused: rowNames(u.Refused),
		Status: rowsStatus(len(u.Rows)).And(fate.StatusRefused, "count", strconv.Itoa(len(u.Refused)))}
}
