package play

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Inject applies one fault, in the scene file's syntax, at the current moment; a fault
// with `when:` is armed instead and happens at that protocol point. A fault that would
// change nothing now (restarting a node that is up, healing a link that is not cut, …)
// is refused with a UserError saying why, so the user is not left wondering why
// nothing happened.
func (s *Session) Inject(text string) error {
	f, trigger, err := s.check(text)
	if err != nil {
		return err
	}
	w := s.run.World
	inj := injected{AfterEvents: w.EventsRun(), AtMs: w.NowMs(), Text: text, Fault: f}
	if trigger != nil {
		inj.Armed, inj.When = true, trigger
		inj.Tag = fmt.Sprintf("user-%d-%d", inj.AfterEvents, len(s.injected))
		inj.Desc = triggerText(trigger)
	} else {
		inj.Desc = faultText(w, f)
		if isWireFault(f) {
			inj.Wire = wireMatchOf(w, f.WireID)
		}
	}
	s.addInjected(inj) // records, applies and relearns the timeline
	return nil
}

// check reads a fault and says why it would change nothing now, if it would not.
func (s *Session) check(text string) (sim.Fault, *sim.Trigger, error) {
	f, trigger, err := s.sc.ParseArmedFault(text)
	if err != nil {
		return sim.Fault{}, nil, refuse(fate.RefusedMalformed, "err", err.Error())
	}
	if trigger != nil {
		return f, trigger, nil // what it finds at its protocol point is not known yet
	}
	if why := noEffect(s.run.World, f); why != nil {
		return sim.Fault{}, nil, userError(*why)
	}
	return f, nil, nil
}

// noEffect says why a fault would change nothing in the world as it is now, or nil.
func noEffect(w *sim.World, f sim.Fault) *Text {
	if sim.PortOf(f.Node) != "" {
		return partNoEffect(w, f)
	}
	cut := map[[2]string]bool{}
	for _, l := range w.CutLinks() {
		cut[l] = true
	}
	there, back := cut[[2]string{f.From, f.To}], cut[[2]string{f.To, f.From}]
	_, up := w.Node(f.Node)
	waiting, startMs := w.Waiting(f.Node)
	n, link := []string{"node", f.Node}, []string{"from", f.From, "to", f.To}
	var code fate.Code
	args := n
	switch {
	case f.Kind == sim.FaultRestart && up:
		code = fate.RefusedUp
	case f.Kind == sim.FaultRestart && waiting && startMs >= 0:
		code, args = fate.RefusedNotStarted, append(n, "ms", strconv.FormatInt(startMs, 10))
	case f.Kind == sim.FaultCrash && !up && !(waiting && startMs >= 0):
		code = fate.RefusedDown
	case f.Kind == sim.FaultPause && w.Paused(f.Node):
		code = fate.RefusedPaused
	case f.Kind == sim.FaultPause && !up && !(waiting && startMs >= 0):
		code = fate.RefusedPauseDown
	case f.Kind == sim.FaultResume && !w.Paused(f.Node):
		code = fate.RefusedNotPaused
	case f.Kind == sim.FaultCut && there && back:
		code, args = fate.RefusedCut, link
	case f.Kind == sim.FaultCutOneway && there:
		code, args = fate.RefusedCutOneway, link
	case f.Kind == sim.FaultHeal && !there && !back:
		code, args = fate.RefusedNotCut, link
	case f.Kind == sim.FaultHealOneway && !there:
		code, args = fate.RefusedNotCutOne, link
	case f.Kind == sim.FaultPartition && allCut(cut, w.PartitionCuts(f.Groups)):
		code, args = fate.RefusedPartition, nil
	case f.Kind == sim.FaultHealAll && len(cut) == 0:
		code, args = fate.RefusedNoCut, nil
	case isWireFault(f) && !inFlight(w, f.WireID):
		code, args = fate.RefusedNotInFlight, []string{"id", strconv.FormatInt(f.WireID, 10)}
	default:
		return nil
	}
	t := say(code, args...)
	return &t
}

