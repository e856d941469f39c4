package sim

import "slices"

// WireEnd is how a message left the wire.
type WireEnd uint8

const (
	// WireInFlight: not arrived yet when the log was read.
	WireInFlight WireEnd = iota
	// WireReceived: handed to the node it was sent to (after a pause, when the node resumed).
	WireReceived
	// WireLostOnCut: it reached a link that was cut.
	WireLostOnCut
	// WireRefused: its node was down; a request's sender is told so.
	WireRefused
	// WireDropped: by a fault at a protocol point.
	WireDropped
	// WireLostInCrash: it waited at a paused node that crashed.
	WireLostInCrash
)

var wireEndNames = [...]string{"on the wire", "received", "lost on a cut link", "refused", "dropped", "lost in the crash"}

func (e WireEnd) String() string {
	if int(e) < len(wireEndNames) {
		return wireEndNames[e]
	}
	return "unknown"
}

// WireRecord is one message put on the wire, and how it left it.
type WireRecord struct {
	ID       int64
	From, To string // addresses, as Message's
	Payload  Payload
	SentMs   int64
	EndMs    int64 // when it left the wire (0 while WireInFlight)
	End      WireEnd
}

// wireLog is every message a run put on the wire, for the run drawn as a space-time
// diagram. It is kept only when asked for (World.KeepWire), as the trace's lines are: a
// run wanted for its outcome alone does not pay for it. Message ids are handed out one
// after another (World.send, a duplicate fault) and each is logged as it is, so a
// message's record is found by its id's distance from the first.
type wireLog struct {
	records []WireRecord
}

// KeepWire makes the world log every message from now on (call it before the first
// event to have the whole run).
func (w *World) KeepWire() {
	if w.wire == nil {
		w.wire = &wireLog{}
	}
}

// Wire is the log of the messages put on the wire so far, in the order they were sent;
// nil unless KeepWire was called.
func (w *World) Wire() []WireRecord {
	if w.wire == nil {
		return nil
	}
	return w.wire.records
}

func (w *World) wireSent(m Message) {
	if w.wire == nil {
		return
	}
	w.wire.records = append(w.wire.records, WireRecord{ID: m.ID, From: m.From, To: m.To, Payload: m.Payload, SentMs: m.SentMs})
}

func (w *World) wireEnded(id int64, end WireEnd) {
	if w.wire == nil || len(w.wire.records) == 0 {
		return
	}
	// A message sent before KeepWire has no record.
	if i := id - w.wire.records[0].ID; i >= 0 && i < int64(len(w.wire.records)) {
		w.wire.records[i].End, w.wire.records[i].EndMs = end, w.nowMs
	}
}

func (l *wireLog) clone() *wireLog {
	if l == nil {
		return nil
	}
	return &wireLog{records: slices.Clone(l.records)}
}
