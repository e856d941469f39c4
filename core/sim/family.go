package sim

// Family is which part of the protocol a message belongs to, so that the front end can
// tell a produce from a fetch or a group's traffic at a glance (the canvas colours a
// message by it) without knowing every API by name.
type Family uint8

// The families. Unknown is a payload that does not say (timers: never on the wire).
const (
	Unknown     Family = iota
	Produce            // Produce and its response
	Fetch              // reading a log: Fetch, ListOffsets, OffsetsForLeaderEpoch
	Offsets            // a group's committed offsets: OffsetCommit, OffsetFetch
	Group              // membership: FindCoordinator, JoinGroup, SyncGroup, Heartbeat
	Transaction        // InitProducerId, AddPartitionsToTxn, EndTxn, WriteTxnMarkers, TxnOffsetCommit
	Metadata           // a client learning the cluster: ApiVersions, Metadata
	Control            // the controller and the brokers: registration, heartbeats, metadata records, AlterPartition
	Sink               // an application and its database
	Stream             // a Flink job's records and barriers between its subtasks
	Checkpoint         // a Flink job manager's checkpoint calls and its subtasks' acknowledgements
)

var familyNames = [...]string{"unknown", "produce", "fetch", "offsets", "group", "transaction", "metadata", "control", "sink", "stream", "checkpoint"}

// Families lists the known families, Unknown left out.
var Families = []Family{Produce, Fetch, Offsets, Group, Transaction, Metadata, Control, Sink, Stream, Checkpoint}

func (f Family) String() string {
	if int(f) < len(familyNames) {
		return familyNames[f]
	}
	return familyNames[Unknown]
}

// Familied payloads say their family; the others are Unknown.
type Familied interface {
	Family() Family
}

// FamilyOf is a payload's family.
func FamilyOf(p Payload) Family {
	if f, ok := p.(Familied); ok {
		return f.Family()
	}
	return Unknown
}

// Family is the refused request's: the refusal answers it.
func (r Refused) Family() Family { return FamilyOf(r.Orig) }

// Family: a connection's reset is the cluster's plumbing, not any one API's.
func (Disconnected) Family() Family { return Control }
