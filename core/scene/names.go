package scene

import (
	"deliverylab/core/kafka"
	"slices"
	"strconv"
	"strings"
)

// nodeNames lists every node a fault may name, in layout order.
func (s *Scene) nodeNames() []string {
	var out []string
	for _, p := range s.Producers {
		out = append(out, p.Name)
	}
	out = append(out, s.Cluster.BrokerNames()...)
	for _, c := range s.Consumers {
		out = append(out, c.Name)
	}
	for _, k := range s.Sinks {
		out = append(out, k.Name)
	}
	return out
}

func (s *Scene) hasNode(name string) bool { return slices.Contains(s.nodeNames(), name) }

func (s *Scene) hasMessage(id string) bool {
	i := strings.LastIndexByte(id, '#')
	if i < 0 {
		return false
	}
	app := id[:i]
	n, err := strconv.Atoi(id[i+1:])
	if err != nil {
		return false
	}
	for _, p := range s.Producers {
		if p.Name == app && n >= 1 && n <= p.Work.Count {
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
	return slices.ContainsFunc(s.Cluster.Topics, func(t kafka.Topic) bool { return t.Name == name })
}

func (s *Scene) hasSink(name string) bool {
	return slices.ContainsFunc(s.Sinks, func(k SinkSpec) bool { return k.Name == name })
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
