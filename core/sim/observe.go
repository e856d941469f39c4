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
func (o Observation) Describe() string {
	var b strings.Builder
	b.WriteString(o.Node)
	b.WriteString(" ")
	b.WriteString(string(o.Event))
	switch {
	case o.Partition != "" && o.hasOffset():
		b.WriteString(" " + o.Record().String())
	case o.Partition != "":
		b.WriteString(" " + o.Partition)
	}
	if len(o.Msgs) > 0 {
		b.WriteString(" [" + strings.Join(o.Msgs, " ") + "]")
	}
	field := func(name, v string) {
		if v != "" {
			b.WriteString(" " + name + "=" + v)
		}
	}
	field("err", o.Err)
	field("election", o.Election)
	if o.Epoch != 0 {
		field("epoch", itoa(int64(o.Epoch)))
	}
	field("group", o.Group)
	field("member", o.Member)
	if o.Generation != 0 {
		field("gen", itoa(int64(o.Generation)))
	}
	if o.Assigned != nil {
		b.WriteString(" assigned=[" + strings.Join(o.Assigned, ",") + "]")
	}
	if len(o.Committed) > 0 {
		field("committed", strings.Join(o.Committed, ","))
	}
	field("output", o.Output)
	field("value", o.Value)
	field("key", o.Key)
	if len(o.Folds) > 0 {
		b.WriteString(" folds=[" + strings.Join(o.Folds, " ") + "]")
	}
	field("txn", o.TxnID)
	if o.Checkpoint != 0 {
		field("checkpoint", itoa(o.Checkpoint))
	}
	if o.WireID != 0 {
		b.WriteString(" wire=#" + itoa(o.WireID))
	}
	return b.String()
}

// hasOffset reports whether the observation's event fills Offset.
func (o Observation) hasOffset() bool {
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
	w.observations.add(o)
	if w.Tracing() {
		spec, _ := LookupEvent(string(o.Event))
		w.traceLine(spec.Background, "observe ", o.Describe())
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
