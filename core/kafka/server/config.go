package server

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"deliverylab/core/kafka/group"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/txn"
	"deliverylab/core/props"
)

// Config is the broker and topic configuration a scene may set under cluster.config
// (Kafka's KafkaConfig and topic defaults), with Kafka 3.9's defaults.
type Config struct {
	// Version is the Kafka release the brokers run (the scene's kafka.version): the
	// feature levels below default to what it ships.
	Version protocol.Version
	// TransactionVersion is the finalized feature transaction.version (KIP-1022): 0, as
	// Kafka 3.9 runs, or 2, which Kafka 4 enables on a new cluster: transactions
	// version 2 (KIP-890 part 2), the producer epoch bumped at every commit and abort
	// and a transaction's partitions added by their leaders. A cluster-wide feature,
	// not a broker property: a real cluster gets it at format (--feature).
	TransactionVersion int16
	// EligibleLeaderReplicasVersion is the finalized feature
	// eligible.leader.replicas.version (KIP-966): 0, as Kafka 3.9 runs, or 1, which a
	// new Kafka 4.1+ cluster is formatted with (EligibleLeaderReplicasVersion's bootstrap
	// metadata version): the controller keeps eligible leader replicas.
	EligibleLeaderReplicasVersion int16
	MinInsyncReplicas             int   // min.insync.replicas
	UncleanLeaderElection         bool  // unclean.leader.election.enable
	ReplicaLagTimeMaxMs           int64 // replica.lag.time.max.ms
	ReplicaFetchWaitMaxMs         int64 // replica.fetch.wait.max.ms
	ReplicaFetchBackoffMs         int64 // replica.fetch.backoff.ms
	BrokerSessionTimeoutMs        int64 // broker.session.timeout.ms (the controller's)
	BrokerHeartbeatIntervalMs     int64 // broker.heartbeat.interval.ms
	GroupInitialRebalanceDelayMs  int64 // group.initial.rebalance.delay.ms
	GroupMinSessionTimeoutMs      int64 // group.min.session.timeout.ms
	GroupMaxSessionTimeoutMs      int64 // group.max.session.timeout.ms
	OffsetsTopicNumPartitions     int   // offsets.topic.num.partitions
	// The consumer protocol's (KIP-848, Kafka 4): a member's session on the coordinator,
	// the heartbeat interval the coordinator gives members, and how often a group's
	// target assignment may be computed again (KIP-1263). Kafka 4.4's defaults; Kafka 3.9
	// runs no consumer-protocol group here, and a 3.9 scene may not change them.
	GroupConsumerSessionTimeoutMs     int64 // group.consumer.session.timeout.ms
	GroupConsumerHeartbeatIntervalMs  int64 // group.consumer.heartbeat.interval.ms
	GroupConsumerAssignmentIntervalMs int64 // group.consumer.assignment.interval.ms
	// The transaction coordinator's settings; a scene sets them in its cluster config.
	TransactionStateLogNumPartitions int   // transaction.state.log.num.partitions
	TransactionMaxTimeoutMs          int64 // transaction.max.timeout.ms
	TransactionAbortIntervalMs       int64 // transaction.abort.timed.out.transaction.cleanup.interval.ms
	// transactional.id.expiration.ms: a transactional id with no transaction in progress
	// and no update for this long is expired by its coordinator, which then no longer
	// knows its producer id; transaction.remove.expired.transaction.cleanup.interval.ms is
	// how often it looks (TransactionStateManager.removeExpiredTransactionalIds).
	TransactionalIDExpirationMs        int64
	TransactionRemoveExpiredIntervalMs int64
	// transaction.partition.verification.enable (KIP-890 part 1, true since 3.6): a
	// leader asks the transaction coordinator before a transaction's first append to a
	// partition (txn_verification.go). false is how brokers behaved before 3.6, when a
	// late produce of an aborted transaction could open a transaction nobody ends.
	TransactionPartitionVerificationEnable bool
	// broker.truncate.to.high.watermark: not a Kafka setting but a historical toggle, the
	// replication of Kafka before KIP-101 (0.11): a follower truncates its log to its own
	// high watermark when it starts following, and no leader epochs are compared.
	TruncateToHighWatermark bool
}

// DefaultConfig is Kafka 3.9's defaults.
func DefaultConfig() Config { return DefaultConfigFor(protocol.Kafka39) }

