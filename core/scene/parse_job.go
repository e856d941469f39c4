package scene

import (
	"fmt"

	"deliverylab/core/flink"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/props"

	"go.yaml.in/yaml/v3"
)

// JobSpec is a Flink job of the scene.
type JobSpec struct {
	Name    string
	Spec    flink.JobSpec
	StartMs int64
}

// job reads a `job:` application: its checkpointing, restart delay, KafkaSource, keyBy,
// operator, parallelism and KafkaSink, with Flink's and the connector's defaults.
func (p *parser) job(s *Scene, n *yaml.Node, path string) {
	m := p.mapping(n, path, "job", "checkpointing", "restart.delay.ms", "source", "keyed", "operator", "parallelism", "sink", "start.ms")
	js := JobSpec{Name: p.str(m["job"], path)}
	spec := flink.JobSpec{
		Checkpointing:  flink.Checkpointing{IntervalMs: 1000, Mode: flink.ExactlyOnce, TimeoutMs: flink.DefaultCheckpointTimeoutMs},
		RestartDelayMs: 1000, Operator: flink.Map,
	}
	if c, ok := m["checkpointing"]; ok {
		cp := path + ".checkpointing"
		cm := p.mapping(c.value, cp, "interval.ms", "mode", "timeout.ms")
		if f, ok := cm["interval.ms"]; ok {
			spec.Checkpointing.IntervalMs = p.integer(f, cp, 10, MaxRunMs) // Flink's minimum interval is 10 ms
		}
		if f, ok := cm["mode"]; ok {
			oneOf(p, f, cp+".mode", flink.CheckpointingModes, &spec.Checkpointing.Mode)
		}
		if f, ok := cm["timeout.ms"]; ok {
			spec.Checkpointing.TimeoutMs = p.integer(f, cp, 10, 1<<31-1)
		}
	} else if p.err == nil {
		p.fail(n, path+".checkpointing", "missing; expected {interval.ms, mode}: a job without checkpoints has nothing to restore from")
	}
	if f, ok := m["restart.delay.ms"]; ok {
		spec.RestartDelayMs = p.integer(f, path, 0, MaxRunMs)
	}
	spec.Source = p.jobSource(s, m, n, path)
	if f, ok := m["keyed"]; ok {
		spec.Keyed = p.boolean(f, path+".keyed")
	}
	if f, ok := m["operator"]; ok {
		oneOf(p, f, path+".operator", flink.Operators, &spec.Operator)
		if spec.Operator.Aggregates() && !spec.Keyed && p.err == nil {
			p.fail(f.value, path+".operator", "%s keeps a total per key (keyed state), which needs a keyed stream: set keyed: true", spec.Operator)
		}
	}
	spec.Parallelism = spec.Source.Parallelism
	if f, ok := m["parallelism"]; ok {
		spec.Parallelism = int(p.integer(f, path, 1, 4))
		if !spec.Keyed && spec.Parallelism != spec.Source.Parallelism && p.err == nil {
			p.fail(f.value, path+".parallelism", "expected the source's parallelism (%d) without keyBy: a rebalance between them is not modelled; set keyed: true",
				spec.Source.Parallelism)
		}
	}
	sk, ok := m["sink"]
	if !ok && p.err == nil {
		p.fail(n, path+".sink", "missing; expected {kafka: {topic, delivery.guarantee}}")
	}
	if ok {
		spec.Sink, spec.DBSink = p.kafkaSink(s, sk, path+".sink")
		if spec.Sink.Topic != "" && spec.Sink.Topic == spec.Source.Topic && p.err == nil {
			p.fail(sk.value, path+".sink.kafka.topic", "expected another topic than the one the job reads (%s)", spec.Source.Topic)
		}
	}
	if st, ok := m["start.ms"]; ok {
		js.StartMs = p.integer(st, path, 0, MaxRunMs)
	}
	js.Spec = spec
	s.Jobs = append(s.Jobs, js)
}

// jobSource reads the job's KafkaSource: topic, parallelism, starting.offsets,
// isolation.level (read_uncommitted, the consumer's default, unless set) and group.id.
func (p *parser) jobSource(s *Scene, m map[string]field, n *yaml.Node, path string) flink.SourceSpec {
	src := flink.SourceSpec{Parallelism: 1, Consumer: clients.DefaultConsumerConfig()}
	src.Consumer.EnableAutoCommit, src.Consumer.AutoOffsetReset = false, clients.ResetEarliest
	f, ok := m["source"]
	if !ok {
		if p.err == nil {
			p.fail(n, path+".source", "missing; expected {topic, parallelism}")
		}
		return src
	}
	sp := path + ".source"
	sm := p.mapping(f.value, sp, "topic", "parallelism", "starting.offsets", "isolation.level", "group.id")
	src.Topic = p.str(sm["topic"], sp)
	if _, ok := sm["topic"]; !ok && p.err == nil {
		p.fail(f.value, sp+".topic", "missing; expected the topic the job reads")
	} else if !s.hasTopic(src.Topic) && p.err == nil {
		p.fail(sm["topic"].value, sp+".topic", "expected a topic of this scene, got %q", src.Topic)
	}
	if t, ok := sm["parallelism"]; ok {
		src.Parallelism = int(p.integer(t, sp, 1, 4))
	}
	if t, ok := sm["starting.offsets"]; ok {
		switch p.str(t, sp) {
		case "earliest":
		case "latest":
			src.Latest, src.Consumer.AutoOffsetReset = true, clients.ResetLatest
		case "committed":
			src.Committed = true
		default:
			p.fail(t.value, sp+".starting.offsets", "expected earliest, latest or committed (OffsetsInitializer), got %q", t.value.Value)
		}
	}
	if g, ok := sm["group.id"]; ok {
		src.GroupID = p.str(g, sp)
		if src.GroupID == "" && p.err == nil {
			p.fail(g.value, sp+".group.id", "expected a consumer group's name")
		}
	}
	if src.Committed && src.GroupID == "" && p.err == nil {
		// KafkaSourceBuilder.sanityCheck refuses it so
		p.fail(sm["starting.offsets"].value, sp+".starting.offsets", "committed needs source.group.id: property group.id is required when using committed offset for offsets initializer")
	}
	if t, ok := sm["isolation.level"]; ok {
		oneOf(p, t, sp+".isolation.level", protocol.IsolationLevels, &src.Consumer.Isolation)
	}
	return src
}

