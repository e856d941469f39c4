package play

import (
	"fmt"
	"strings"

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
		t = Text{"crash " + f.Node, "让 " + f.Node + " 崩溃"}
	case sim.FaultRestart:
		t = Text{"restart " + f.Node, "重启 " + f.Node}
	case sim.FaultPause:
		t = Text{"pause " + f.Node, "暂停 " + f.Node}
	case sim.FaultResume:
		t = Text{"resume " + f.Node, "恢复 " + f.Node}
	case sim.FaultCut:
		t = Text{"cut " + f.From + " ↔ " + f.To, "切断 " + f.From + " ↔ " + f.To}
	case sim.FaultCutOneway:
		t = Text{"cut " + f.From + " → " + f.To, "切断 " + f.From + " → " + f.To}
	case sim.FaultHeal:
		t = Text{"heal " + f.From + " ↔ " + f.To, "修复 " + f.From + " ↔ " + f.To}
	case sim.FaultHealOneway:
		t = Text{"heal " + f.From + " → " + f.To, "修复 " + f.From + " → " + f.To}
	case sim.FaultHealAll:
		t = Text{"heal every link", "修复所有链路"}
	case sim.FaultPartition:
		var gs []string
		for _, g := range f.Groups {
			gs = append(gs, "["+strings.Join(g, " ")+"]")
		}
		t = Text{"partition " + strings.Join(gs, " | "), "网络分区 " + strings.Join(gs, " | ")}
	case sim.FaultDrop, sim.FaultDelay, sim.FaultDuplicate:
		t = wireFaultText(f, messageText(w, f.WireID))
	default:
		t = Text{f.Describe(), f.Describe()}
	}
	if f.ForMs > 0 {
		t.En += fmt.Sprintf(" for %d ms", f.ForMs)
		t.Zh += fmt.Sprintf("，持续 %d 毫秒", f.ForMs)
	}
	return t
}

// wireFaultText says what a drop, delay or duplicate does to the message msg names.
func wireFaultText(f sim.Fault, msg Text) Text {
	switch f.Kind {
	case sim.FaultDrop:
		return Text{"drop " + msg.En, "丢弃 " + msg.Zh}
	case sim.FaultDelay:
		return Text{fmt.Sprintf("delay %s by %d ms", msg.En, f.DelayMs), fmt.Sprintf("让 %s 晚到 %d 毫秒", msg.Zh, f.DelayMs)}
	default:
		return Text{"duplicate " + msg.En, "复制 " + msg.Zh}
	}
}

// messageText names a message on the wire: the application messages it is about and
// its kind ("p1#3's ProduceResponse (broker-1 → p1)"), or its kind and wire id when it
// is about none; a message no longer on the wire is named by its id only.
func messageText(w *sim.World, id int64) Text {
	if w == nil {
		return Text{"the response just sent", "刚发出的响应"}
	}
	for _, m := range w.InFlight() {
		if m.ID != id {
			continue
		}
		route := sim.NodeOf(m.From) + " → " + sim.NodeOf(m.To)
		kind := m.Payload.Kind()
		if ids := messageIDs(w, m); ids != "" {
			return Text{ids + "'s " + kind + " (" + route + ")", ids + " 的 " + kind + "（" + route + "）"}
		}
		return Text{fmt.Sprintf("%s #%d (%s)", kind, id, route), fmt.Sprintf("%s #%d（%s）", kind, id, route)}
	}
	return Text{fmt.Sprintf("message #%d", id), fmt.Sprintf("消息 #%d", id)}
}

// messageIDs are the application messages a wire message is about: those of the
// protocol point that sent it (a produce response carries none itself, but the point
// `responded` names them), else what its label names when that is message identities
// (a Produce request's "p1#3" or "p1#1..4").
func messageIDs(w *sim.World, m sim.Message) string {
	obs := w.Observations()
	for i := len(obs) - 1; i >= 0; i-- {
		if obs[i].WireID == m.ID && len(obs[i].Msgs) > 0 {
			return strings.Join(obs[i].Msgs, ",")
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
	return Text{"when " + where + ": " + what.En, "当 " + where + " 时：" + what.Zh}
}
