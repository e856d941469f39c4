package play

import (
	"strconv"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/sim"
)

// fault_text.go says in words, in both languages, what a fault the user added does and
// what it hit: the fault list, the timeline's marks and the menu's labels.

// faultText describes a fault. w is the world at injection time: a wire fault names
// the message as it is on the wire then (it is gone later).
func faultText(w *sim.World, f sim.Fault) Text {
	var t Text
	switch f.Kind {
	case sim.FaultCrash:
		t = say(fate.FaultCrash, "node", f.Node)
	case sim.FaultRestart:
		t = say(fate.FaultRestart, "node", f.Node)
	case sim.FaultPause:
		t = say(fate.FaultPause, "node", f.Node)
	case sim.FaultResume:
		t = say(fate.FaultResume, "node", f.Node)
	case sim.FaultCut:
		t = say(fate.FaultCut, "from", f.From, "to", f.To)
	case sim.FaultCutOneway:
		t = say(fate.FaultCutOneway, "from", f.From, "to", f.To)
	case sim.FaultHeal:
		t = say(fate.FaultHeal, "from", f.From, "to", f.To)
	case sim.FaultHealOneway:
		t = say(fate.FaultHealOneway, "from", f.From, "to", f.To)
	case sim.FaultHealAll:
		t = say(fate.FaultHealAll)
	case sim.FaultPartition:
		var gs []string
		for _, g := range f.Groups {
			gs = append(gs, "["+strings.Join(g, " ")+"]")
		}
		t = say(fate.FaultPartition, "groups", strings.Join(gs, " | "))
	case sim.FaultDrop, sim.FaultDelay, sim.FaultDuplicate:
		t = wireFaultText(f, messageText(w, f.WireID))
	default:
		t = Text{f.Describe(), f.Describe()}
	}
	if f.ForMs > 0 {
		t = t.then(say(fate.FaultFor, "ms", strconv.FormatInt(f.ForMs, 10)))
	}
	return t
}

// wireFaultText says what a drop, delay or duplicate does to the message msg names.
func wireFaultText(f sim.Fault, msg Text) Text {
	switch f.Kind {
	case sim.FaultDrop:
		return sayAround(fate.FaultDrop, "message", msg)
	case sim.FaultDelay:
		return sayAround(fate.FaultDelay, "message", msg, "ms", strconv.FormatInt(f.DelayMs, 10))
	default:
		return sayAround(fate.FaultDuplicate, "message", msg)
	}
}

// messageText names a message on the wire: the application messages it is about and
// its kind ("p1#3's ProduceResponse (broker-1 → p1)"), or its kind and wire id when it
// is about none; a message no longer on the wire is named by its id only.
func messageText(w *sim.World, id int64) Text {
	if w == nil {
		return say(fate.MessageJustSent)
	}
	for _, m := range w.InFlight() {
		if m.ID != id {
			continue
		}
		route := sim.NodeOf(m.From) + " → " + sim.NodeOf(m.To)
		kind := m.Payload.Kind()
		if ids := messageIDs(w, m); ids != "" {
			return say(fate.MessageAbout, "ids", ids, "kind", kind, "route", route)
		}
		return say(fate.MessageOnWire, "kind", kind, "id", strconv.FormatInt(id, 10), "route", route)
	}
	return say(fate.MessageOffWire, "id", strconv.FormatInt(id, 10))
}

// messageIDs are the application messages a wire message is about: those of the
// protocol point that sent it (a produce response carries none itself, but the point
// `responded` names them), else what its label names when that is message identities
// (a Produce request's "p1#3" or "p1#1..4").
func messageIDs(w *sim.World, m sim.Message) string {
	for _, o := range w.Observations().Backward() {
		if o.WireID == m.ID && len(o.Msgs) > 0 {
			return strings.Join(o.Msgs, ",")
		}
	}
	if l := sim.Label(m.Payload); strings.Contains(l, "#") {
		return l
	}
	return ""
}

// triggerText describes an armed fault: the protocol point, then the fault.
func triggerText(t *sim.Trigger) Text {
	where := string(t.Event)
	if t.Node != "" {
		where = t.Node + " " + where
	}
	if t.Message != "" {
		where += " " + t.Message
	}
	if t.Detail != "" {
		where += " (" + t.Detail + ")"
	}
	var what Text
	if t.Fault.WireID == 0 && isWireFault(t.Fault) {
		what = wireFaultText(t.Fault, messageText(nil, 0))
	} else {
		what = faultText(nil, t.Fault)
	}
	return sayAround(fate.FaultWhen, "fault", what, "where", where)
}
