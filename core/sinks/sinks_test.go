package sinks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/fate"
	"deliverylab/core/sim"
)

// writer is the application side of a sink: it keeps every answer it gets.
type writer struct {
	Acks    []WriteAck
	Offsets []Offsets
	Last    sim.Payload // the last answer of any kind
}

func (*writer) Name() string               { return "app" }
func (*writer) Start(*sim.Env)             {}
func (*writer) Crash()                     {}
func (w *writer) Clone() sim.Node          { c := *w; return &c }
func (*writer) Fire(*sim.Env, sim.Payload) {}
func (w *writer) Receive(_ *sim.Env, m sim.Message) {
	w.Last = m.Payload
	switch p := m.Payload.(type) {
	case WriteAck:
		w.Acks = append(w.Acks, p)
	case Offsets:
		w.Offsets = append(w.Offsets, p)
	}
}

// world is a sink of a kind named "db" and the writer "app", 1 ms apart.
func world(t *testing.T, kind Kind) (*sim.World, *writer, sim.Node) {
	t.Helper()
	w := sim.NewWorld(sim.Config{Seed: 1, LatencyMs: 1})
	app, db := &writer{}, New(kind, "db")
	w.Add(app, 0)
	w.Add(db, 0)
	w.RunUntil(0, nil)
	return w, app, db
}

// write sends the writes one after another and runs until they are all answered.
func write(w *sim.World, ws ...Write) {
	for _, x := range ws {
		w.SendAs("app", "db", x)
	}
	w.RunUntil(w.NowMs()+10, nil)
}

// events lists the sink's protocol points, as event/message.
func events(w *sim.World) []string {
	var out []string
	for _, o := range w.Observations().All() {
		if o.Event == Written || o.Event == DuplicateRefused {
			out = append(out, string(o.Event)+"/"+o.Msgs[0])
		}
	}
	return out
}

func TestNewMakesTheKindAsked(t *testing.T) {
	assert.IsType(t, &Table{}, New(TableKind, "db"))
	assert.IsType(t, &UniqueKey{}, New(UniqueKeyKind, "db"))
	assert.IsType(t, &Upsert{}, New(UpsertKind, "db"))
	assert.IsType(t, &Transactional{}, New(TransactionalKind, "db"))
	assert.IsType(t, &Counter{}, New(CounterKind, "db"))
	k, err := ParseKind("upsert")
	require.NoError(t, err)
	assert.Equal(t, UpsertKind, k)
	_, err = ParseKind("queue")
	assert.EqualError(t, err, `expected table, unique-key, upsert, transactional, counter, got "queue"`)
}

// A table keeps every write as a row: a re-delivered record is a second row.
func TestTableKeepsARedeliveryAsASecondRow(t *testing.T) {
	w, app, db := world(t, TableKind)
	write(w, Write{ReqID: 1, Msg: "p#1", Key: "k1", Value: "1"}, Write{ReqID: 2, Msg: "p#1", Key: "k1", Value: "1"})
	table := db.(*Table)
	assert.Equal(t, []Row{{Msg: "p#1", Key: "k1", Value: "1"}, {Msg: "p#1", Key: "k1", Value: "1"}}, table.Rows)
	assert.Equal(t, map[string]int{"p#1": 2}, table.Effects())
	assert.Equal(t, []WriteAck{{ReqID: 1}, {ReqID: 2}}, app.Acks)
	assert.Equal(t, []string{"written/p#1", "written/p#1"}, events(w))
}

