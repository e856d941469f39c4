package server

import (
	"slices"

	"deliverylab/core/kafka/protocol"
)

// delayedOp is a request waiting in a purgatory: it watches partitions and gives up at a
// deadline. Ops are plain values, so a broker copies its purgatories with the world.
type delayedOp interface {
	watches(tp protocol.TP) bool
	deadlineMs() int64
}

// purgatory holds the requests that cannot be answered yet, as Kafka's
// DelayedOperationPurgatory does for DelayedProduce and DelayedFetch: an op completes
// when a predicate holds (checked when something it watches changes), expires at its
// deadline, or fails when its partition moves away. Ops come out in the order they went
// in.
type purgatory[T delayedOp] struct {
	ops []T
}

func (p *purgatory[T]) add(op T) { p.ops = append(p.ops, op) }

// take removes and returns the ops for which pick holds, in order.
func (p *purgatory[T]) take(pick func(T) bool) []T {
	// The ops kept are moved down in place: most calls (an expiry check at every event
	// a broker handles) take nothing, and a new slice each time had been a tenth of the
	// kernel's allocation. p.ops is this purgatory's own (clone copies it).
	var taken []T
	kept := p.ops[:0]
	for _, op := range p.ops {
		if pick(op) {
			taken = append(taken, op)
		} else {
			kept = append(kept, op)
		}
	}
	clear(p.ops[len(kept):])
	p.ops = kept
	return taken
}

// complete takes the ops watching tp that are ready.
func (p *purgatory[T]) complete(tp protocol.TP, ready func(T) bool) []T {
	return p.take(func(op T) bool { return op.watches(tp) && ready(op) })
}

// expire takes the ops whose deadline has come.
func (p *purgatory[T]) expire(nowMs int64) []T {
	return p.take(func(op T) bool { return op.deadlineMs() <= nowMs })
}

// watching takes every op that watches tp.
func (p *purgatory[T]) watching(tp protocol.TP) []T {
	return p.take(func(op T) bool { return op.watches(tp) })
}

func (p *purgatory[T]) len() int { return len(p.ops) }

func (p purgatory[T]) clone() purgatory[T] { return purgatory[T]{ops: slices.Clone(p.ops)} }
