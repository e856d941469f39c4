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
	AtMs int64
	Seq  int64
	Kind eventKind
	// Arrived: an evDeliver of a message that reached a paused node and waited at its host
	// (nodeSlot.arrived), run again on resume; Node and Incarnation say whose.
	Arrived     bool
	slot        int32   // evTimer: the node's index in World.slotList (Kind, Arrived and slot share a word)
	Node        string  // evTimer, evStart: the node
	Port        string  // evTimer: the node's port that set it
	Incarnation int     // evTimer: the node's incarnation that set it
	Timer       Payload // evTimer
	MsgID       int64   // evDeliver: id in World.inFlight
	Fault       *Fault  // evFault: out of line, so that events stay small (never changed once queued)
}

// queue is a four-ary min-heap of small keys (half the depth of a binary heap: a pop,
// the kernel's commonest step, sifts through half the levels, and the four children it
// compares at each sit in one or two cache lines), with the events themselves in a slab the
// keys index: sifting moves 24-byte keys without pointers (no write barriers, nothing for
// the collector to scan) instead of whole events, and a copy of the queue is three slice
// copies.
//
// Only the events before the horizon are in the heap; the later ones wait in far,
// unsorted, until the heap has run out and the horizon moves on past the earliest of
// them by queueWindowMs. Most of a run's queue is timers far ahead (a request's timeout
// 30 s on, a session's): kept out of the heap, a pop sifts through a few dozen keys
// instead of a thousand, and each far key is looked at once a window.
type queue struct {
	keys    []queueKey // a heap of the keys before horizon
	far     []queueKey // the keys at or after horizon, in no order
	horizon int64
	slab    []event // events by index; a popped slot is zeroed and reused
	free    []int32 // free slots of slab
}

// queueWindowMs is how far past the earliest far event the horizon moves.
const queueWindowMs = 1000

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

func (q *queue) len() int { return len(q.keys) + len(q.far) }

func (q *queue) clone() queue {
	return queue{keys: slices.Clone(q.keys), far: slices.Clone(q.far), horizon: q.horizon, slab: slices.Clone(q.slab),
		free: slices.Clone(q.free)}
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
	k := queueKey{atMs: e.AtMs, rank: rank, slot: slot}
	if k.atMs >= q.horizon {
		q.far = append(q.far, k)
		return
	}
	q.heapPush(k)
}

func (q *queue) heapPush(k queueKey) {
	q.keys = append(q.keys, k)
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

// refill moves the horizon past the earliest far key, once the heap has run out, and
// brings the far keys before it into the heap.
func (q *queue) refill() {
	if len(q.keys) > 0 || len(q.far) == 0 {
		return
	}
	earliest := q.far[0].atMs
	for _, k := range q.far[1:] {
		earliest = min(earliest, k.atMs)
	}
	q.horizon = earliest + queueWindowMs
	kept := q.far[:0]
	for _, k := range q.far {
		if k.atMs < q.horizon {
			q.heapPush(k)
		} else {
			kept = append(kept, k)
		}
	}
	q.far = kept
}

func (q *queue) pop() event {
	q.refill()
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

// nextAtMs is the time of the next event, -1 if none: read from the keys, which the
// heap keeps hot, not from the event in the slab (a cache miss the kernel had taken
// twice a step, a tenth of a long run's time).
func (q *queue) nextAtMs() int64 {
	q.refill()
	if len(q.keys) == 0 {
		return -1
	}
	return q.keys[0].atMs
}

func (q *queue) peek() *event {
	q.refill()
	if len(q.keys) == 0 {
		return nil
	}
	return &q.slab[q.keys[0].slot]
}
