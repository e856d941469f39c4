package scene

import (
	"fmt"
	"slices"
	"strings"

	"deliverylab/core/sim"
	"deliverylab/scenes"

	"go.yaml.in/yaml/v3"
)

// A random fault schedule over a shipped scene, for the fuzz target and the swarm test
// (issue 8, "Fuzzing and swarm tests"). Bytes decide everything: the fuzzer mutates
// them, the swarm draws them from a seeded generator, and a seed shape is written with
// encodeSchedule. The schedule becomes YAML entries appended to the scene's `faults:`,
// so every schedule also goes through the parser.

// faultRecordBytes is how many bytes one fault takes; missing bytes read as 0.
const faultRecordBytes = 12

// maxGenFaults is the most faults one schedule adds.
const maxGenFaults = 6

// genKinds are the fault kinds a schedule draws from, as the scene file spells them.
// New kinds go at the end, so the seed shapes' bytes keep their meaning.
var genKinds = []string{"crash", "restart", "cut", "cut-oneway", "heal", "partition", "drop", "delay", "duplicate", "pause", "resume", "heal-oneway"}

// genFault is one decoded fault, still in indices: render turns it into YAML for a scene.
type genFault struct {
	Kind int // index in genKinds
	// Trigger: at.ms (When false) or a protocol point.
	When    bool
	AtMs    int64
	Event   int // index in the events a trigger may name
	OnNode  int // 0: any node; k: the scene's k-th node (1-based)
	Message int // 0: any message; k: the scene's k-th message (1-based)
	// What it does: nodes A and B (a pair, or a crash's node); Groups a bitmask putting
	// each node in the first (bit set) or the second group of a partition.
	A, B   int
	Groups int
	// ForMs undoes a crash, cut or partition after that long (0: it stays).
	ForMs int64
	// Response: drop, delay or duplicate the response a `when` event just sent; else the
	// in-flight message number ID.
	Response bool
	ID       int64
	DelayMs  int64
}

// bytes reads a schedule's bytes one field at a time.
type byteReader struct{ b []byte }

func (r *byteReader) u8() int {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return int(v)
}

func (r *byteReader) u16() int64 { return int64(r.u8())<<8 | int64(r.u8()) }

// scaled reads a mode byte's two low bits and a 16-bit value into a duration within
// 0–19 ms (faults in one instant), 0–199 ms, 0–1999 ms or 0–20 s, the span in which the
// shipped scenes do what they show. The last is exact for values up to 20 s: what
// encodeSchedule writes.
func scaled(mode int, v int64) int64 {
	switch mode & 3 {
	case 0:
		return v % 20
	case 1:
		return v % 200
	case 2:
		return v % 2000
	}
	return v % (maxGenMs + 1)
}

// maxGenMs is the latest time, and the longest for.ms, a schedule gives.
const maxGenMs = 20000

// decodeSchedule turns bytes into at most maxGenFaults faults; no bytes give none.
func decodeSchedule(data []byte) []genFault {
	if len(data) == 0 {
		return nil
	}
	r := &byteReader{b: data}
	n := 1 + r.u8()%maxGenFaults
	out := make([]genFault, 0, n)
	for range n {
		var f genFault
		f.Kind = r.u8() % len(genKinds)
		mode := r.u8()
		f.When = mode&4 != 0
		f.AtMs = scaled(mode, r.u16())
		f.Event, f.OnNode, f.Message = r.u8(), r.u8(), r.u8()
		f.A, f.B = r.u8(), r.u8()
		f.Groups = f.A<<8 | f.B
		forMode := r.u8()
		v := r.u16()
		f.Response = forMode&8 == 0
		if forMode&4 != 0 {
			f.ForMs = max(1, scaled(forMode, v))
		}
		f.ID = 1 + v%3000
		f.DelayMs = 1 + scaled(forMode, v)%5000
		out = append(out, f)
	}
	return out
}

// encodeSchedule is decodeSchedule's inverse for faults written by hand (the seed
// shapes): exact times, indices as given; a delay's delay.ms is not encoded.
func encodeSchedule(fs []genFault) []byte {
	out := []byte{byte(len(fs) - 1)}
	u16 := func(v int64) []byte {
		if v < 0 || v > maxGenMs {
			panic(fmt.Sprintf("%d is not a time a schedule can give (0 to %d ms)", v, maxGenMs))
		}
		return []byte{byte(v >> 8), byte(v)}
	}
	for _, f := range fs {
		mode := byte(3)
		if f.When {
			mode |= 4
		}
		forMode, v := byte(3|8), max(f.ID-1, 0)
		if f.Response {
			forMode = 3
		}
		if f.ForMs > 0 {
			forMode |= 4
			v = f.ForMs
		}
		out = append(out, byte(f.Kind), mode)
		out = append(out, u16(f.AtMs)...)
		out = append(out, byte(f.Event), byte(f.OnNode), byte(f.Message), byte(f.A), byte(f.B), forMode)
		out = append(out, u16(v)...)
	}
	return out
}

