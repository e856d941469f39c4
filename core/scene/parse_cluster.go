package scene

import (
	"fmt"
	"slices"
	"strings"

	"deliverylab/core/apps"
	"deliverylab/core/kafka"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/server"
	"deliverylab/core/props"
	"deliverylab/core/sinks"

	"go.yaml.in/yaml/v3"
)

func (p *parser) cluster(s *Scene, f field) {
	if f.value == nil {
		return
	}
	m := p.mapping(f.value, "cluster", "brokers", "config", "topics")
	b, ok := m["brokers"]
	if !ok {
		p.fail(f.value, "cluster.brokers", "missing; expected the number of brokers (1 to 9)")
		return
	}
	s.Cluster.Brokers = int(p.integer(b, "cluster", 1, MaxBrokers))
	if c, ok := m["config"]; ok {
		p.configMap(c, "cluster.config", func(key string, v props.Value) error {
			return server.ConfigKeys.Set(&s.Cluster.Config, key, v)
		})
		if err := s.Cluster.Config.Validate(); err != nil && p.err == nil {
			key := "replica.fetch.wait.max.ms"
			for _, feature := range []string{server.TransactionVersionKey, server.EligibleLeaderReplicasVersionKey,
				server.GroupConsumerSessionTimeoutKey, server.GroupConsumerHeartbeatIntervalKey, server.GroupConsumerAssignmentIntervalKey} {
				if strings.HasPrefix(err.Error(), feature) {
					key = feature
				}
			}
			p.fail(configKeyNode(c, key, c.value), "cluster.config."+key, "%s", err.Error())
		}
	}
	for i, tn := range p.list(m["topics"], "cluster") {
		path := fmt.Sprintf("cluster.topics[%d]", i)
		if i == MaxTopics {
			p.fail(tn, path, "a scene may have at most %d topics", MaxTopics)
			return
		}
		tm := p.mapping(tn, path, "name", "partitions", "replication.factor", "leaders")
		t := kafka.Topic{Name: p.str(tm["name"], path), Partitions: 1, RF: min(3, s.Cluster.Brokers)}
		if t.Name == "" && p.err == nil {
			p.fail(tn, path+".name", "missing; expected the topic's name")
		} else if why := topicNameProblem(t.Name, s.Cluster.Topics); why != "" {
			p.fail(tm["name"].value, path+".name", "%s", why)
		}
		if f, ok := tm["partitions"]; ok {
			t.Partitions = int(p.integer(f, path, 1, MaxTopicPartitions))
		}
		if f, ok := tm["replication.factor"]; ok {
			t.RF = int(p.integer(f, path, 1, int64(max(s.Cluster.Brokers, 1))))
		}
		if f, ok := tm["leaders"]; ok {
			t.Leaders = p.strings(f, path)
			if p.err == nil && len(t.Leaders) != t.Partitions {
				p.fail(f.value, path+".leaders", "expected one leader per partition (%d), got %d", t.Partitions, len(t.Leaders))
			}
			for _, l := range t.Leaders {
				if !slices.Contains(s.Cluster.BrokerNames(), l) {
					p.fail(f.value, path+".leaders", "expected broker-1 .. broker-%d, got %q", s.Cluster.Brokers, l)
				}
			}
		}
		s.Cluster.Topics = append(s.Cluster.Topics, t)
	}
	if len(s.Cluster.Topics) == 0 && p.err == nil {
		p.fail(f.value, "cluster.topics", "missing; expected at least one topic")
	}
}

// configKeyNode finds a key's node in a config mapping, or falls back to the given node.
func configKeyNode(f field, key string, fallback *yaml.Node) *yaml.Node {
	if f.value != nil && f.value.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(f.value.Content); i += 2 {
			if f.value.Content[i].Value == key {
				return f.value.Content[i]
			}
		}
	}
	return fallback
}

// configMap hands each key of a Kafka property map to set, reporting its line.
func (p *parser) configMap(f field, path string, set func(string, props.Value) error) {
	n := f.value
	if n.Kind != yaml.MappingNode {
		p.fail(n, path, "expected a mapping of Kafka properties")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			p.fail(v, path+"."+k.Value, "expected a single value")
			return
		}
		if err := set(k.Value, props.Value{Text: v.Value, Null: isNull(v)}); err != nil {
			p.fail(k, path+"."+k.Value, "%s", err.Error())
			return
		}
	}
}