// DefaultConfigFor is a release's defaults: Kafka 4 formats a new cluster with
// transaction.version 2 (its latest production features, kafka-storage format).
func DefaultConfigFor(v protocol.Version) Config {
	tv, elr := int16(0), int16(0)
	if v == protocol.Kafka4 {
		tv, elr = 2, 1
	}
	return Config{
		Version:                       v,
		TransactionVersion:            tv,
		EligibleLeaderReplicasVersion: elr,
		MinInsyncReplicas:             1,
		ReplicaLagTimeMaxMs:           30000,
		ReplicaFetchWaitMaxMs:         500,
		ReplicaFetchBackoffMs:         1000,
		BrokerSessionTimeoutMs:        9000,
		BrokerHeartbeatIntervalMs:     2000,
		GroupInitialRebalanceDelayMs:  3000,
		GroupMinSessionTimeoutMs:      6000,
		GroupMaxSessionTimeoutMs:      1800000,
		OffsetsTopicNumPartitions:     group.DefaultOffsetsPartitions,

		GroupConsumerSessionTimeoutMs:     DefaultGroupConsumerSessionTimeoutMs,
		GroupConsumerHeartbeatIntervalMs:  DefaultGroupConsumerHeartbeatIntervalMs,
		GroupConsumerAssignmentIntervalMs: DefaultGroupConsumerAssignmentIntervalMs,

		TransactionStateLogNumPartitions:   txn.DefaultLogPartitions,
		TransactionMaxTimeoutMs:            900000,
		TransactionAbortIntervalMs:         10000,
		TransactionalIDExpirationMs:        604800000, // 7 days
		TransactionRemoveExpiredIntervalMs: 3600000,   // 1 hour

		TransactionPartitionVerificationEnable: true,
	}
}

// Settings the playground holds fixed at Kafka's defaults.
const (
	// offsets.commit.timeout.ms: how long an offset commit waits for the offsets
	// partition's replicas before it fails.
	OffsetsCommitTimeoutMs = 5000
	// replica.socket.timeout.ms: how long a follower waits for a fetch answer that never
	// comes (a cut link) before it fetches again.
	ReplicaSocketTimeoutMs = 30000
	// request.timeout.ms (the broker's): how long the transaction coordinator's append
	// to __transaction_state waits for the ISR (TransactionConfig.requestTimeoutMs), and
	// a WriteTxnMarkers for its answer.
	BrokerRequestTimeoutMs = 30000
	// transaction.state.log.min.isr: the min.insync.replicas __transaction_state is
	// created with (capped by its replication factor, as every topic's is here).
	TransactionStateLogMinISR = 2
	// How long the transaction coordinator waits before it sends a marker again whose
	// leader is unknown or refused it (the inter-broker client's retry.backoff.ms).
	TxnMarkerRetryBackoffMs = 100
)

// TruncateToHighWatermarkKey names the historical toggle, which no real broker has.
const TruncateToHighWatermarkKey = "broker.truncate.to.high.watermark"