// A unique key refuses the second insert of a key, and says so in the answer: the row
// stays the first one's, and the ledger is told who holds the key.
func TestUniqueKeyRefusesADuplicateKey(t *testing.T) {
	w, app, db := world(t, UniqueKeyKind)
	write(w, Write{ReqID: 1, Msg: "p#1", Key: "k1", Value: "a"},
		Write{ReqID: 2, Msg: "p#1", Key: "k1", Value: "a"}, // a re-delivery
		Write{ReqID: 3, Msg: "p#2", Key: "k1", Value: "b"}, // another message, the same key
		Write{ReqID: 4, Msg: "p#3", Key: "k3", Value: "c"})
	u := db.(*UniqueKey)
	assert.Equal(t, []Row{{Msg: "p#1", Key: "k1", Value: "a"}, {Msg: "p#3", Key: "k3", Value: "c"}}, u.Rows)
	assert.Equal(t, []string{"p#1", "p#2"}, rowNames(u.Refused))
	assert.Equal(t, []WriteAck{{ReqID: 1}, {ReqID: 2, Duplicate: true}, {ReqID: 3, Duplicate: true}, {ReqID: 4}}, app.Acks)
	assert.Equal(t, []string{"written/p#1", "duplicate-refused/p#1", "duplicate-refused/p#2", "written/p#3"}, events(w))
	assert.Equal(t, map[string]int{"p#1": 1, "p#3": 1}, u.Effects())
	// p#1's own re-delivery needs no reason (it has its row); p#2 lost to p#1's key.
	why := u.NoEffectWhy()
	require.Len(t, why, 1)
	assert.Equal(t, fate.Because(fate.KeyTaken, "by", "p#1", "output", "db"), why["p#2"])
}

// An upsert rewrites the row of a key: a re-delivery leaves one row, and another
// message with the same key replaces the earlier one's row.
func TestUpsertRewritesTheRowOfAKey(t *testing.T) {
	w, app, db := world(t, UpsertKind)
	write(w, Write{ReqID: 1, Msg: "p#1", Key: "k1", Value: "a"},
		Write{ReqID: 2, Msg: "p#2", Key: "k2", Value: "b"},
		Write{ReqID: 3, Msg: "p#1", Key: "k1", Value: "a"}, // a re-delivery
		Write{ReqID: 4, Msg: "p#3", Key: "k2", Value: "c"}) // overwrites p#2's row
	u := db.(*Upsert)
	assert.Equal(t, []Row{{Msg: "p#1", Key: "k1", Value: "a"}, {Msg: "p#3", Key: "k2", Value: "c"}}, u.Rows, "one row per key, in first-key order")
	assert.Equal(t, 2, u.Rewrites)
	assert.Equal(t, map[string]int{"p#1": 1, "p#3": 1}, u.Effects())
	assert.Len(t, app.Acks, 4)
	assert.Equal(t, map[string]fate.Reason{"p#2": fate.Because(fate.Overwritten, "by", "p#3", "output", "db")}, u.NoEffectWhy())

	// p#2 written again takes its row back: it is no longer overwritten, p#3 is.
	write(w, Write{ReqID: 5, Msg: "p#2", Key: "k2", Value: "b"})
	assert.Equal(t, map[string]fate.Reason{"p#3": fate.Because(fate.Overwritten, "by", "p#2", "output", "db")}, u.NoEffectWhy())
}

// A transactional sink stores a row and the consumer's next offset together, and
// answers a group's stored offsets, sorted by partition, after a crash too.
func TestTransactionalStoresRowsWithTheirOffsets(t *testing.T) {
	w, app, db := world(t, TransactionalKind)
	write(w, Write{ReqID: 1, Msg: "p#1", Group: "g", Partition: "orders-1", Next: 4},
		Write{ReqID: 2, Msg: "p#2", Group: "g", Partition: "orders-0", Next: 7},
		Write{ReqID: 3, Msg: "p#3", Group: "g", Partition: "orders-1", Next: 5},
		Write{ReqID: 4, Msg: "p#4", Group: "other", Partition: "orders-0", Next: 1},
		Write{ReqID: 5, Msg: "p#5"}) // no offsets: a plain row
	tx := db.(*Transactional)
	assert.Equal(t, []string{"p#1", "p#2", "p#3", "p#4", "p#5"}, rowNames(tx.Rows))
	assert.Equal(t, []StoredOffset{{Partition: "orders-0", Next: 7}, {Partition: "orders-1", Next: 5}}, tx.Stored("g"))
	assert.Empty(t, tx.Stored("nobody"))

	w.Inject(sim.Fault{Kind: sim.FaultCrash, Node: "db"})
	w.Inject(sim.Fault{Kind: sim.FaultRestart, Node: "db"})
	w.SendAs("app", "db", ReadOffsets{ReqID: 9, Group: "g"})
	w.RunUntil(w.NowMs()+10, nil)
	require.Len(t, app.Offsets, 1)
	assert.Equal(t, Offsets{ReqID: 9, Offsets: []StoredOffset{{Partition: "orders-0", Next: 7}, {Partition: "orders-1", Next: 5}}},
		app.Offsets[0], "what the database committed survives its crash")
	assert.Len(t, tx.Rows, 5)
}

