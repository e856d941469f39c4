package clients

import (
	"fmt"
	"strconv"
	"strings"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/props"
)

// ProducerConfig is the producer client's configuration (Kafka's ProducerConfig).
type ProducerConfig struct {
	Acks              protocol.Acks // acks
	Retries           int64         // retries
	RetryBackoffMs    int64         // retry.backoff.ms
	RetryBackoffMaxMs int64         // retry.backoff.max.ms
	RequestTimeoutMs  int64         // request.timeout.ms
	DeliveryTimeoutMs int64         // delivery.timeout.ms
	LingerMs          int64         // linger.ms
	MaxInFlight       int           // max.in.flight.requests.per.connection
	BatchSize         int64         // batch.size, in bytes (a record counts RecordBytes)
	BufferMemory      int64         // buffer.memory, in bytes
	MaxBlockMs        int64         // max.block.ms
	EnableIdempotence bool          // enable.idempotence
	IdempotenceSet    bool          // enable.idempotence was written, not defaulted (R11)
	// TransactionalID and TransactionTimeoutMs: transactional.id ("" is Kafka's null) and
	// transaction.timeout.ms, set by a scene's producer config (the table below).
	TransactionalID      string
	TransactionTimeoutMs int64
	// Client is the Kafka release of the client library (the scene's kafka.version), not
	// a property: Kafka 4's producer treats INVALID_PRODUCER_ID_MAPPING as fatal
	// (TransactionManager.maybeTransitionToErrorState and the coordinator requests'
	// handlers), where 3.9's aborts and asks for a new producer id.
	Client protocol.Version
}

// DefaultProducerConfig is Kafka 3.9's producer defaults; Resolve settles idempotence.
func DefaultProducerConfig() ProducerConfig {
	return ProducerConfig{Acks: protocol.AcksAll, Retries: 2147483647, RetryBackoffMs: 100, RetryBackoffMaxMs: 1000,
		RequestTimeoutMs: 30000, DeliveryTimeoutMs: 120000, LingerMs: 5, MaxInFlight: 5, EnableIdempotence: true,
		BatchSize: 16384, BufferMemory: 33554432, MaxBlockMs: 60000, TransactionTimeoutMs: 60000}
}

// AutoOffsetReset is auto.offset.reset.
type AutoOffsetReset string

// The auto.offset.reset choices.
const (
	ResetEarliest AutoOffsetReset = "earliest"
	ResetLatest   AutoOffsetReset = "latest"
	ResetNone     AutoOffsetReset = "none"
)

// AutoOffsetResets are auto.offset.reset's choices, in the order Kafka's docs list them.
var AutoOffsetResets = []AutoOffsetReset{ResetEarliest, ResetLatest, ResetNone}

func (r AutoOffsetReset) String() string { return string(r) }

// ConsumerConfig is the consumer client's configuration (Kafka's ConsumerConfig).
type ConsumerConfig struct {
	EnableAutoCommit     bool            // enable.auto.commit
	AutoCommitIntervalMs int64           // auto.commit.interval.ms
	AutoOffsetReset      AutoOffsetReset // auto.offset.reset
	SessionTimeoutMs     int64           // session.timeout.ms
	HeartbeatIntervalMs  int64           // heartbeat.interval.ms
	MaxPollRecords       int             // max.poll.records
	FetchMaxWaitMs       int64           // fetch.max.wait.ms
	RetryBackoffMs       int64           // retry.backoff.ms
	RetryBackoffMaxMs    int64           // retry.backoff.max.ms
	RequestTimeoutMs     int64           // request.timeout.ms
	// Isolation is isolation.level: read_committed fetches only below the LSO and drops
	// the records of aborted transactions.
	Isolation protocol.IsolationLevel
	// GroupProtocol is group.protocol: classic (JoinGroup and SyncGroup, the range
	// assignor run for the group) or consumer (KIP-848, Kafka 4: ConsumerGroupHeartbeat,
	// the coordinator assigns, partitions move one by one).
	GroupProtocol GroupProtocol
}

// GroupProtocol is group.protocol's value.
type GroupProtocol string

