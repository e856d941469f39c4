package sim

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
// event at that time".
type event struct {
	AtMs        int64
	Seq         int64
	Kind        eventKind
	Node        string  // evTimer, evStart: the node
	Port        string  // evTimer: the node's port that set it
	Incarnation int     // evTimer: the node's incarnation that set it
	Timer       Payload // evTimer
	MsgID       int64   // evDeliver: id in World.inFlight
	Fault       *Fault  // evFault: out of line, so that the heap moves small events (never changed once queued)
	// Arrived: an evDeliver of a message that reached a paused node and waited at its host
	// (nodeSlot.arrived), run again on resume; Node and Incarnation say whose.
	Arrived bool
}

func (e *event) less(o *event) bool {
	if e.AtMs != o.AtMs {
		return e.AtMs < o.AtMs
	}
	if (e.Kind == evFault) != (o.Kind == evFault) {
		return e.Kind == evFault
	}
	return e.Seq < o.Seq
}

// queue is a binary min-heap of events kept in a slice, so copying it is a slice copy.
type queue []event

func (q *queue) push(e event) {
	*q = append(*q, e)
	h := *q
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) pop() event {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].less(&h[m]) {
			m = l
		}
		if r < len(h) && h[r].less(&h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}

func (q queue) peek() *event {
	if len(q) == 0 {
		return nil
	}
	return &q[0]
}
