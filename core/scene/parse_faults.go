package scene

import (
	"fmt"
	"slices"
	"strings"

	"deliverylab/core/flink"
	"deliverylab/core/sim"

	"go.yaml.in/yaml/v3"
)

// faultKeys are the keys a fault entry may have; exactly one action among them.
var faultKeys = []string{"at.ms", "when", "for.ms", "crash", "restart", "pause", "resume", "cut", "cut-oneway", "heal", "heal-oneway", "partition", "drop", "id", "delay", "delay.ms", "duplicate"}

var faultActions = []string{"crash", "restart", "pause", "resume", "cut", "cut-oneway", "heal", "heal-oneway", "partition", "drop", "delay", "duplicate"}

// futureEvents are protocol points of the scene format (scenes/README.md) that no
// package reports yet, with what brings them. Every other event a trigger may name comes
// from the protocol packages' registry (sim.EventSpecs).
var futureEvents = map[string]string{}

// responseEvents lists the events that carry the wire id of a response just sent (the
// ones `drop: response` and the like can act on), in registration order.
func responseEvents() []string { return eventsFilling(sim.FieldWireID) }

// requestEvents lists the events whose point is a request just sent: the ones a
// `drop|delay|duplicate: request` fault can name.
func requestEvents() []string { return eventsFilling(sim.FieldRequestWire) }

func eventsFilling(field sim.Field) []string {
	var out []string
	for _, e := range sim.EventSpecs() {
		if slices.Contains(e.Fields, field) {
			out = append(out, string(e.Event))
		}
	}
	return out
}

// eventNames lists the events a trigger may name, sorted.
func eventNames() []string {
	var out []string
	for _, e := range sim.EventSpecs() {
		out = append(out, string(e.Event))
	}
	slices.Sort(out)
	return out
}

// undoable are the actions for.ms undoes.
var undoable = []string{"crash", "pause", "cut", "cut-oneway", "partition"}

func (p *parser) faults(s *Scene, f field) {
	for i, n := range p.list(f, "") {
		if i == MaxFaults {
			p.fail(n, fmt.Sprintf("faults[%d]", i), "a scene may have at most %d faults", MaxFaults)
			return
		}
		fs, ok := p.fault(s, n, fmt.Sprintf("faults[%d]", i), false)
		if !ok {
			return
		}
		s.Faults = append(s.Faults, fs)
	}
}

// fault reads one fault entry. interactive entries (from the UI) need no time: they
// happen now, and may name an in-flight message by id.
func (p *parser) fault(s *Scene, n *yaml.Node, path string, interactive bool) (FaultSpec, bool) {
	m := p.mapping(n, path, faultKeys...)
	if p.err != nil {
		return FaultSpec{}, false
	}
	fs := FaultSpec{Line: n.Line}
	var action string
	for _, a := range faultActions {
		if _, ok := m[a]; ok {
			if action != "" {
				p.fail(n, path, "expected one action, got both %s and %s", action, a)
				return fs, false
			}
			action = a
		}
	}
	if action == "" {
		p.fail(n, path, "expected an action: one of %s", strings.Join(faultActions, ", "))
		return fs, false
	}
	at, hasAt := m["at.ms"]
	when, hasWhen := m["when"]
	switch {
	case hasAt && hasWhen:
		p.fail(n, path, "expected at.ms or when, not both")
	case hasAt:
		fs.AtMs = p.integer(at, path, 0, MaxRunMs)
	case hasWhen:
		fs.When = p.trigger(s, when, path)
	case !interactive:
		p.fail(n, path, "expected at.ms (a virtual time) or when (a protocol point)")
	}
	fs.Fault = p.action(s, m, action, path, fs.When)
	if fm, ok := m["for.ms"]; ok {
		fs.Fault.ForMs = p.integer(fm, path, 1, MaxRunMs)
		if !slices.Contains(undoable, action) {
			p.fail(fm.keyN, path+".for.ms", "only %s can be undone after for.ms", strings.Join(undoable, ", "))
		}
	}
	if fs.When != nil {
		fs.When.Fault = fs.Fault
	}
	return fs, p.err == nil
}

