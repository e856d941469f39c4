package sim

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// MaxEventsPerInstant is how many events may run at one virtual millisecond before the
// kernel calls the instant frozen. A real protocol step takes time (a fetch waits, a retry
// backs off, a link has latency); even a burst of every message a scene may send is far
// below this. A loop of zero-latency requests answered at once never lets the clock move,
// so settling, stop.ms and the time limit, which are judged when it moves, would never
// come.
const MaxEventsPerInstant = 200_000

// loopWindow is how many of an instant's last events are tallied to name the loop.
const loopWindow = 2_000

// Frozen says where the clock stopped: the instant, and what ran over and over in it.
type Frozen struct {
	AtMs   int64
	Events int64
	Loop   []LoopStep // the most frequent steps of the instant's last events, most first
}

// LoopStep is one kind of event seen again and again in a frozen instant.
type LoopStep struct {
	What  string // "c1 -> broker-1 Fetch" or "timer metadata-retry at c1"
	Count int
}

// Describe is the one-line note a run that froze ends with.
func (f *Frozen) Describe() string {
	return fmt.Sprintf("the clock stopped at %d ms: %d events in one instant; of the last %d: %s",
		f.AtMs, f.Events, loopWindow, f.Steps())
}

// Steps lists the loop's steps with their counts: "a -> b Ping ×1000, b -> a Pong ×1000".
func (f *Frozen) Steps() string {
	steps := make([]string, len(f.Loop))
	for i, s := range f.Loop {
		steps[i] = fmt.Sprintf("%s ×%d", s.What, s.Count)
	}
	return strings.Join(steps, ", ")
}

// instant counts the events of the current virtual millisecond.
type instant struct {
	atMs   int64
	events int64
	tally  map[string]int
}

// Frozen reports the instant the clock stopped in, or nil while it moves.
func (w *World) Frozen() *Frozen { return w.frozen }

// countInstant is called for each event before it runs; it reports false, and freezes the
// world, when the instant has run too many.
func (w *World) countInstant(atMs int64) bool {
	in := &w.instant
	if atMs != in.atMs || in.events == 0 {
		*in = instant{atMs: atMs}
	}
	in.events++
	if in.events <= MaxEventsPerInstant-loopWindow {
		return true
	}
	if in.tally == nil {
		in.tally = map[string]int{}
	}
	in.tally[w.eventStep(w.queue.peek())]++
	if in.events < MaxEventsPerInstant {
		return true
	}
	f := &Frozen{AtMs: atMs, Events: in.events}
	for _, what := range slices.Sorted(maps.Keys(in.tally)) {
		f.Loop = append(f.Loop, LoopStep{What: what, Count: in.tally[what]})
	}
	sort.SliceStable(f.Loop, func(i, j int) bool { return f.Loop[i].Count > f.Loop[j].Count })
	f.Loop = f.Loop[:min(len(f.Loop), 4)]
	w.frozen = f
	w.traceLine(false, "frozen: ", f.Describe())
	return false
}

// eventStep names an event by what kind of step it is, without ids or offsets, so that
// the turns of one loop count as the same step.
func (w *World) eventStep(e *event) string {
	switch e.Kind {
	case evDeliver:
		if m, ok := w.inFlight[e.MsgID]; ok {
			return m.From + " -> " + m.To + " " + m.Payload.Kind()
		}
		return "a dropped message"
	case evTimer:
		if e.disarmed {
			return "a disarmed timer at " + w.slotList[e.slot].name
		}
		return e.Timer.Describe() + " at " + w.slotList[e.slot].name
	case evFault:
		return "fault " + w.faults[e.fault].Describe()
	}
	return "start of " + w.slotList[e.slot].name
}