// genScene is what a schedule needs to know of a scene: its text and its names.
type genScene struct {
	name     string
	text     []byte
	nodes    []string // nodes a fault may name (crash, restart)
	wire     []string // nodes a link fault may name: nodes and the controller
	messages []string // p1#1, p1#2, ...
	// roles lists the nodes of each kind, by the word an event's Where uses for it.
	roles map[string][]string
	// downForGood: the scene's own script crashes a node it never restarts, so no
	// schedule over it heals everything (not-enough-replicas keeps two brokers down).
	downForGood bool
}

// genEvents are the events a trigger may name, with the response carriers apart.
var genEvents, genResponseEvents = func() ([]sim.EventSpec, []sim.EventSpec) {
	var all, resp []sim.EventSpec
	for _, e := range sim.EventSpecs() {
		all = append(all, e)
		if slices.Contains(e.Fields, sim.FieldWireID) {
			resp = append(resp, e)
		}
	}
	return all, resp
}()

func newGenScene(name string, text []byte) (genScene, error) {
	s, err := Parse(name+".yaml", text)
	if err != nil {
		return genScene{}, err
	}
	g := genScene{name: name, text: text, nodes: s.nodeNames()}
	g.wire = append(slices.Clone(g.nodes), "controller")
	g.roles = map[string][]string{"broker": s.Cluster.BrokerNames(), "controller": {"controller"}}
	for _, p := range s.Producers {
		g.roles["producer"] = append(g.roles["producer"], p.Name)
		for k := 1; k <= p.Work.Count; k++ {
			g.messages = append(g.messages, fmt.Sprintf("%s#%d", p.Name, k))
		}
	}
	for _, c := range s.Consumers {
		g.roles["consumer"] = append(g.roles["consumer"], c.Name)
	}
	for _, k := range s.Sinks {
		g.roles["sink"] = append(g.roles["sink"], k.Name)
	}
	down := map[string]bool{}
	for _, f := range s.Faults {
		switch f.Fault.Kind {
		case sim.FaultCrash:
			down[f.Fault.Node] = f.Fault.ForMs == 0
		case sim.FaultRestart:
			down[f.Fault.Node] = false
		}
	}
	for _, d := range down {
		g.downForGood = g.downForGood || d
	}
	return g, nil
}

