package scene

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"deliverylab/core/apps"
	"deliverylab/core/fate"
	"deliverylab/core/flink"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/server"
)

// Setting is one of a scene's key settings, as the playground's toggles show it: the
// delivery guarantees turn on these keys.
type Setting struct {
	Key     string // "producers.p1.config.acks", "cluster.config.min.insync.replicas", ...
	Label   Text
	Value   string   // the effective value, Kafka's defaults included
	Choices []string // every value the toggle offers
}

// Settings lists the scene's key settings: per producer acks and enable.idempotence, per
// consumer enable.auto.commit and isolation.level (and under Kafka 4 per group its
// group.protocol), per Streams application
// processing.guarantee, per Flink job its checkpointing mode, and the cluster's
// min.insync.replicas and unclean.leader.election.enable.
func (s *Scene) Settings() []Setting {
	var out []Setting
	add := func(key, owner, name, value string, choices []string) {
		label := fate.Because(fate.SettingOfCluster, "name", name)
		if owner != "" {
			label = fate.Because(fate.SettingOfNode, "node", owner, "name", name)
		}
		out = append(out, Setting{Key: key, Value: value, Choices: choices, Label: Text{En: label.Text(fate.En), Zh: label.Text(fate.Zh)}})
	}
	// The Kafka release first: one click shows what Kafka 4 changed.
	add(KafkaVersionKey, "", KafkaVersionKey, s.KafkaVersion.String(), protocol.VersionChoices())
	for _, p := range s.Producers {
		props := p.Config.Properties()
		add("producers."+p.Name+".config.acks", p.Name, "acks", props["acks"], clients.ProducerKeys.Choices("acks"))
		add("producers."+p.Name+".config.enable.idempotence", p.Name, "enable.idempotence", props["enable.idempotence"], clients.ProducerKeys.Choices("enable.idempotence"))
	}
	for _, c := range s.Consumers {
		props := c.Config.Properties()
		add("consumers."+c.Name+".config.enable.auto.commit", c.Name, "enable.auto.commit", props["enable.auto.commit"], clients.ConsumerKeys.Choices("enable.auto.commit"))
		add("consumers."+c.Name+".config.isolation.level", c.Name, "isolation.level", props["isolation.level"], clients.ConsumerKeys.Choices("isolation.level"))
	}
	if s.KafkaVersion == protocol.Kafka4 {
		// One toggle per group, named after its first consumer: a group runs one protocol
		// (setKey writes it into every consumer of the group).
		seen := map[string]bool{}
		for _, c := range s.Consumers {
			if !seen[c.Group] {
				seen[c.Group] = true
				add("consumers."+c.Name+".config."+GroupProtocolKey, c.Group, GroupProtocolKey, c.Config.GroupProtocol.String(),
					clients.ConsumerKeys.Choices(GroupProtocolKey))
			}
		}
	}
	for _, a := range s.Streams {
		add("streams."+a.Name+".config.processing.guarantee", a.Name, "processing.guarantee", a.Spec.Guarantee.String(), apps.StreamsKeys.Choices("processing.guarantee"))
	}
	for _, j := range s.Jobs {
		var modes []string
		for _, m := range flink.CheckpointingModes {
			modes = append(modes, m.String())
		}
		add("jobs."+j.Name+".checkpointing.mode", j.Name, "checkpointing.mode", j.Spec.Checkpointing.Mode.String(), modes)
	}
	props := s.Cluster.Config.Properties()
	var isr []string
	for n := 1; n <= s.Cluster.Brokers; n++ {
		isr = append(isr, strconv.Itoa(n))
	}
	add("cluster.config.min.insync.replicas", "", "min.insync.replicas", props["min.insync.replicas"], isr)
	add("cluster.config.unclean.leader.election.enable", "", "unclean.leader.election.enable", props["unclean.leader.election.enable"], server.ConfigKeys.Choices("unclean.leader.election.enable"))
	if s.KafkaVersion == protocol.Kafka4 {
		// Kafka 3.9 runs transaction.version 0 only: the toggle is Kafka 4's.
		add("cluster.config."+server.TransactionVersionKey, "", server.TransactionVersionKey,
			strconv.Itoa(int(s.Cluster.Config.TransactionVersion)), server.ConfigKeys.Choices(server.TransactionVersionKey))
		add("cluster.config."+server.EligibleLeaderReplicasVersionKey, "", server.EligibleLeaderReplicasVersionKey,
			strconv.Itoa(int(s.Cluster.Config.EligibleLeaderReplicasVersion)), server.ConfigKeys.Choices(server.EligibleLeaderReplicasVersionKey))
	}
	return out
}

