package sim

// PartPauser is a node whose parts pause on their own while the process goes on: a Flink
// subtask whose thread is stopped (a long GC pause of one task, a blocking call) holds
// what comes for it, while the job's other tasks run. A pause or resume of "node/part"
// reaches the node as PausePart or ResumePart, with the part as the Env's port.
type PartPauser interface {
	PausePart(env *Env, part string)
	ResumePart(env *Env, part string)
}

// pausePart pauses or resumes one part of a running node; a node that is down, or whose
// parts do not pause, is left alone.
func (w *World) pausePart(addr string, pause bool) {
	s := w.partSlot(addr)
	if s == nil {
		return
	}
	pp, ok := s.node.(PartPauser)
	if !ok {
		return
	}
	env := w.enter(s, PortOf(addr), unknownPort)
	if pause {
		pp.PausePart(env, PortOf(addr))
	} else {
		pp.ResumePart(env, PortOf(addr))
	}
	w.leave(s, env)
}

// partSlot is the slot of a part's ("node/part") node, or nil when the node is down.
func (w *World) partSlot(addr string) *nodeSlot {
	s := w.slots[NodeOf(addr)]
	if s == nil || !s.up {
		return nil
	}
	return s
}
