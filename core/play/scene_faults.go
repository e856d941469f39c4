package play

import (
	"slices"
	"strconv"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/scene"
	"deliverylab/core/sim"
)

// scene_faults.go lists the scene's own scripted faults (its faults: key) for the page,
// as it lists the user's: each said in words, when it happened in the run so far, and
// marked on the scrubber. A counterexample that "Find a failure" loads is a scene whose
// faults are the schedule found, so this is where the page shows what it found.

// SceneFaultEntry is one of the scene's scripted faults as the page lists it.
type SceneFaultEntry struct {
	// AtMs: when it happened in this run; a timed one's at.ms before that; -1 for a
	// `when:` fault whose protocol point has not come (yet).
	AtMs   int64  `json:"atMs"`
	Text   Text   `json:"text"`
	Syntax string `json:"syntax"` // as the scene file writes it
	Armed  bool   `json:"armed"`  // a `when:` fault
	Done   bool   `json:"done"`   // it has happened in the run so far
}

// sceneFaultTag tags the trigger of the scene's i-th `when:` fault.
func sceneFaultTag(i int) string { return "scene-" + strconv.Itoa(i) }

// tagSceneFaults gives each of the scene's `when:` faults a trigger tag, so that a run can
// say when it fired (World.TriggerFired). A tag changes neither what a trigger matches
// nor the trace. The faults are copied: a scene's faults may be shared with a copy.
func tagSceneFaults(sc *scene.Scene) *scene.Scene {
	faults := slices.Clone(sc.Faults)
	for i, f := range faults {
		if f.When != nil {
			t := *f.When
			t.Tag = sceneFaultTag(i)
			faults[i].When = &t
		}
	}
	sc.Faults = faults
	return sc
}

// SceneFaultText says a scripted fault in words, in both languages: its protocol point
// and what it does for a `when:` fault, else what it does.
func SceneFaultText(f scene.FaultSpec) Text {
	if f.When != nil {
		t := *f.When
		t.Fault = f.Fault
		return triggerText(&t)
	}
	if isWireFault(f.Fault) {
		return wireFaultText(f.Fault, say(fate.MessageOffWire, "id", strconv.FormatInt(f.Fault.WireID, 10)))
	}
	return faultText(nil, f.Fault)
}

// SceneFaultSyntax is a scripted fault as the scene file writes it, one flow mapping.
func SceneFaultSyntax(f scene.FaultSpec) string {
	return strings.TrimSuffix(strings.TrimPrefix(scene.FaultsYAML([]scene.FaultSpec{f}), "- "), "\n")
}

// sceneFaults lists the scene's scripted faults in the file's order, each with when it
// happened in w.
func (s *Session) sceneFaults(w *sim.World) []SceneFaultEntry {
	out := []SceneFaultEntry{}
	for i, f := range s.sc.Faults {
		e := SceneFaultEntry{AtMs: f.AtMs, Text: SceneFaultText(f), Syntax: SceneFaultSyntax(f), Armed: f.When != nil}
		if f.When != nil {
			e.AtMs = -1
			if fired, at := w.TriggerFired(sceneFaultTag(i)); fired {
				e.AtMs, e.Done = at, true
			}
		} else {
			// A timed fault runs as an event at its time: done once the clock has passed
			// it, or stands at it with no event of that time left.
			next := w.NextEventMs()
			e.Done = w.NowMs() > f.AtMs || (w.NowMs() == f.AtMs && (next < 0 || next > f.AtMs))
		}
		out = append(out, e)
	}
	return out
}

// sceneFaultMarks are the scrubber's marks of the scripted faults that happen in the run
// w of the whole timeline (length lengthMs): Index is into State.SceneFaults.
func (s *Session) sceneFaultMarks(w *sim.World, lengthMs int64) []Mark {
	var out []Mark
	for i, e := range s.sceneFaults(w) {
		if (e.Armed && !e.Done) || e.AtMs > lengthMs {
			continue
		}
		out = append(out, Mark{AtMs: e.AtMs, Kind: "scene-fault", Index: i, Text: e.Text})
	}
	return out
}

// SourceFile is the scene file a session plays and the user's changes to it (settings,
// seed): what the page's "Find a failure" searches, and a saved scene starts from.
type SourceFile struct {
	File    string      `json:"file"`
	Text    string      `json:"text"`
	Shipped bool        `json:"shipped"`
	Changes [][2]string `json:"changes"` // setting key and value, in the order made
	Seed    int64       `json:"seed"`    // the run's seed (the file's, or the one set)
}

// SourceFile is the session's scene file and the changes to it.
func (s *Session) SourceFile() SourceFile {
	changes := slices.Clone(s.source.Changes)
	if changes == nil {
		changes = [][2]string{}
	}
	return SourceFile{File: s.source.File, Text: string(s.source.Data), Shipped: s.source.Shipped, Changes: changes, Seed: s.sc.Seed}
}
