package sim

import (
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The observation log across chunk boundaries: everything in order, read forwards or
// backwards with the right indexes; a clone taken mid-chunk and one taken at a chunk's
// end each run on apart from the original, though they share its full chunks; a list
// taken before an add does not see it. Names are interned per log: one a clone adds
// after the copy is its own, and the original, adding another in the same place, keeps
// its own.
func TestObservationLogKeepsOrderAcrossChunksAndClones(t *testing.T) {
	var l observationLog
	add := func(l *observationLog, from, to int) {
		for i := from; i < to; i++ {
			l.add(&Observation{Offset: int64(i), Node: "n" + strconv.Itoa(i%3)})
		}
	}
	offsets := func(list ObservationList) []int64 {
		out := []int64{}
		for i, o := range list.All() {
			require.Len(t, out, i, "indexes count from 0 without a gap")
			out = append(out, o.Offset)
		}
		assert.Len(t, list.Slice(), len(out))
		assert.Equal(t, len(out), list.Len())
		return out
	}
	span := func(from, to int) []int64 {
		out := []int64{}
		for i := from; i < to; i++ {
			out = append(out, int64(i))
		}
		return out
	}
	add(&l, 0, obsChunk+10)
	midChunk := l.clone()
	add(&l, obsChunk+10, 2*obsChunk)
	atEnd := l.clone()
	add(&l, 2*obsChunk, 2*obsChunk+5)
	add(&midChunk, 0, 3) // written where l wrote obsChunk+10…
	add(&atEnd, 7, 8)

	list := l.list()
	for i, o := range list.All() {
		require.Equal(t, "n"+strconv.Itoa(i%3), o.Node, "the node of observation %d", i)
	}
	assert.Equal(t, span(0, 2*obsChunk+5), offsets(list))
	assert.Equal(t, append(span(0, obsChunk+10), 0, 1, 2), offsets(midChunk.list()))
	assert.Equal(t, append(span(0, 2*obsChunk), 7), offsets(atEnd.list()))

	want := 2*obsChunk + 4
	for i, o := range list.Backward() {
		require.Equal(t, want, i)
		require.Equal(t, int64(i), o.Offset)
		want--
	}
	assert.Equal(t, -1, want, "Backward reached the first")

	l.add(&Observation{Offset: -1})
	assert.Equal(t, 2*obsChunk+5, list.Len())
	assert.Equal(t, append(span(0, 2*obsChunk+5), -1), offsets(l.list()))
	assert.Equal(t, []int64{5}, offsets(ListOf([]Observation{{Offset: 5}})))
}

func TestObservationLogNamesApartAfterAClone(t *testing.T) {
	var l observationLog
	l.add(&Observation{Node: "p1", Event: "sent", Partition: "orders-0"})
	c := l.clone()
	c.add(&Observation{Node: "c1", Event: "polled"})
	l.add(&Observation{Node: "broker-1", Event: "appended", Group: "g", Member: "m"})
	c.add(&Observation{Node: "p1", Event: "sent"})
	assert.Equal(t, []Observation{{Node: "p1", Event: "sent", Partition: "orders-0"}, {Node: "broker-1", Event: "appended", Group: "g", Member: "m"}},
		l.list().Slice())
	assert.Equal(t, []Observation{{Node: "p1", Event: "sent", Partition: "orders-0"}, {Node: "c1", Event: "polled"}, {Node: "p1", Event: "sent"}},
		c.list().Slice())
	n := 0
	for i, o := range c.list().Of("sent", "nothing-of-the-kind") {
		assert.Equal(t, Event("sent"), o.Event, i)
		n++
	}
	assert.Equal(t, 2, n)
}

// A log and its clone, each then adding commits and assignments (whose fields and names
// are kept in the chunk's lists and text, which the two share up to the clone), read
// back what each was given: neither writes where the other reads. So does a list read
// back and appended to by its reader.
func TestObservationLogListsApartAfterAClone(t *testing.T) {
	var l observationLog
	commit := func(n int) Observation {
		return Observation{Event: "committed", Group: "g", Committed: []string{"orders-0=" + strconv.Itoa(n)}, Err: strconv.Itoa(n)}
	}
	var wantL, wantC []Observation
	for n := range 3 {
		l.add(ptr(commit(n)))
		wantL = append(wantL, commit(n))
	}
	wantC = slices.Clone(wantL)
	c := l.clone()
	for n := 3; n < 9000; n++ { // past blocks of text and a chunk
		if n%2 == 0 {
			l.add(ptr(commit(n)))
			wantL = append(wantL, commit(n))
		} else {
			o := Observation{Event: "assigned", Member: "m", Assigned: []string{"t-" + strconv.Itoa(n), "u-" + strconv.Itoa(n)}, Folds: []string{}}
			c.add(&o)
			wantC = append(wantC, o)
		}
	}
	for _, o := range l.list().All() {
		_ = append(o.Committed, "appended by a reader")
	}
	assert.Equal(t, wantL, l.list().Slice())
	assert.Equal(t, wantC, c.list().Slice())
}

func ptr[T any](v T) *T { return &v }