func (p *parser) network(s *Scene, f field) {
	s.LatencyMs = 5
	if f.value == nil {
		return
	}
	m := p.mapping(f.value, "network", "latency.ms", "jitter.ms", "links")
	if l, ok := m["latency.ms"]; ok {
		s.LatencyMs = p.integer(l, "network", 0, 60000)
	}
	if j, ok := m["jitter.ms"]; ok {
		s.JitterMs = p.integer(j, "network", 0, 60000)
	}
	for i, n := range p.list(m["links"], "network") {
		path := fmt.Sprintf("network.links[%d]", i)
		lm := p.mapping(n, path, "between", "latency.ms")
		pair := p.strings(lm["between"], path)
		if p.err != nil {
			return
		}
		if len(pair) != 2 {
			p.fail(n, path+".between", "expected two node names")
			return
		}
		if _, dup := s.Links[[2]string{pair[0], pair[1]}]; dup {
			p.fail(n, path+".between", "the link %s-%s is given twice", pair[0], pair[1])
			return
		}
		if _, dup := s.Links[[2]string{pair[1], pair[0]}]; dup {
			p.fail(n, path+".between", "the link %s-%s is given twice", pair[1], pair[0])
			return
		}
		lat, ok := lm["latency.ms"]
		if !ok && p.err == nil {
			p.fail(n, path+".latency.ms", "missing; expected the link's one-way latency")
			return
		}
		if s.Links == nil {
			s.Links = map[[2]string]int64{}
		}
		s.Links[[2]string{pair[0], pair[1]}] = p.integer(lat, path, 0, 60000)
		s.linkNodes = append(s.linkNodes, linkRef{names: pair, node: n, path: path + ".between"})
	}
}

func (p *parser) sinks(s *Scene, f field) {
	for i, n := range p.list(f, "") {
		path := fmt.Sprintf("sinks[%d]", i)
		if i == MaxSinks {
			p.fail(n, path, "a scene may have at most %d sinks", MaxSinks)
			return
		}
		m := p.mapping(n, path, "name", "kind")
		sk := SinkSpec{Name: p.str(m["name"], path), Kind: sinks.TableKind}
		if k, ok := m["kind"]; ok {
			kind, err := sinks.ParseKind(p.str(k, path))
			if err != nil {
				p.fail(k.value, path+".kind", "%s", err.Error())
			}
			sk.Kind = kind
		}
		if sk.Name == "" {
			p.fail(n, path+".name", "missing; expected the sink's name")
		}
		s.Sinks = append(s.Sinks, sk)
	}
}

func (p *parser) apps(s *Scene, f field) {
	nodes := p.list(f, "")
	if len(nodes) == 0 && p.err == nil && f.value != nil {
		p.fail(f.value, "apps", "expected at least one application")
	}
	for i, n := range nodes {
		path := fmt.Sprintf("apps[%d]", i)
		if i == MaxApps {
			p.fail(n, path, "a scene may have at most %d applications", MaxApps)
			return
		}
		if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
			p.fail(n, path, "expected an application: producer, consumer, streams or job")
			return
		}
		switch n.Content[0].Value {
		case "producer":
			p.producer(s, n, path)
		case "consumer":
			p.consumer(s, n, path)
		case "streams":
			p.streams(s, n, path)
		case "job":
			p.job(s, n, path)
		default:
			p.fail(n.Content[0], path, "expected the first key to be producer, consumer, streams or job, got %q", n.Content[0].Value)
		}
	}
}