// The group protocols (ConsumerConfig's GroupProtocol, lower case as users write it).
const (
	ClassicProtocol  GroupProtocol = "classic"
	ConsumerProtocol GroupProtocol = "consumer"
)

// GroupProtocols are group.protocol's choices.
var GroupProtocols = []GroupProtocol{ClassicProtocol, ConsumerProtocol}

func (g GroupProtocol) String() string { return string(g) }

// ConsumerProtocolRefuses are the settings a consumer refuses with group.protocol=consumer,
// where the coordinator decides them (ConsumerConfig.CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS):
// set explicitly, they fail the constructor with "<names> cannot be set when
// group.protocol=CONSUMER".
var ConsumerProtocolRefuses = []string{"partition.assignment.strategy", "heartbeat.interval.ms", "session.timeout.ms"}

// DefaultConsumerConfig is Kafka 3.9's consumer defaults.
func DefaultConsumerConfig() ConsumerConfig {
	return ConsumerConfig{EnableAutoCommit: true, AutoCommitIntervalMs: 5000, AutoOffsetReset: ResetLatest,
		SessionTimeoutMs: 45000, HeartbeatIntervalMs: 3000, MaxPollRecords: 500, FetchMaxWaitMs: 500,
		RetryBackoffMs: 100, RetryBackoffMaxMs: 1000, RequestTimeoutMs: 30000, GroupProtocol: ClassicProtocol}
}

// ProducerKeys is the table of a producer's config keys.
var ProducerKeys = props.NewTable[ProducerConfig]("Kafka").
	Enum("acks", props.Words(protocol.AcksChoices), func(c *ProducerConfig, v props.Value) error { return parseAcks(v, &c.Acks) }).
	Key("retries", func(c *ProducerConfig, v props.Value) error { return props.Int64(v, 0, 2147483647, &c.Retries) }).
	Key("retry.backoff.ms", func(c *ProducerConfig, v props.Value) error { return props.Ms(v, 0, &c.RetryBackoffMs) }).
	Key("retry.backoff.max.ms", func(c *ProducerConfig, v props.Value) error { return props.Ms(v, 0, &c.RetryBackoffMaxMs) }).
	Key("request.timeout.ms", func(c *ProducerConfig, v props.Value) error { return props.Ms(v, 1, &c.RequestTimeoutMs) }).
	Key("delivery.timeout.ms", func(c *ProducerConfig, v props.Value) error { return props.Ms(v, 1, &c.DeliveryTimeoutMs) }).
	Key("linger.ms", func(c *ProducerConfig, v props.Value) error { return props.Ms(v, 0, &c.LingerMs) }).
	Key("max.in.flight.requests.per.connection", func(c *ProducerConfig, v props.Value) error {
		return props.Int(v, 1, 1000, &c.MaxInFlight)
	}).
	Key("batch.size", func(c *ProducerConfig, v props.Value) error { return props.Int64(v, 0, 2147483647, &c.BatchSize) }).
	Key("buffer.memory", func(c *ProducerConfig, v props.Value) error { return props.Int64(v, 0, 1<<40, &c.BufferMemory) }).
	Key("max.block.ms", func(c *ProducerConfig, v props.Value) error { return props.Ms(v, 0, &c.MaxBlockMs) }).
	Enum("enable.idempotence", props.BoolWords, func(c *ProducerConfig, v props.Value) error {
		c.IdempotenceSet = true
		return props.Bool(v, &c.EnableIdempotence)
	}).
	Key("transactional.id", func(c *ProducerConfig, v props.Value) error {
		c.TransactionalID = ""
		if v.Null {
			return nil // Kafka's default: no transactional id
		}
		if v.Text == "" {
			return fmt.Errorf("expected a transactional id or null, got an empty string")
		}
		c.TransactionalID = v.Text
		return nil
	}).
	Key("transaction.timeout.ms", func(c *ProducerConfig, v props.Value) error { return props.Ms(v, 1, &c.TransactionTimeoutMs) })

