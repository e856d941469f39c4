package scene

import (
	"slices"

	"deliverylab/core/fate"
	"deliverylab/core/sim"
)

// Run is one run of a scene.
type Run struct {
	Scene   *Scene
	World   *sim.World
	Ended   bool
	EndNote EndNote
	// EndDetail says more when the run did not settle: what loops in a frozen instant, or
	// what the run still waited for at its limit (EndText in English).
	EndDetail string
	why       []fate.Reason
}

// EndNote is why a run ended.
type EndNote string

// The ways a run ends (scenes/README.md, How a run ends).
const (
	EndSettled   EndNote = "settled"      // nothing the scene cares about can still happen
	EndStopMs    EndNote = "stop.ms"      // the scene's own end
	EndTimeLimit EndNote = "time limit"   // MaxRunMs of virtual time without settling
	EndEvents    EndNote = "event limit"  // MaxRunEvents events without settling
	EndFrozen    EndNote = "frozen clock" // one instant ran sim.MaxEventsPerInstant events
)

// NewRun builds the scene's world.
func (s *Scene) NewRun() *Run { return &Run{Scene: s, World: s.Build()} }

// limitMs is when the run stops at the latest.
func (r *Run) limitMs() int64 {
	if r.Scene.StopMs > 0 {
		return r.Scene.StopMs
	}
	return MaxRunMs
}

// AdvanceTo runs events up to virtual time ms, stopping early when the run ends.
func (r *Run) AdvanceTo(ms int64) { r.AdvanceUntil(ms, nil) }

// AdvanceUntil is AdvanceTo that also stops right after an event that makes pause true;
// it reports whether it stopped there.
func (r *Run) AdvanceUntil(ms int64, pause func(*sim.World) bool) bool {
	if r.Ended {
		return false
	}
	limit := r.limitMs()
	paused := false
	r.World.RunUntil(min(ms, limit), func(w *sim.World) bool {
		// Settling is judged once all events of a millisecond have run: cheaper than
		// after every event, and a run never ends half way through an instant.
		if w.NextEventMs() != w.NowMs() && r.checkSettled() {
			return true
		}
		if w.EventsRun() >= MaxRunEvents {
			r.end(EndEvents)
			return true
		}
		paused = pause != nil && pause(w)
		return paused
	})
	switch {
	case r.Ended || paused:
	case r.World.Frozen() != nil:
		r.end(EndFrozen)
	case r.World.NowMs() >= limit:
		r.end(limitNote(r.Scene))
	}
	return paused
}

func limitNote(s *Scene) EndNote {
	if s.StopMs > 0 {
		return EndStopMs
	}
	return EndTimeLimit
}

// Step runs one event; it returns false when the run has ended.
func (r *Run) Step() bool {
	if r.Ended {
		return false
	}
	next := r.World.NextEventMs()
	if next < 0 || next > r.limitMs() {
		r.AdvanceTo(r.limitMs())
		return false
	}
	if !r.World.Step() {
		r.end(EndFrozen)
		return false
	}
	if r.World.NextEventMs() != r.World.NowMs() {
		r.checkSettled()
	}
	if !r.Ended && r.World.EventsRun() >= MaxRunEvents {
		r.end(EndEvents)
	}
	return !r.Ended
}

// ToEnd runs until the run settles or reaches its limit.
func (r *Run) ToEnd() { r.AdvanceTo(r.limitMs()) }

func (r *Run) end(note EndNote) {
	r.Ended = true
	r.EndNote = note
	r.why = r.endWhy(note)
	r.EndDetail = r.EndText(fate.En)
}

// checkSettled ends a run without stop.ms once it has settled (scenes/README.md, How a
// run ends): the kernel asks every node, and the wire, whether anything the scene cares
// about can still happen.
func (r *Run) checkSettled() bool {
	if r.Scene.StopMs == 0 && r.World.Settled() {
		r.end(EndSettled)
	}
	return r.Ended
}

// Clone copies the run: its world (sim.World.Clone) and how it ended. The copy runs on
// independently (the page's seek keyframes).
func (r *Run) Clone() *Run {
	c := *r
	c.World = r.World.Clone()
	c.why = slices.Clone(r.why)
	return &c
}
