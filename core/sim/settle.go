package sim

// View is a read-only look at the world, for a node answering a question about the run
// as a whole (has it settled? what does it still hold?) rather than taking a protocol
// step: a node never uses it to decide what to send.
type View interface {
	NowMs() int64
	// Node returns a node (up or down) and whether it is up.
	Node(name string) (Node, bool)
	// Reachable reports whether messages between two nodes currently get through.
	Reachable(from, to string) bool
	// NodeNames lists every node, in registration order.
	NodeNames() []string
}

// Settler is a node that can still have work a run waits for. Nodes that are not
// Settlers are always settled.
type Settler interface {
	// Settled reports whether nothing this node does can still change the run's outcome
	// (scenes/README.md, How a run ends). It is asked of nodes that are up.
	Settled(v View) bool
}

// Settled reports whether the run has nothing left to do that a scene cares about: no
// scripted fault, undo, narration step or node start is ahead, only background traffic
// is on the wire, and every node that is up says it has settled.
func (w *World) Settled() bool {
	if w.PendingFaults() || !w.Quiet() || (w.pausedNodes > 0 && len(w.PausedHolding()) > 0) {
		return false
	}
	if w.unsettled != "" && !w.nodeSettled(w.unsettled) {
		return false
	}
	for _, name := range w.order {
		if name != w.unsettled && !w.nodeSettled(name) {
			w.unsettled = name
			return false
		}
	}
	return true
}

// nodeSettled: the node is down, or no Settler, or says it has settled.
func (w *World) nodeSettled(name string) bool {
	s := w.slots[name]
	st, ok := s.node.(Settler)
	return !ok || !s.up || st.Settled(w)
}

// Quiet reports whether everything on the wire is background traffic. A paused node
// holding work does not count: while it is frozen nothing happens that is worth
// watching at the speed of a request (a pause past a 10 s transaction timeout would hold
// a class for minutes), and the work it holds goes out, and stops the hurry, when it is
// resumed. (Settled still waits for it: PausedHolding, and the resume is a pending fault.)
// Nor does a message a delay fault holds past its arrival: it only waits, drawn on its
// link, until it arrives and stops the hurry (a produce held 2 s would hold a class for
// minutes).
func (w *World) Quiet() bool {
	if w.foreground == 0 {
		return true // only background traffic on the wire: no need to look at each message
	}
	for _, m := range w.inFlight {
		if m.HeldFromMs > 0 && w.nowMs >= m.HeldFromMs {
			continue
		}
		if !m.background {
			return false
		}
	}
	return true
}

// putInFlight puts a message on the wire, or replaces the one with its id (a delayed one),
// keeping count of those that are not background traffic.
func (w *World) putInFlight(m Message) {
	w.dropInFlight(m.ID)
	w.putNewInFlight(m)
}

// putNewInFlight puts a message just sent, whose id is new, on the wire.
func (w *World) putNewInFlight(m Message) {
	w.inFlight[m.ID] = m
	if !m.background {
		w.foreground++
	}
}

// dropInFlight takes a message off the wire (arrived, lost or dropped), if it is on it.
func (w *World) dropInFlight(id int64) {
	if m, ok := w.inFlight[id]; ok {
		w.removeInFlight(&m)
	}
}

// removeInFlight takes m, which is on the wire, off it.
func (w *World) removeInFlight(m *Message) {
	delete(w.inFlight, m.ID)
	if !m.background {
		w.foreground--
	}
}
