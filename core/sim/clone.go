package sim

import (
	"maps"
	"slices"
)

// Clone copies the whole world: nodes (through their own Clone), the queue, the wire,
// the links, the random streams and the trace. The copy runs on independently.
func (w *World) Clone() *World {
	c := *w
	c.queue = w.queue.clone()
	c.order = slices.Clone(w.order)
	c.slots = make(map[string]*nodeSlot, len(w.slots))
	c.slotList = make([]*nodeSlot, len(w.slotList))
	for k, s := range w.slots {
		cs := *s
		cs.node = s.node.Clone()
		cs.clients = maps.Clone(s.clients)
		cs.stalled = slices.Clone(s.stalled)
		cs.arrived = maps.Clone(s.arrived)
		c.slots[k] = &cs
		c.slotList[cs.index] = &cs
	}
	c.inFlight = maps.Clone(w.inFlight)
	c.linkLastMs = maps.Clone(w.linkLastMs)
	c.blocked = maps.Clone(w.blocked)
	c.triggers = slices.Clone(w.triggers)
	c.observations = w.observations.clone()
	c.ports = w.ports.clone()
	c.faults = w.faults[:len(w.faults):len(w.faults)] // appended to, never changed
	c.narrated = slices.Clone(w.narrated)
	c.trace.Lines = slices.Clone(w.trace.Lines)
	c.lineBuf = nil     // a buffer of its own: clones may run on other goroutines
	c.envs = envStack{} // so are its handlers' Envs
	c.instant.tally = maps.Clone(w.instant.tally)
	c.wire = w.wire.clone()
	return &c
}
