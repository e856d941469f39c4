package play

import (
	"fmt"
	"strings"

	"deliverylab/core/apps"
	"deliverylab/core/check"
	"deliverylab/core/kafka"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// traceTail is how many trace lines State carries.
const traceTail = 40

// State is the snapshot the front end draws.
func (s *Session) State() State {
	w := s.run.World
	st := State{Scene: s.sc.Name, Title: Text(s.sc.Title), Summary: Text(s.sc.Summary), NowMs: w.NowMs(),
		Playing: s.playing, Ended: s.run.Ended, EndNote: s.run.EndNote, Version: s.version}
	for _, name := range w.NodeNames() {
		st.Nodes = append(st.Nodes, nodeState(w, name))
	}
	for _, m := range w.InFlight() {
		st.InFlight = append(st.InFlight, Flight{ID: m.ID, From: m.From, To: m.To, Kind: m.Payload.Kind(),
			Label: label(m.Payload), SentMs: m.SentMs, ArriveMs: m.ArriveMs})
	}
	st.Quiet = quiet(w)
	for _, l := range w.CutLinks() {
		st.CutLinks = append(st.CutLinks, Link{From: l[0], To: l[1]})
	}
	for _, n := range w.Narrated() {
		t := s.sc.Narration[n.Index].Text
		st.Captions = append(st.Captions, Caption{AtMs: n.AtMs, En: t.En, Zh: t.Zh})
	}
	st.Ledger = s.ledger()
	st.FaultsFromMs = -1
	for i, f := range s.injected {
		if i == 0 {
			st.FaultsFromMs = f.AtMs
		}
		st.Faults = append(st.Faults, fmt.Sprintf("%d ms: %s", f.AtMs, f.Fault.Describe()))
	}
	lines := w.Trace().Lines
	if len(lines) > traceTail {
		lines = lines[len(lines)-traceTail:]
	}
	st.Trace = append([]string(nil), lines...)
	st.Errors = s.run.Invariants()
	return st
}

func (s *Session) ledger() Ledger {
	rep := s.run.Judge()
	l := Ledger{Output: rep.Output, Verdict: rep.Verdict, Counts: rep.Messages}
	if !s.run.Ended {
		// Only delivered and duplicated are known before the end; the rest is pending,
		// and the counts say the same as the list.
		l.Verdict = ""
		l.Counts = map[string]int{"sent": rep.Messages["sent"], "acked": rep.Messages["acked"]}
	}
	for _, f := range rep.Ledger {
		mf := MessageFate{ID: f.Msg, Fate: f.Fate, Reason: Text{En: f.En, Zh: f.Zh}}
		if !s.run.Ended && f.Fate != check.Delivered && f.Fate != check.Duplicated {
			mf.Fate, mf.Reason = "pending", pendingReason(f, rep.Output)
		}
		if !s.run.Ended {
			l.Counts[mf.Fate]++
		}
		l.Messages = append(l.Messages, mf)
	}
	return l
}

// pendingReason says where a message stands before the run has decided its fate.
func pendingReason(f check.Fate, output string) Text {
	if f.Fate == check.Failed {
		return Text{En: "in progress: not acknowledged yet", Zh: "进行中：尚未被确认"}
	}
	return Text{En: "in progress: acknowledged, not in " + output + " yet", Zh: "进行中：已确认，尚未进入 " + output}
}

func nodeState(w *sim.World, name string) NodeState {
	n, up := w.Node(name)
	ns := NodeState{Name: name, Up: up}
	switch v := n.(type) {
	case *kafka.Controller:
		ns.Kind = "controller"
		ns.Detail = "KRaft quorum"
	case *kafka.Broker:
		ns.Kind = "broker"
		ns.Partitions = replicas(v)
		ns.Detail = fmt.Sprintf("%d partitions", len(ns.Partitions))
	case *apps.Producer:
		ns.Kind = "producer"
		ns.Detail = v.Progress()
	case *apps.Consumer:
		ns.Kind = "consumer"
		ns.Detail = v.Describe()
	case *sinks.Table:
		ns.Kind = "sink"
		ns.Rows = v.RowMsgs()
		ns.Detail = fmt.Sprintf("%d rows", len(ns.Rows))
	}
	if waiting, at := w.Waiting(name); waiting {
		ns.Waiting = true
		ns.Detail = fmt.Sprintf("starts at %d ms", at)
		if at < 0 {
			ns.Detail = "held down"
		}
	} else if !up {
		ns.Detail = "down"
	}
	return ns
}

func replicas(b *kafka.Broker) []ReplicaState {
	var out []ReplicaState
	for _, tp := range b.TPs() {
		r := b.Replica(tp)
		rs := ReplicaState{Partition: tp.String(), Leader: b.IsLeader(tp), LEO: r.LEO(), HW: r.HW}
		if st, ok := b.Meta(tp); ok {
			rs.Epoch = st.LeaderEpoch
			rs.ISR = append([]string(nil), st.ISR...)
		}
		for _, rec := range r.Log {
			rv := RecordView{Offset: rec.Offset, Msg: rec.Msg, Epoch: rec.Epoch}
			if c := rec.Commit; c != nil {
				rv.Note = fmt.Sprintf("@%d", c.Offset) // the committed position; the group is in the trace
			}
			rs.Records = append(rs.Records, rv)
		}
		out = append(out, rs)
	}
	return out
}

// label is the short Latin text drawn on a message in flight.
func label(p sim.Payload) string {
	switch m := p.(type) {
	case kafka.ProduceRequest:
		return ids(m.Records)
	case kafka.ProduceResponse:
		if m.Err != "" {
			return m.Err
		}
		return fmt.Sprintf("ack @%d", m.BaseOffset)
	case kafka.FetchResponse:
		if len(m.Records) > 0 {
			return ids(m.Records)
		}
		if m.Err != "" {
			return m.Err
		}
		return fmt.Sprintf("hw=%d", m.HW)
	case kafka.FetchRequest:
		return fmt.Sprintf("fetch @%d", m.FetchOffset)
	case kafka.OffsetCommitRequest:
		return "commit"
	case sinks.Write:
		return m.Msg
	}
	return p.Kind()
}

func ids(recs []kafka.Record) string {
	var out []string
	for _, r := range recs {
		if r.Msg != "" {
			out = append(out, r.Msg)
		}
	}
	if len(out) > 2 {
		return out[0] + ".." + strings.TrimPrefix(out[len(out)-1], strings.SplitN(out[0], "#", 2)[0])
	}
	return strings.Join(out, ",")
}
