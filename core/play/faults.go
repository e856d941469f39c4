package play

import (
	"fmt"
	"slices"
	"sort"

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
	}
	s.addInjected(inj) // records, applies and relearns the timeline
	return nil
}

// check reads a fault and says why it would change nothing now, if it would not.
func (s *Session) check(text string) (sim.Fault, *sim.Trigger, error) {
	f, trigger, err := s.sc.ParseArmedFault(text)
	if err != nil {
		return sim.Fault{}, nil, UserError{En: err.Error(), Zh: "故障格式有误：" + err.Error()}
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
	cut := map[[2]string]bool{}
	for _, l := range w.CutLinks() {
		cut[l] = true
	}
	there, back := cut[[2]string{f.From, f.To}], cut[[2]string{f.To, f.From}]
	_, up := w.Node(f.Node)
	waiting, startMs := w.Waiting(f.Node)
	n := f.Node
	var t Text
	switch {
	case f.Kind == sim.FaultRestart && up:
		t = Text{n + " is up: only a node that is down can be restarted", n + " 正在运行：只有宕机的节点才能重启"}
	case f.Kind == sim.FaultRestart && waiting && startMs >= 0:
		t = Text{fmt.Sprintf("%s has not started yet (it starts at %d ms): there is nothing to restart", n, startMs),
			fmt.Sprintf("%s 还没有启动（它在 %d 毫秒启动）：没有可重启的", n, startMs)}
	case f.Kind == sim.FaultCrash && !up && !(waiting && startMs >= 0):
		t = Text{n + " is already down", n + " 已经宕机了"}
	case f.Kind == sim.FaultPause && w.Paused(n):
		t = Text{n + " is already paused", n + " 已经暂停了"}
	case f.Kind == sim.FaultPause && !up && !(waiting && startMs >= 0):
		t = Text{n + " is down: there is no running process to pause", n + " 已宕机：没有正在运行的进程可以暂停"}
	case f.Kind == sim.FaultResume && !w.Paused(n):
		t = Text{n + " is not paused: there is nothing to resume", n + " 没有暂停：无需恢复"}
	case f.Kind == sim.FaultCut && there && back:
		t = Text{"the link " + f.From + " ↔ " + f.To + " is already cut both ways", "链路 " + f.From + " ↔ " + f.To + " 两个方向都已切断"}
	case f.Kind == sim.FaultCutOneway && there:
		t = Text{"messages " + f.From + " → " + f.To + " are already cut", f.From + " → " + f.To + " 方向已经切断"}
	case f.Kind == sim.FaultHeal && !there && !back:
		t = Text{"the link " + f.From + " ↔ " + f.To + " is not cut", "链路 " + f.From + " ↔ " + f.To + " 没有被切断"}
	case f.Kind == sim.FaultHealOneway && !there:
		t = Text{"messages " + f.From + " → " + f.To + " are not cut", f.From + " → " + f.To + " 方向没有被切断"}
	case f.Kind == sim.FaultPartition && allCut(cut, w.PartitionCuts(f.Groups)):
		t = Text{"every link this partition cuts is already cut", "这次分区要切断的链路都已经切断了"}
	case f.Kind == sim.FaultHealAll && len(cut) == 0:
		t = Text{"no link is cut", "没有被切断的链路"}
	case isWireFault(f) && !inFlight(w, f.WireID):
		t = Text{fmt.Sprintf("no message #%d is in flight now", f.WireID), fmt.Sprintf("现在线路上没有消息 #%d", f.WireID)}
	default:
		return nil
	}
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
		faults = append(faults, FaultEntry{AtMs: at, Text: inj.Desc, Syntax: inj.Text, Future: ahead})
	}
	sort.SliceStable(faults, func(i, j int) bool { return faults[i].AtMs < faults[j].AtMs })
	return faults, armed
}
