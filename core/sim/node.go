package sim

import "strconv"

// Payload is the content of a message or a timer. Payloads are immutable values once
// handed to the kernel.
type Payload interface {
	Kind() string     // the protocol name: Produce, FetchResponse, ...
	Describe() string // the one stable text form, used by the trace, the CLI and labels
}

// Request marks payloads that expect an answer: when one reaches a crashed node the
// connection is refused and the sender gets a Refused back, as a client does when a
// broker process dies and its host resets the TCP connection.
type Request interface {
	IsRequest() bool
}

// Refused tells a sender that its request reached a node that was down.
type Refused struct {
	MsgID int64  // the refused message
	To    string // where it was going
	What  string // the refused payload's Kind
	Orig  Payload
}

func (Refused) Kind() string { return "Refused" }
func (r Refused) Describe() string {
	return "Refused #" + itoa(r.MsgID) + " " + r.What + " (" + r.To + " down)"
}

// Disconnected tells a client that the node it had a connection to crashed and the
// connection was reset: whatever it had in flight there will never be answered (Kafka's
// NetworkClient sees the socket close and fails those requests as disconnected).
type Disconnected struct {
	Peer string
}

func (Disconnected) Kind() string       { return "Disconnected" }
func (d Disconnected) Describe() string { return "Disconnected (" + d.Peer + " crashed)" }

// Background is as background as the refused request was.
func (r Refused) Background() bool { return IsBackground(r.Orig) }

// Background marks payloads that are background traffic (heartbeats, metadata, empty
// long polls): they do not keep a run from settling, the front end may hurry through
// them, and readable timelines leave them out.
type Background interface {
	Background() bool
}

// IsBackground reports whether a payload is background traffic.
func IsBackground(p Payload) bool {
	b, ok := p.(Background)
	return ok && b.Background()
}

// Labeled payloads have a short Latin text to draw on a message in flight; the others
// are labelled with their Kind.
type Labeled interface {
	Label() string
}

// Label is a payload's text on the canvas.
func Label(p Payload) string {
	if l, ok := p.(Labeled); ok {
		return l.Label()
	}
	return p.Kind()
}

// Node is a protocol state machine. See the package documentation for the contract.
type Node interface {
	Name() string
	Start(env *Env)              // boot, and boot again after a restart
	Receive(env *Env, m Message) // a message arrived
	Fire(env *Env, t Payload)    // a timer set with Env.After fired
	Crash()                      // drop volatile state, keep durable state
	Clone() Node                 // a deep copy
}

// Message is one message on the wire.
type Message struct {
	ID       int64
	From, To string
	Payload  Payload
	SentMs   int64
	ArriveMs int64
	// HeldFromMs: a delay fault holds the message; it would have arrived then (0: not held).
	HeldFromMs int64
	// background is IsBackground of the payload, asked once when it is sent: the settle
	// count, the wire and the trace each ask it of every message.
	background bool
}

// Describe is the message's stable text form: "#7 p1->broker-1 Produce …".
func (m Message) Describe() string { return string(m.appendDescribe(nil)) }

// appendDescribe appends Describe's text to b: the trace writes it straight into its
// line (traceMessage), so the one form is written in one place.
func (m *Message) appendDescribe(b []byte) []byte {
	b = append(b, '#')
	b = strconv.AppendInt(b, m.ID, 10)
	b = append(b, ' ')
	b = append(b, m.From...)
	b = append(b, "->"...)
	b = append(b, m.To...)
	b = append(b, ' ')
	if ad, ok := m.Payload.(AppendDescriber); ok {
		return ad.AppendDescribe(b)
	}
	return append(b, m.Payload.Describe()...)
}

// AppendDescriber is a payload that can write its Describe text into a buffer without
// making a string of it: the kernel traces every message it delivers, and a few kinds
// (fetches and their answers) are most of a run's messages. The text must be Describe's,
// byte for byte: it is the trace the determinism check hashes.
type AppendDescriber interface {
	AppendDescribe(b []byte) []byte
}

// Env is what a node sees of the world while it handles one event.
type Env struct {
	w           *World
	s           *nodeSlot // the node's slot (its name too): Alive and Rand without a lookup by name
	port        string    // the node's port the event is for (see Port)
	portID      int32     // port's id in World.ports, unknownPort until a timer needs it
	incarnation int32
}

// unknownPort is an Env's portID before After looks its port up.
const unknownPort = -1

// Now is the virtual time in milliseconds.
func (e *Env) Now() int64 { return e.w.nowMs }

// Name is the handling node's name.
func (e *Env) Name() string { return e.s.name }

// Alive reports whether the node is still up in the incarnation that is handling the
// event: false once a triggered fault crashed it mid-handler.
func (e *Env) Alive() bool {
	return e.s.up && e.s.incarnation == e.incarnation
}

// Send puts a message on the wire and returns its id, or 0 when the node was crashed
// during this handler (a crashed node sends nothing).
func (e *Env) Send(to string, p Payload) int64 {
	if !e.Alive() {
		return 0
	}
	return e.w.send(e.Address(), to, p)
}

// After sets a timer that fires delayMs from now unless the node crashes first, and
// names it for Disarm.
func (e *Env) After(delayMs int64, t Payload) TimerID {
	if !e.Alive() {
		return TimerID{}
	}
	if delayMs < 0 {
		delayMs = 0
	}
	if e.portID == unknownPort {
		e.portID = int32(e.w.ports.id(e.port))
	}
	slot, seq := e.w.push(event{queued: queued{AtMs: e.w.nowMs + delayMs, Kind: evTimer, slot: e.s.index, port: e.portID, Incarnation: e.incarnation}, Timer: t})
	return TimerID{slot: slot, seq: seq}
}

// Rand is the node's own random stream.
func (e *Env) Rand() *Rand { return &e.s.rand }

// Observe reports a protocol point (see Observation). Triggered faults run at once.
func (e *Env) Observe(o Observation) {
	if !e.Alive() {
		return
	}
	if NodeOf(o.Node) != e.s.name {
		o.Node = e.s.name // a node reports its own points; one with parts may name the part ("job/sink-0")
	}
	e.w.observe(o)
}

// Note adds a line to the trace, for state changes that are not messages. A caller
// that composes a costly line asks Tracing first.
func (e *Env) Note(text string) {
	if !e.Alive() || !e.w.Tracing() {
		return
	}
	e.w.traceLine(false, e.s.name, " ", text)
}