// WithSettings parses a scene file with some of its settings changed (key, value, in
// order): each is written into the file's YAML tree where the scene file keeps it, and
// the result is read by Parse, so a change the parser refuses (acks=1 with
// enable.idempotence=true, say) gives the parser's own error.
func WithSettings(file string, data []byte, changes [][2]string) (*Scene, error) {
	if len(changes) == 0 {
		return Parse(file, data)
	}
	root, _, derr := decode(file, data)
	if derr != nil {
		return nil, derr
	}
	for _, c := range changes {
		if err := setKey(root, c[0], c[1]); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("%s: %s: %v", file, changes[0][0], err)
	}
	return Parse(file, buf.Bytes())
}

// setKey sets one setting (a Settings key) in the scene's YAML tree, adding the config
// mapping or the key where the file has none.
func setKey(root *yaml.Node, key, value string) error {
	var owner *yaml.Node
	var prop string
	if key == KafkaVersionKey {
		if child(root, HoldsForKey) == nil {
			// The expect describes the file's own release: say so before switching.
			own := protocol.Kafka39
			if n := child(root, KafkaVersionKey); n != nil {
				own, _ = protocol.ParseVersion(n.Value)
			}
			list := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle,
				Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: own.String(), Style: yaml.DoubleQuotedStyle}}}
			root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: HoldsForKey}, list)
		}
		// A top-level key, quoted: 3.9 unquoted would be read as a number.
		return setIn(root, key, key, value, yaml.DoubleQuotedStyle)
	}
	kind, rest, _ := strings.Cut(key, ".")
	switch kind {
	case "cluster":
		prop, _ = strings.CutPrefix(rest, "config.")
		owner = child(root, "cluster")
	case "jobs": // a Flink job's checkpointing mode, in its checkpointing mapping
		name, p, _ := strings.Cut(rest, ".checkpointing.")
		return setIn(child(appNode(child(root, "apps"), "job", name), "checkpointing"), key, p, value, 0)
	case "producers", "consumers", "streams":
		name, p, _ := strings.Cut(rest, ".config.")
		prop = p
		owner = appNode(child(root, "apps"), appKinds[kind], name)
		if kind == "consumers" && prop == GroupProtocolKey && owner != nil {
			return setGroupProtocol(root, key, consumerGroup(owner), value)
		}
	}
	if owner == nil || owner.Kind != yaml.MappingNode || prop == "" {
		return fmt.Errorf("no setting %q in this scene", key)
	}
	cfg := child(owner, "config")
	if cfg == nil {
		cfg = &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		owner.Content = append(owner.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "config"}, cfg)
	}
	if cfg.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: expected a mapping of Kafka properties", strings.TrimSuffix(key, "."+prop))
	}
	return setIn(cfg, key, prop, value, 0)
}

// setIn sets prop to value in the mapping m (a setting's home in the file), written in
// the given style.
func setIn(m *yaml.Node, key, prop, value string, style yaml.Style) error {
	if m == nil || m.Kind != yaml.MappingNode || prop == "" {
		return fmt.Errorf("no setting %q in this scene", key)
	}
	v := &yaml.Node{Kind: yaml.ScalarNode, Value: value, Style: style}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == prop {
			m.Content[i+1] = v
			return nil
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: prop}, v)
	return nil
}

// appKinds are the settings' groups and the first key of their applications.
var appKinds = map[string]string{"producers": "producer", "consumers": "consumer", "streams": "streams"}

// child is the value of key in mapping n, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// appNode is the application of the given kind and name in the apps list, or nil.
func appNode(apps *yaml.Node, kind, name string) *yaml.Node {
	if apps == nil || apps.Kind != yaml.SequenceNode {
		return nil
	}
	for _, a := range apps.Content {
		if a.Kind == yaml.MappingNode && len(a.Content) >= 2 && a.Content[0].Value == kind && a.Content[1].Value == name {
			return a
		}
	}
	return nil
}

// GroupProtocolKey is a consumer's group.protocol, which the page toggles per group.
const GroupProtocolKey = "group.protocol"

// consumerGroup is a consumer application's group as its file names it: its group key,
// or its own name.
func consumerGroup(app *yaml.Node) string {
	if g := child(app, "group"); g != nil {
		return g.Value
	}
	return app.Content[1].Value
}

// setGroupProtocol writes group.protocol into every consumer of a group: a group runs
// one protocol.
func setGroupProtocol(root *yaml.Node, key, group, value string) error {
	apps := child(root, "apps")
	for _, a := range apps.Content {
		if a.Kind != yaml.MappingNode || len(a.Content) < 2 || a.Content[0].Value != "consumer" || consumerGroup(a) != group {
			continue
		}
		cfg := child(a, "config")
		if cfg == nil {
			cfg = &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
			a.Content = append(a.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "config"}, cfg)
		}
		if err := setIn(cfg, key, GroupProtocolKey, value, 0); err != nil {
			return err
		}
	}
	return nil
}

// KafkaVersionKey is the scene's top-level key for the Kafka release it follows.
const KafkaVersionKey = "kafka.version"
