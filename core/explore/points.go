package explore

import (
	"slices"

	"deliverylab/core/scene"
	"deliverylab/core/sim"
)

// point is a protocol point of a run a fault can be placed at: an observation a scene
// trigger names exactly — the first one its node, event, message, detail and checkpoint
// match, so that the trigger, armed from the start of a run, fires there and nowhere
// earlier.
type point struct {
	obs     int   // its index among the run's observations
	event   int64 // the kernel event it happened in: the world's EventsRun before it
	atMs    int64
	trigger sim.Trigger // without a fault
	wire    string      // "response" or "request" when it carries the wire id of one just sent
}

// recorded is a run taken to its end, with the kernel event of each observation.
type recorded struct {
	run    *scene.Run
	events []int64 // per observation
}

// record runs r to its end, step by step, noting the event each observation came from.
func record(r *scene.Run) recorded {
	rec := recorded{run: r}
	for {
		before := r.World.ObservationCount()
		more := r.Step()
		for range r.World.ObservationCount() - before {
			rec.events = append(rec.events, r.World.EventsRun()-1)
		}
		if !more {
			return rec
		}
	}
}

// points lists the run's protocol points after observation after (-1: all), in order.
func (rec recorded) points(after int) []point {
	obs := rec.run.World.Observations()
	seenAny := map[anyKey]bool{}
	seenMsg := map[msgKey]bool{}
	var out []point
	for i, o := range obs.All() {
		spec, ok := sim.LookupEvent(string(o.Event))
		if !ok || i >= len(rec.events) {
			continue
		}
		k := anyKey{node: o.Node, event: o.Event, detail: o.Detail(), checkpoint: o.Checkpoint}
		t := sim.Trigger{Node: o.Node, Event: o.Event, Detail: k.detail, Checkpoint: o.Checkpoint}
		// A trigger without a detail matches every detail: it is the first only if no
		// observation of any detail came before.
		look := k
		if look.detail == "" {
			look.detail = anyDetail
		}
		first := !seenAny[look]
		if len(o.Msgs) > 0 {
			t.Message = o.Msgs[0]
			first = !seenMsg[msgKey{anyKey: look, msg: t.Message}]
		}
		wild := k
		wild.detail = anyDetail
		for _, key := range []anyKey{k, wild} {
			seenAny[key] = true
			for _, m := range o.Msgs {
				seenMsg[msgKey{anyKey: key, msg: m}] = true
			}
		}
		if !first || i <= after {
			continue
		}
		p := point{obs: i, event: rec.events[i], atMs: o.AtMs, trigger: t}
		switch {
		case slices.Contains(spec.Fields, sim.FieldRequestWire):
			p.wire = "request"
		case slices.Contains(spec.Fields, sim.FieldWireID):
			p.wire = "response"
		}
		out = append(out, p)
	}
	return out
}

// anyDetail stands for every detail in the keys of seen observations.
const anyDetail = "\x00any"

type anyKey struct {
	node       string
	event      sim.Event
	detail     string
	checkpoint int64
}

type msgKey struct {
	anyKey
	msg string
}
