package flink

import (
	"fmt"

	"deliverylab/core/kafka/clients"
)

// CheckpointingMode is execution.checkpointing.mode.
type CheckpointingMode string

// The checkpointing modes (CheckpointingMode).
const (
	ExactlyOnce CheckpointingMode = "EXACTLY_ONCE" // barriers aligned
	AtLeastOnce CheckpointingMode = "AT_LEAST_ONCE"
)

// CheckpointingModes lists them, for the scene parser.
var CheckpointingModes = []CheckpointingMode{ExactlyOnce, AtLeastOnce}

// DeliveryGuarantee is a KafkaSink's delivery guarantee (DeliveryGuarantee).
type DeliveryGuarantee string

// The delivery guarantees. NONE is the KafkaSinkBuilder's default.
const (
	GuaranteeNone        DeliveryGuarantee = "NONE"
	GuaranteeAtLeastOnce DeliveryGuarantee = "AT_LEAST_ONCE"
	GuaranteeExactlyOnce DeliveryGuarantee = "EXACTLY_ONCE"
)

// DeliveryGuarantees lists them, for the scene parser.
var DeliveryGuarantees = []DeliveryGuarantee{GuaranteeNone, GuaranteeAtLeastOnce, GuaranteeExactlyOnce}

// Operator is what the operator subtasks do with each record.
type Operator string

// The operators.
const (
	Map Operator = "map" // the record passes on unchanged, its message identity kept
	// Count and Sum keep keyed state (a ValueState per key): each record adds 1, or its
	// value, to its key's total, and the operator emits the new total at once (a rolling
	// aggregate, as KeyedStream.sum does). They need a keyed stream.
	Count Operator = "count"
	Sum   Operator = "sum"
)

// Operators lists the operators a scene may use.
var Operators = []Operator{Map, Count, Sum}

// Aggregates reports whether the operator keeps a total per key.
func (o Operator) Aggregates() bool { return o == Count || o == Sum }

// Checkpointing is the job's checkpoint settings, named as Flink names them
// (execution.checkpointing.*): at most one checkpoint in flight, no pause between them.
type Checkpointing struct {
	IntervalMs int64             // execution.checkpointing.interval
	Mode       CheckpointingMode // execution.checkpointing.mode
	TimeoutMs  int64             // execution.checkpointing.timeout (10 min by default)
}

// DefaultCheckpointTimeoutMs is execution.checkpointing.timeout's default.
const DefaultCheckpointTimeoutMs = 600000

// SourceSpec is the job's KafkaSource.
type SourceSpec struct {
	Topic       string
	Parallelism int
	// Latest: OffsetsInitializer.latest() where no checkpoint says otherwise; else earliest().
	Latest bool
	// GroupID: the consumer group the source commits each completed checkpoint's offsets
	// to (group.id; KafkaSource commits them only with one, for monitoring, and never reads
	// them back on a restore). "": no commits.
	GroupID string
	// Committed: a job started without a checkpoint begins at the offsets committed to
	// GroupID, a partition with none at the earliest
	// (OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST)).
	Committed bool
	// Consumer is the split readers' consumer configuration (isolation.level).
	Consumer clients.ConsumerConfig
}

// KafkaSinkSpec is the job's KafkaSink.
type KafkaSinkSpec struct {
	Topic     string
	Guarantee DeliveryGuarantee
	// TransactionalIDPrefix: the sink's transactional ids are "prefix-subtask-checkpoint"
	// under EXACTLY_ONCE.
	TransactionalIDPrefix string
	Producer              clients.ProducerConfig
}

// JobSpec is one Flink job: a Kafka source, an optional keyBy, an operator and a sink.
type JobSpec struct {
	Checkpointing  Checkpointing
	RestartDelayMs int64 // restart-strategy fixed-delay: restart-strategy.fixed-delay.delay
	Source         SourceSpec
	Keyed          bool     // keyBy(record key) between the source and the operator
	Operator       Operator // of every operator subtask
	Parallelism    int      // of the operator and the sink
	Sink           KafkaSinkSpec
	// DBSink: the job writes to this database sink of the scene (sink: {db: {sink: NAME}})
	// instead of Kafka, as a plain database client (sink_db.go); "" writes to Kafka.
	DBSink string
	// DBTwoPhaseCommit: DBSink is a transactional sink, written with two-phase commit:
	// each checkpoint's rows in one XA branch, prepared at the barrier and committed when
	// the checkpoint completes (sink_xa.go).
	DBTwoPhaseCommit bool
}

// Chained reports whether each source subtask runs in one task with its operator and
// sink subtask (Flink chains operators joined by a forward edge of equal parallelism):
// no keyBy, and the same parallelism throughout.
func (s JobSpec) Chained() bool { return !s.Keyed && s.Source.Parallelism == s.Parallelism }

// The parts of a job, as the scene names them: "JOB/jobmanager", "JOB/source-0",
// "JOB/map-0", "JOB/sink-0".
const JobManager = "jobmanager"

// SourceName is source subtask i's part name.
func SourceName(i int) string { return fmt.Sprintf("source-%d", i) }

// OperatorName is operator subtask i's part name, after the operator.
func (s JobSpec) OperatorName(i int) string { return fmt.Sprintf("%s-%d", s.Operator, i) }

// SinkName is sink subtask i's part name.
func SinkName(i int) string { return fmt.Sprintf("sink-%d", i) }

// Parts lists the job's parts in order: the job manager, the sources, the operators,
// the sinks.
func (s JobSpec) Parts() []string {
	out := []string{JobManager}
	for i := range s.Source.Parallelism {
		out = append(out, SourceName(i))
	}
	for i := range s.Parallelism {
		out = append(out, s.OperatorName(i))
	}
	for i := range s.Parallelism {
		out = append(out, SinkName(i))
	}
	return out
}

func (m CheckpointingMode) String() string { return string(m) }
func (g DeliveryGuarantee) String() string { return string(g) }
func (o Operator) String() string          { return string(o) }
