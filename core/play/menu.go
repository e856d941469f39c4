package play

import (
	"errors"
	"fmt"

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
	label Text
}

// pointFaults are the protocol-point crashes the menu offers per node kind: only events
// that kind reports (sim.EventSpecs' Where), so each can fire.
var pointFaults = map[show.Kind][]pointFault{
	show.Broker: {
		{"appended", Text{"crash after its next append, before it responds", "在下一次追加写入之后、响应之前崩溃"}},
		{"responded", Text{"crash right after its next produce response", "在下一次发出 produce 响应之后立刻崩溃"}},
	},
	show.Producer: {
		{"acked", Text{"crash right after its next acknowledgement", "在下一次收到确认（ack）之后立刻崩溃"}},
	},
	show.Consumer: {
		{"polled", Text{"crash after its next poll, before it commits", "在下一次 poll 之后、提交 offset 之前崩溃"}},
		{"offset-committed", Text{"crash right after its next offset commit", "在下一次 offset 提交之后立刻崩溃"}},
	},
	show.Streams: {
		{"polled", Text{"crash after its next poll, before it processes the record", "在下一次 poll 之后、处理记录之前崩溃"}},
		{"processed", Text{"crash right after it processes its next record", "在处理完下一条记录之后立刻崩溃"}},
		{"written", Text{"crash right after its next output record is acknowledged", "在下一条输出记录被确认之后立刻崩溃"}},
	},
	show.Sink: {
		{"written", Text{"crash right after it stores its next row", "在存下下一行之后立刻崩溃"}},
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
		add(Text{"crash " + n, "让 " + n + " 崩溃"}, fmt.Sprintf("{crash: %s}", n))
		add(Text{"restart " + n, "重启 " + n}, fmt.Sprintf("{restart: %s}", n))
		add(Text{"pause " + n + " (like a long GC pause)", "暂停 " + n + "（如同一次很长的 GC 停顿）"}, fmt.Sprintf("{pause: %s}", n))
		add(Text{"resume " + n, "恢复 " + n}, fmt.Sprintf("{resume: %s}", n))
		for _, p := range pointFaults[show.Kind(nodeState(w, n).Kind)] {
			add(p.label, fmt.Sprintf("{when: {node: %s, event: %s}, crash: %s}", n, p.event, n))
		}
	case "message":
		msg := messageText(w, t.ID)
		for _, f := range []sim.Fault{{Kind: sim.FaultDrop}, {Kind: sim.FaultDuplicate}, {Kind: sim.FaultDelay, DelayMs: 500}, {Kind: sim.FaultDelay, DelayMs: 2000}} {
			syntax := fmt.Sprintf("{%s: message, id: %d}", f.Kind, t.ID)
			if f.DelayMs > 0 {
				syntax = fmt.Sprintf("{delay: message, id: %d, delay.ms: %d}", t.ID, f.DelayMs)
			}
			add(wireFaultText(f, msg), syntax)
		}
	case "link":
		a, b := t.From, t.To
		add(Text{"cut " + a + " → " + b, "切断 " + a + " → " + b}, fmt.Sprintf("{cut-oneway: [%s, %s]}", a, b))
		add(Text{"cut " + a + " ↔ " + b + " (both directions)", "切断 " + a + " ↔ " + b + "（双向）"}, fmt.Sprintf("{cut: [%s, %s]}", a, b))
		add(Text{"heal " + a + " → " + b, "修复 " + a + " → " + b}, fmt.Sprintf("{heal-oneway: [%s, %s]}", a, b))
	}
	return items
}

// errText is an error in both languages: a UserError's own, else its text twice.
func errText(err error) Text {
	var u UserError
	if errors.As(err, &u) {
		return Text{u.En, u.Zh}
	}
	return Text{err.Error(), err.Error()}
}