func (p *parser) producer(s *Scene, n *yaml.Node, path string) {
	m := p.mapping(n, path, "producer", "config", "send", "sending", "transaction.size", "abort.transactions", "start.ms", "on.restart")
	ps := ProducerSpec{Name: p.str(m["producer"], path), Config: clients.DefaultProducerConfig(), OnRestart: apps.ResendUnacknowledged}
	if c, ok := m["config"]; ok {
		p.configMap(c, path+".config", func(key string, v props.Value) error { return clients.ProducerKeys.Set(&ps.Config, key, v) })
	}
	if p.err == nil {
		if err := ps.Config.Check(); err != nil {
			at := n
			if c, ok := m["config"]; ok {
				at = c.value
			}
			p.fail(at, path+".config", "%s", err.Error())
		}
	}
	send, ok := m["send"]
	if !ok && p.err == nil {
		p.fail(n, path+".send", "missing; expected {topic, count, interval.ms, key, value}")
	}
	if ok {
		sp := path + ".send"
		sm := p.mapping(send.value, sp, "topic", "count", "interval.ms", "key", "value")
		ps.Work = apps.Workload{Topic: p.str(sm["topic"], sp), Count: 1, IntervalMs: 10, Value: "{n}"}
		at := send.value
		if c, ok := sm["count"]; ok {
			ps.Work.Count = int(p.integer(c, sp, 1, 1000))
			at = c.value
		}
		if total := sentBy(s.Producers) + ps.Work.Count; total > MaxMessages && p.err == nil {
			p.fail(at, sp+".count", "the producers would send %d messages in all; a scene may send at most %d", total, MaxMessages)
		}
		if iv, ok := sm["interval.ms"]; ok {
			ps.Work.IntervalMs = p.integer(iv, sp, 0, MaxRunMs)
		}
		for _, k := range []string{"key", "value"} {
			if t, ok := sm[k]; ok {
				v := p.str(t, sp)
				if err := apps.CheckTemplate(v); err != nil {
					p.fail(t.value, sp+"."+k, "%s", err.Error())
				}
				if k == "key" {
					ps.Work.Key = v
				} else {
					ps.Work.Value = v
				}
			}
		}
	}
	if sd, ok := m["sending"]; ok {
		switch v := p.str(sd, path); v {
		case "async":
		case "sync":
			ps.Sync = true
		default:
			p.fail(sd.value, path+".sending", "expected sync or async, got %q", v)
		}
	}
	if st, ok := m["start.ms"]; ok {
		ps.StartMs = p.integer(st, path, 0, MaxRunMs)
	}
	p.transactions(&ps, m, n, path)
	if r, ok := m["on.restart"]; ok {
		ps.OnRestart = apps.OnRestart(p.str(r, path))
		if ps.OnRestart != apps.ResendUnacknowledged && ps.OnRestart != apps.Continue {
			p.fail(r.value, path+".on.restart", "expected resend-unacknowledged or continue, got %q", ps.OnRestart)
		}
	}
	s.Producers = append(s.Producers, ps)
}

func (p *parser) consumer(s *Scene, n *yaml.Node, path string) {
	m := p.mapping(n, path, "consumer", "group", "topics", "config", "commit", "processing.ms", "processing", "sink", "start.ms")
	cs := ConsumerSpec{Name: p.str(m["consumer"], path), Config: clients.DefaultConsumerConfig(),
		Spec: apps.ConsumerSpec{ProcessingMs: 1}}
	cs.Group = cs.Name
	if g, ok := m["group"]; ok {
		cs.Group = p.str(g, path)
	}
	cs.Topics = p.strings(m["topics"], path)
	if len(cs.Topics) == 0 && p.err == nil {
		p.fail(n, path+".topics", "missing; expected the topics to read")
	}
	if c, ok := m["config"]; ok {
		p.configMap(c, path+".config", func(key string, v props.Value) error { return clients.ConsumerKeys.Set(&cs.Config, key, v) })
	}
	if p.err == nil && cs.Config.GroupProtocol == clients.ConsumerProtocol {
		p.consumerProtocol(s, m["config"], n, path)
	} else if p.err == nil {
		bc := s.Cluster.Config
		if err := cs.Config.CheckSessionTimeout(bc.GroupMinSessionTimeoutMs, bc.GroupMaxSessionTimeoutMs); err != nil {
			p.fail(configKeyNode(m["config"], "session.timeout.ms", n), path+".config.session.timeout.ms", "%s", err.Error())
		}
	}
	cs.Spec.Commit = apps.DefaultCommitPolicy(cs.Config.EnableAutoCommit)
	if c, ok := m["commit"]; ok {
		cs.Spec.Commit = apps.CommitPolicy(p.str(c, path))
		if err := cs.Spec.Commit.Check(cs.Config.EnableAutoCommit); err != nil {
			p.fail(c.value, path+".commit", "%s", err.Error())
		}
	}
	if pm, ok := m["processing.ms"]; ok {
		cs.Spec.ProcessingMs = p.integer(pm, path, 0, MaxRunMs)
	}
	if pr, ok := m["processing"]; ok {
		switch v := p.str(pr, path); v {
		case "sync":
		case "async":
			cs.Spec.Async = true
		default:
			p.fail(pr.value, path+".processing", "expected sync or async, got %q", v)
		}
	}
	if sk, ok := m["sink"]; ok {
		cs.Spec.Sink = p.str(sk, path)
	}
	if st, ok := m["start.ms"]; ok {
		cs.StartMs = p.integer(st, path, 0, MaxRunMs)
	}
	if p.err == nil && cs.Config.GroupProtocol == clients.ConsumerProtocol && cs.Spec.Commit == apps.CommitWithResults {
		p.fail(m["commit"].value, path+".commit", "with-results seeks on assignment, which the playground models "+
			"under group.protocol classic only; remove group.protocol: consumer")
	}
	for _, o := range s.Consumers {
		if p.err == nil && o.Group == cs.Group && o.Config.GroupProtocol != cs.Config.GroupProtocol {
			p.fail(configKeyNode(m["config"], "group.protocol", n), path+".config.group.protocol",
				"%s and %s share group %s with different group.protocol values (%s, %s); Kafka would convert the group "+
					"between protocols (KIP-848's migration), which the playground does not model: give both the same",
				o.Name, cs.Name, cs.Group, o.Config.GroupProtocol, cs.Config.GroupProtocol)
		}
	}
	s.Consumers = append(s.Consumers, cs)
}

