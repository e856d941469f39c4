package play

import (
	"fmt"
	"strconv"
	"strings"

	"deliverylab/core/check"
	"deliverylab/core/fate"
	"deliverylab/core/scene"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// traceTail is how many trace lines State carries.
const traceTail = 40

// State is the snapshot the front end draws.
func (s *Session) State() State {
	w := s.run.World
	st := State{Scene: s.sc.Name, Title: Text(s.sc.Title), Summary: Text(s.sc.Summary), NowMs: w.NowMs(),
		Playing: s.playing, Ended: s.run.Ended, EndNote: string(s.run.EndNote), Version: s.version,
		EndWhy: Text{En: s.run.EndText(fate.En), Zh: s.run.EndText(fate.Zh)}, Kafka: s.sc.KafkaVersion.String()}
	if !s.sc.ExpectApplies() {
		note := fate.Because(fate.OtherRelease, "runs", s.sc.KafkaVersion.String(), "holds", s.sc.HoldsForText())
		st.ReleaseNote = Text{En: note.Text(fate.En), Zh: note.Text(fate.Zh)}
	}
	for _, name := range w.NodeNames() {
		st.Nodes = append(st.Nodes, nodeState(w, name))
	}
	for _, m := range w.InFlight() {
		b, ok := m.Payload.(show.Bouncer)
		st.InFlight = append(st.InFlight, Flight{ID: m.ID, From: sim.NodeOf(m.From), To: sim.NodeOf(m.To), Kind: m.Payload.Kind(),
			Family: sim.FamilyOf(m.Payload).String(), Label: sim.Label(m.Payload), Bounced: ok && b.Bounced(), SentMs: m.SentMs, ArriveMs: m.ArriveMs,
			FromPart: partOf(m.From), ToPart: partOf(m.To)})
	}
	st.Quiet = w.Quiet()
	for _, l := range w.CutLinks() {
		st.CutLinks = append(st.CutLinks, Link{From: l[0], To: l[1]})
	}
	for _, n := range w.Narrated() {
		spec := s.sc.Narration[n.Index]
		st.Captions = append(st.Captions, Caption{AtMs: n.AtMs, En: spec.Text.En, Zh: spec.Text.Zh, Index: n.Index, Nodes: spec.Nodes(), Pause: spec.Pause})
	}
	rep := s.run.Judge()
	st.Ledger = s.ledger(rep)
	addTxnColumn(&st.Ledger, st.Nodes)
	st.Quiz = s.quizState(rep, st.Captions)
	st.FaultsFromMs = -1
	for i, f := range s.injected[:s.next] {
		if i == 0 {
			st.FaultsFromMs = f.AtMs
		}
		if !f.Armed {
			st.Faults = append(st.Faults, fmt.Sprintf("%d ms: %s", f.AtMs, f.Fault.Describe()))
		}
	}
	st.FaultList, st.ArmedList = s.faultList()
	st.SceneFaults = s.sceneFaults(w)
	// Only the tail: a snapshot is taken every frame, and the whole trace grows with the run.
	lines := w.Trace().Lines
	lines = lines[max(len(lines)-traceTail, 0):]
	st.Trace = make([]string, len(lines))
	for i, l := range lines {
		st.Trace[i] = l.Text
	}
	st.Errors = s.run.Problems(rep)
	s.timelineState(&st)
	return st
}

func (s *Session) ledger(rep scene.Report) Ledger {
	l := Ledger{Output: rep.Output, Verdict: rep.Verdict, Counts: rep.Messages, Total: rep.Total}
	if !s.run.Ended {
		// Only delivered and duplicated are known before the end; the rest is pending,
		// and the counts say the same as the list.
		l.Verdict = ""
		l.Counts = map[string]int{"sent": rep.Messages["sent"], "acked": rep.Messages["acked"]}
	}
	for _, f := range rep.Ledger {
		name, why, at := string(f.Fate), f.Reason, f.AtMs
		if !s.run.Ended && f.Fate != fate.Delivered && f.Fate != fate.Duplicated {
			name, why = "pending", pendingReason(f, rep.Output)
		}
		if !s.run.Ended {
			l.Counts[name]++
		}
		l.Messages = append(l.Messages, MessageFate{ID: f.Msg, Fate: name, Reason: textOf(why), AtMs: at, Path: f.Path})
	}
	if s.run.Ended {
		for _, a := range check.AllAnomalies {
			l.Anomalies = append(l.Anomalies, AnomalyCount{Name: a, Count: rep.Anomalies[a], Meaning: textOf(check.Meaning(a))})
		}
	}
	return l
}

// textOf renders a reason in both languages.
func textOf(r fate.Reason) Text { return Text{En: r.Text(fate.En), Zh: r.Text(fate.Zh)} }

// pendingReason says where a message stands before the run has decided its fate.
func pendingReason(f check.Fate, output string) fate.Reason {
	if f.Fate == fate.Failed {
		return fate.Because(fate.InProgress)
	}
	return fate.Because(fate.InProgressAck, "output", output)
}

// nodeState is a node as the canvas draws it: what it shows of itself (show.Shower), and
// whether it is up.
func nodeState(w *sim.World, name string) NodeState {
	n, up := w.Node(name)
	ns := NodeState{Name: name, Up: up}
	if sh, ok := n.(show.Shower); ok {
		v := sh.Show(w)
		ns.Kind, ns.Status, ns.Partitions, ns.Rows, ns.Refused, ns.Blocked = string(v.Kind), v.Status, v.Logs, v.Rows, v.Refused, v.Blocked && up
		ns.Fenced = v.Fenced && up
		ns.Txns = v.Txns
		ns.Parts = v.Parts
	}
	if waiting, at := w.Waiting(name); waiting {
		ns.Waiting = true
		ns.Status = fate.Because(fate.StatusStartsAt, "ms", strconv.FormatInt(at, 10))
		if at < 0 {
			ns.Status = fate.Because(fate.StatusHeldDown)
		}
	} else if !up {
		ns.Status = fate.Because(fate.StatusDown)
	}
	if w.Paused(name) {
		ns.Paused = true
		ns.Status = fate.Because(fate.StatusPaused, "count", strconv.Itoa(w.Held(name)))
	}
	ns.Detail = ns.Status.Text(fate.En)
	return ns
}

// partOf is the part an address names: its port without the task attempt
// ("totals/map-1#2" is "map-1"), "" for a node itself.
func partOf(addr string) string {
	p := sim.PortOf(addr)
	if i := strings.IndexByte(p, '#'); i >= 0 {
		p = p[:i]
	}
	return p
}

// addTxnColumn fills each message's transaction column from the leaders' logs of the
// scene's topics: the state of the transaction of each of its records, in log order.
func addTxnColumn(l *Ledger, nodes []NodeState) {
	txns := map[string][]show.RecordTxn{}
	for _, n := range nodes {
		for _, lg := range n.Partitions {
			if !lg.Leader || lg.Internal {
				continue
			}
			for _, c := range lg.Records {
				if c.Txn != "" && c.Msg != "" {
					txns[c.Msg] = append(txns[c.Msg], c.Txn)
				}
			}
		}
	}
	for i := range l.Messages {
		l.Messages[i].Txn = txns[l.Messages[i].ID]
	}
}