// ConfigKeys is the cluster.config table.
var ConfigKeys = props.NewTable[Config]("Kafka").
	Key("min.insync.replicas", func(c *Config, v props.Value) error { return props.Int(v, 1, 1000, &c.MinInsyncReplicas) }).
	Flag("unclean.leader.election.enable", func(c *Config) *bool { return &c.UncleanLeaderElection }).
	Key("replica.lag.time.max.ms", func(c *Config, v props.Value) error { return props.Ms(v, 1, &c.ReplicaLagTimeMaxMs) }).
	Key("replica.fetch.wait.max.ms", func(c *Config, v props.Value) error { return props.Ms(v, 0, &c.ReplicaFetchWaitMaxMs) }).
	Key("replica.fetch.backoff.ms", func(c *Config, v props.Value) error { return props.Ms(v, 0, &c.ReplicaFetchBackoffMs) }).
	Key("broker.session.timeout.ms", func(c *Config, v props.Value) error { return props.Ms(v, 1, &c.BrokerSessionTimeoutMs) }).
	Key("broker.heartbeat.interval.ms", func(c *Config, v props.Value) error { return props.Ms(v, 1, &c.BrokerHeartbeatIntervalMs) }).
	Key("group.initial.rebalance.delay.ms", func(c *Config, v props.Value) error {
		return props.Ms(v, 0, &c.GroupInitialRebalanceDelayMs)
	}).
	Key("group.min.session.timeout.ms", func(c *Config, v props.Value) error { return props.Ms(v, 1, &c.GroupMinSessionTimeoutMs) }).
	Key("group.max.session.timeout.ms", func(c *Config, v props.Value) error { return props.Ms(v, 1, &c.GroupMaxSessionTimeoutMs) }).
	Key("offsets.topic.num.partitions", func(c *Config, v props.Value) error {
		return props.Int(v, 1, 1000, &c.OffsetsTopicNumPartitions)
	}).
	// INTs of at least 1 (GroupCoordinatorConfig); the interval's bounds are its
	// group.consumer.{min,max}.assignment.interval.ms defaults, 0 and 15000.
	Key(GroupConsumerSessionTimeoutKey, func(c *Config, v props.Value) error {
		return props.Int64(v, 1, math.MaxInt32, &c.GroupConsumerSessionTimeoutMs)
	}).
	Key(GroupConsumerHeartbeatIntervalKey, func(c *Config, v props.Value) error {
		return props.Int64(v, 1, math.MaxInt32, &c.GroupConsumerHeartbeatIntervalMs)
	}).
	Key(GroupConsumerAssignmentIntervalKey, func(c *Config, v props.Value) error {
		return props.Int64(v, 0, 15000, &c.GroupConsumerAssignmentIntervalMs)
	}).
	Flag(TruncateToHighWatermarkKey, func(c *Config) *bool { return &c.TruncateToHighWatermark }).
	Key("transaction.max.timeout.ms", func(c *Config, v props.Value) error { return props.Ms(v, 1, &c.TransactionMaxTimeoutMs) }).
	Key("transaction.abort.timed.out.transaction.cleanup.interval.ms", func(c *Config, v props.Value) error {
		return props.Ms(v, 1, &c.TransactionAbortIntervalMs)
	}).
	Key(TransactionalIDExpirationKey, func(c *Config, v props.Value) error {
		return props.Int64(v, 1, math.MaxInt32, &c.TransactionalIDExpirationMs) // an INT, atLeast(1)
	}).
	Key(TransactionRemoveExpiredIntervalKey, func(c *Config, v props.Value) error {
		return props.Int64(v, 1, math.MaxInt32, &c.TransactionRemoveExpiredIntervalMs)
	}).
	Key("transaction.state.log.num.partitions", func(c *Config, v props.Value) error {
		return props.Int(v, 1, 1000, &c.TransactionStateLogNumPartitions)
	}).
	Flag(TransactionPartitionVerificationKey, func(c *Config) *bool { return &c.TransactionPartitionVerificationEnable }).
	Enum(TransactionVersionKey, transactionVersions, featureLevel(transactionVersions, func(c *Config) *int16 { return &c.TransactionVersion },
		"expected 0 (transactions as Kafka 3.x runs them) or 2 (KIP-890's, Kafka 4's default), got %q; level 1 changes only how __transaction_state's records are written")).
	Enum(EligibleLeaderReplicasVersionKey, elrVersions, featureLevel(elrVersions, func(c *Config) *int16 { return &c.EligibleLeaderReplicasVersion },
		"expected 0 (no eligible leader replicas, as Kafka 3.9) or 1 (KIP-966's, Kafka 4's default), got %q"))

// The levels a scene may give each feature.
var (
	transactionVersions = []string{"0", "2"}
	elrVersions         = []string{"0", "1"}
)

// featureLevel sets a feature's level to one of levels; refused says what they mean.
func featureLevel(levels []string, level func(*Config) *int16, refused string) props.Setter[Config] {
	return func(c *Config, v props.Value) error {
		n, err := strconv.ParseInt(v.Text, 10, 16)
		if err != nil || !slices.Contains(levels, v.Text) {
			return fmt.Errorf(refused, v.Text)
		}
		*level(c) = int16(n)
		return nil
	}
}

// The consumer protocol's broker keys (GroupCoordinatorConfig), and their Kafka 4.4
// defaults.
const (
	GroupConsumerSessionTimeoutKey     = "group.consumer.session.timeout.ms"
	GroupConsumerHeartbeatIntervalKey  = "group.consumer.heartbeat.interval.ms"
	GroupConsumerAssignmentIntervalKey = "group.consumer.assignment.interval.ms"

	DefaultGroupConsumerSessionTimeoutMs     = 45000
	DefaultGroupConsumerHeartbeatIntervalMs  = 5000
	DefaultGroupConsumerAssignmentIntervalMs = 1000
)

// The bounds a real Kafka 4.4 broker holds the session timeout and the heartbeat interval
// to (group.consumer.{min,max}.session.timeout.ms, group.consumer.{min,max}.heartbeat.
// interval.ms, at their defaults): Properties widens them for a value outside, so the
// real broker starts with it.
const (
	groupConsumerMinSessionTimeoutMs    = 45000
	groupConsumerMaxSessionTimeoutMs    = 60000
	groupConsumerMinHeartbeatIntervalMs = 5000
	groupConsumerMaxHeartbeatIntervalMs = 15000
)

