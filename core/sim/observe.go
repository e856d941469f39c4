package sim

import (
	"slices"
	"strconv"
	"strings"
)

// Observation is a protocol point a node reports: the checker's input, the trigger of
// scripted faults and narration, and a trace line. Which fields an event fills is part of
// its EventSpec.
type Observation struct {
	AtMs       int64
	Node       string
	Event      Event
	Msgs       []string // application message identities involved ("p1#3")
	WireID     int64    // the wire message the point is about (a response just sent), 0 if none
	Partition  string   // "orders-0" where it applies
	Offset     int64    // the first offset the point is about (-1: none was assigned)
	Epoch      int32    // a leader epoch
	Err        string   // an error name, as Kafka spells it
	Election   string   // clean | unclean | elr | last-known-leader
	Group      string   // a consumer group
	Member     string   // a group member
	Generation int32    // a group generation
	Assigned   []string // partitions a member was given
	Committed  []string // positions an offset commit made durable ("orders-0=4")
	Output     string   // the sink a record went to
	Value      string   // a record's value; a transaction marker's kind (COMMIT, ABORT)
	TxnID      string   // a transactional id
	Checkpoint int64    // a Flink checkpoint's id (0: none)
	// Key and Folds: a record of an aggregate's output, its key and the identities folded
	// into the total it carries (repeats kept); the ledger judges by each key's last one.
	Key   string
	Folds []string
}

// Describe is the observation's stable text form.
func (o Observation) Describe() string { return string(o.appendDescribe(nil)) }

// appendDescribe appends Describe's text to b: the trace writes it straight into its
// line (observe), one line for every observation, without a string for each part.
func (o *Observation) appendDescribe(b []byte) []byte {
	b = append(b, o.Node...)
	b = append(b, ' ')
	b = append(b, o.Event...)
	if o.Partition != "" {
		b = append(b, ' ')
		b = append(b, o.Partition...)
		if o.hasOffset() {
			b = append(b, '@')
			b = strconv.AppendInt(b, o.Offset, 10)
		}
	}
	if len(o.Msgs) > 0 {
		b = appendJoined(append(b, " ["...), o.Msgs, ' ')
		b = append(b, ']')
	}
	b = appendField(b, "err", o.Err)
	b = appendField(b, "election", o.Election)
	if o.Epoch != 0 {
		b = strconv.AppendInt(append(b, " epoch="...), int64(o.Epoch), 10)
	}
	b = appendField(b, "group", o.Group)
	b = appendField(b, "member", o.Member)
	if o.Generation != 0 {
		b = strconv.AppendInt(append(b, " gen="...), int64(o.Generation), 10)
	}
	if o.Assigned != nil {
		b = appendJoined(append(b, " assigned=["...), o.Assigned, ',')
		b = append(b, ']')
	}
	if len(o.Committed) > 0 {
		b = appendJoined(append(b, " committed="...), o.Committed, ',')
	}
	b = appendField(b, "output", o.Output)
	b = appendField(b, "value", o.Value)
	b = appendField(b, "key", o.Key)
	if len(o.Folds) > 0 {
		b = appendJoined(append(b, " folds=["...), o.Folds, ' ')
		b = append(b, ']')
	}
	b = appendField(b, "txn", o.TxnID)
	if o.Checkpoint != 0 {
		b = strconv.AppendInt(append(b, " checkpoint="...), o.Checkpoint, 10)
	}
	if o.WireID != 0 {
		b = strconv.AppendInt(append(b, " wire=#"...), o.WireID, 10)
	}
	return b
}

// appendField appends " name=v", or nothing for an empty v.
func appendField(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, '=')
	return append(b, v...)
}

// appendJoined appends the parts with sep between them (strings.Join's text).
func appendJoined(b []byte, parts []string, sep byte) []byte {
	for i, p := range parts {
		if i > 0 {
			b = append(b, sep)
		}
		b = append(b, p...)
	}
	return b
}

// hasOffset reports whether the observation's event fills Offset.
func (o *Observation) hasOffset() bool {
	s, ok := LookupEvent(string(o.Event))
	return !ok || slices.Contains(s.Fields, FieldOffset)
}

// Detail is what a trigger's `detail` matches for this observation, as its event's
// EventSpec defines it.
func (o Observation) Detail() string {
	if s, ok := LookupEvent(string(o.Event)); ok && s.DetailOf != nil {
		return s.DetailOf(o)
	}
	return ""
}

// Trigger fires a fault the first time an observation matches it.
type Trigger struct {
	Node    string // "" matches any node
	Event   Event
	Message string // "" matches any; else one of Observation.Msgs
	Detail  string // "" matches any; else Observation.Detail()
	// Checkpoint: 0 matches any; else Observation.Checkpoint.
	Checkpoint int64
	Fault      Fault
	Fired      bool
	// FiredAtMs is when it fired (valid once Fired).
	FiredAtMs int64
	// Tag names the trigger for whoever armed it (the playground's user faults), so it
	// can find it again (TriggerFired); "" for a scene's own.
	Tag string
}

func (t *Trigger) matches(o *Observation) bool {
	if t.Fired || t.Event != o.Event {
		return false
	}
	if t.Node != "" && t.Node != o.Node && !strings.HasPrefix(o.Node, t.Node+"/") {
		return false
	}
	if t.Detail != "" && t.Detail != o.Detail() {
		return false
	}
	if t.Checkpoint != 0 && t.Checkpoint != o.Checkpoint {
		return false
	}
	return t.Message == "" || slices.Contains(o.Msgs, t.Message)
}

func (w *World) observe(o Observation) {
	o.AtMs = w.nowMs
	w.observations.add(&o)
	if w.Tracing() {
		spec, _ := LookupEvent(string(o.Event))
		w.lineEnd(o.appendDescribe(append(w.lineStart(), "observe "...)), spec.Background)
	}
	for i := range w.triggers {
		t := &w.triggers[i]
		if !t.matches(&o) {
			continue
		}
		t.Fired, t.FiredAtMs = true, w.nowMs
		f := t.Fault
		if f.WireID == 0 {
			f.WireID = o.WireID
		}
		w.apply(f)
	}
}

// TriggerFired reports whether the trigger tagged tag has fired, and when.
func (w *World) TriggerFired(tag string) (bool, int64) {
	for _, t := range w.triggers {
		if t.Tag == tag && t.Fired {
			return true, t.FiredAtMs
		}
	}
	return false, 0
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