// A transactional sink commits a transaction once: the retry of a write whose answer was
// lost (the same row and offset again, under a new request) finds its offset stored,
// commits nothing and is answered done. A later record of the partition is a new row,
// and a write without offsets stays a plain row however often it comes.
func TestTransactionalCommitsARetriedWriteOnce(t *testing.T) {
	w, app, db := world(t, TransactionalKind)
	write(w, Write{ReqID: 1, Msg: "p#1", Group: "g", Partition: "orders-0", Next: 1},
		Write{ReqID: 2, Msg: "p#1", Group: "g", Partition: "orders-0", Next: 1}, // the retry
		Write{ReqID: 3, Msg: "p#2", Group: "g", Partition: "orders-0", Next: 2},
		Write{ReqID: 4, Msg: "p#1", Group: "other", Partition: "orders-0", Next: 1}, // another group's transaction
		Write{ReqID: 5, Msg: "p#9"}, Write{ReqID: 6, Msg: "p#9"})
	tx := db.(*Transactional)
	assert.Equal(t, []string{"p#1", "p#2", "p#1", "p#9", "p#9"}, rowNames(tx.Rows))
	assert.Equal(t, []StoredOffset{{Partition: "orders-0", Next: 2}}, tx.Stored("g"))
	assert.Equal(t, []WriteAck{{ReqID: 1}, {ReqID: 2}, {ReqID: 3}, {ReqID: 4}, {ReqID: 5}, {ReqID: 6}}, app.Acks)
	assert.Equal(t, []string{"written/p#1", "written/p#2", "written/p#1", "written/p#9", "written/p#9"}, events(w),
		"the retry writes nothing: no second protocol point")
}

// A counter adds each record's value: a re-delivery is added again.
func TestCounterAddsEveryDelivery(t *testing.T) {
	w, app, db := world(t, CounterKind)
	write(w, Write{ReqID: 1, Msg: "p#1", Value: "5"}, Write{ReqID: 2, Msg: "p#2", Value: "3"}, Write{ReqID: 3, Msg: "p#1", Value: "5"})
	c := db.(*Counter)
	assert.Equal(t, int64(13), c.Total)
	assert.Equal(t, []string{"p#1", "p#2", "p#1"}, c.Folded)
	assert.Equal(t, map[string]int{"p#1": 2, "p#2": 1}, c.Effects())
	assert.Len(t, app.Acks, 3)
}

// A write to a crashed sink is refused, and the sink stores nothing.
func TestACrashedSinkRefusesWrites(t *testing.T) {
	w, app, db := world(t, TableKind)
	w.Inject(sim.Fault{Kind: sim.FaultCrash, Node: "db"})
	write(w, Write{ReqID: 1, Msg: "p#1"})
	assert.Empty(t, db.(*Table).Rows)
	assert.Empty(t, app.Acks)
}

// A clone is a snapshot: writes after it do not reach it.
func TestCloneIsASnapshot(t *testing.T) {
	for _, kind := range Kinds {
		t.Run(string(kind), func(t *testing.T) {
			w, _, db := world(t, kind)
			write(w, Write{ReqID: 1, Msg: "p#1", Key: "k1", Value: "1", Group: "g", Partition: "t-0", Next: 1})
			snap := db.Clone()
			write(w, Write{ReqID: 2, Msg: "p#2", Key: "k2", Value: "2", Group: "g", Partition: "t-0", Next: 2})
			before, after := effectsOf(snap), effectsOf(db)
			assert.NotEqual(t, before, after, "the sink changed")
			assert.Equal(t, map[string]int{"p#1": 1}, before)
		})
	}
}

func effectsOf(n sim.Node) map[string]int {
	switch s := n.(type) {
	case *Table:
		return s.Effects()
	case *UniqueKey:
		return s.Effects()
	case *Upsert:
		return s.Effects()
	case *Transactional:
		return s.Effects()
	case *Counter:
		return s.Effects()
	}
	return nil
}
