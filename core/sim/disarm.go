package sim

// A request's timeout is set when the request is sent and is moot once the answer
// comes, which is nearly always, a millisecond or two later: a run's queue is mostly
// such timers, waiting out request.timeout.ms (30 s) to fire and do nothing. A node
// that knows its timer has nothing left to do disarms it: the timer still comes due —
// an event like any other, so the events counted, the trace and the share links that
// name a point by its event count stay as they were, and a paused node still holds it —
// but it lets go of its payload and reaches no handler. Every timer had been an object
// of its own, kept by the queue and by each keyframe's copy of it: a run to the event
// limit held a third of a million, which the collector marks, on the page's one thread,
// each time it runs.

// TimerID names a timer that Env.After set; the zero TimerID names none.
type TimerID struct {
	slot int32 // in the queue's slab
	seq  int64 // the event's Seq: the slot is reused once the timer has come due
}

// Disarm says that the timer id has nothing left to do: when it comes due, the node's
// Fire is not called. The caller must be sure that Fire would do nothing with it then
// (a timeout of a request that was answered, under an id no later request takes). A
// timer that came due already, or that a paused node holds, is left as it is.
func (e *Env) Disarm(id TimerID) {
	e.w.queue.disarm(id)
}

func (q *queue) disarm(id TimerID) {
	if id.seq == 0 || int(id.slot) >= len(q.slab) {
		return
	}
	if ev := &q.slab[id.slot]; ev.Seq == id.seq && ev.Kind == evTimer {
		ev.disarmed = true
		if ev.timer > 0 {
			q.dropTimer(ev)
		}
	}
}
