package scene

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"deliverylab/core/check"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/server"

	"go.yaml.in/yaml/v3"
)

// Count is an expected count: exact ("2", 2) or a bound (">=1", "<=2", ">0", "<3").
type Count struct {
	Op string // = >= <= > <
	N  int
}

// Holds reports whether got satisfies the count.
func (c Count) Holds(got int) bool {
	switch c.Op {
	case ">=":
		return got >= c.N
	case "<=":
		return got <= c.N
	case ">":
		return got > c.N
	case "<":
		return got < c.N
	}
	return got == c.N
}

func (c Count) String() string {
	if c.Op == "=" {
		return strconv.Itoa(c.N)
	}
	return c.Op + strconv.Itoa(c.N)
}

func parseCount(s string) (Count, error) {
	s = strings.TrimSpace(s)
	for _, op := range []string{">=", "<=", ">", "<", "="} {
		if strings.HasPrefix(s, op) {
			n, err := strconv.Atoi(strings.TrimSpace(s[len(op):]))
			if err != nil || n < 0 {
				break
			}
			return Count{Op: op, N: n}, nil
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return Count{}, fmt.Errorf("expected a count such as 0, 3, \">=1\" or \"<=2\", got %q", s)
	}
	return Count{Op: "=", N: n}, nil
}

// Expect is a scene's expected outcome.
type Expect struct {
	Output  string
	Verdict string
	Counts  map[string]Count // delivered, lost, duplicated, acked, failed, unavailable, sent
	Errors  map[string]Count
	// ClientErrors: errors one client received, by client (errors: {p1: {NAME: count}}).
	ClientErrors map[string]map[string]Count
	clientKeys   map[string]*yaml.Node // where each client was named, for its error
	Anomalies    map[check.Anomaly]Count
	Line         int
}

var countKeys = []string{"delivered", "lost", "duplicated", "acked", "failed", "unavailable", "sent"}

func (p *parser) expect(s *Scene, f field) {
	s.Expect = Expect{Counts: map[string]Count{}, Errors: map[string]Count{}, Anomalies: map[check.Anomaly]Count{}}
	if f.value == nil {
		return
	}
	s.Expect.Line = f.value.Line
	keys := append([]string{"output", "verdict", "errors", "anomalies"}, countKeys...)
	m := p.mapping(f.value, "expect", keys...)
	s.Expect.Output = p.str(m["output"], "expect")
	if v, ok := m["verdict"]; ok {
		s.Expect.Verdict = p.str(v, "expect")
		switch s.Expect.Verdict {
		case "exactly-once", "at-least-once", "at-most-once", "none":
		default:
			p.fail(v.value, "expect.verdict", "expected exactly-once, at-least-once, at-most-once or none, got %q", s.Expect.Verdict)
		}
	}
	for _, k := range countKeys {
		if c, ok := m[k]; ok {
			s.Expect.Counts[k] = p.count(c, "expect")
		}
	}
	p.expectErrors(m["errors"], &s.Expect)
	countMap(p, m["anomalies"], "expect.anomalies", s.Expect.Anomalies, check.AllAnomalies)
}

func (p *parser) count(f field, path string) Count {
	c, err := parseCount(p.str(f, path))
	if err != nil {
		p.fail(f.value, join(path, f.key), "%s", err.Error())
	}
	return c
}

// expectErrors reads expect.errors: error names to counts, and clients to mappings of
// error names to counts (what that client alone received).
func (p *parser) expectErrors(f field, e *Expect) {
	e.ClientErrors, e.clientKeys = map[string]map[string]Count{}, map[string]*yaml.Node{}
	if f.value == nil {
		return
	}
	if f.value.Kind != yaml.MappingNode {
		p.fail(f.value, "expect.errors", "expected a mapping of error names (or clients) to counts")
		return
	}
	plain := &yaml.Node{Kind: yaml.MappingNode, Line: f.value.Line, Column: f.value.Column}
	for i := 0; i+1 < len(f.value.Content); i += 2 {
		k, v := f.value.Content[i], f.value.Content[i+1]
		if v.Kind != yaml.MappingNode {
			plain.Content = append(plain.Content, k, v)
			continue
		}
		e.ClientErrors[k.Value], e.clientKeys[k.Value] = map[string]Count{}, k
		countMap(p, field{key: k.Value, keyN: k, value: v}, "expect.errors."+k.Value, e.ClientErrors[k.Value], protocol.ErrorNames())
	}
	countMap(p, field{key: f.key, keyN: f.keyN, value: plain}, "expect.errors", e.Errors, protocol.ErrorNames())
}

// countMap reads a mapping of names (error names, anomalies) to counts.
func countMap[N ~string](p *parser, f field, path string, out map[N]Count, allowed []N) {
	if f.value == nil {
		return
	}
	if f.value.Kind != yaml.MappingNode {
		p.fail(f.value, path, "expected a mapping of names to counts")
		return
	}
	for i := 0; i+1 < len(f.value.Content); i += 2 {
		k := f.value.Content[i]
		if allowed != nil && !slices.Contains(allowed, N(k.Value)) {
			names := make([]string, len(allowed))
			for i, n := range allowed {
				names[i] = string(n)
			}
			p.fail(k, path+"."+k.Value, "expected one of %s", strings.Join(names, ", "))
			return
		}
		out[N(k.Value)] = p.count(field{key: k.Value, keyN: k, value: f.value.Content[i+1]}, path)
	}
}

// crossCheck validates what spans sections: names, topics, sinks and the output.
func (p *parser) crossCheck(s *Scene, m map[string]field) {
	if p.err != nil {
		return
	}
	if s.Cluster.Config.TruncateToHighWatermark && s.SimulatorOnly == "" {
		p.fail(m["cluster"].value, "cluster.config."+server.TruncateToHighWatermarkKey,
			"is replication as it was before KIP-101, which no Kafka 3.9 broker runs: the scene must say simulator-only (the reason) so the conformance suite does not run it")
	}
	seen := map[string]bool{"controller": true}
	for _, b := range s.Cluster.BrokerNames() {
		seen[b] = true
	}
	appsN := m["apps"].value
	for _, ps := range s.Producers {
		p.uniqueName(seen, ps.Name, appsN, fmt.Sprintf("apps producer %q", ps.Name))
		if !s.hasTopic(ps.Work.Topic) {
			p.fail(appsN, fmt.Sprintf("apps producer %s send.topic", ps.Name), "expected a topic of cluster.topics, got %q", ps.Work.Topic)
		}
	}
	for _, cs := range s.Consumers {
		p.uniqueName(seen, cs.Name, appsN, fmt.Sprintf("apps consumer %q", cs.Name))
		for _, t := range cs.Topics {
			if !s.hasTopic(t) {
				p.fail(appsN, "apps consumer "+cs.Name+" topics", "expected topics of cluster.topics, got %q", t)
			}
		}
		if cs.Spec.Sink != "" && !s.hasSink(cs.Spec.Sink) {
			p.fail(appsN, "apps consumer "+cs.Name+" sink", "expected a sink of sinks, got %q", cs.Spec.Sink)
		}
		p.sinkFits(s, cs, appsN)
	}
	for _, ss := range s.Streams {
		p.uniqueName(seen, ss.Name, appsN, fmt.Sprintf("apps streams %q", ss.Name))
		for _, t := range []string{ss.Spec.From, ss.Spec.To} {
			if !s.hasTopic(t) {
				p.fail(appsN, "apps streams "+ss.Name+" from/to", "expected topics of cluster.topics, got %q", t)
			}
		}
	}
	p.aggregateFits(s, appsN)
	p.jobSinksFit(s, appsN)
	for _, k := range s.Sinks {
		p.uniqueName(seen, k.Name, m["sinks"].value, "sinks "+k.Name)
	}
	for _, l := range s.linkNodes {
		for _, n := range l.names {
			if !s.hasNode(n) && n != "controller" {
				p.fail(l.node, l.path, "expected nodes of this scene (%s), got %q", strings.Join(s.nodeNames(), ", "), n)
			}
		}
	}
	for _, client := range slices.Sorted(maps.Keys(s.Expect.ClientErrors)) {
		if !s.hasNode(client) {
			p.fail(s.Expect.clientKeys[client], "expect.errors."+client, "expected an error name or a node of this scene (%s), got %q",
				strings.Join(s.nodeNames(), ", "), client)
		}
	}
	outs := s.Outputs()
	ef := m["expect"]
	switch {
	case s.Expect.Output != "" && !slices.Contains(outs, s.Expect.Output):
		p.fail(ef.value, "expect.output", "expected one of this scene's outputs (%s), got %q", strings.Join(outs, ", "), s.Expect.Output)
	case s.Expect.Output == "" && len(outs) > 1 && ef.value != nil:
		p.fail(ef.value, "expect.output", "missing; this scene has several outputs (%s): name the one the verdict is about", strings.Join(outs, ", "))
	case s.Expect.Output == "" && len(outs) == 1:
		s.Expect.Output = outs[0]
	}
}

func (p *parser) uniqueName(seen map[string]bool, name string, n *yaml.Node, what string) {
	if name == "" {
		p.fail(n, what, "missing name")
		return
	}
	if seen[name] {
		p.fail(n, what, "the name %q is already used by another node", name)
	}
	if strings.Contains(name, "/") {
		// An address "node/port" names one client inside a node (sim.Address).
		p.fail(n, what, "expected a name without '/', got %q", name)
	}
	seen[name] = true
}
