package scene

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"deliverylab/core/flink"
	"deliverylab/core/sim"

	"go.yaml.in/yaml/v3"
)

// Explore is a scene's explore block: the faults "Find a failure" may inject, at any
// protocol point of the run, and how many at once.
type Explore struct {
	Faults []ExploreFault
	Depth  int // faults in one schedule, at most
	Budget int // schedules tried, at most
}

// ExploreFault is one entry of explore.faults with its names expanded: the concrete
// faults it stands for, each without a time or a point (the search places them).
type ExploreFault struct {
	Text   string      // as written ("crash: broker-*")
	Faults []sim.Fault // one per node or link the names match, in the scene's order
	// Wire: "request" or "response" for a drop, delay or duplicate — it acts on the
	// message just sent at a point that carries one.
	Wire string
}

// The explore block's limits and defaults.
const (
	MaxExploreDepth     = 3
	DefaultExploreDepth = 1
	DefaultBudget       = 20000
	MaxBudget           = 1000000
)

// exploreActions are the faults a search may place; restarts, resumes and heals are the
// for.ms of these.
var exploreActions = []string{"crash", "pause", "cut", "cut-oneway", "partition", "drop", "delay", "duplicate"}

// ParseExplore reads an explore block given apart from the scene file (the default
// search, or one a user typed): `explore: {faults: [...], depth: 2}`, with this scene's
// names.
func (s *Scene) ParseExplore(src []byte) (*Explore, error) {
	root, long, err := decode("explore", src)
	if err != nil {
		return nil, err
	}
	p := &parser{file: "explore", long: long, lines: len(lineStarts(src))}
	m := p.mapping(root, "", "explore")
	if _, ok := m["explore"]; !ok && p.err == nil {
		p.fail(root, "explore", "missing; expected explore: {faults: [...]}")
	}
	e := p.explore(s, m["explore"])
	if p.err != nil {
		return nil, p.err
	}
	return e, nil
}

func (p *parser) explore(s *Scene, f field) *Explore {
	if f.value == nil {
		return nil
	}
	m := p.mapping(f.value, "explore", "faults", "depth", "budget")
	e := &Explore{Depth: DefaultExploreDepth, Budget: DefaultBudget}
	if d, ok := m["depth"]; ok {
		e.Depth = int(p.integer(d, "explore", 1, MaxExploreDepth))
	}
	if b, ok := m["budget"]; ok {
		e.Budget = int(p.integer(b, "explore", 1, MaxBudget))
	}
	entries := p.list(m["faults"], "explore")
	if p.err == nil && len(entries) == 0 {
		p.fail(f.value, "explore.faults", "expected a list of faults the search may inject, such as [crash: \"broker-*\", drop: response]")
	}
	for i, n := range entries {
		ef, ok := p.exploreFault(s, n, fmt.Sprintf("explore.faults[%d]", i))
		if !ok {
			return nil
		}
		e.Faults = append(e.Faults, ef)
	}
	return e
}