func (p *parser) action(s *Scene, m map[string]field, action, path string, when *sim.Trigger) sim.Fault {
	f := m[action]
	ap := path + "." + action
	switch action {
	case "crash", "restart", "pause", "resume":
		name := p.str(f, path)
		if name == "controller" {
			p.fail(f.value, ap, "the controller is a KRaft quorum and does not %s here; %s a broker or an application", action, action)
		} else if !s.hasNodeOrPart(name) {
			p.fail(f.value, ap, "expected a node of this scene (%s), got %q", strings.Join(append(s.nodeNames(), s.partNames()...), ", "), name)
		} else if part, jm := s.jobPart(name); jm {
			p.fail(f.value, ap, "the job manager is the job's process: %s the job itself (%s)", action, strings.TrimSuffix(name, "/"+flink.JobManager))
		} else if part && action == "restart" {
			p.fail(f.value, ap, "a subtask does not restart on its own: a crashed subtask is a task failure, and the job restarts it itself")
		} else if part && (action == "pause" || action == "resume") && strings.HasPrefix(sim.PortOf(name), "sink-") {
			p.fail(f.value, ap, "a sink subtask runs in its operator's task (one thread): %s the operator subtask instead (%s)", action, sim.NodeOf(name)+"/"+s.operatorOfSink(name))
		}
		return sim.Fault{Kind: sim.FaultKind(action), Node: name}
	case "cut", "cut-oneway", "heal", "heal-oneway":
		if action == "heal" && f.value.Kind == yaml.ScalarNode && f.value.Value == "all" {
			return sim.Fault{Kind: sim.FaultHealAll}
		}
		pair := p.strings(f, path)
		if p.err == nil && len(pair) != 2 {
			p.fail(f.value, ap, "expected two node names, [from, to]")
			return sim.Fault{}
		}
		for _, x := range pair {
			if !s.hasNode(x) && x != "controller" {
				p.fail(f.value, ap, "expected nodes of this scene (%s), got %q", strings.Join(s.nodeNames(), ", "), x)
			}
		}
		if p.err != nil {
			return sim.Fault{}
		}
		return sim.Fault{Kind: sim.FaultKind(action), From: pair[0], To: pair[1]}
	case "partition":
		var groups [][]string
		for _, g := range p.list(f, path) {
			var names []string
			if g.Kind != yaml.SequenceNode {
				p.fail(g, ap, "expected a list of groups, each a list of node names")
				return sim.Fault{}
			}
			for _, x := range g.Content {
				if !s.hasNode(x.Value) && x.Value != "controller" {
					p.fail(x, ap, "expected nodes of this scene (%s), got %q", strings.Join(s.nodeNames(), ", "), x.Value)
				}
				names = append(names, x.Value)
			}
			groups = append(groups, names)
		}
		if p.err == nil && len(groups) < 2 {
			p.fail(f.value, ap, "expected at least two groups, such as [[broker-1], [broker-2, broker-3]]; nodes not listed join the last group")
		}
		return sim.Fault{Kind: sim.FaultPartition, Groups: groups}
	}
	// drop, delay, duplicate: a message on the wire
	what := p.str(f, path)
	fault := sim.Fault{Kind: sim.FaultKind(action)}
	if action == "delay" {
		d, ok := m["delay.ms"]
		if !ok {
			p.fail(f.value, ap, "needs delay.ms: how much later the message arrives")
		} else {
			fault.DelayMs = p.integer(d, path, 1, MaxRunMs)
		}
	}
	switch what {
	case "response":
		if carriers := responseEvents(); when == nil || !slices.Contains(carriers, string(when.Event)) {
			p.fail(f.value, ap, "response needs when: {event: %s}: the response just sent", strings.Join(carriers, "} or {event: "))
		}
	case "request":
		if carriers := requestEvents(); when == nil || !slices.Contains(carriers, string(when.Event)) {
			p.fail(f.value, ap, "request needs when: {event: %s}: the request just sent", strings.Join(carriers, "} or {event: "))
		}
	case "message":
		id, ok := m["id"]
		if !ok {
			p.fail(f.value, ap, "message needs id: the number of a message in flight")
		} else {
			fault.WireID = p.integer(id, path, 1, 1<<62)
		}
	default:
		p.fail(f.value, ap, "expected response or request (with a when) or message (with an id), got %q", what)
	}
	return fault
}