// EligibleLeaderReplicasVersionKey names KIP-966's feature.
const EligibleLeaderReplicasVersionKey = "eligible.leader.replicas.version"

// TransactionVersionKey names the transaction.version feature. Level 1 is left out:
// it changes only how __transaction_state's records are written, nothing a scene shows.
const TransactionVersionKey = "transaction.version"

// TransactionPartitionVerificationKey names KIP-890's switch.
const TransactionPartitionVerificationKey = "transaction.partition.verification.enable"

// The transactional id expiration's keys (TransactionStateManagerConfigs).
const (
	TransactionalIDExpirationKey        = "transactional.id.expiration.ms"
	TransactionRemoveExpiredIntervalKey = "transaction.remove.expired.transaction.cleanup.interval.ms"
)

// Validate applies the broker's own start-up checks (KafkaConfig).
func (c Config) txnConfig() txn.Config {
	return txn.Config{LogPartitions: c.TransactionStateLogNumPartitions, MaxTimeoutMs: c.TransactionMaxTimeoutMs,
		AbortIntervalMs: c.TransactionAbortIntervalMs, OffsetsPartitions: c.OffsetsTopicNumPartitions,
		RequestTimeoutMs: BrokerRequestTimeoutMs, RetryBackoffMs: TxnMarkerRetryBackoffMs,
		ExpirationMs: c.TransactionalIDExpirationMs, ExpireIntervalMs: c.TransactionRemoveExpiredIntervalMs,
		TransactionVersion: c.TransactionVersion}
}

func (c Config) Validate() error {
	if c.TransactionVersion >= 2 && c.Version == protocol.Kafka39 {
		return fmt.Errorf("%s %d needs kafka.version 4.x: Kafka 3.9 runs transactions version 0 (version 2 came with Kafka 4.0)",
			TransactionVersionKey, c.TransactionVersion)
	}
	if c.EligibleLeaderReplicasVersion >= 1 && c.Version == protocol.Kafka39 {
		return fmt.Errorf("%s %d needs kafka.version 4.x: Kafka 3.9 has no eligible leader replicas (they came with Kafka 4.0, on by default since 4.1)",
			EligibleLeaderReplicasVersionKey, c.EligibleLeaderReplicasVersion)
	}
	if err := c.validateConsumerGroups(); err != nil {
		return err
	}
	if c.ReplicaFetchWaitMaxMs > c.ReplicaLagTimeMaxMs {
		return fmt.Errorf("replica.fetch.wait.max.ms should always be less than or equal to replica.lag.time.max.ms to prevent frequent changes in ISR (%d > %d)",
			c.ReplicaFetchWaitMaxMs, c.ReplicaLagTimeMaxMs)
	}
	return nil
}

// validateConsumerGroups checks the consumer protocol's keys: Kafka 3.9 runs no
// consumer-protocol group here, so a 3.9 scene keeps their defaults (the error starts
// with the key, as the parser expects); and, as GroupCoordinatorConfig requires, a
// member heartbeats more often than its session expires.
func (c Config) validateConsumerGroups() error {
	if c.Version == protocol.Kafka39 {
		for _, k := range []struct {
			key        string
			value, def int64
		}{
			{GroupConsumerSessionTimeoutKey, c.GroupConsumerSessionTimeoutMs, DefaultGroupConsumerSessionTimeoutMs},
			{GroupConsumerHeartbeatIntervalKey, c.GroupConsumerHeartbeatIntervalMs, DefaultGroupConsumerHeartbeatIntervalMs},
			{GroupConsumerAssignmentIntervalKey, c.GroupConsumerAssignmentIntervalMs, DefaultGroupConsumerAssignmentIntervalMs},
		} {
			if k.value != k.def {
				return fmt.Errorf("%s %d needs kafka.version 4.x: the consumer group protocol (group.protocol=consumer, KIP-848) is modelled as Kafka 4 runs it",
					k.key, k.value)
			}
		}
	}
	if c.GroupConsumerHeartbeatIntervalMs >= c.GroupConsumerSessionTimeoutMs {
		return fmt.Errorf("%s must be less than %s (%d >= %d)", GroupConsumerHeartbeatIntervalKey, GroupConsumerSessionTimeoutKey,
			c.GroupConsumerHeartbeatIntervalMs, c.GroupConsumerSessionTimeoutMs)
	}
	return nil
}

// EffectiveMinISR is min(min.insync.replicas, replication factor) (R3).
func (c Config) EffectiveMinISR(replicationFactor int) int {
	return min(c.MinInsyncReplicas, replicationFactor)
}

