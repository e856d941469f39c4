package explore

import (
	"strconv"

	"deliverylab/core/scene"
	"deliverylab/core/sim"
)

// claim is what a scene says cannot happen: its expect.verdict read as a guarantee
// (exactly-once: nothing lost, nothing duplicated; at-least-once: nothing lost;
// at-most-once: nothing duplicated; none: nothing), tightened by an explicit lost: 0 or
// duplicated: 0. A scene without a verdict is asked the plain question: exactly once?
type claim struct {
	text        string
	noLoss      bool
	noDuplicate bool
}

func claimOf(s *scene.Scene) claim {
	c := claim{text: s.Expect.Verdict}
	switch c.text {
	case "", "exactly-once":
		c.text, c.noLoss, c.noDuplicate = "exactly-once", true, true
	case "at-least-once":
		c.noLoss = true
	case "at-most-once":
		c.noDuplicate = true
	}
	if n, ok := s.Expect.Counts["lost"]; ok && n.Holds(0) && !n.Holds(1) {
		c.noLoss = true
	}
	if n, ok := s.Expect.Counts["duplicated"]; ok && n.Holds(0) && !n.Holds(1) {
		c.noDuplicate = true
	}
	return c
}

// prune reports whether c at p cannot act: a crash or a pause of a node that is down,
// paused or not started yet (the event of p being none of its own boots), or a cut of a
// link already cut. The cursor stands just before p's event.
func (x *Search) prune(f *frame, p point, c candidate) bool {
	w := f.cursor.World
	switch c.fault.Kind {
	case sim.FaultCrash, sim.FaultPause:
		name := c.fault.Node
		n, up := w.Node(name)
		switch {
		case n == nil:
			return false // a job's subtask: its job says whether it runs
		case up:
			return c.fault.Kind == sim.FaultPause && w.Paused(name)
		}
		// down, or not started: only its own boot in p's event brings it up
		return p.trigger.Node != name || (p.trigger.Event != sim.Started && p.trigger.Event != sim.Restarted)
	case sim.FaultCut:
		return !w.Reachable(c.fault.From, c.fault.To) && !w.Reachable(c.fault.To, c.fault.From)
	case sim.FaultCutOneway:
		return !w.Reachable(c.fault.From, c.fault.To)
	}
	return false
}

// DefaultCrashForMs is how long the default search keeps a crashed node down: past
// broker.session.timeout.ms (9 s), so that a broker's crash moves its leaderships.
const DefaultCrashForMs = 10000

// Defaults is what a scene without an explore block is searched with: every node and
// subtask a crash can hit, back after DefaultCrashForMs, and every response dropped;
// one fault at a time.
func Defaults(s *scene.Scene) *scene.Explore {
	src := []byte("explore: {faults: [{crash: \"*\", for.ms: " + strconv.Itoa(DefaultCrashForMs) + "}, drop: response]}\n")
	e, err := s.ParseExplore(src)
	if err != nil {
		return &scene.Explore{Depth: 1, Budget: scene.DefaultBudget}
	}
	return e
}