func (p *parser) trigger(s *Scene, f field, path string) *sim.Trigger {
	wp := path + ".when"
	m := p.mapping(f.value, wp, "node", "event", "message", "checkpoint", "detail")
	t := &sim.Trigger{Node: p.str(m["node"], wp), Event: sim.Event(p.str(m["event"], wp)), Message: p.str(m["message"], wp),
		Detail: p.str(m["detail"], wp)}
	if p.err != nil {
		return t
	}
	_, known := sim.LookupEvent(string(t.Event))
	later, future := futureEvents[string(t.Event)]
	switch {
	case t.Event == "":
		p.fail(f.value, wp+".event", "missing; expected a protocol point such as appended, responded, acked or crashed")
	case future:
		p.fail(m["event"].value, wp+".event", "%s is not modelled yet (it comes with %s)", t.Event, later)
	case !known:
		p.fail(m["event"].value, wp+".event", "expected one of %s, got %q", strings.Join(eventNames(), ", "), t.Event)
	}
	// An empty node, message or detail would match any (sim.Trigger): leaving the key
	// out says that; an empty value is refused like any other unknown one.
	if n, ok := m["node"]; ok && !s.hasNodeOrPart(t.Node) && t.Node != "controller" {
		p.fail(n.value, wp+".node", "expected a node of this scene (%s), got %q", strings.Join(append(s.nodeNames(), s.partNames()...), ", "), t.Node)
	}
	if msg, ok := m["message"]; ok && !s.hasMessage(t.Message) {
		p.fail(msg.value, wp+".message", "expected a message this scene sends (like %s#1), got %q", s.firstProducer(), t.Message)
	}
	if d, ok := m["detail"]; ok && t.Detail == "" {
		p.fail(d.value, wp+".detail", "expected the point's detail (see the trigger events); leave detail out to match any")
	}
	if c, ok := m["checkpoint"]; ok {
		t.Checkpoint = p.integer(c, wp, 1, 1<<31-1)
		if spec, _ := sim.LookupEvent(string(t.Event)); p.err == nil && !slices.Contains(spec.Fields, sim.FieldCheckpoint) {
			p.fail(c.keyN, wp+".checkpoint", "%s carries no checkpoint; expected one of %s", t.Event, strings.Join(eventsFilling(sim.FieldCheckpoint), ", "))
		}
	}
	return t
}

// captionStops reads a caption's pause and highlight keys.
func (p *parser) captionStops(s *Scene, m map[string]field, path string) (bool, []string) {
	pause := false
	if f, ok := m["pause"]; ok {
		switch p.str(f, path) {
		case "true":
			pause = true
		case "false":
		default:
			p.fail(f.value, path+".pause", "expected true or false, got %q", f.value.Value)
		}
	}
	var nodes []string
	if f, ok := m["highlight"]; ok {
		nodes = p.strings(f, path)
		if p.err == nil && len(nodes) == 0 {
			p.fail(f.value, path+".highlight", "expected a list of this scene's nodes (%s)", strings.Join(s.nodeNames(), ", "))
		}
		for _, name := range nodes {
			if !s.hasNode(name) {
				p.fail(f.value, path+".highlight", "expected a node of this scene (%s), got %q", strings.Join(s.nodeNames(), ", "), name)
			}
		}
	}
	return pause, nodes
}

func (p *parser) narration(s *Scene, f field) {
	for i, n := range p.list(f, "") {
		path := fmt.Sprintf("narration[%d]", i)
		if i == MaxCaptions {
			p.fail(n, path, "a scene may have at most %d captions", MaxCaptions)
			return
		}
		m := p.mapping(n, path, "at.ms", "when", "en", "zh", "pause", "highlight")
		ns := NarrationSpec{Text: Text{En: p.str(m["en"], path), Zh: p.str(m["zh"], path)}}
		ns.Pause, ns.Highlight = p.captionStops(s, m, path)
		if p.err == nil && (ns.Text.En == "" || ns.Text.Zh == "") {
			p.fail(n, path, "expected both en and zh text")
		}
		at, hasAt := m["at.ms"]
		when, hasWhen := m["when"]
		switch {
		case hasAt && hasWhen:
			p.fail(n, path, "expected at.ms or when, not both")
		case hasAt:
			ns.AtMs = p.integer(at, path, 0, MaxRunMs)
		case hasWhen:
			ns.When = p.trigger(s, when, path)
		default:
			p.fail(n, path, "expected at.ms or when")
		}
		s.Narration = append(s.Narration, ns)
	}
}