// shippedGenScenes reads every shipped scene, in lesson order.
func shippedGenScenes() ([]genScene, error) {
	var out []genScene
	for _, name := range scenes.Names() {
		data, err := scenes.Read(name)
		if err != nil {
			return nil, err
		}
		g, err := newGenScene(name, data)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// index finds a name for a hand-written genFault (1-based when one is optional).
func index(names []string, name string) int {
	i := slices.Index(names, name)
	if i < 0 {
		panic("no " + name + " in " + strings.Join(names, ", "))
	}
	return i
}

// healed reports whether every crash, cut and partition of the schedule is undone by
// its for.ms, so that a run that does not settle is stuck by the simulation's fault.
func healed(fs []genFault) bool {
	for _, f := range fs {
		switch genKinds[f.Kind] {
		case "crash", "pause", "cut", "cut-oneway", "partition":
			if f.ForMs == 0 {
				return false
			}
		}
	}
	return true
}

// render writes one fault as a YAML flow mapping for scene g.
func (g genScene) render(f genFault) string {
	kind := genKinds[f.Kind]
	var parts []string
	response := f.Response && (kind == "drop" || kind == "delay" || kind == "duplicate")
	switch {
	case response:
		// `drop: response` acts on the response a carrier event just sent.
		e := genResponseEvents[f.Event%len(genResponseEvents)]
		parts = append(parts, "when: "+g.trigger(e, f))
	case f.When:
		parts = append(parts, "when: "+g.trigger(genEvents[f.Event%len(genEvents)], f))
	default:
		parts = append(parts, fmt.Sprintf("at.ms: %d", f.AtMs))
	}
	a := g.wire[f.A%len(g.wire)]
	b := g.wire[f.B%len(g.wire)]
	if a == b {
		b = g.wire[(f.B+1)%len(g.wire)]
	}
	switch kind {
	case "crash", "restart", "pause", "resume":
		parts = append(parts, fmt.Sprintf("%s: %s", kind, g.nodes[f.A%len(g.nodes)]))
	case "cut", "cut-oneway", "heal-oneway":
		parts = append(parts, fmt.Sprintf("%s: [%s, %s]", kind, a, b))
	case "heal":
		if f.B%4 == 0 {
			parts = append(parts, "heal: all")
		} else {
			parts = append(parts, fmt.Sprintf("heal: [%s, %s]", a, b))
		}
	case "partition":
		parts = append(parts, "partition: "+g.partition(f.Groups))
	default:
		if response {
			parts = append(parts, kind+": response")
		} else {
			parts = append(parts, fmt.Sprintf("%s: message, id: %d", kind, f.ID))
		}
		if kind == "delay" {
			parts = append(parts, fmt.Sprintf("delay.ms: %d", f.DelayMs))
		}
	}
	if f.ForMs > 0 && slices.Contains(undoable, kind) {
		parts = append(parts, fmt.Sprintf("for.ms: %d", f.ForMs))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (g genScene) trigger(e sim.EventSpec, f genFault) string {
	parts := []string{"event: " + string(e.Event)}
	if on := g.reporters(e); f.OnNode > 0 {
		parts = append(parts, "node: "+on[(f.OnNode-1)%len(on)])
	}
	if f.Message > 0 && len(g.messages) > 0 && slices.Contains(e.Fields, sim.FieldMsgs) {
		parts = append(parts, fmt.Sprintf("message: %q", g.messages[(f.Message-1)%len(g.messages)]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// reporters lists the nodes that may report the event, by the kinds of node its Where
// names ("leader broker", "producer, consumer"); every node when it names none.
func (g genScene) reporters(e sim.EventSpec) []string {
	var out []string
	for _, role := range []string{"producer", "broker", "consumer", "sink", "controller"} {
		if strings.Contains(e.Where, role) {
			out = append(out, g.roles[role]...)
		}
	}
	if len(out) == 0 {
		return g.wire
	}
	return out
}

// reporterIndex is where node is among the reporters of event, for a hand-written
// genFault's OnNode (1 + this).
func (g genScene) reporterIndex(event, node string) int {
	e, _ := sim.LookupEvent(event)
	return index(g.reporters(e), node)
}

// partition splits the link nodes in two by the mask's bits, neither group empty.
func (g genScene) partition(mask int) string {
	var in, out []string
	for i, n := range g.wire {
		if mask>>(i%16)&1 == 1 {
			in = append(in, n)
		} else {
			out = append(out, n)
		}
	}
	if len(in) == 0 {
		in, out = out[:1], out[1:]
	} else if len(out) == 0 {
		out, in = in[:1], in[1:]
	}
	return "[[" + strings.Join(in, ", ") + "], [" + strings.Join(out, ", ") + "]]"
}

// withSchedule returns the scene's text with the faults appended to its `faults:` and
// its `expect` removed: a random schedule has no known outcome. stop.ms stays as the
// scene has it.
func (g genScene) withSchedule(fs []genFault) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(g.text, &doc); err != nil {
		return nil, err
	}
	root := doc.Content[0]
	var faults *yaml.Node
	for i := 0; i < len(root.Content); i += 2 {
		switch root.Content[i].Value {
		case "expect":
			root.Content = slices.Delete(root.Content, i, i+2)
			i -= 2
		case "faults":
			faults = root.Content[i+1]
		}
	}
	if faults == nil {
		faults = &yaml.Node{Kind: yaml.SequenceNode}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "faults"}, faults)
	}
	for _, f := range fs {
		var entry yaml.Node
		if err := yaml.Unmarshal([]byte(g.render(f)), &entry); err != nil {
			return nil, fmt.Errorf("%s: %w", g.render(f), err)
		}
		faults.Content = append(faults.Content, entry.Content[0])
	}
	return yaml.Marshal(&doc)
}

// scheduleText lists the schedule's faults as the scene file has them, for a log line
// or a findings file.
func (g genScene) scheduleText(fs []genFault) string {
	var lines []string
	for _, f := range fs {
		lines = append(lines, "  - "+g.render(f))
	}
	return strings.Join(lines, "\n")
}
