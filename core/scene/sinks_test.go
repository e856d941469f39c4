package scene

import (
	"testing"

	"deliverylab/core/check"
	"deliverylab/core/fate"
	"deliverylab/core/sinks"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSinkKindsUnderARedelivery runs the same re-delivery (c1 crashes after processing
// p1#2, before the commit that covers p1#1 and p1#2) into each kind of sink: only a plain table, a counter and a
// transactional sink whose offsets are still committed to Kafka show the duplicate.
func TestSinkKindsUnderARedelivery(t *testing.T) {
	cases := []struct {
		kind       sinks.Kind
		commit     string
		duplicated int
		refused    int
	}{
		{sinks.TableKind, "after-processing", 2, 0},
		{sinks.UniqueKeyKind, "after-processing", 0, 2},
		{sinks.UpsertKind, "after-processing", 0, 0},
		{sinks.TransactionalKind, "after-processing", 2, 0},
		{sinks.TransactionalKind, "with-results", 0, 0},
		{sinks.CounterKind, "after-processing", 2, 0},
	}
	for _, c := range cases {
		t.Run(string(c.kind)+"/"+c.commit, func(t *testing.T) {
			text := keysApply(t, keysApply(t, keysBase, keysRedelivery...),
				keysEdit{"sinks/0/kind", string(c.kind)}, keysEdit{"apps/1/commit", c.commit})
			r := keysRun(t, text)
			rep := r.Judge()
			assert.Equal(t, c.duplicated, rep.Messages["duplicated"], "duplicated")
			assert.Equal(t, 4-c.duplicated, rep.Messages["delivered"], "delivered")
			assert.Zero(t, rep.Messages["lost"], "lost")
			refused := 0
			for _, o := range r.World.Observations().All() {
				if o.Event == sinks.DuplicateRefused {
					refused++
				}
			}
			assert.Equal(t, c.refused, refused, "inserts refused by the unique key")
			require.NotNil(t, rep.Total, "the values are whole numbers: the ledger gives a total")
			extra := int64(0)
			if c.duplicated > 0 {
				extra = 1 + 2
			}
			assert.Equal(t, check.Total{Shown: 10 + extra, Expected: 10}, *rep.Total,
				"values 1..4 add to 10; the re-delivered p1#1 and p1#2 add 3 more where they are written twice")
		})
	}
}

// TestCounterShowsWhatTheLedgerCounts: the total the counter itself shows is the total
// the ledger computes from its effects.
func TestCounterShowsWhatTheLedgerCounts(t *testing.T) {
	text := keysApply(t, keysApply(t, keysBase, keysRedelivery...), keysEdit{"sinks/0/kind", "counter"})
	r := keysRun(t, text)
	c, ok := nodeAs[*sinks.Counter](r.World, "db")
	require.True(t, ok)
	require.NotNil(t, r.Judge().Total)
	assert.Equal(t, r.Judge().Total.Shown, c.Total)
}

// TestWithResultsSeeksToTheStoredOffsets: after the crash the consumer starts where the
// sink's transaction left it, not at the group's committed offset (it has none).
func TestWithResultsSeeksToTheStoredOffsets(t *testing.T) {
	text := keysApply(t, keysApply(t, keysBase, keysRedelivery...),
		keysEdit{"sinks/0/kind", "transactional"}, keysEdit{"apps/1/commit", "with-results"})
	r := keysRun(t, text)
	polls := map[string]int{}
	commits := 0
	for _, o := range r.World.Observations().All() {
		switch o.Event {
		case "polled":
			for _, m := range o.Msgs {
				polls[m]++
			}
		case "offset-committed":
			commits++
		}
	}
	assert.Equal(t, map[string]int{"p1#1": 1, "p1#2": 1, "p1#3": 1, "p1#4": 1}, polls, "nothing is polled twice")
	assert.Zero(t, commits, "with-results commits nothing to Kafka")
}

func TestSinkInputErrors(t *testing.T) {
	for name, c := range map[string]struct {
		edits []keysEdit
		want  string
	}{
		"unknown kind": {[]keysEdit{{"sinks/0/kind", "view"}}, "sinks[0].kind: expected table, unique-key, upsert, transactional, counter, got \"view\""},
		"with-results into a table": {[]keysEdit{{"apps/1/sink", "db"}, {"apps/1/commit", "with-results"}},
			"expected a sink of kind transactional, got db of kind table"},
		"with-results without a sink": {[]keysEdit{{"apps/1/commit", "with-results"}}, "got no sink"},
		"a counter of words": {[]keysEdit{{"apps/1/sink", "db"}, {"sinks/0/kind", "counter"}, {"apps/0/send/value", `"x{n}"`}},
			`send.value: the counter db adds each record's value to its total: expected a whole number such as "1" or "{n}", got "x1" for message 1`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("sinks.yaml", []byte(keysApply(t, keysBase, c.edits...)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// TestSharedKeysLoseRowsAndSaySo: two messages with one key leave one row in an upsert
// (the later overwrites) and in a unique-key table (the later is refused); the ledger
// says which message took the row.
func TestSharedKeysLoseRowsAndSaySo(t *testing.T) {
	for kind, want := range map[string][2]string{
		"upsert":     {"p1#1", "p1#3, with the same key, overwrote its row in db"},
		"unique-key": {"p1#3", "db refused it as a duplicate: p1#1 already holds its key"},
	} {
		t.Run(kind, func(t *testing.T) {
			text := keysApply(t, keysBase, keysEdit{"apps/0/send/key", `"k{n%2}"`}, keysEdit{"apps/1/sink", "db"},
				keysEdit{"sinks/0/kind", kind})
			rep := keysRun(t, text).Judge()
			assert.Equal(t, 2, rep.Messages["lost"], "two of four messages share a key with an earlier or later one")
			var why string
			for _, f := range rep.Ledger {
				if f.Msg == want[0] {
					why = f.Reason.Text(fate.En)
				}
			}
			assert.Contains(t, why, want[1])
		})
	}
}
