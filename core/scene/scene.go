// Package scene reads scene files (scenes/README.md; format version 1), builds the simulated
// world they describe, runs it to its end and checks the expectation.
package scene

import (
	"path"
	"slices"
	"strings"

	"deliverylab/core/apps"
	"deliverylab/core/kafka"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/server"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"

	"go.yaml.in/yaml/v3"
)

// Scene is a parsed, validated scene file.
type Scene struct {
	File    string
	Name    string // file name without .yaml
	Title   Text
	Summary Text
	Seed    int64
	StopMs  int64 // 0: run until settled
	// KafkaVersion is the Kafka release the brokers and clients follow (kafka.version):
	// 3.9 unless the scene says 4.x.
	KafkaVersion protocol.Version
	// HoldsFor are the releases whose runs the scene's expect describes (holds.for): its
	// own kafka.version unless it says more. make conformance runs it on each.
	HoldsFor  []protocol.Version
	Cluster   kafka.Cluster
	LatencyMs int64
	JitterMs  int64
	Links     map[[2]string]int64 // per-link latency overrides
	Producers []ProducerSpec
	Consumers []ConsumerSpec
	Streams   []StreamsSpec
	Jobs      []JobSpec
	Sinks     []SinkSpec
	Faults    []FaultSpec
	Narration []NarrationSpec
	// Quiz: the questions the page asks before the run (quiz.go).
	Quiz []QuizQuestion
	// Explore is the explore block, nil when the scene has none (the search then tries
	// a default: see explore.Defaults).
	Explore *Explore
	Expect  Expect
	// SimulatorOnly says why the scene cannot be run against a real cluster (a
	// historical toggle, say); "" when it can.
	SimulatorOnly string

	linkNodes []linkRef // network.links entries, checked once every node is known
}

type linkRef struct {
	names []string
	node  *yaml.Node
	path  string
}

// ProducerSpec is a producer application.
type ProducerSpec struct {
	Name      string
	Config    clients.ProducerConfig
	Work      apps.Workload
	StartMs   int64
	OnRestart apps.OnRestart
	Sync      bool // sending: sync, each send waits for its result
	// TransactionSize is how many messages each transaction carries (the last may carry
	// fewer); 0: the producer is not transactional.
	TransactionSize int
	// AbortTransactions are the 1-based numbers of the transactions the application
	// aborts instead of committing.
	AbortTransactions []int
}

// ConsumerSpec is a consumer application.
type ConsumerSpec struct {
	Name    string
	Group   string
	Topics  []string
	Config  clients.ConsumerConfig
	Spec    apps.ConsumerSpec
	StartMs int64
}

// SinkSpec is an external system.
type SinkSpec struct {
	Name string     `json:"name"`
	Kind sinks.Kind `json:"kind"`
}

// FaultSpec is a scripted fault, at a time or at a protocol point.
type FaultSpec struct {
	AtMs  int64
	When  *sim.Trigger // nil for a timed fault
	Fault sim.Fault
	Line  int
}

// NarrationSpec is one caption.
type NarrationSpec struct {
	AtMs int64
	When *sim.Trigger
	Text Text
	// Pause: the playground stops at this caption until the user presses Continue (the
	// CLI and the tests run on; the trace is the same).
	Pause bool
	// Highlight names the nodes the caption talks about, for the canvas to mark.
	Highlight []string
}

// Nodes are what a caption talks about: its highlight, else the node its trigger
// watches; none when neither says.
func (n NarrationSpec) Nodes() []string {
	switch {
	case len(n.Highlight) > 0:
		return n.Highlight
	case n.When != nil && n.When.Node != "":
		return []string{n.When.Node}
	}
	return []string{}
}

// Parse reads a scene file. Errors name the file, the line, the key and what was
// expected.
func Parse(file string, data []byte) (*Scene, error) {
	root, long, err := decode(file, data)
	if err != nil {
		return nil, err
	}
	p := &parser{file: file, long: long, lines: len(lineStarts(data))}
	s := &Scene{File: file, Name: strings.TrimSuffix(path.Base(file), path.Ext(file)), Seed: 1,
		Cluster: kafka.Cluster{Config: server.DefaultConfig()}}
	m := p.mapping(root, "", "title", "summary", "seed", "stop.ms", KafkaVersionKey, HoldsForKey, "cluster", "network", "apps", "sinks", "faults", "narration",
		"quiz", "explore", "expect", "simulator-only")
	if f, ok := m["title"]; ok {
		s.Title = p.text(f, "")
	} else {
		s.Title = Text{En: s.Name, Zh: s.Name}
	}
	if f, ok := m["summary"]; ok {
		s.Summary = p.text(f, "")
	}
	if f, ok := m["seed"]; ok {
		s.Seed = p.integer(f, "", -1<<62, 1<<62)
	}
	if f, ok := m["simulator-only"]; ok {
		if s.SimulatorOnly = p.str(f, ""); s.SimulatorOnly == "" && p.err == nil {
			p.fail(f.value, "simulator-only", "expected the reason the scene cannot run against a real cluster")
		}
	}
	if f, ok := m["stop.ms"]; ok {
		s.StopMs = p.integer(f, "", 1, MaxRunMs)
	}
	if f, ok := m[KafkaVersionKey]; ok {
		s.KafkaVersion = p.kafkaVersion(f.value, KafkaVersionKey)
		s.Cluster.Config = server.DefaultConfigFor(s.KafkaVersion)
	}
	s.HoldsFor = p.holdsFor(m, s.KafkaVersion)
	for _, req := range []string{"cluster", "apps"} {
		if _, ok := m[req]; !ok && p.err == nil {
			p.fail(root, req, "missing; a scene needs cluster and apps")
		}
	}
	p.cluster(s, m["cluster"])
	p.network(s, m["network"])
	p.sinks(s, m["sinks"])
	p.apps(s, m["apps"])
	p.faults(s, m["faults"])
	p.narration(s, m["narration"])
	p.quiz(s, m["quiz"])
	s.Explore = p.explore(s, m["explore"])
	p.expect(s, m["expect"])
	p.crossCheck(s, m)
	if p.err != nil {
		return nil, p.err
	}
	return s, nil
}

// MaxRunMs is the longest run: ten minutes of virtual time.
const MaxRunMs = 600000

// ExpectApplies reports whether the scene's expect describes a run of the release it
// follows: a scene switched to another Kafka release (the page's kafka.version toggle)
// shows what that release does, which its expect need not say.
func (s *Scene) ExpectApplies() bool { return slices.Contains(s.HoldsFor, s.KafkaVersion) }

// HoldsForText names the releases the expect describes: "3.9", "3.9, 4.x" (words of
// no language: the page puts them in English and Chinese sentences alike).
func (s *Scene) HoldsForText() string {
	out := make([]string, len(s.HoldsFor))
	for i, v := range s.HoldsFor {
		out[i] = v.String()
	}
	return strings.Join(out, ", ")
}
