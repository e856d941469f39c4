package sim

import "slices"

// A paused node is a process that has stopped without dying, like a JVM in a long GC
// pause or a process sent SIGSTOP: it is up (its connections stay open, its peers see
// nothing wrong), but nothing it would do happens. What reaches it waits at its host, in
// order: a message that arrived is past the network (a cut made now does not lose it),
// and its timers that come due wait too. On resume all of that runs, at the resume time,
// in the order it came.

// pause stops a node that is up, or one that has not started yet (it then boots only
// once resumed, as {at.ms: 0, pause: x} means "x is paused from the beginning");
// pausing a node that is down or already paused changes nothing.
func (w *World) pause(name string) {
	s := w.slots[name]
	if s == nil && PortOf(name) != "" {
		w.pausePart(name, true)
		return
	}
	if s == nil || s.paused || s.held || (s.started && !s.up) {
		return
	}
	s.paused = true
	w.pausedNodes++
}

// resume lets a paused node run again: what it held is queued at the current time, in
// the order it arrived.
func (w *World) resume(name string) {
	s := w.slots[name]
	if s == nil && PortOf(name) != "" {
		w.pausePart(name, false)
		return
	}
	if s == nil || !s.paused {
		return
	}
	s.paused = false
	w.pausedNodes--
	held := s.stalled
	s.stalled = nil
	for _, e := range held {
		e.AtMs = w.nowMs
		w.push(e)
	}
}

// hold keeps an event for a paused node until it resumes.
func (s *nodeSlot) hold(e event) { s.stalled = append(s.stalled, e) }

// holdMessage keeps a message that reached a paused node: it has left the wire and
// waits at the host.
func (w *World) holdMessage(s *nodeSlot, e event, m Message) {
	if s.arrived == nil {
		s.arrived = map[int64]Message{}
	}
	s.arrived[m.ID] = m
	s.addClient(m)
	e.Arrived = true
	e.slot = s.index
	e.Incarnation = s.incarnation
	s.hold(e)
	w.traceLine(m.background, "held ", m.Describe(), " (", NodeOf(m.To), " paused)")
}

// deliverArrived hands a message that waited at a paused node's host to the node, or
// holds it again if the node was paused once more meanwhile.
func (w *World) deliverArrived(e event) {
	s := w.slotList[e.slot]
	m, ok := s.arrived[e.MsgID]
	if !ok || s.incarnation != e.Incarnation {
		return // the process crashed: what waited for it died with it
	}
	if s.paused {
		s.hold(e)
		return
	}
	delete(s.arrived, e.MsgID)
	w.handOver(s, m)
}

// endPause is a crash's end of a pause: the process is gone, with whatever waited for it.
func (w *World) endPause(s *nodeSlot) {
	for _, e := range s.stalled {
		if m, ok := s.arrived[e.MsgID]; ok && e.Arrived {
			w.wireEnded(m.ID, WireLostInCrash)
			w.traceMessage("lost in the crash", m)
		}
	}
	if s.paused {
		w.pausedNodes--
	}
	s.paused, s.stalled, s.arrived = false, nil, nil
}

// Paused reports whether a node is paused.
func (w *World) Paused(name string) bool {
	s := w.slots[name]
	return s != nil && s.paused
}

// Held counts the events a paused node holds: messages that reached it and timers that
// came due.
func (w *World) Held(name string) int {
	if s := w.slots[name]; s != nil {
		return len(s.stalled)
	}
	return 0
}

// holdsWork reports whether a paused node holds something that is not background
// traffic: a message worth handling, or a timer (a timer may be what moves the run on).
func (w *World) holdsWork(s *nodeSlot) bool {
	return slices.ContainsFunc(s.stalled, func(e event) bool {
		if !e.Arrived {
			return true
		}
		m, ok := s.arrived[e.MsgID]
		return ok && !m.background
	})
}

// PausedHolding lists the paused nodes that hold work, in registration order: a run
// with one has not settled (it ends at its time limit if nothing resumes them).
func (w *World) PausedHolding() []string {
	var out []string
	for _, name := range w.order {
		if s := w.slots[name]; s.paused && w.holdsWork(s) {
			out = append(out, name)
		}
	}
	return out
}
