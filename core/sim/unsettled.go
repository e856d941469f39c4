package sim

// Unsettled lists the nodes that are up and say they have not settled, in registration
// order: what a run that did not settle was waiting for.
func (w *World) Unsettled() []string {
	var out []string
	for _, name := range w.order {
		s := w.slots[name]
		if st, ok := s.node.(Settler); ok && s.up && !st.Settled(w) {
			out = append(out, name)
		}
	}
	return out
}

// Busy counts the messages on the wire that are not background traffic.
func (w *World) Busy() int {
	n := 0
	for _, m := range w.inFlight {
		if !m.background {
			n++
		}
	}
	return n
}
