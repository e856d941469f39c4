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
	queued
	Timer Payload // evTimer
}

// queued is an event as the queue's slab keeps it: all of it but its timer, which the
// queue keeps apart in a table of the armed timers (queue.timers), so that the slab holds
// no pointer at all — memory the collector never looks into. A long run's queue is tens
// of thousands of timers, nearly all of them request timeouts disarmed once answered
// (disarm.go), and every keyframe of it a copy, which the collector had scanned on the
// page's one thread each cycle: names, a port, a fault and a timer had made four pointers
// an event for it to follow, in 96 bytes; now a keyframe's pointers are its few thousand
// armed timers.
type queued struct {
	AtMs  int64
	Seq   int64
	MsgID int64 // evDeliver: id in World.inFlight
	// slot: evTimer, evStart and an arrived evDeliver: the node's index in World.slotList.
	slot int32
	// port: evTimer: the id in World.ports of the node's port that set it.
	port int32
	// Incarnation: evTimer, an arrived evDeliver: the node's incarnation then.
	Incarnation int32
	// fault: evFault: the index in World.faults of the fault to apply.
	fault int32
	Kind  eventKind
	// Arrived: an evDeliver of a message that reached a paused node and waited at its host
	// (nodeSlot.arrived), run again on resume.
	Arrived bool
	// timer: evTimer: 1 + the index of its timer in queue.timers; 0 once it is out of the
	// queue (event.Timer has it) or disarmed.
	timer int32
	// disarmed: an evTimer Disarm let go of (its timer is nil).
	disarmed bool
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
	slab    []queued // events by index; a popped slot is reused
	free    []int32  // free slots of slab
	// timers are the armed timers of the events in slab (queued.timer), freeTimers their
	// free entries.
	timers     []Payload
	freeTimers []int32
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
		free: slices.Clone(q.free), timers: slices.Clone(q.timers), freeTimers: slices.Clone(q.freeTimers)}
}

func (q *queue) push(e event) (slot int32) {
	if n := len(q.free); n > 0 {
		slot, q.free = q.free[n-1], q.free[:n-1]
	} else {
		slot = int32(len(q.slab))
		q.slab = append(q.slab, queued{})
	}
	e.timer = 0 // a held event's entry was let go when it left the queue
	if e.Timer != nil {
		e.timer = q.keepTimer(e.Timer)
	}
	q.slab[slot] = e.queued
	rank := e.Seq
	if e.Kind != evFault {
		rank |= faultLast
	}
	k := queueKey{atMs: e.AtMs, rank: rank, slot: slot}
	if k.atMs >= q.horizon {
		q.far = append(q.far, k)
		return slot
	}
	q.heapPush(k)
	return slot
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
	e := event{queued: q.slab[top.slot]}
	if e.timer > 0 {
		e.Timer = q.timers[e.timer-1]
		q.dropTimer(&e.queued)
	}
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
	e := &event{queued: q.slab[q.keys[0].slot]}
	if e.timer > 0 {
		e.Timer = q.timers[e.timer-1]
	}
	return e
}

// keepTimer puts t in the table of armed timers and returns 1 + its index.
func (q *queue) keepTimer(t Payload) int32 {
	var i int32
	if n := len(q.freeTimers); n > 0 {
		i, q.freeTimers = q.freeTimers[n-1], q.freeTimers[:n-1]
		q.timers[i] = t
	} else {
		i = int32(len(q.timers))
		q.timers = append(q.timers, t)
	}
	return i + 1
}

// dropTimer lets go of e's entry in the table of armed timers.
func (q *queue) dropTimer(e *queued) {
	q.timers[e.timer-1] = nil
	q.freeTimers = append(q.freeTimers, e.timer-1)
	e.timer = 0
}
