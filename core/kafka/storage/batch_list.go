package storage

import (
	"iter"
	"slices"

	"deliverylab/core/kafka/protocol"
)

// batchChunk is how many batches a chunk of a log holds.
const batchChunk = 256

// batchList is a log's batches in chunks: the full ones are never written again, so a
// clone shares them and copies only the chunk being filled. A keyframe of a long run is
// a clone of every log: with one slice each, each keyframe had kept its own generation
// of a quarter of a million batches (hundreds of megabytes in the page, whose collector
// then paused it for a fifth of a second), and appending had copied the whole slice at
// each growth.
type batchList struct {
	full [][]protocol.RecordBatch // batchChunk each, read-only, shared with clones
	last []protocol.RecordBatch   // this list's own
}

func (l *batchList) len() int { return len(l.full)*batchChunk + len(l.last) }

// at is batch i; it must not be changed.
func (l *batchList) at(i int) *protocol.RecordBatch {
	if c := i / batchChunk; c < len(l.full) {
		return &l.full[c][i%batchChunk]
	}
	return &l.last[i-len(l.full)*batchChunk]
}

// end is the last batch, nil for none.
func (l *batchList) end() *protocol.RecordBatch {
	if n := len(l.last); n > 0 {
		return &l.last[n-1]
	}
	if n := len(l.full); n > 0 {
		return &l.full[n-1][batchChunk-1]
	}
	return nil
}

func (l *batchList) push(b protocol.RecordBatch) {
	if len(l.last) == batchChunk {
		l.full = append(l.full, l.last)
		l.last = make([]protocol.RecordBatch, 0, batchChunk)
	}
	// The first chunk grows as a slice does: most logs hold a few batches.
	l.last = append(l.last, b)
}

// search is the first index for which f holds (f false, then true, as sort.Search).
func (l *batchList) search(f func(*protocol.RecordBatch) bool) int {
	lo, hi := 0, l.len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if !f(l.at(m)) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// copyRange is a copy of the batches from i to j.
func (l *batchList) copyRange(i, j int) []protocol.RecordBatch {
	out := make([]protocol.RecordBatch, 0, j-i)
	for k := i; k < j; k++ {
		out = append(out, *l.at(k))
	}
	return out
}

// cut keeps the first n batches and returns a copy of the rest.
func (l *batchList) cut(n int) []protocol.RecordBatch {
	removed := l.copyRange(n, l.len())
	if c := n / batchChunk; c < len(l.full) {
		// Into a shared chunk: its head becomes this list's own last chunk, and the list
		// of chunks is clipped, so that a later full chunk is not written where a clone's
		// list still looks.
		last := make([]protocol.RecordBatch, n%batchChunk, batchChunk)
		copy(last, l.full[c])
		l.full, l.last = l.full[:c:c], last
	} else {
		clear(l.last[n-len(l.full)*batchChunk:])
		l.last = l.last[:n-len(l.full)*batchChunk]
	}
	return removed
}

// from yields the batches from index i on, with their indexes; they must not be changed.
func (l *batchList) from(i int) iter.Seq2[int, *protocol.RecordBatch] {
	return func(yield func(int, *protocol.RecordBatch) bool) {
		for k := i; k < l.len(); k++ {
			if !yield(k, l.at(k)) {
				return
			}
		}
	}
}

// clone shares the full chunks and copies the last.
func (l *batchList) clone() batchList {
	return batchList{full: slices.Clip(l.full), last: slices.Clone(l.last)}
}