// ConsumerKeys is the table of a consumer's config keys.
var ConsumerKeys = props.NewTable[ConsumerConfig]("Kafka").
	Flag("enable.auto.commit", func(c *ConsumerConfig) *bool { return &c.EnableAutoCommit }).
	Key("auto.commit.interval.ms", func(c *ConsumerConfig, v props.Value) error { return props.Ms(v, 0, &c.AutoCommitIntervalMs) }).
	Enum("auto.offset.reset", props.Words(AutoOffsetResets), func(c *ConsumerConfig, v props.Value) error {
		return props.OneOf(v, AutoOffsetResets, &c.AutoOffsetReset)
	}).
	Key("session.timeout.ms", func(c *ConsumerConfig, v props.Value) error { return props.Ms(v, 1, &c.SessionTimeoutMs) }).
	Key("heartbeat.interval.ms", func(c *ConsumerConfig, v props.Value) error { return props.Ms(v, 1, &c.HeartbeatIntervalMs) }).
	Key("max.poll.records", func(c *ConsumerConfig, v props.Value) error { return props.Int(v, 1, 100000, &c.MaxPollRecords) }).
	Key("fetch.max.wait.ms", func(c *ConsumerConfig, v props.Value) error { return props.Ms(v, 0, &c.FetchMaxWaitMs) }).
	Key("retry.backoff.ms", func(c *ConsumerConfig, v props.Value) error { return props.Ms(v, 0, &c.RetryBackoffMs) }).
	Key("retry.backoff.max.ms", func(c *ConsumerConfig, v props.Value) error { return props.Ms(v, 0, &c.RetryBackoffMaxMs) }).
	Key("request.timeout.ms", func(c *ConsumerConfig, v props.Value) error { return props.Ms(v, 1, &c.RequestTimeoutMs) }).
	Enum("isolation.level", props.Words(protocol.IsolationLevels), func(c *ConsumerConfig, v props.Value) error {
		return props.OneOf(v, protocol.IsolationLevels, &c.Isolation)
	}).
	Enum("group.protocol", props.Words(GroupProtocols), func(c *ConsumerConfig, v props.Value) error {
		return props.OneOf(v, GroupProtocols, &c.GroupProtocol)
	})

func parseAcks(v props.Value, out *protocol.Acks) error {
	switch strings.ToLower(v.Text) {
	case "all", "-1":
		*out = protocol.AcksAll
	case "1":
		*out = protocol.AcksLeader
	case "0":
		*out = protocol.AcksNone
	default:
		return fmt.Errorf("expected all, -1, 0 or 1, got %q", v.Text)
	}
	return nil
}

// Check checks the producer configuration as KafkaProducer's constructor does
// (ProducerConfig.postProcessAndValidateIdempotenceConfigs; R11): idempotence needs
// acks=all, retries > 0 and max.in.flight.requests.per.connection <= 5; set explicitly,
// a conflict is an error naming both keys; defaulted, idempotence gives way silently.
func (c *ProducerConfig) Check() error {
	if c.DeliveryTimeoutMs < c.LingerMs+c.RequestTimeoutMs {
		return fmt.Errorf("delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms (%d < %d)",
			c.DeliveryTimeoutMs, c.LingerMs+c.RequestTimeoutMs)
	}
	if need := max(c.BatchSize, RecordBytes); c.BufferMemory < need {
		// BufferPool.allocate refuses a batch larger than the whole pool; Kafka finds out
		// at the first send, the simulator before the run.
		return fmt.Errorf("buffer.memory %d is smaller than one batch (batch.size %d, a record counts %d bytes here): "+
			"Kafka's send would fail with \"Attempt to allocate %d bytes, but there is a hard limit of %d on memory allocations.\"",
			c.BufferMemory, c.BatchSize, RecordBytes, need, c.BufferMemory)
	}
	conflict := ""
	switch {
	case c.Acks != protocol.AcksAll:
		conflict = "acks must be all in order to use the idempotent producer"
	case c.Retries == 0:
		conflict = "retries must be greater than 0 in order to use the idempotent producer"
	case c.MaxInFlight > 5:
		conflict = "max.in.flight.requests.per.connection must be at most 5 in order to use the idempotent producer"
	}
	if conflict != "" && c.EnableIdempotence {
		if c.IdempotenceSet {
			return fmt.Errorf("enable.idempotence is true but %s", conflict)
		}
		c.EnableIdempotence = false // R11: an implicit default gives way silently
	}
	if c.TransactionalID != "" && !c.EnableIdempotence {
		// checked after idempotence gave way, as postProcessAndValidateIdempotenceConfigs does
		return fmt.Errorf("Cannot set a transactional.id without also enabling idempotence.")
	}
	return nil
}

