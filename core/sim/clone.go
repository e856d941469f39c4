package sim

// Clone copies the whole world: nodes (through their own Clone), the queue, the wire,
// the links, the random streams and the trace. The copy runs on independently.
func (w *World) Clone() *World {
	c := *w
	c.queue = append(queue(nil), w.queue...)
	c.order = append([]string(nil), w.order...)
	c.slots = make(map[string]*nodeSlot, len(w.slots))
	for k, s := range w.slots {
		cs := *s
		cs.node = s.node.Clone()
		c.slots[k] = &cs
	}
	c.inFlight = make(map[int64]Message, len(w.inFlight))
	for k, m := range w.inFlight {
		c.inFlight[k] = m
	}
	c.linkLastMs = make(map[[2]string]int64, len(w.linkLastMs))
	for k, v := range w.linkLastMs {
		c.linkLastMs[k] = v
	}
	c.blocked = make(map[[2]string]bool, len(w.blocked))
	for k, v := range w.blocked {
		c.blocked[k] = v
	}
	c.triggers = append([]Trigger(nil), w.triggers...)
	c.observations = append([]Observation(nil), w.observations...)
	c.narrated = append([]Narrated(nil), w.narrated...)
	c.trace.Lines = append([]string(nil), w.trace.Lines...)
	return &c
}