// consumerProtocol checks a consumer of group.protocol=consumer: Kafka 4's protocol
// (KIP-848 is generally available from 4.0), without the settings the coordinator
// decides under it, which the client refuses set (ConsumerConfig's
// CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS).
func (p *parser) consumerProtocol(s *Scene, config field, n *yaml.Node, path string) {
	if s.KafkaVersion == protocol.Kafka39 {
		p.fail(configKeyNode(config, "group.protocol", n), path+".config.group.protocol",
			"group.protocol consumer needs kafka.version 4.x: the new consumer group protocol (KIP-848) is Kafka 4's")
		return
	}
	for _, k := range clients.ConsumerProtocolRefuses {
		if key := configKeyNode(config, k, nil); key != nil {
			p.fail(key, path+".config."+k, "%s cannot be set when group.protocol=CONSUMER: the group coordinator "+
				"decides it (group.consumer.session.timeout.ms, group.consumer.heartbeat.interval.ms, its assignor)", k)
			return
		}
	}
}

// sentBy is how many messages the producers send in all.
func sentBy(ps []ProducerSpec) int {
	n := 0
	for _, p := range ps {
		n += p.Work.Count
	}
	return n
}

// kafkaVersion reads a Kafka release (kafka.version, an entry of holds.for). A number as
// YAML reads it (3.9 unquoted) is taken as its text.
func (p *parser) kafkaVersion(n *yaml.Node, path string) protocol.Version {
	if n == nil || n.Kind != yaml.ScalarNode {
		p.fail(n, path, "expected one of %s", strings.Join(protocol.VersionChoices(), ", "))
		return protocol.Kafka39
	}
	v, ok := protocol.ParseVersion(n.Value)
	if !ok {
		p.fail(n, path, "expected %s (Kafka 4.4, the newest Kafka 4 release the playground follows), got %q",
			strings.Join(protocol.VersionChoices(), " or "), n.Value)
	}
	return v
}

// holdsFor reads holds.for: the releases the scene's expect holds for; without the key,
// its own kafka.version only. The scene's own need not be among them: the page's toggle
// plays a scene under another release than its expect describes (ExpectApplies).
func (p *parser) holdsFor(m map[string]field, own protocol.Version) []protocol.Version {
	f, ok := m[HoldsForKey]
	if !ok {
		return []protocol.Version{own}
	}
	if f.value == nil || f.value.Kind != yaml.SequenceNode || len(f.value.Content) == 0 {
		p.fail(f.value, HoldsForKey, "expected a list of Kafka releases (%s) the scene's expect holds for", strings.Join(protocol.VersionChoices(), ", "))
		return []protocol.Version{own}
	}
	var out []protocol.Version
	for i, n := range f.value.Content {
		v := p.kafkaVersion(n, fmt.Sprintf("%s[%d]", HoldsForKey, i))
		if slices.Contains(out, v) && p.err == nil {
			p.fail(n, fmt.Sprintf("%s[%d]", HoldsForKey, i), "%s is listed twice", v)
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// HoldsForKey is the scene's top-level key for the releases its expect holds for.
const HoldsForKey = "holds.for"