func allCut(cut map[[2]string]bool, links [][2]string) bool {
	return !slices.ContainsFunc(links, func(l [2]string) bool { return !cut[l] })
}

func inFlight(w *sim.World, id int64) bool {
	return slices.ContainsFunc(w.InFlight(), func(m sim.Message) bool { return m.ID == id })
}

// applyTo makes the recorded fault happen in w: now, or armed at its protocol point.
// SeekTo's replay calls it at the moment the fault was first made.
func (inj injected) applyTo(w *sim.World) {
	if inj.Armed {
		t := *inj.When
		t.Tag = inj.Tag
		w.AddTrigger(t)
		return
	}
	w.Inject(inj.Fault)
}

// FaultEntry is one recorded user fault as the page lists it.
type FaultEntry struct {
	AtMs   int64  `json:"atMs"`
	Text   Text   `json:"text"`
	Syntax string `json:"syntax"`
	// Wire: the message a fault on a message hit, by what it is, for a twin run to find
	// its own copy (InjectLike); nil for other faults.
	Wire *WireMatch `json:"wire,omitempty"`
	// Future: it lies after the current time (the user scrubbed back); it happens again
	// when time passes it.
	Future bool `json:"future"`
}

// ArmedEntry is an armed fault that has not fired yet.
type ArmedEntry struct {
	Text   Text   `json:"text"`
	Syntax string `json:"syntax"`
}

// faultList lists the recorded faults by when they happened: a fault made now at its
// time, an armed one at the time it fired (one whose arming lies ahead, at that time).
// Armed faults that wait for their protocol point are in the second list.
func (s *Session) faultList() ([]FaultEntry, []ArmedEntry) {
	w := s.run.World
	faults, armed := []FaultEntry{}, []ArmedEntry{}
	for i, inj := range s.injected {
		at, ahead := inj.AtMs, i >= s.next // ahead: not made yet in this run (scrubbed back)
		if inj.Armed && !ahead {
			fired, firedAt := w.TriggerFired(inj.Tag)
			if !fired {
				armed = append(armed, ArmedEntry{Text: inj.Desc, Syntax: inj.Text})
				continue
			}
			at = firedAt
		}
		faults = append(faults, FaultEntry{AtMs: at, Text: inj.Desc, Syntax: inj.Text, Wire: inj.Wire, Future: ahead})
	}
	sort.SliceStable(faults, func(i, j int) bool { return faults[i].AtMs < faults[j].AtMs })
	return faults, armed
}

// partNoEffect says why a fault on a part of a node (a Flink job's subtask,
// "totals/map-0") would change nothing: its node is down, or the part has already
// failed and waits for its region's restart. A part is crashed only; it comes back
// with its region (the job restarts it), so nothing else is taken.
func partNoEffect(w *sim.World, f sim.Fault) *Text {
	node, part := sim.NodeOf(f.Node), sim.PortOf(f.Node)
	_, up := w.Node(node)
	var code fate.Code
	ns := nodeState(w, node)
	i := slices.IndexFunc(ns.Parts, func(p show.Part) bool { return p.Name == part })
	switch {
	case f.Kind != sim.FaultCrash && f.Kind != sim.FaultPause && f.Kind != sim.FaultResume:
		code = fate.RefusedMalformed
	case !up:
		code = fate.RefusedDown
	case i < 0:
		code = fate.RefusedMalformed
	case !ns.Parts[i].Running:
		code = fate.RefusedDown
	case f.Kind == sim.FaultPause && ns.Parts[i].Paused:
		code = fate.RefusedPaused
	case f.Kind == sim.FaultResume && !ns.Parts[i].Paused:
		code = fate.RefusedNotPaused
	default:
		return nil
	}
	t := say(code, "node", f.Node, "err", string(f.Kind)+": "+f.Node)
	return &t
}
