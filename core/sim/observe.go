package sim

import "strings"

// Observation is a protocol point a node reports: the checker's input, the trigger of
// scripted faults and narration, and a trace line.
type Observation struct {
	AtMs       int64
	Node       string
	Event      string   // appended, replicated, responded, acked, failed, polled, written, crashed, elected, ...
	Msgs       []string // application message identities involved ("p1#3")
	WireID     int64    // the wire message the point is about (a response just sent), 0 if none
	Partition  string   // "orders-0" where it applies
	Offset     int64    // first offset where it applies
	Detail     string   // an error name, clean/unclean, a sink name, ...
	Checkpoint int64
}

// Describe is the observation's stable text form.
func (o Observation) Describe() string {
	var b strings.Builder
	b.WriteString(o.Node)
	b.WriteString(" ")
	b.WriteString(o.Event)
	if o.Partition != "" {
		b.WriteString(" " + o.Partition + "@" + itoa(o.Offset))
	}
	if len(o.Msgs) > 0 {
		b.WriteString(" [" + strings.Join(o.Msgs, " ") + "]")
	}
	if o.Detail != "" {
		b.WriteString(" " + o.Detail)
	}
	if o.Checkpoint != 0 {
		b.WriteString(" chk=" + itoa(o.Checkpoint))
	}
	if o.WireID != 0 {
		b.WriteString(" wire=#" + itoa(o.WireID))
	}
	return b.String()
}

// Trigger fires a fault the first time an observation matches it.
type Trigger struct {
	Node       string // "" matches any node
	Event      string
	Message    string // "" matches any; else one of Observation.Msgs
	Detail     string // "" matches any
	Checkpoint int64  // 0 matches any
	Fault      Fault
	Fired      bool
}

func (t *Trigger) matches(o *Observation) bool {
	if t.Fired || t.Event != o.Event {
		return false
	}
	if t.Node != "" && t.Node != o.Node && !strings.HasPrefix(o.Node, t.Node+"/") {
		return false
	}
	if t.Detail != "" && t.Detail != o.Detail {
		return false
	}
	if t.Checkpoint != 0 && t.Checkpoint != o.Checkpoint {
		return false
	}
	if t.Message == "" {
		return true
	}
	for _, m := range o.Msgs {
		if m == t.Message {
			return true
		}
	}
	return false
}

func (w *World) observe(o Observation) {
	o.AtMs = w.nowMs
	w.observations = append(w.observations, o)
	w.traceLine("observe " + o.Describe())
	for i := range w.triggers {
		t := &w.triggers[i]
		if !t.matches(&o) {
			continue
		}
		t.Fired = true
		f := t.Fault
		if f.WireID == 0 {
			f.WireID = o.WireID
		}
		w.apply(f)
	}
}
