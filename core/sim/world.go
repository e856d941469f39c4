package sim

import (
	"maps"
	"slices"
	"sort"
)

// Config is the network and randomness of a world.
type Config struct {
	Seed      int64
	LatencyMs int64 // one-way latency of every link
	JitterMs  int64 // extra latency drawn uniformly from [0, JitterMs] per message
	// LinkLatencyMs overrides LatencyMs for a link, in both directions (a follower in
	// another zone, say).
	LinkLatencyMs map[[2]string]int64
}

// latencyMs is the one-way latency from one node to another.
func (c *Config) latencyMs(from, to string) int64 {
	if len(c.LinkLatencyMs) == 0 {
		return c.LatencyMs
	}
	if l, ok := c.LinkLatencyMs[[2]string{from, to}]; ok {
		return l
	}
	if l, ok := c.LinkLatencyMs[[2]string{to, from}]; ok {
		return l
	}
	return c.LatencyMs
}

type nodeSlot struct {
	node        Node
	name        string
	index       int32 // in World.slotList
	up          bool
	started     bool // has booted at least once
	held        bool // crashed before its start time: it stays down until a restart
	startMs     int64
	incarnation int32
	rand        Rand
	// clients are the nodes whose requests reached this one in its current incarnation:
	// their connections to it break when it crashes.
	clients map[string]bool
	// paused: up but stopped (pause.go); stalled are the events that came for it
	// meanwhile, in order, and arrived the messages among them that reached its host.
	paused  bool
	stalled []event
	arrived map[int64]Message
}

// World is the whole simulated system: nodes, the wire, the clock and the trace. It is
// plain data; Clone copies it.
type World struct {
	cfg       Config
	nowMs     int64
	seq       int64
	nextMsgID int64
	queue     queue
	// ports names the ports the queue's timers were set from (event.port), faults the
	// faults it will apply (event.fault): both only grow, and a clone shares them.
	ports  nameTable
	faults []Fault
	order  []string // node names in registration order
	// unsettled is the node that last said it had not settled: Settled asks it first, as
	// it most likely has not yet (an application still sending, asked before every broker
	// is asked about every partition it leads). Only the order of the questions changes.
	unsettled    string
	slots        map[string]*nodeSlot
	slotList     []*nodeSlot // the slots by index (nodeSlot.index): a timer finds its node's without a lookup by name
	inFlight     map[int64]Message
	foreground   int                 // how many of inFlight are not background traffic (Quiet's fast answer)
	pausedNodes  int                 // how many slots are paused (Settled asks which hold work only if any)
	linkLastMs   map[[2]string]int64 // last arrival per directed link, with jitter (send)
	blocked      map[[2]string]bool
	netRand      Rand
	triggers     []Trigger
	observations observationLog
	narrated     []Narrated
	trace        Trace
	lineBuf      []byte // the trace line being written (traceLine), reused
	eventsRun    int64
	envs         envStack
	scheduled    int // fault, narration and start events in the queue
	instant      instant
	frozen       *Frozen  // set when one instant ran MaxEventsPerInstant events: the run stops
	wire         *wireLog // nil unless KeepWire: every message and how it left the wire
}

// NewWorld makes an empty world.
func NewWorld(cfg Config) *World {
	return &World{
		cfg:        cfg,
		slots:      map[string]*nodeSlot{},
		inFlight:   map[int64]Message{},
		linkLastMs: map[[2]string]int64{},
		blocked:    map[[2]string]bool{},
		netRand:    NewRand(cfg.Seed, "network"),
		trace:      newTrace(),
	}
}

// Add registers a node that boots at startMs.
func (w *World) Add(n Node, startMs int64) {
	name := n.Name()
	w.order = append(w.order, name)
	s := &nodeSlot{node: n, name: name, index: int32(len(w.slotList)), rand: NewRand(w.cfg.Seed, "node/"+name), startMs: startMs}
	w.slots[name] = s
	w.slotList = append(w.slotList, s)
	w.push(event{queued: queued{AtMs: startMs, Kind: evStart, slot: s.index}})
}

// Rand returns a named stream of the root seed that belongs to the caller (workloads).
func (w *World) Rand(stream string) Rand { return NewRand(w.cfg.Seed, stream) }

func (w *World) slot(name string) *nodeSlot { return w.slots[name] }

// Node returns a node and whether it is up.
func (w *World) Node(name string) (Node, bool) {
	s := w.slots[name]
	if s == nil {
		return nil, false
	}
	return s.node, s.up
}

// Waiting reports whether a node has not started yet, and when it will (a node held down
// by a crash before its start waits for a restart: -1).
func (w *World) Waiting(name string) (bool, int64) {
	s := w.slots[name]
	if s == nil || s.started {
		return false, 0
	}
	if s.held {
		return true, -1
	}
	return true, s.startMs
}

// NodeNames lists nodes in registration order.
func (w *World) NodeNames() []string { return append([]string(nil), w.order...) }

