package scene

import (
	"fmt"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// DurabilityProblems holds a finished run to what acks=all promises (FIDELITY.md): a
// record a producer with acks=all was told is written, to a topic whose effective
// min.insync.replicas is m ≥ 2, survives any failure of fewer than m brokers — unless an
// unclean election (unclean.leader.election.enable) gave it up. Each lost message that
// breaks the promise is one line. Only a wrong simulation can break it; the explorer
// checks it on every schedule it runs.
func (r *Run) DurabilityProblems(rep Report) []string {
	obs := r.World.Observations()
	crashed := map[string]bool{}
	for _, o := range obs.All() {
		switch {
		case o.Event == protocol.Elected && o.Election == "unclean":
			return nil // given up knowingly
		case o.Event == sim.Crashed && strings.HasPrefix(o.Node, "broker-"):
			crashed[o.Node] = true
		}
	}
	var bad []string
	for _, f := range rep.Ledger {
		if f.Fate != fate.Lost {
			continue
		}
		p, topic := r.Scene.producerOf(f.Msg)
		if p == nil || p.Config.Acks != protocol.AcksAll {
			continue
		}
		minISR := r.Scene.Cluster.Config.EffectiveMinISR(r.Scene.replicationOf(topic))
		if minISR >= 2 && len(crashed) < minISR && !r.logged(topic, f.Msg) {
			bad = append(bad, fmt.Sprintf("%s: acknowledged with acks=all to %s (min.insync.replicas %d) and lost, though only %d broker(s) failed",
				f.Msg, topic, minISR, len(crashed)))
		}
	}
	return bad
}

// logHolder is a broker: whether a replica of a topic's partitions, up or down, holds a
// message.
type logHolder interface {
	LogHolds(topic, msg string) bool
}

// logged reports whether any broker's log of the topic still holds the message (a loss
// downstream of the log is not the log's).
func (r *Run) logged(topic, msg string) bool {
	for _, name := range r.World.NodeNames() {
		if b, ok := nodeAs[logHolder](r.World, name); ok && b.LogHolds(topic, msg) {
			return true
		}
	}
	return false
}

// producerOf is the producer application that sent a message ("p1#3"), and its topic.
func (s *Scene) producerOf(msg string) (*ProducerSpec, string) {
	name, _, _ := strings.Cut(msg, "#")
	for i := range s.Producers {
		if s.Producers[i].Name == name {
			return &s.Producers[i], s.Producers[i].Work.Topic
		}
	}
	return nil, ""
}

// replicationOf is a topic's replication factor (1 for a topic the scene does not name).
func (s *Scene) replicationOf(topic string) int {
	for _, t := range s.Cluster.Topics {
		if t.Name == topic {
			return t.RF
		}
	}
	return 1
}
