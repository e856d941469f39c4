package sinks

import (
	"fmt"
	"strconv"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/sim"
)

// Kind is what sort of database a sink is: how it answers a record written twice.
type Kind string

// The sink kinds (scenes/README.md, sinks).
const (
	TableKind         Kind = "table"         // every write is a new row: a re-delivery is a duplicate row
	UniqueKeyKind     Kind = "unique-key"    // the record key is a primary key: a second insert is refused
	UpsertKind        Kind = "upsert"        // the record key is a primary key: a second write replaces the row
	TransactionalKind Kind = "transactional" // rows and the consumer's offsets in one database transaction
	CounterKind       Kind = "counter"       // a dashboard total: each record's value is added to it
)

// Kinds lists the sink kinds, in the order the documentation gives them.
var Kinds = []Kind{TableKind, UniqueKeyKind, UpsertKind, TransactionalKind, CounterKind}

// ParseKind reads a sink kind, or says which ones there are.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("expected %s, got %q", strings.Join(names, ", "), s)
}

// New makes an empty sink of a kind.
func New(kind Kind, name string) sim.Node {
	switch kind {
	case UniqueKeyKind:
		return NewUniqueKey(name)
	case UpsertKind:
		return NewUpsert(name)
	case TransactionalKind:
		return NewTransactional(name)
	case CounterKind:
		return NewCounter(name)
	}
	return NewTable(name)
}

// base is what every sink shares: a name, no boot work, no timers, and a store that
// survives a crash (what a database committed stays committed).
type base struct{ name string }

// Name implements sim.Node.
func (b *base) Name() string { return b.name }

// Start implements sim.Node: a database needs no boot work here.
func (b *base) Start(*sim.Env) {}

// Crash keeps the store: its writes were committed.
func (b *base) Crash() {}

// Fire implements sim.Node: a sink sets no timers.
func (b *base) Fire(*sim.Env, sim.Payload) {}

// written records the protocol point of a stored row and acknowledges the write.
func (b *base) written(env *sim.Env, m sim.Message, w Write) {
	env.Observe(sim.Observation{Event: Written, Msgs: []string{w.Msg}, Output: b.name})
	env.Send(m.From, WriteAck{ReqID: w.ReqID})
}

// rows is the store of a sink that keeps rows.
type rows struct{ Rows []Row }

// Effects counts the rows present per message identity: the sink's effects in the
// ledger.
func (s *rows) Effects() map[string]int {
	out := map[string]int{}
	for _, r := range s.Rows {
		out[r.Msg]++
	}
	return out
}

// rowNames lists the rows' message identities, in order, for the canvas.
func rowNames(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Msg
	}
	return out
}

// rowsStatus is the start of a sink's status line: its row count.
func rowsStatus(rows int) fate.Reason {
	return fate.Because(fate.StatusRows, "rows", strconv.Itoa(rows))
}