// NowMs is the virtual time.
func (w *World) NowMs() int64 { return w.nowMs }

// EventsRun counts the events run so far.
func (w *World) EventsRun() int64 { return w.eventsRun }

// Observations lists every observation so far, oldest first.
func (w *World) Observations() ObservationList { return w.observations.list() }

// ObservationCount is how many observations there are so far.
func (w *World) ObservationCount() int {
	return len(w.observations.full)*obsChunk + len(w.observations.last.obs)
}

// Narrated lists the narration steps reached so far.
func (w *World) Narrated() []Narrated { return w.narrated }

// Trace is the run's trace.
func (w *World) Trace() *Trace { return &w.trace }

// InFlight lists the messages on the wire, oldest first.
func (w *World) InFlight() []Message {
	out := slices.Collect(maps.Values(w.inFlight))
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// PendingFaults reports whether a scheduled fault, undo, narration step or node start
// is still ahead: a run with one has not settled.
func (w *World) PendingFaults() bool { return w.scheduled > 0 }

// NextEventMs is the time of the next event, or -1 when there is none.
func (w *World) NextEventMs() int64 { return w.queue.nextAtMs() }

func (w *World) push(e event) (slot int32, seq int64) {
	if e.Kind == evFault || e.Kind == evStart {
		w.scheduled++
	}
	w.seq++
	e.Seq = w.seq
	return w.queue.push(e), e.Seq
}

func (w *World) send(from, to string, p Payload) int64 {
	w.nextMsgID++
	id := w.nextMsgID
	arrive := w.nowMs + w.cfg.latencyMs(NodeOf(from), NodeOf(to))
	if w.cfg.JitterMs > 0 {
		// Links are FIFO, like TCP: a message never overtakes the one sent before it.
		// (Without jitter a link's latency never changes, so none can.)
		arrive += w.netRand.Intn(w.cfg.JitterMs + 1)
		link := [2]string{from, to}
		if last := w.linkLastMs[link]; arrive < last {
			arrive = last
		}
		w.linkLastMs[link] = arrive
	}
	m := Message{ID: id, From: from, To: to, Payload: p, SentMs: w.nowMs, ArriveMs: arrive, background: IsBackground(p)}
	w.putNewInFlight(m)
	w.wireSent(m)
	w.push(event{queued: queued{AtMs: arrive, Kind: evDeliver, MsgID: id}})
	if w.Tracing() {
		w.traceMessage("send", m)
	}
	return id
}

// Step runs the next event. It returns false when the queue is empty, or the clock has
// frozen (Frozen).
func (w *World) Step() bool {
	if w.queue.len() == 0 || w.frozen != nil {
		return false
	}
	if !w.countInstant(w.queue.nextAtMs()) {
		return false
	}
	e := w.queue.pop()
	if e.Kind == evFault || e.Kind == evStart {
		w.scheduled--
	}
	if e.AtMs > w.nowMs {
		w.nowMs = e.AtMs
	}
	w.eventsRun++
	switch e.Kind {
	case evDeliver:
		w.deliver(e)
	case evTimer:
		s := w.slotList[e.slot]
		if s.up && s.incarnation == e.Incarnation {
			if s.paused {
				s.hold(e)
				break
			}
			if e.disarmed {
				break
			}
			env := w.enter(s, w.ports.all()[e.port], e.port)
			s.node.Fire(env, e.Timer)
			w.leave(s, env)
		}
	case evFault:
		w.apply(w.faults[e.fault])
	case evStart:
		if s := w.slotList[e.slot]; s.paused {
			s.hold(e)
		} else if s.held {
			w.traceLine(false, "stays down ", s.name, " (crashed before it started)")
		} else {
			w.boot(s.name, Started)
		}
	}
	return true
}

func (w *World) deliver(e event) {
	if e.Arrived {
		w.deliverArrived(e)
		return
	}
	m, ok := w.inFlight[e.MsgID]
	if !ok || m.ArriveMs != e.AtMs {
		return // dropped, or delayed to a later event
	}
	w.removeInFlight(&m)
	if len(w.blocked) > 0 && w.blocked[[2]string{NodeOf(m.From), NodeOf(m.To)}] {
		w.wireEnded(m.ID, WireLostOnCut)
		if w.Tracing() {
			w.traceMessage("lost on cut link", m)
		}
		return
	}
	s := w.slots[NodeOf(m.To)]
	if s == nil || !s.up {
		w.wireEnded(m.ID, WireRefused)
		if w.Tracing() {
			w.traceMessage("refused", m)
		}
		if r, ok := m.Payload.(Request); ok && r.IsRequest() {
			if from := w.slots[NodeOf(m.From)]; from != nil && from.up {
				w.send(m.To, m.From, Refused{MsgID: m.ID, To: m.To, What: m.Payload.Kind(), Orig: m.Payload})
			}
		}
		return
	}
	if s.paused {
		w.holdMessage(s, e, m)
		return
	}
	w.handOver(s, m)
}

// handOver gives a message that reached a running node to it.
func (w *World) handOver(s *nodeSlot, m Message) {
	w.wireEnded(m.ID, WireReceived)
	if w.Tracing() {
		w.traceMessage("recv", m)
	}
	s.addClient(m)
	env := w.enter(s, PortOf(m.To), unknownPort)
	s.node.Receive(env, m)
	w.leave(s, env)
}

// settleCrash wipes the volatile state again when a node was crashed by a triggered fault
// in the middle of its own handler: whatever the handler changed after that point
// belongs to a process that no longer exists. Crash is a reset, so running it twice is
// harmless.
func (w *World) settleCrash(s *nodeSlot, env *Env) {
	if !s.up && s.incarnation != env.incarnation {
		s.node.Crash()
	}
}

// addClient remembers the sender of a request that reached the node: its connection
// breaks when the node crashes.
func (s *nodeSlot) addClient(m Message) {
	if r, ok := m.Payload.(Request); ok && r.IsRequest() {
		if s.clients == nil {
			s.clients = map[string]bool{}
		}
		s.clients[m.From] = true
	}
}

func (w *World) boot(name string, event Event) {
	s := w.slots[name]
	if s == nil || s.up {
		return
	}
	s.up, s.started, s.held = true, true, false
	s.incarnation++
	env := w.enter(s, "", 0)
	env.Observe(Observation{Event: event})
	s.node.Start(env)
	w.leave(s, env)
}

func (w *World) crash(name string) {
	s := w.slots[name]
	if s == nil && PortOf(name) != "" {
		w.failPart(name)
		return
	}
	if s != nil && !s.started && !s.held {
		// A crash before the node's start keeps it from starting, so that
		// {at.ms: 0, crash: x} means "x is down from the beginning".
		s.held = true
		w.endPause(s)
		w.traceLine(false, "held down ", name)
		return
	}
	if s == nil || !s.up {
		return
	}
	w.observe(Observation{Node: name, Event: Crashed})
	s.up = false
	s.incarnation++
	w.endPause(s)
	s.node.Crash()
	// The host resets the dead process's connections: each client that had one hears it
	// over the wire (a cut link loses the reset too, and then only a timeout tells).
	for _, c := range slices.Sorted(maps.Keys(s.clients)) {
		if cs := w.slots[NodeOf(c)]; cs != nil && cs.up {
			w.send(name, c, Disconnected{Peer: name})
		}
	}
	s.clients = nil
}

func (w *World) restart(name string) {
	if PortOf(name) != "" {
		return // a failed part is restarted by its own node (failPart)
	}
	w.boot(name, Restarted)
}

// PartFailer is a node whose parts fail on their own while the process goes on: a Flink
// job's subtasks are tasks, and a task that throws fails over within the job. A crash of
// "node/part" reaches the node as FailPart, with the part as the Env's port.
type PartFailer interface {
	FailPart(env *Env, part string)
}

// failPart fails one part of a running node: the part's crash is a protocol point of its
// own ("node/part crashed"), and the node decides what it means.
func (w *World) failPart(addr string) {
	s := w.partSlot(addr)
	if s == nil {
		return
	}
	pf, ok := s.node.(PartFailer)
	if !ok {
		return
	}
	env := w.enter(s, PortOf(addr), unknownPort)
	env.Observe(Observation{Node: addr, Event: Crashed})
	if env.Alive() {
		pf.FailPart(env, PortOf(addr))
	}
	w.envs.depth--
}

// RunUntil runs every event up to and including atMs, then sets the clock to atMs.
// stop, if not nil, is asked after each event and ends the run early when true.
func (w *World) RunUntil(atMs int64, stop func(*World) bool) {
	for {
		if next := w.queue.nextAtMs(); next < 0 || next > atMs {
			break
		}
		if !w.Step() {
			return // the clock froze: time does not move past an instant that never ends
		}
		if stop != nil && stop(w) {
			return
		}
	}
	if atMs > w.nowMs {
		w.nowMs = atMs
	}
}

// AdvanceClock moves virtual time forward to atMs without running events; it refuses to
// skip an event that is due before atMs.
func (w *World) AdvanceClock(atMs int64) {
	if next := w.NextEventMs(); next >= 0 && next < atMs {
		atMs = next
	}
	if atMs > w.nowMs {
		w.nowMs = atMs
	}
}

// SendAs puts a message on the wire as if from sent it: for tests that forge a protocol
// message, and for tools that replay one.
func (w *World) SendAs(from, to string, p Payload) int64 { return w.send(from, to, p) }

// Act runs f as node name's handler would run, now: for tests and tools that must put a
// node in a precise state between two events. It does nothing if the node is down.
func (w *World) Act(name string, f func(env *Env)) {
	s := w.slots[name]
	if s == nil || !s.up {
		return
	}
	env := w.enter(s, "", 0)
	f(env)
	w.leave(s, env)
}
