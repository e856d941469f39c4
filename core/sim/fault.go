package sim

import (
	"slices"
	"sort"
	"strings"
)

// FaultKind says what a fault does. A Fault is a value so the UI, scenes, tests and the
// explorer all inject faults the same way, and a recorded schedule replays exactly.
type FaultKind string

// Fault kinds; the scene file spells them the same way.
const (
	FaultCrash      FaultKind = "crash"       // Node goes down; volatile state is lost
	FaultRestart    FaultKind = "restart"     // Node boots again from its durable state
	FaultCut        FaultKind = "cut"         // From and To stop hearing each other (both directions)
	FaultCutOneway  FaultKind = "cut-oneway"  // messages From -> To are dropped
	FaultHeal       FaultKind = "heal"        // undo cut (both directions)
	FaultHealAll    FaultKind = "heal-all"    // every link works again
	FaultPartition  FaultKind = "partition"   // Groups cannot hear each other; unlisted nodes join the last group
	FaultHealPairs  FaultKind = "heal-pairs"  // unblock exactly Pairs (the undo of a partition)
	FaultDrop       FaultKind = "drop"        // the in-flight message WireID is lost
	FaultDelay      FaultKind = "delay"       // the in-flight message WireID arrives DelayMs later
	FaultDuplicate  FaultKind = "duplicate"   // the in-flight message WireID arrives twice
	FaultNarrate    FaultKind = "narrate"     // narration step Index is reached (not a failure; shares the schedule)
	FaultPause      FaultKind = "pause"       // Node stops handling anything (a long GC pause, SIGSTOP); what it receives waits
	FaultResume     FaultKind = "resume"      // undo pause: Node handles what waited, in order
	FaultHealOneway FaultKind = "heal-oneway" // undo cut-oneway: messages From -> To get through again
)

// Fault is one injected failure (or a narration step). ForMs > 0 undoes crash, cut and
// partition after that long, and pause.
type Fault struct {
	Kind    FaultKind
	Node    string
	From    string
	To      string
	Groups  [][]string
	Pairs   [][2]string
	WireID  int64
	DelayMs int64
	ForMs   int64
	Index   int
}

// Describe is the fault's stable text form.
func (f Fault) Describe() string {
	s := string(f.Kind)
	switch f.Kind {
	case FaultCrash, FaultRestart, FaultPause, FaultResume:
		s += " " + f.Node
	case FaultCut, FaultCutOneway, FaultHeal, FaultHealOneway:
		s += " " + f.From + " " + f.To
	case FaultPartition:
		var gs []string
		for _, g := range f.Groups {
			gs = append(gs, "["+strings.Join(g, " ")+"]")
		}
		s += " " + strings.Join(gs, " ")
	case FaultHealPairs:
		s += " " + itoa(int64(len(f.Pairs))) + " links"
	case FaultDrop, FaultDuplicate:
		s += " #" + itoa(f.WireID)
	case FaultDelay:
		s += " #" + itoa(f.WireID) + " +" + itoa(f.DelayMs) + "ms"
	case FaultNarrate:
		s += " " + itoa(int64(f.Index))
	}
	if f.ForMs > 0 {
		s += " for " + itoa(f.ForMs) + "ms"
	}
	return s
}

// Schedule queues a fault at a virtual time (not before now).
func (w *World) Schedule(atMs int64, f Fault) {
	if atMs < w.nowMs {
		atMs = w.nowMs
	}
	w.faults = append(w.faults, f)
	w.push(event{queued: queued{AtMs: atMs, Kind: evFault, fault: int32(len(w.faults) - 1)}})
}

// AddTrigger arms a fault that fires at a protocol point.
func (w *World) AddTrigger(t Trigger) { w.triggers = append(w.triggers, t) }

// ArmFault adds a fault's trigger where a scene's Build puts it: after the triggers of
// the faults armed before it and before every caption's. A run that arms a fault at a
// point it has not yet reached then fires its triggers in the order a run built with
// that fault from the start does, so both give the same trace (the explorer's branches).
func (w *World) ArmFault(t Trigger) {
	i := len(w.triggers)
	for j, x := range w.triggers {
		if x.Fault.Kind == FaultNarrate {
			i = j
			break
		}
	}
	w.triggers = slices.Insert(w.triggers, i, t)
}

// Inject applies a fault now.
func (w *World) Inject(f Fault) { w.apply(f) }

