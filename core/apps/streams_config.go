package apps

import (
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/props"
)

// StreamsConfig is a Kafka Streams application's own settings (StreamsConfig).
type StreamsConfig struct {
	Guarantee        Guarantee
	CommitIntervalMs int64 // -1: the guarantee's default
}

// DefaultStreamsConfig is Kafka Streams 3.9's: at_least_once, and commit.interval.ms by
// the guarantee.
func DefaultStreamsConfig() StreamsConfig {
	return StreamsConfig{Guarantee: AtLeastOnce, CommitIntervalMs: -1}
}

// StreamsKeys is the table of a Streams application's own keys; its clients' keys
// (session.timeout.ms, linger.ms, ...) go to the consumer and producer tables.
var StreamsKeys = props.NewTable[StreamsConfig]("Kafka Streams").
	Enum("processing.guarantee", props.Words(Guarantees), func(c *StreamsConfig, v props.Value) error {
		return props.OneOf(v, Guarantees, &c.Guarantee)
	}).
	Key("commit.interval.ms", func(c *StreamsConfig, v props.Value) error { return props.Ms(v, 0, &c.CommitIntervalMs) }).
	NotYet("num.stream.threads", "the application runs one stream thread").
	NotYet("num.standby.replicas", "the topology is stateless: there are no state stores to replicate").
	NotYet("statestore.cache.max.bytes", "the topology is stateless: it has no state stores")

// StreamsOwned are client keys Kafka Streams sets itself: StreamsConfig refuses a
// user's value for them (getMainConsumerConfigs, getProducerConfigs: "Unexpected user-specified
// ... config"), so a scene may not set them either.
var StreamsOwned = []string{"enable.auto.commit", "transactional.id", "isolation.level", "group.id", "client.id"}

// EffectiveCommitIntervalMs is the effective commit.interval.ms: 30000 under at_least_once and
// 100 under exactly_once_v2 unless set (StreamsConfig.EOS_DEFAULT_COMMIT_INTERVAL_MS).
func (c StreamsConfig) EffectiveCommitIntervalMs() int64 {
	switch {
	case c.CommitIntervalMs >= 0:
		return c.CommitIntervalMs
	case c.Guarantee == ExactlyOnceV2:
		return 100
	}
	return 30000
}

// StreamsConsumerConfig is the main consumer's configuration under a guarantee, before
// the scene's own client keys: Streams' overrides of the consumer's defaults
// (StreamsConfig CONSUMER_DEFAULT_OVERRIDES, and CONSUMER_EOS_OVERRIDES' read_committed).
func StreamsConsumerConfig(g Guarantee) clients.ConsumerConfig {
	c := clients.DefaultConsumerConfig()
	c.MaxPollRecords, c.AutoOffsetReset, c.EnableAutoCommit = 1000, clients.ResetEarliest, false
	if g == ExactlyOnceV2 {
		c.Isolation = protocol.ReadCommitted
	}
	return c
}

// StreamsProducerConfig is the thread producer's configuration under a guarantee, before
// the scene's own client keys: linger.ms 100 (PRODUCER_DEFAULT_OVERRIDES) and, under
// exactly_once_v2, idempotence, an unbounded delivery.timeout.ms and a 10 s
// transaction.timeout.ms "for quicker pending offset expiration" (PRODUCER_EOS_OVERRIDES).
func StreamsProducerConfig(g Guarantee) clients.ProducerConfig {
	c := clients.DefaultProducerConfig()
	c.LingerMs = 100
	if g == ExactlyOnceV2 {
		c.DeliveryTimeoutMs, c.EnableIdempotence, c.TransactionTimeoutMs = 2147483647, true, 10000
	}
	return c
}
