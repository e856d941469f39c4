package sinks

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Transactional is a table that stores, in the same database transaction as a row, the
// consumer's offset after the record (commit: with-results). A consumer that restarts
// reads its offsets here and seeks to them instead of using the group's committed
// offset, so the row and the progress are both there or neither is — the pattern of
// KafkaConsumer's javadoc, "Storing Offsets Outside Kafka". A write without offsets is a
// plain row: a re-delivered record is then a duplicate row, as in a table. A write that
// carries an offset the sink has already stored is the retry of a transaction that
// committed (its answer was lost): it commits nothing again. A Flink job's
// two-phase-commit sink writes into XA transaction branches instead (xa.go).
type Transactional struct {
	base
	rows
	offsets map[string]int64 // group + "/" + partition -> next offset
	xa      xaBranches       // the transaction branches not yet committed or rolled back
}

// NewTransactional makes an empty transactional sink.
func NewTransactional(name string) *Transactional {
	return &Transactional{base: base{name: name}, offsets: map[string]int64{}, xa: xaBranches{}}
}

// Clone implements sim.Node.
func (t *Transactional) Clone() sim.Node {
	c := *t
	c.Rows, c.offsets, c.xa = slices.Clone(t.Rows), maps.Clone(t.offsets), t.xa.clone()
	return &c
}

// Crash keeps what was committed and the prepared branches, and rolls back the active
// ones.
func (t *Transactional) Crash() { t.xa.crash() }

// Receive commits a row with its offset, or answers a group's stored offsets.
func (t *Transactional) Receive(env *sim.Env, m sim.Message) {
	if t.receiveXa(env, m) {
		return
	}
	switch p := m.Payload.(type) {
	case Write:
		if t.committedBefore(p) {
			// The transaction of this row committed before: its answer was lost and the
			// application wrote again. A database commits a transaction once; the retry
			// finds the offset it would store already stored (the offset row's update is
			// conditional on the offset it moves from) and commits nothing, and the
			// application is told the write is done.
			env.Send(m.From, WriteAck{ReqID: p.ReqID})
			return
		}
		t.Rows = append(t.Rows, Row{Msg: p.Msg, Key: p.Key, Value: p.Value})
		if p.Partition != "" {
			t.offsets[p.Group+"/"+p.Partition] = p.Next
		}
		t.written(env, m, p)
	case ReadOffsets:
		env.Send(m.From, Offsets{ReqID: p.ReqID, Offsets: t.Stored(p.Group)})
	}
}

// committedBefore reports whether a write that carries its offset was committed
// already: the group's stored offset in the partition is at or past the write's. A
// write without offsets cannot tell: it is a new row.
func (t *Transactional) committedBefore(w Write) bool {
	if w.Partition == "" {
		return false
	}
	next, ok := t.offsets[w.Group+"/"+w.Partition]
	return ok && next >= w.Next
}

// Stored lists the offsets a group stored, sorted by partition.
func (t *Transactional) Stored(group string) []StoredOffset {
	var out []StoredOffset
	for k, next := range t.offsets {
		if g, part, ok := strings.Cut(k, "/"); ok && g == group {
			out = append(out, StoredOffset{Partition: part, Next: next})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	return out
}

// Show implements show.Shower: the rows, and the stored offsets in the status line.
func (t *Transactional) Show(sim.View) show.Node {
	keys := slices.Sorted(maps.Keys(t.offsets))
	parts := make([]string, len(keys))
	for i, k := range keys {
		_, part, _ := strings.Cut(k, "/")
		parts[i] = fmt.Sprintf("%s@%d", part, t.offsets[k])
	}
	status := rowsStatus(len(t.Rows))
	if len(parts) > 0 {
		status = status.And(fate.StatusOffsets, "offsets", strings.Join(parts, " "))
	}
	prepared := 0
	for _, b := range t.xa {
		if b.State == XaPrepared {
			prepared++
		}
	}
	if prepared > 0 {
		status = status.And(fate.StatusXaPrepared, "count", strconv.Itoa(prepared))
	}
	return show.Node{Kind: show.Sink, Rows: rowNames(t.Rows), Status: status}
}
