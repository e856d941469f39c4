package scene

import (
	"slices"
	"strings"

	"deliverylab/core/apps"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/props"

	"go.yaml.in/yaml/v3"
)

// StreamsSpec is a Kafka Streams application: its application.id is its name (and its
// consumer group's id).
type StreamsSpec struct {
	Name     string
	Spec     apps.StreamsSpec
	Consumer clients.ConsumerConfig
	Producer clients.ProducerConfig
	StartMs  int64
}

// streams reads a `streams:` application: from, to, and config with Kafka Streams' own
// keys (processing.guarantee, commit.interval.ms) and its clients' keys, which Streams
// passes to its consumer, its producer or both.
func (p *parser) streams(s *Scene, n *yaml.Node, path string) {
	m := p.mapping(n, path, "streams", "from", "to", "config", "start.ms")
	ss := StreamsSpec{Name: p.str(m["streams"], path)}
	for _, k := range []string{"from", "to"} {
		if _, ok := m[k]; !ok && p.err == nil {
			p.fail(n, path+"."+k, "missing; expected the topic the application reads (from) and the one it writes (to)")
		}
	}
	ss.Spec.From, ss.Spec.To = p.str(m["from"], path), p.str(m["to"], path)
	if ss.Spec.From != "" && ss.Spec.From == ss.Spec.To && p.err == nil {
		p.fail(m["to"].value, path+".to", "expected another topic than the one it reads (%s)", ss.Spec.From)
	}
	cfg := apps.DefaultStreamsConfig()
	var clientKeys [][2]*yaml.Node
	if c, ok := m["config"]; ok {
		cn := c.value
		if cn.Kind != yaml.MappingNode {
			p.fail(cn, path+".config", "expected a mapping of Kafka Streams properties")
		}
		for i := 0; cn.Kind == yaml.MappingNode && i+1 < len(cn.Content); i += 2 {
			k, v := cn.Content[i], cn.Content[i+1]
			kp := path + ".config." + k.Value
			switch {
			case v.Kind != yaml.ScalarNode:
				p.fail(v, kp, "expected a single value")
			case apps.StreamsKeys.Has(k.Value):
				if err := apps.StreamsKeys.Set(&cfg, k.Value, props.Value{Text: v.Value, Null: isNull(v)}); err != nil {
					p.fail(k, kp, "%s", err.Error())
				}
			case slices.Contains(apps.StreamsOwned, k.Value):
				p.fail(k, kp, "Kafka Streams sets %s itself (its StreamsConfig refuses a user's value); remove it", k.Value)
			case clients.ConsumerKeys.Has(k.Value) || clients.ProducerKeys.Has(k.Value):
				clientKeys = append(clientKeys, [2]*yaml.Node{k, v})
			default:
				p.fail(k, kp, "unknown key; expected processing.guarantee, commit.interval.ms or a consumer or producer setting")
			}
		}
	}
	ss.Spec.Guarantee, ss.Spec.CommitIntervalMs = cfg.Guarantee, cfg.EffectiveCommitIntervalMs()
	ss.Consumer, ss.Producer = apps.StreamsConsumerConfig(cfg.Guarantee), apps.StreamsProducerConfig(cfg.Guarantee)
	// A client key goes to every client that has it (StreamsConfig passes an unprefixed
	// client setting to each client), after Streams' own defaults.
	for _, kv := range clientKeys {
		k, v := kv[0], kv[1]
		val := props.Value{Text: v.Value, Null: isNull(v)}
		var errs []string
		if clients.ConsumerKeys.Has(k.Value) {
			if err := clients.ConsumerKeys.Set(&ss.Consumer, k.Value, val); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if clients.ProducerKeys.Has(k.Value) {
			if err := clients.ProducerKeys.Set(&ss.Producer, k.Value, val); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if len(errs) > 0 {
			p.fail(k, path+".config."+k.Value, "%s", strings.Join(slices.Compact(errs), "; "))
		}
	}
	if p.err == nil && ss.Consumer.GroupProtocol == clients.ConsumerProtocol {
		p.fail(n, path+".config.group.protocol", "Kafka Streams does not run its consumer under group.protocol consumer "+
			"(its own new protocol is KIP-1071's streams); remove it")
	}
	if p.err == nil {
		if err := ss.Producer.Check(); err != nil {
			p.fail(n, path+".config", "%s", err.Error())
		}
		bc := s.Cluster.Config
		if err := ss.Consumer.CheckSessionTimeout(bc.GroupMinSessionTimeoutMs, bc.GroupMaxSessionTimeoutMs); err != nil {
			p.fail(configKeyNode(m["config"], "session.timeout.ms", n), path+".config.session.timeout.ms", "%s", err.Error())
		}
	}
	if st, ok := m["start.ms"]; ok {
		ss.StartMs = p.integer(st, path, 0, MaxRunMs)
	}
	s.Streams = append(s.Streams, ss)
}

// streamsTxnIDs lists the first transactional id of each exactly_once_v2 application:
// every process of one lives on that id's __transaction_state partition.
func (s *Scene) streamsTxnIDs() []string {
	var out []string
	for _, ss := range s.Streams {
		if ss.Spec.Guarantee == apps.ExactlyOnceV2 {
			out = append(out, apps.TransactionalID(ss.Name, 1, s.Cluster.TransactionPartition))
		}
	}
	return out
}