// kafkaSink reads `sink: {kafka: {...}}`: the KafkaSink's topic, delivery.guarantee
// (NONE, the builder's default), transactional.id.prefix and producer settings; or
// `sink: {db: {sink: NAME}}`, a database sink of the scene the job writes to instead.
func (p *parser) kafkaSink(s *Scene, f field, path string) (flink.KafkaSinkSpec, string) {
	ks := flink.KafkaSinkSpec{Guarantee: flink.GuaranteeNone, Producer: clients.DefaultProducerConfig()}
	m := p.mapping(f.value, path, "kafka", "db")
	if d, ok := m["db"]; ok {
		if _, both := m["kafka"]; both && p.err == nil {
			p.fail(d.keyN, path+".db", "expected one sink: kafka or db, not both")
		}
		dm := p.mapping(d.value, path+".db", "sink")
		name := p.str(dm["sink"], path+".db")
		if _, ok := dm["sink"]; !ok && p.err == nil {
			p.fail(d.value, path+".db.sink", "missing; expected the name of a sink of sinks")
		}
		return ks, name
	}
	k, ok := m["kafka"]
	if !ok {
		if p.err == nil {
			p.fail(f.value, path+".kafka", "missing; expected the KafkaSink {topic, delivery.guarantee} or a database sink {db: {sink: NAME}}")
		}
		return ks, ""
	}
	kp := path + ".kafka"
	km := p.mapping(k.value, kp, "topic", "delivery.guarantee", "transactional.id.prefix", "transaction.timeout.ms", "config")
	ks.Topic = p.str(km["topic"], kp)
	if _, ok := km["topic"]; !ok && p.err == nil {
		p.fail(k.value, kp+".topic", "missing; expected the topic the sink writes")
	} else if !s.hasTopic(ks.Topic) && p.err == nil {
		p.fail(km["topic"].value, kp+".topic", "expected a topic of this scene, got %q", ks.Topic)
	}
	if g, ok := km["delivery.guarantee"]; ok {
		oneOf(p, g, kp+".delivery.guarantee", flink.DeliveryGuarantees, &ks.Guarantee)
	}
	eos := ks.Guarantee == flink.GuaranteeExactlyOnce
	if t, ok := km["transactional.id.prefix"]; ok {
		ks.TransactionalIDPrefix = p.str(t, kp)
		if !eos && p.err == nil {
			p.fail(t.keyN, kp+".transactional.id.prefix", "is only used by an EXACTLY_ONCE sink (the delivery.guarantee here is %s)", ks.Guarantee)
		}
	} else if eos && p.err == nil {
		p.fail(k.value, kp+".transactional.id.prefix", "missing: the EXACTLY_ONCE delivery guarantee requires a transactionalIdPrefix (KafkaSinkBuilder)")
	}
	// The builder's own default for transaction.timeout.ms is one hour, above a broker's
	// transaction.max.timeout.ms (15 minutes): left as it is, InitProducerId is refused
	// with INVALID_TRANSACTION_TIMEOUT and the job cannot start.
	ks.Producer.TransactionTimeoutMs = 3600000
	if t, ok := km["transaction.timeout.ms"]; ok {
		ks.Producer.TransactionTimeoutMs = p.integer(t, kp, 1, 1<<31-1)
		if !eos && p.err == nil {
			p.fail(t.keyN, kp+".transaction.timeout.ms", "is only used by an EXACTLY_ONCE sink (the delivery.guarantee here is %s)", ks.Guarantee)
		}
	}
	if c, ok := km["config"]; ok {
		p.configMap(c, kp+".config", func(key string, v props.Value) error {
			if key == "transactional.id" {
				return fmt.Errorf("the KafkaSink sets transactional.id itself (from transactional.id.prefix)")
			}
			return clients.ProducerKeys.Set(&ks.Producer, key, v)
		})
	}
	if p.err == nil {
		if err := ks.Producer.Check(); err != nil {
			p.fail(k.value, kp+".config", "%s", err.Error())
		}
	}
	return ks, ""
}

// oneOf reads a word from a fixed list.
func oneOf[E props.Named](p *parser, f field, path string, allowed []E, out *E) {
	if f.value == nil || p.err != nil {
		return
	}
	if err := props.OneOf(props.Value{Text: f.value.Value}, allowed, out); err != nil {
		p.fail(f.value, path, "%s", err.Error())
	}
}

// boolean reads true or false.
func (p *parser) boolean(f field, path string) bool {
	switch {
	case f.value == nil || p.err != nil:
		return false
	case f.value.Value == "true":
		return true
	case f.value.Value == "false":
		return false
	}
	p.fail(f.value, path, "expected true or false, got %q", f.value.Value)
	return false
}
