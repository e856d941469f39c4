package sim

import "slices"

// eventKind says what a queued event does when its time comes.
type eventKind uint8

const (
	evDeliver eventKind = iota // a message arrives at its destination
	evTimer                    // a node's timer fires
	evFault                    // a scheduled fault happens
	evStart                    // a node boots (at its start time)
)

// event is one entry of the queue: plain data, ordered by (AtMs, Seq). Fault events
// sort before others at the same time so "a fault at at.ms happens before any other
// event at that time" (queueKey).
type event struct {
	AtMs        int64
	Seq         int64
	Kind        eventKind
	Node        string  // evTimer, evStart: the node
	Port        string  // evTimer: the node's port that set it
	Incarnation int     // evTimer: the node's incarnation that set it
	Timer       Payload // evTimer
	MsgID       int64   // evDeliver: id in World.inFlight
	Fault       *Fault  // evFault: out of line, so that events stay small (never changed once queued)
	// Arrived: an evDeliver of a message that reached a paused node and waited at its host
	// (nodeSlot.arrived), run again on resume; Node and Incarnation say whose.
	Arrived bool
}

// queue is a four-ary min-heap of small keys (half the depth of a binary heap: a pop,
// the kernel's commonest step, sifts through half the levels, and the four children it
// compares at each sit in one or two cache lines), with the events themselves in a slab the
// keys index: sifting moves 24-byte keys without pointers (no write barriers, nothing for
// the collector to scan) instead of whole events, and a copy of the queue is three slice
// copies.
type queue struct {
	keys []queueKey
	slab []event // events by index; a popped slot is zeroed and reused
	free []int32 // free slots of slab
}

// queueKey orders an event: by time, then faults first, then by sequence.
type queueKey struct {
	atMs int64
	rank int64 // the event's Seq, with faultLast set unless it is a fault
	slot int32
}

// faultLast is set in the rank of every event but a fault, so faults sort first within
// an instant.
const faultLast = int64(1) << 62

func (k *queueKey) less(o *queueKey) bool {
	if k.atMs != o.atMs {
		return k.atMs < o.atMs
	}
	return k.rank < o.rank
}

func (q *queue) len() int { return len(q.keys) }

func (q *queue) clone() queue {
	return queue{keys: slices.Clone(q.keys), slab: slices.Clone(q.slab), free: slices.Clone(q.free)}
}

func (q *queue) push(e event) {
	var slot int32
	if n := len(q.free); n > 0 {
		slot, q.free = q.free[n-1], q.free[:n-1]
		q.slab[slot] = e
	} else {
		slot = int32(len(q.slab))
		q.slab = append(q.slab, e)
	}
	rank := e.Seq
	if e.Kind != evFault {
		rank |= faultLast
	}
	q.keys = append(q.keys, queueKey{atMs: e.AtMs, rank: rank, slot: slot})
	h := q.keys
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !h[i].less(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) pop() event {
	h := q.keys
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		m := i
		first := 4*i + 1
		end := min(first+4, len(h))
		for c := first; c < end; c++ {
			if h[c].less(&h[m]) {
				m = c
			}
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	q.keys = h
	e := q.slab[top.slot]
	q.slab[top.slot] = event{} // let go of what it points to
	q.free = append(q.free, top.slot)
	return e
}

func (q *queue) peek() *event {
	if len(q.keys) == 0 {
		return nil
	}
	return &q.slab[q.keys[0].slot]
}
