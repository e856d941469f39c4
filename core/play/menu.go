package play

import (
	"errors"
	"fmt"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/flink"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Target is what the user pointed at on the canvas.
type Target struct {
	Kind string `json:"kind"` // node | message | link | none
	Name string `json:"name,omitempty"`
	ID   int64  `json:"id,omitempty"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// MenuItem is one fault the menu offers: its label, its scene syntax (what Inject
// takes), and whether it would change nothing now (Disabled, with Why).
type MenuItem struct {
	Label    Text   `json:"label"`
	Fault    string `json:"fault"`
	Disabled bool   `json:"disabled"`
	Why      Text   `json:"why"`
}

// pointFault is a fault at a protocol point a kind of node reports.
type pointFault struct {
	event sim.Event
	label fate.Code
	// port: the part of the node that reports the event ("jobmanager": a Flink job's
	// checkpoint coordinator), "" for the node itself.
	port string
}

// pointFaults are the protocol-point crashes the menu offers per node kind: only events
// that kind reports (sim.EventSpecs' Where), so each can fire.
var pointFaults = map[show.Kind][]pointFault{
	show.Broker: {
		{"appended", fate.MenuCrashAppend, ""},
		{"responded", fate.MenuCrashRespond, ""},
	},
	show.Producer: {
		{"acked", fate.MenuCrashAcked, ""},
	},
	show.Consumer: {
		{"polled", fate.MenuCrashPolled, ""},
		{"offset-committed", fate.MenuCrashCommit, ""},
	},
	show.Streams: {
		{"polled", fate.MenuCrashPoll, ""},
		{"processed", fate.MenuCrashProcess, ""},
		{"written", fate.MenuCrashWritten, ""},
	},
	show.Sink: {
		{"written", fate.MenuCrashStored, ""},
	},
	// A Flink job: the whole job (its job manager included) as its coordinator completes
	// the next checkpoint, after the subtasks' acknowledgements and before they are told
	// (CheckpointCoordinator.completePendingCheckpoint, then notifyCheckpointComplete).
	show.Job: {
		{"checkpoint-completed", fate.MenuCrashJobCompleted, "jobmanager"},
	},
}

// Menu lists the faults that fit what the user pointed at, each with whether Inject
// would take it now.
func (s *Session) Menu(t Target) []MenuItem {
	items := []MenuItem{}
	add := func(label Text, fault string) {
		it := MenuItem{Label: label, Fault: fault}
		if _, _, err := s.check(fault); err != nil {
			it.Disabled, it.Why = true, errText(err)
		}
		items = append(items, it)
	}
	w := s.run.World
	switch t.Kind {
	case "node":
		n := t.Name
		if sim.PortOf(n) != "" { // a Flink job's subtask: a task failure
			s.partMenu(n, add)
			break
		}
		add(say(fate.FaultCrash, "node", n), fmt.Sprintf("{crash: %s}", n))
		add(say(fate.FaultRestart, "node", n), fmt.Sprintf("{restart: %s}", n))
		add(say(fate.MenuPause, "node", n), fmt.Sprintf("{pause: %s}", n))
		add(say(fate.FaultResume, "node", n), fmt.Sprintf("{resume: %s}", n))
		for _, p := range pointFaults[show.Kind(nodeState(w, n).Kind)] {
			add(say(p.label), fmt.Sprintf("{when: {node: %s, event: %s}, crash: %s}", sim.Address(n, p.port), p.event, n))
		}
	case "message":
		msg := messageText(w, t.ID)
		for _, f := range []sim.Fault{{Kind: sim.FaultDrop}, {Kind: sim.FaultDuplicate}, {Kind: sim.FaultDelay, DelayMs: 500}, {Kind: sim.FaultDelay, DelayMs: 2000}} {
			f.WireID = t.ID
			add(wireFaultText(f, msg), wireSyntax(f))
		}
	case "link":
		a, b := t.From, t.To
		add(say(fate.FaultCutOneway, "from", a, "to", b), fmt.Sprintf("{cut-oneway: [%s, %s]}", a, b))
		add(say(fate.MenuCut, "from", a, "to", b), fmt.Sprintf("{cut: [%s, %s]}", a, b))
		add(say(fate.FaultHealOneway, "from", a, "to", b), fmt.Sprintf("{heal-oneway: [%s, %s]}", a, b))
	}
	return items
}

// partMenu is the faults of one subtask of a Flink job ("totals/map-0"): crash it now
// (a task failure: its region fails over, Flink's RestartPipelinedRegionFailoverStrategy),
// an operator subtask right after it processes its next record, a sink subtask right
// after its pre-commit at the next barrier (its snapshot), and any subtask as the
// coordinator triggers the next checkpoint (CheckpointCoordinator.triggerCheckpoint):
// the checkpoint under way is declined and the region restores from the one before; a
// source or operator subtask also pauses (its task's thread stops) and resumes.
func (s *Session) partMenu(part string, add func(Text, string)) {
	node, name := sim.NodeOf(part), sim.PortOf(part)
	add(say(fate.FaultCrash, "node", part), fmt.Sprintf("{crash: %s}", part))
	switch {
	case strings.HasPrefix(name, "sink-"):
		// After its snapshot: the flush at the barrier (KafkaWriter.flush, from
		// SinkWriterOperator.prepareSnapshotPreBarrier), which a NONE sink never does.
		if !s.sinkFlushes(node) {
			break
		}
		add(say(fate.MenuCrashPreCommitted), fmt.Sprintf("{when: {node: %s, event: pre-committed}, crash: %s}", part, part))
	case !strings.HasPrefix(name, "source-"):
		add(say(fate.MenuCrashProcess), fmt.Sprintf("{when: {node: %s, event: processed}, crash: %s}", part, part))
	}
	if !strings.HasPrefix(name, "sink-") { // a sink runs in its operator's thread: pause that
		add(say(fate.MenuPause, "node", part), fmt.Sprintf("{pause: %s}", part))
		add(say(fate.FaultResume, "node", part), fmt.Sprintf("{resume: %s}", part))
	}
	add(say(fate.MenuCrashTaskTriggered), fmt.Sprintf("{when: {node: %s, event: checkpoint-triggered}, crash: %s}", sim.Address(node, "jobmanager"), part))
}

// sinkFlushes reports whether the job's sink flushes at a barrier (its delivery
// guarantee is not NONE), where it reports pre-committed.
func (s *Session) sinkFlushes(job string) bool {
	for _, js := range s.sc.Jobs {
		if js.Name == job {
			return js.Spec.Sink.Guarantee != flink.GuaranteeNone
		}
	}
	return false
}

// errText is an error in both languages: a UserError's own, else its text twice.
func errText(err error) Text {
	var u UserError
	if errors.As(err, &u) {
		return Text{u.En, u.Zh}
	}
	return Text{err.Error(), err.Error()}
}
