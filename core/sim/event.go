package sim

import (
	"fmt"
	"slices"
)

// Event names a protocol point a node reports with Env.Observe. Each protocol package
// declares its events as constants and registers them (RegisterEvents) with what they
// mean and which Observation fields they fill, so that the trigger parser, the narration
// and the scene documentation all take the one list from here, and a misspelt event in a
// scene is an error instead of a trigger that never fires.
type Event string

// Field names an Observation field an event fills, as the documentation spells it.
type Field string

// The Observation fields.
const (
	FieldMsgs   Field = "msgs"
	FieldWireID Field = "wire"
	// FieldRequestWire: the point is about a request just sent, whose wire id it carries
	// (Observation.WireID) for `drop|delay|duplicate: request`.
	FieldRequestWire Field = "request wire"
	FieldPartition   Field = "partition"
	FieldOffset      Field = "offset"
	FieldEpoch       Field = "epoch"
	FieldErr         Field = "err"
	FieldElection    Field = "election"
	FieldGroup       Field = "group"
	FieldMember      Field = "member"
	FieldGeneration  Field = "generation"
	FieldAssigned    Field = "assigned"
	FieldCommitted   Field = "committed"
	FieldOutput      Field = "output"
	FieldValue       Field = "value"
	FieldTxnID       Field = "txn"
	FieldCheckpoint  Field = "checkpoint"
)

// EventSpec describes one event for the trigger parser and the documentation.
type EventSpec struct {
	Event  Event
	Where  string  // which nodes report it
	When   string  // the moment it marks
	Fields []Field // what it fills in an Observation
	// Detail says what a trigger's `detail` matches for this event ("" if nothing), and
	// DetailOf computes it from the observation.
	Detail   string
	DetailOf func(Observation) string
	// Background: the readable trace leaves the point out, as another line already says
	// it (a request's send line); it is in the full trace and triggers fire on it.
	Background bool
}

var (
	eventSpecs []EventSpec
	eventIndex = map[Event]int{}
)

// RegisterEvents adds events to the registry; packages call it from init. Registering a
// name twice is a programming error and panics at start-up.
func RegisterEvents(specs ...EventSpec) {
	for _, s := range specs {
		if _, dup := LookupEvent(string(s.Event)); dup {
			panic(fmt.Sprintf("sim: event %q registered twice", s.Event))
		}
		eventIndex[s.Event] = len(eventSpecs)
		eventSpecs = append(eventSpecs, s)
	}
}

// EventSpecs lists the registered events in registration order (the order packages are
// initialised in, which Go fixes by their imports).
func EventSpecs() []EventSpec { return slices.Clone(eventSpecs) }

// LookupEvent finds a registered event by name.
func LookupEvent(name string) (EventSpec, bool) {
	i, ok := eventIndex[Event(name)]
	if !ok {
		return EventSpec{}, false
	}
	return eventSpecs[i], true
}

// The kernel's own events: every node reports them.
const (
	Started   Event = "started"
	Crashed   Event = "crashed"
	Restarted Event = "restarted"
)

func init() {
	RegisterEvents(
		EventSpec{Event: Started, Where: "every node", When: "it boots at its start time"},
		EventSpec{Event: Crashed, Where: "the node", When: "it crashed"},
		EventSpec{Event: Restarted, Where: "the node", When: "it booted again"},
	)
}
