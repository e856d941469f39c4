package scene

import "deliverylab/core/sim"

// checker is a node that can say what is wrong with its state.
type checker interface {
	Invariants(v sim.View) []string
}

// Invariants lists what is wrong with the nodes' state right now (a broker's high
// watermark past its log end, offsets that are not contiguous, two leaders in one epoch,
// ...), as each node reports it. Tests check them after every event; the browser
// reports them instead of panicking.
func (r *Run) Invariants() []string {
	var bad []string
	for _, name := range r.World.NodeNames() {
		if c, ok := nodeAs[checker](r.World, name); ok {
			bad = append(bad, c.Invariants(r.World)...)
		}
	}
	return bad
}

// Problems is everything wrong with the run, given its report: the nodes' invariants
// now and, once the run has ended, an acks=all record lost to fewer failures than
// min.insync.replicas (DurabilityProblems). The explorer judges a schedule by it, and the
// page shows it.
func (r *Run) Problems(rep Report) []string {
	bad := r.Invariants()
	if r.Ended {
		bad = append(bad, r.DurabilityProblems(rep)...)
	}
	return bad
}

// nodeAs returns a node (up or down) as an interface it implements.
func nodeAs[T any](w *sim.World, name string) (T, bool) {
	n, _ := w.Node(name)
	t, ok := n.(T)
	return t, ok
}