// Properties is the configuration as Kafka's broker properties, every key the table
// models with its effective value: what a real cluster must be given to behave as the
// simulated one does (the conformance suite). The historical toggle is not one: a scene
// that sets it is simulator-only.
func (c Config) Properties() map[string]string {
	p := map[string]string{
		"min.insync.replicas":              strconv.Itoa(c.MinInsyncReplicas),
		"unclean.leader.election.enable":   strconv.FormatBool(c.UncleanLeaderElection),
		"replica.lag.time.max.ms":          ms(c.ReplicaLagTimeMaxMs),
		"replica.fetch.wait.max.ms":        ms(c.ReplicaFetchWaitMaxMs),
		"replica.fetch.backoff.ms":         ms(c.ReplicaFetchBackoffMs),
		"broker.session.timeout.ms":        ms(c.BrokerSessionTimeoutMs),
		"broker.heartbeat.interval.ms":     ms(c.BrokerHeartbeatIntervalMs),
		"group.initial.rebalance.delay.ms": ms(c.GroupInitialRebalanceDelayMs),
		"group.min.session.timeout.ms":     ms(c.GroupMinSessionTimeoutMs),
		"group.max.session.timeout.ms":     ms(c.GroupMaxSessionTimeoutMs),
		"offsets.topic.num.partitions":     strconv.Itoa(c.OffsetsTopicNumPartitions),
		"offsets.commit.timeout.ms":        ms(OffsetsCommitTimeoutMs),
		"replica.socket.timeout.ms":        ms(ReplicaSocketTimeoutMs),
	}
	if c.Version != protocol.Kafka39 {
		c.addConsumerGroupProperties(p) // 3.9's brokers keep their properties as they were
	}
	return p
}

// addConsumerGroupProperties gives a Kafka 4 broker the consumer protocol's settings,
// with the bounds widened for a value a real broker would refuse by default
// (GroupCoordinatorConfig: the value must lie within its min and max).
func (c Config) addConsumerGroupProperties(p map[string]string) {
	p[GroupConsumerSessionTimeoutKey] = ms(c.GroupConsumerSessionTimeoutMs)
	p[GroupConsumerHeartbeatIntervalKey] = ms(c.GroupConsumerHeartbeatIntervalMs)
	p[GroupConsumerAssignmentIntervalKey] = ms(c.GroupConsumerAssignmentIntervalMs)
	for _, b := range []struct {
		value    int64
		min, max int64
		minKey   string
		maxKey   string
	}{
		{c.GroupConsumerSessionTimeoutMs, groupConsumerMinSessionTimeoutMs, groupConsumerMaxSessionTimeoutMs,
			"group.consumer.min.session.timeout.ms", "group.consumer.max.session.timeout.ms"},
		{c.GroupConsumerHeartbeatIntervalMs, groupConsumerMinHeartbeatIntervalMs, groupConsumerMaxHeartbeatIntervalMs,
			"group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms"},
	} {
		if b.value < b.min {
			p[b.minKey] = ms(b.value)
		}
		if b.value > b.max {
			p[b.maxKey] = ms(b.value)
		}
	}
}

// TransactionProperties is the transaction coordinator's configuration as Kafka's
// broker properties, for a real cluster that runs transactions (the scene layer does
// not run them yet, so Properties leaves them out and shipped scenes' properties stay
// as they were).
func (c Config) TransactionProperties() map[string]string {
	return map[string]string{
		"transaction.state.log.num.partitions":                        strconv.Itoa(c.TransactionStateLogNumPartitions),
		"transaction.state.log.min.isr":                               strconv.Itoa(TransactionStateLogMinISR),
		"transaction.max.timeout.ms":                                  ms(c.TransactionMaxTimeoutMs),
		"transaction.abort.timed.out.transaction.cleanup.interval.ms": ms(c.TransactionAbortIntervalMs),
		TransactionPartitionVerificationKey:                           strconv.FormatBool(c.TransactionPartitionVerificationEnable),
		TransactionalIDExpirationKey:                                  ms(c.TransactionalIDExpirationMs),
		TransactionRemoveExpiredIntervalKey:                           ms(c.TransactionRemoveExpiredIntervalMs),
	}
}

// Features are the feature levels a real cluster of the release is formatted with
// (kafka-storage format --feature), for a release other than the reference: 3.9's
// clusters keep the runner's defaults, which are the simulated ones.
func (c Config) Features() map[string]int {
	if c.Version == protocol.Kafka39 {
		return nil
	}
	return map[string]int{TransactionVersionKey: int(c.TransactionVersion),
		EligibleLeaderReplicasVersionKey: int(c.EligibleLeaderReplicasVersion)}
}

func ms(v int64) string { return strconv.FormatInt(v, 10) }
