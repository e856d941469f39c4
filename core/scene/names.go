package scene

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"deliverylab/core/flink"
	"deliverylab/core/kafka"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
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
	for _, ss := range s.Streams {
		out = append(out, ss.Name)
	}
	for _, k := range s.Sinks {
		out = append(out, k.Name)
	}
	for _, j := range s.Jobs {
		out = append(out, j.Name)
	}
	return out
}

func (s *Scene) hasNode(name string) bool { return slices.Contains(s.nodeNames(), name) }

// partNames lists the parts of the scene's Flink jobs: "totals/jobmanager",
// "totals/source-0", … A part crashes (a task failure) and reports protocol points; links,
// pauses and restarts are its process's.
func (s *Scene) partNames() []string {
	var out []string
	for _, j := range s.Jobs {
		for _, part := range j.Spec.Parts() {
			out = append(out, j.Name+"/"+part)
		}
	}
	return out
}

// hasNodeOrPart reports whether a name is a node of the scene or a part of one of its jobs.
func (s *Scene) hasNodeOrPart(name string) bool {
	return s.hasNode(name) || slices.Contains(s.partNames(), name)
}

// jobPart reports whether a name is a part of one of the scene's Flink jobs
// ("totals/map-0"), and whether that part is the job manager.
func (s *Scene) jobPart(name string) (part, jobManager bool) {
	if !slices.Contains(s.partNames(), name) {
		return false, false
	}
	return true, strings.HasSuffix(name, "/"+flink.JobManager)
}

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

// Kafka's internal topics (Topic.isInternal; __cluster_metadata is KRaft's log, whose
// creation ControllerApis.createTopics prohibits). The cluster creates them itself, and
// ReplicaManager.appendToLocalLog refuses a client's append to one ("Cannot append to
// internal topic"), so a scene's topic may not take their names.

// topicNameProblem says why Kafka would refuse to create a topic of this name, after
// the topics already named (ControllerApis.createTopics, then
// ReplicationControlManager.validateNewTopicNames with Topic.validate and
// Topic.hasCollision); "" when it would not.
func topicNameProblem(name string, earlier []kafka.Topic) string {
	const maxLen = 249 // Topic.MAX_NAME_LENGTH
	switch {
	case name == "." || name == "..":
		return fmt.Sprintf("INVALID_TOPIC_EXCEPTION: Topic name is invalid: '%s' is not allowed", name)
	case len(utf16.Encode([]rune(name))) > maxLen: // a Java String's length
		return fmt.Sprintf("INVALID_TOPIC_EXCEPTION: Topic name is invalid: it is longer than the max allowed length %d", maxLen)
	case strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "":
		return fmt.Sprintf("INVALID_TOPIC_EXCEPTION: Topic name is invalid: %q contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'", name)
	case protocol.IsInternalTopic(name):
		return fmt.Sprintf("%s is one of Kafka's internal topics, which the cluster creates itself and clients may not produce to (INVALID_TOPIC_EXCEPTION: Cannot append to internal topic %s); choose another name", name, name)
	}
	for _, t := range earlier {
		switch {
		case t.Name == name:
			return fmt.Sprintf("INVALID_REQUEST: Duplicate topic name: %s is already a topic of this scene", name)
		case strings.ReplaceAll(t.Name, ".", "_") == strings.ReplaceAll(name, ".", "_"):
			return fmt.Sprintf("INVALID_TOPIC_EXCEPTION: Topic '%s' collides with existing topic: %s ('.' and '_' collide in Kafka's metric names)", name, t.Name)
		}
	}
	return ""
}

// operatorOfSink names the operator subtask whose task runs a job's sink subtask
// ("totals/sink-1" → "count-1"): chained, they are one thread.
func (s *Scene) operatorOfSink(name string) string {
	i, _ := strconv.Atoi(strings.TrimPrefix(sim.PortOf(name), "sink-"))
	for _, j := range s.Jobs {
		if j.Name == sim.NodeOf(name) {
			return j.Spec.OperatorName(i)
		}
	}
	return ""
}