func (w *World) apply(f Fault) {
	if f.Kind != FaultNarrate {
		w.traceLine(false, "fault ", f.Describe())
	}
	switch f.Kind {
	case FaultCrash:
		w.crash(f.Node)
		w.undoLater(f, Fault{Kind: FaultRestart, Node: f.Node})
	case FaultRestart:
		w.restart(f.Node)
	case FaultCut:
		w.block(f.From, f.To, true)
		w.block(f.To, f.From, true)
		w.undoLater(f, Fault{Kind: FaultHeal, From: f.From, To: f.To})
	case FaultCutOneway:
		w.block(f.From, f.To, true)
		w.undoLater(f, Fault{Kind: FaultHealPairs, Pairs: [][2]string{{f.From, f.To}}})
	case FaultHeal:
		w.block(f.From, f.To, false)
		w.block(f.To, f.From, false)
	case FaultHealOneway:
		w.block(f.From, f.To, false)
	case FaultPause:
		w.pause(f.Node)
		w.undoLater(f, Fault{Kind: FaultResume, Node: f.Node})
	case FaultResume:
		w.resume(f.Node)
	case FaultHealAll:
		w.blocked = map[[2]string]bool{}
	case FaultPartition:
		pairs := w.partitionPairs(f.Groups)
		for _, p := range pairs {
			w.block(p[0], p[1], true)
		}
		w.undoLater(f, Fault{Kind: FaultHealPairs, Pairs: pairs})
	case FaultHealPairs:
		for _, p := range f.Pairs {
			w.block(p[0], p[1], false)
		}
	case FaultDrop:
		if m, ok := w.inFlight[f.WireID]; ok {
			w.dropInFlight(f.WireID)
			w.wireEnded(f.WireID, WireDropped)
			w.traceMessage("dropped", m)
		}
	case FaultDelay:
		if m, ok := w.inFlight[f.WireID]; ok {
			if m.HeldFromMs == 0 {
				m.HeldFromMs = m.ArriveMs
			}
			m.ArriveMs += f.DelayMs
			w.putInFlight(m)
			w.push(event{queued: queued{AtMs: m.ArriveMs, Kind: evDeliver, MsgID: m.ID}})
		}
	case FaultDuplicate:
		if m, ok := w.inFlight[f.WireID]; ok {
			w.nextMsgID++
			c := m
			c.ID = w.nextMsgID
			w.putInFlight(c)
			w.wireSent(c)
			w.push(event{queued: queued{AtMs: c.ArriveMs, Kind: evDeliver, MsgID: c.ID}})
			w.traceLine(false, "duplicated ", m.Describe(), " as #", itoa(c.ID))
		}
	case FaultNarrate:
		w.narrated = append(w.narrated, Narrated{Index: f.Index, AtMs: w.nowMs})
		w.traceLine(false, "narrate ", itoa(int64(f.Index)))
	}
}

func (w *World) undoLater(f, undo Fault) {
	if f.ForMs > 0 {
		w.Schedule(w.nowMs+f.ForMs, undo)
	}
}

func (w *World) block(from, to string, on bool) {
	k := [2]string{from, to}
	if on {
		w.blocked[k] = true
	} else {
		delete(w.blocked, k)
	}
}

// partitionPairs lists the directed links a partition into groups cuts. Nodes not named
// in any group join the last one.
func (w *World) partitionPairs(groups [][]string) [][2]string {
	if len(groups) == 0 {
		return nil
	}
	groupOf := map[string]int{}
	for i, g := range groups {
		for _, n := range g {
			groupOf[n] = i
		}
	}
	names := w.NodeNames()
	for _, n := range names {
		if _, ok := groupOf[n]; !ok {
			groupOf[n] = len(groups) - 1
		}
	}
	var pairs [][2]string
	for _, a := range names {
		for _, b := range names {
			if a != b && groupOf[a] != groupOf[b] {
				pairs = append(pairs, [2]string{a, b})
			}
		}
	}
	return pairs
}

// PartitionCuts lists the directed links a partition into groups would cut now.
func (w *World) PartitionCuts(groups [][]string) [][2]string { return w.partitionPairs(groups) }

// CutLinks lists the directed links that drop everything, sorted.
func (w *World) CutLinks() [][2]string {
	return SortedPairs(w.blocked)
}

// Narrated records that narration step Index was reached at AtMs.
type Narrated struct {
	Index int
	AtMs  int64
}

// Reachable reports whether messages from one node to another currently get through
// the network (both may still be down).
func (w *World) Reachable(from, to string) bool {
	return !w.blocked[[2]string{from, to}] && !w.blocked[[2]string{to, from}]
}

// SortedPairs is a map's directed links, sorted by their ends. (sort.Slice rather than
// slices.SortedFunc: each element type slices sorts carries its own sorting code into
// main.wasm.)
func SortedPairs[V any](m map[[2]string]V) [][2]string {
	out := make([][2]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}
