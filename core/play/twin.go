package play

import (
	"fmt"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/sim"
)

// Twin runs: the page runs a second session beside the first (the same scene with a
// setting changed, or a second scene) in lockstep on the first one's clock, and makes
// each fault the user makes on one pane on the other too. A fault on a node or a link is
// the same fault there; a fault on a message names the message by its id, which is the
// run's own — a twin with other settings numbers its messages otherwise — so it travels
// with what the message is (WireMatch), and the twin hits its own copy.

// WireMatch names the message a fault on a message hit by what it is: its ends, its
// kind and its label ("p1#5").
type WireMatch struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
}

// wireMatchOf is what the message with that id on the wire is, or nil.
func wireMatchOf(w *sim.World, id int64) *WireMatch {
	for _, m := range w.InFlight() {
		if m.ID == id {
			return &WireMatch{From: sim.NodeOf(m.From), To: sim.NodeOf(m.To), Kind: m.Payload.Kind(), Label: sim.Label(m.Payload)}
		}
	}
	return nil
}

// find is the message on the wire that is what m names, oldest first.
func (m WireMatch) find(w *sim.World) (sim.Message, bool) {
	for _, msg := range w.InFlight() {
		if sim.NodeOf(msg.From) == m.From && sim.NodeOf(msg.To) == m.To && msg.Payload.Kind() == m.Kind && sim.Label(msg.Payload) == m.Label {
			return msg, true
		}
	}
	return sim.Message{}, false
}

// wireSyntax is a fault on a message in the fault box's syntax.
func wireSyntax(f sim.Fault) string {
	if f.Kind == sim.FaultDelay {
		return fmt.Sprintf("{delay: message, id: %d, delay.ms: %d}", f.WireID, f.DelayMs)
	}
	return fmt.Sprintf("{%s: message, id: %d}", f.Kind, f.WireID)
}

// InjectLike makes a fault its twin made: text as the twin recorded it, and for a fault
// on a message what that message was. Here it hits this run's own copy of the message —
// the same ends, kind and label on the wire now — or, for a produce request or answer
// this run sends at another moment, is armed for the moment it sends it; a message it
// cannot find either way is refused, saying which. Any other fault is made as it is.
func (s *Session) InjectLike(text string, wire *WireMatch) error {
	if wire == nil {
		return s.Inject(text)
	}
	f, trigger, err := s.sc.ParseArmedFault(text)
	if err != nil || trigger != nil || !isWireFault(f) {
		return s.Inject(text)
	}
	if m, ok := wire.find(s.run.World); ok {
		f.WireID = m.ID
		return s.Inject(wireSyntax(f))
	}
	// Not on the wire here now: this run sends it at another moment (other settings,
	// other timing). A produce request or answer is armed for when this run sends it.
	if armed, ok := armedLike(f, *wire); ok {
		return s.Inject(armed)
	}
	return refuse(fate.TwinNoCounterpart, "kind", wire.Kind, "from", wire.From, "to", wire.To, "label", wire.Label)
}

// armedLike is a fault on a message armed for the protocol point that sends it: a
// produce request when its producer sends it (requested), a produce answer when its
// leader sends it (responded); false for messages no protocol point names.
func armedLike(f sim.Fault, w WireMatch) (string, bool) {
	msg, _, _ := strings.Cut(w.Label, "..") // a batch "p1#1..4" is named by its first message
	if !strings.Contains(msg, "#") || strings.ContainsAny(msg, " ,") {
		return "", false
	}
	var event, what string
	switch w.Kind {
	case "Produce":
		event, what = "requested", "request"
	case "ProduceResponse":
		event, what = "responded", "response"
	default:
		return "", false
	}
	action := fmt.Sprintf("%s: %s", f.Kind, what)
	if f.Kind == sim.FaultDelay {
		action += fmt.Sprintf(", delay.ms: %d", f.DelayMs)
	}
	return fmt.Sprintf("{when: {node: %s, event: %s, message: %q}, %s}", w.From, event, msg, action), true
}
