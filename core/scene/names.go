package scene

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

func (s *Scene) brokerNames() []string {
	out := make([]string, s.Brokers)
	for i := range out {
		out[i] = fmt.Sprintf("broker-%d", i+1)
	}
	return out
}

// nodeNames lists every node a fault may name, in layout order.
func (s *Scene) nodeNames() []string {
	var out []string
	for _, p := range s.Producers {
		out = append(out, p.Name)
	}
	out = append(out, s.brokerNames()...)
	for _, c := range s.Consumers {
		out = append(out, c.Name)
	}
	for _, k := range s.Sinks {
		out = append(out, k.Name)
	}
	return out
}

func (s *Scene) hasNode(name string) bool {
	for _, n := range s.nodeNames() {
		if n == name {
			return true
		}
	}
	return false
}

func (s *Scene) hasMessage(id string) bool {
	i := strings.LastIndex(id, "#")
	if i < 0 {
		return false
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil {
		return false
	}
	for _, p := range s.Producers {
		if p.Name == id[:i] && n >= 1 && n <= p.Work.Count {
			return true
		}
	}
	return false
}

func (s *Scene) firstProducer() string {
	if len(s.Producers) > 0 {
		return s.Producers[0].Name
	}
	return "p1"
}

func (s *Scene) hasTopic(name string) bool {
	for _, t := range s.Topics {
		if t.Name == name {
			return true
		}
	}
	return false
}

// Outputs lists the scene's outputs: every sink, and every consumer without a sink.
func (s *Scene) Outputs() []string {
	var out []string
	for _, k := range s.Sinks {
		out = append(out, k.Name)
	}
	for _, c := range s.Consumers {
		if c.Spec.Sink == "" {
			out = append(out, c.Name)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