// exploreFault reads one entry: an action with names that may use * (crash: "broker-*",
// cut: [p1, "broker-*"]), or a wire fault on the request or response just sent; for.ms
// undoes a crash, pause or cut after that long.
func (p *parser) exploreFault(s *Scene, n *yaml.Node, where string) (ExploreFault, bool) {
	m := p.mapping(n, where, append(slices.Clone(exploreActions), "for.ms", "delay.ms")...)
	if p.err != nil {
		return ExploreFault{}, false
	}
	var action string
	for _, a := range exploreActions {
		if _, ok := m[a]; ok {
			if action != "" {
				p.fail(n, where, "expected one action, got both %s and %s", action, a)
				return ExploreFault{}, false
			}
			action = a
		}
	}
	if action == "" {
		p.fail(n, where, "expected an action: one of %s (the search undoes them with for.ms)", strings.Join(exploreActions, ", "))
		return ExploreFault{}, false
	}
	ap := where + "." + action
	ef := ExploreFault{}
	var forMs int64
	if fm, ok := m["for.ms"]; ok {
		forMs = p.integer(fm, where, 1, MaxRunMs)
		if !slices.Contains(undoable, action) {
			p.fail(fm.keyN, where+".for.ms", "only crash, pause, cut and partition can be undone after for.ms")
		}
	}
	switch action {
	case "crash", "pause":
		pattern := p.str(m[action], where)
		ef.Text = action + ": " + pattern
		for _, name := range s.matchNames(pattern, action) {
			ef.Faults = append(ef.Faults, sim.Fault{Kind: sim.FaultKind(action), Node: name, ForMs: forMs})
		}
		if p.err == nil && len(ef.Faults) == 0 {
			p.fail(m[action].value, ap, "matches no node this scene can %s (%s)", action, strings.Join(s.crashable(action), ", "))
		}
	case "cut", "cut-oneway":
		pair := p.strings(m[action], where)
		if p.err == nil && len(pair) != 2 {
			p.fail(m[action].value, ap, "expected two node names, [from, to], either may use *")
			return ef, false
		}
		ef.Text = action + ": [" + strings.Join(pair, ", ") + "]"
		seen := map[[2]string]bool{}
		for _, a := range s.matchLinkEnds(pair[0]) {
			for _, b := range s.matchLinkEnds(pair[1]) {
				k := [2]string{a, b}
				if action == "cut" && b < a {
					k = [2]string{b, a} // a cut is both directions: one fault per link
				}
				if a == b || seen[k] {
					continue
				}
				seen[k] = true
				ef.Faults = append(ef.Faults, sim.Fault{Kind: sim.FaultKind(action), From: a, To: b, ForMs: forMs})
			}
		}
		if p.err == nil && len(ef.Faults) == 0 {
			p.fail(m[action].value, ap, "matches no link between two nodes of this scene (%s)", strings.Join(s.nodeNames(), ", "))
		}
	case "partition":
		// one fault as written, names without patterns: [[broker-1], [broker-2, broker-3]]
		f := p.action(s, m, action, where, nil)
		f.ForMs = forMs
		ef.Text = action + ": " + describeGroups(f.Groups)
		ef.Faults = []sim.Fault{f}
	default: // drop, delay, duplicate
		ef.Wire = p.str(m[action], where)
		ef.Text = action + ": " + ef.Wire
		if p.err == nil && ef.Wire != "request" && ef.Wire != "response" {
			p.fail(m[action].value, ap, "expected request or response (the one just sent at a protocol point), got %q", ef.Wire)
		}
		f := sim.Fault{Kind: sim.FaultKind(action)}
		if action == "delay" {
			d, ok := m["delay.ms"]
			if !ok {
				p.fail(m[action].value, ap, "needs delay.ms: how much later the message arrives")
			} else {
				f.DelayMs = p.integer(d, where, 1, MaxRunMs)
			}
		} else if d, ok := m["delay.ms"]; ok {
			p.fail(d.keyN, where+".delay.ms", "only a delay takes delay.ms")
		}
		ef.Faults = []sim.Fault{f}
	}
	return ef, p.err == nil
}

func describeGroups(groups [][]string) string {
	var gs []string
	for _, g := range groups {
		gs = append(gs, "["+strings.Join(g, ", ")+"]")
	}
	return "[" + strings.Join(gs, ", ") + "]"
}

// matchNames lists the nodes and job parts a pattern names (path.Match, so * and ?)
// that action may hit, in the scene's order: never the controller (a KRaft quorum here),
// a job manager (crash the job), or, for a pause, a sink subtask (it runs in its
// operator's thread).
func (s *Scene) matchNames(pattern, action string) []string {
	var out []string
	for _, name := range s.crashable(action) {
		if ok, _ := path.Match(pattern, name); ok {
			out = append(out, name)
		}
	}
	return out
}

// crashable lists the names a crash or pause may hit.
func (s *Scene) crashable(action string) []string {
	var out []string
	for _, name := range append(s.nodeNames(), s.partNames()...) {
		part, jm := s.jobPart(name)
		switch {
		case jm:
		case part && action == "pause" && strings.HasPrefix(sim.PortOf(name), "sink-"):
		case part && action == "pause" && strings.HasSuffix(name, "/"+flink.JobManager):
		default:
			out = append(out, name)
		}
	}
	return out
}

// matchLinkEnds lists the nodes (and the controller) a link end's pattern names.
func (s *Scene) matchLinkEnds(pattern string) []string {
	var out []string
	for _, name := range append(s.nodeNames(), "controller") {
		if ok, _ := path.Match(pattern, name); ok {
			out = append(out, name)
		}
	}
	return out
}