// CheckSessionTimeout applies the broker's group session bounds (R20).
func (c ConsumerConfig) CheckSessionTimeout(minMs, maxMs int64) error {
	if c.SessionTimeoutMs < minMs || c.SessionTimeoutMs > maxMs {
		return fmt.Errorf("INVALID_SESSION_TIMEOUT: session.timeout.ms %d is outside the broker's group.min.session.timeout.ms %d .. group.max.session.timeout.ms %d",
			c.SessionTimeoutMs, minMs, maxMs)
	}
	if c.HeartbeatIntervalMs >= c.SessionTimeoutMs {
		return fmt.Errorf("heartbeat.interval.ms must be lower than session.timeout.ms")
	}
	return nil
}

// Properties is the producer configuration as Kafka's client properties, every key the
// table models with its effective value (the conformance suite gives them to the real
// client, so that it runs with the simulated client's settings, defaults included).
func (c ProducerConfig) Properties() map[string]string {
	out := map[string]string{
		"acks":                                  c.Acks.String(),
		"retries":                               strconv.FormatInt(c.Retries, 10),
		"retry.backoff.ms":                      ms(c.RetryBackoffMs),
		"retry.backoff.max.ms":                  ms(c.RetryBackoffMaxMs),
		"request.timeout.ms":                    ms(c.RequestTimeoutMs),
		"delivery.timeout.ms":                   ms(c.DeliveryTimeoutMs),
		"linger.ms":                             ms(c.LingerMs),
		"max.in.flight.requests.per.connection": strconv.Itoa(c.MaxInFlight),
		"batch.size":                            strconv.FormatInt(c.BatchSize, 10),
		"buffer.memory":                         strconv.FormatInt(c.BufferMemory, 10),
		"max.block.ms":                          ms(c.MaxBlockMs),
		"enable.idempotence":                    strconv.FormatBool(c.EnableIdempotence),
		"reconnect.backoff.max.ms":              ms(reconnectBackoffMs),
	}
	if c.TransactionalID != "" {
		out["transactional.id"] = c.TransactionalID
		out["transaction.timeout.ms"] = ms(c.TransactionTimeoutMs)
	}
	return out
}

// Properties is the consumer configuration as Kafka's client properties, every key the
// table models with its effective value, and the choices the simulated client makes
// (the range assignor under the classic protocol, max.poll.interval.ms).
func (c ConsumerConfig) Properties() map[string]string {
	out := map[string]string{
		"enable.auto.commit":            strconv.FormatBool(c.EnableAutoCommit),
		"auto.commit.interval.ms":       ms(c.AutoCommitIntervalMs),
		"auto.offset.reset":             string(c.AutoOffsetReset),
		"session.timeout.ms":            ms(c.SessionTimeoutMs),
		"heartbeat.interval.ms":         ms(c.HeartbeatIntervalMs),
		"max.poll.records":              strconv.Itoa(c.MaxPollRecords),
		"fetch.max.wait.ms":             ms(c.FetchMaxWaitMs),
		"retry.backoff.ms":              ms(c.RetryBackoffMs),
		"retry.backoff.max.ms":          ms(c.RetryBackoffMaxMs),
		"request.timeout.ms":            ms(c.RequestTimeoutMs),
		"isolation.level":               c.Isolation.String(),
		"max.poll.interval.ms":          ms(maxPollIntervalMs),
		"group.protocol":                c.GroupProtocol.String(),
		"partition.assignment.strategy": "org.apache.kafka.clients.consumer.RangeAssignor",
		"reconnect.backoff.max.ms":      ms(reconnectBackoffMs),
	}
	if c.GroupProtocol == ConsumerProtocol {
		// The coordinator decides these (and assigns with its uniform assignor): the
		// client refuses them set.
		for _, k := range ConsumerProtocolRefuses {
			delete(out, k)
		}
	}
	return out
}

func ms(v int64) string { return strconv.FormatInt(v, 10) }
