package scene

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"deliverylab/core/apps"
	"deliverylab/core/flink"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// Plan is a scene resolved for the conformance suite, which runs it against a real Kafka
// cluster: every setting with its effective value (defaults included, as Kafka
// properties), the replica placement, each message's key and value, and the faults. The
// Java runner reads it as JSON, so that the scene format has one parser.
type Plan struct {
	Scene            string            `json:"scene"`
	Brokers          int               `json:"brokers"`
	BrokerProperties map[string]string `json:"brokerProperties"`
	Partitions       []PlanPartition   `json:"partitions"`
	LatencyMs        int64             `json:"latencyMs"`
	JitterMs         int64             `json:"jitterMs"`
	Links            []PlanLink        `json:"links"`
	Producers        []PlanProducer    `json:"producers"`
	Consumers        []PlanConsumer    `json:"consumers"`
	Streams          []PlanStreams     `json:"streams"`
	Jobs             []PlanJob         `json:"jobs"`
	Sinks            []SinkSpec        `json:"sinks"`
	Faults           []PlanFault       `json:"faults"`
	StopMs           int64             `json:"stopMs"` // 0: until settled
	// LimitMs is when the real run stops at the latest when it has not settled.
	LimitMs int64 `json:"limitMs"`
	// KafkaVersion is the Kafka release of the real cluster, as kafka-storage's
	// --release-version names it: "" is the reference, 3.9 (the runner's default).
	KafkaVersion string `json:"kafkaVersion,omitempty"`
	// Features are the feature levels the cluster is formatted with (kafka-storage
	// format --feature NAME=LEVEL) where the scene's release does not leave them to its
	// defaults: transaction.version on Kafka 4.
	Features map[string]int `json:"features,omitempty"`
}

// PlanPartition is one partition and its replicas, the first its initial leader.
type PlanPartition struct {
	Topic     string   `json:"topic"`
	Partition int32    `json:"partition"`
	Replicas  []string `json:"replicas"`
}

// PlanLink is a link's one-way latency.
type PlanLink struct {
	Between   [2]string `json:"between"`
	LatencyMs int64     `json:"latencyMs"`
}

// PlanProducer is a producer application.
type PlanProducer struct {
	Name       string            `json:"name"`
	Properties map[string]string `json:"properties"`
	Topic      string            `json:"topic"`
	Messages   []PlanMessage     `json:"messages"`
	IntervalMs int64             `json:"intervalMs"`
	StartMs    int64             `json:"startMs"`
	OnRestart  apps.OnRestart    `json:"onRestart"`
	// Sync: each send waits for its result (send().get()) before the interval starts.
	Sync bool `json:"sync"`
	// TransactionSize: with a transactional.id, each transaction carries this many
	// messages in send order (the last may carry fewer); 0: not transactional.
	TransactionSize int `json:"transactionSize"`
	// AbortTransactions are the 1-based numbers of the transactions the application
	// aborts (abortTransaction) instead of committing.
	AbortTransactions []int `json:"abortTransactions"`
}

// PlanMessage is one message a producer sends.
type PlanMessage struct {
	ID    string `json:"id"`
	Key   string `json:"key"`
	Value string `json:"value"`
	// Partition is where an unkeyed message goes: round robin in send order, as the scene
	// format defines it and the simulated client does. (A keyed one goes where the real
	// client's default partitioner puts it, murmur2 of the key, as in the simulator.)
	Partition int `json:"partition"`
}

// PlanConsumer is a consumer application.
type PlanConsumer struct {
	Name         string            `json:"name"`
	Group        string            `json:"group"`
	Topics       []string          `json:"topics"`
	Properties   map[string]string `json:"properties"`
	Commit       apps.CommitPolicy `json:"commit"`
	Async        bool              `json:"async"`
	ProcessingMs int64             `json:"processingMs"`
	Sink         string            `json:"sink"`
	StartMs      int64             `json:"startMs"`
}

// PlanStreams is a Kafka Streams application (one stream thread): its name is its
// application.id, so its consumer group's id.
type PlanStreams struct {
	Name      string `json:"name"`
	From      string `json:"from"`
	To        string `json:"to"`
	Guarantee string `json:"processingGuarantee"`
	// CommitIntervalMs is the effective commit.interval.ms (the guarantee's default
	// applied).
	CommitIntervalMs int64 `json:"commitIntervalMs"`
	// The simulated clients' effective settings, Streams' own overrides included.
	ConsumerProperties map[string]string `json:"consumerProperties"`
	ProducerProperties map[string]string `json:"producerProperties"`
	StartMs            int64             `json:"startMs"`
}

// PlanJob is a Flink job: its checkpointing, restart delay, KafkaSource, keyBy,
// operator and KafkaSink, with their effective values.
type PlanJob struct {
	Name                 string        `json:"name"`
	CheckpointIntervalMs int64         `json:"checkpointIntervalMs"`
	CheckpointingMode    string        `json:"checkpointingMode"`
	CheckpointTimeoutMs  int64         `json:"checkpointTimeoutMs"`
	RestartDelayMs       int64         `json:"restartDelayMs"`
	Source               PlanJobSource `json:"source"`
	Keyed                bool          `json:"keyed"`
	Operator             string        `json:"operator"`
	Parallelism          int           `json:"parallelism"`
	Sink                 PlanJobSink   `json:"sink"`
	StartMs              int64         `json:"startMs"`
}

// PlanJobSource is a job's KafkaSource.
type PlanJobSource struct {
	Topic           string            `json:"topic"`
	Parallelism     int               `json:"parallelism"`
	StartingOffsets string            `json:"startingOffsets"` // earliest | latest
	Properties      map[string]string `json:"properties"`
}

// PlanJobSink is a job's KafkaSink.
type PlanJobSink struct {
	// Db: the job writes to this database sink of the plan's sinks instead of Kafka.
	Db                    *PlanJobDB        `json:"db,omitempty"`
	Topic                 string            `json:"topic"`
	DeliveryGuarantee     string            `json:"deliveryGuarantee"`
	TransactionalIDPrefix string            `json:"transactionalIdPrefix,omitempty"`
	Properties            map[string]string `json:"properties"`
}

// PlanJobDB is a job's database sink: a plain client that writes each record and waits
// for the answer; with TwoPhaseCommit (a transactional sink) each checkpoint's rows go
// into one XA branch, prepared at the barrier and committed when the checkpoint
// completes (core/flink/sink_xa.go).
type PlanJobDB struct {
	Sink           string `json:"sink"`
	TwoPhaseCommit bool   `json:"twoPhaseCommit,omitempty"`
}

// PlanFault is a scripted fault: at a time, or at a protocol point (When).
type PlanFault struct {
	AtMs    int64         `json:"atMs"`
	When    *PlanTrigger  `json:"when"`
	Kind    sim.FaultKind `json:"kind"`
	Node    string        `json:"node,omitempty"`
	From    string        `json:"from,omitempty"`
	To      string        `json:"to,omitempty"`
	Groups  [][]string    `json:"groups,omitempty"`
	ForMs   int64         `json:"forMs,omitempty"`
	DelayMs int64         `json:"delayMs,omitempty"`
}

// PlanTrigger is a protocol point.
type PlanTrigger struct {
	Node    string    `json:"node,omitempty"`
	Event   sim.Event `json:"event"`
	Message string    `json:"message,omitempty"`
	Detail  string    `json:"detail,omitempty"`
	// Checkpoint: the trigger matches only this checkpoint (0: any).
	Checkpoint int64 `json:"checkpoint,omitempty"`
}

// realEvents are the protocol points the conformance runner sees on a real cluster: on
// the wire (through its fault proxy: produce requests leaving and answered, fetch frames, and the controller's
// metadata records the brokers fetch, whose PartitionChangeRecords are its elections),
// in the applications, in its sinks, and in what it does itself. A fault waiting for
// another one (a truncation inside a broker's log, say) could never fire there.
var realEvents = []sim.Event{sim.Started, sim.Crashed, sim.Restarted, apps.Sent, apps.Acked, apps.Failed, apps.Polled,
	apps.TxnCommitted, apps.TxnAborted, protocol.TxnPrepared,
	apps.Processed, protocol.OffsetCommitted, protocol.Assigned, protocol.ClientError, sinks.Written, sinks.DuplicateRefused, protocol.Requested, protocol.Appended,
	protocol.Responded, protocol.Replicated, protocol.Elected, protocol.Offline,
	flink.CheckpointTriggered, flink.CheckpointCompleted, flink.PreCommitted, flink.Restored, flink.Emitted}

// unseenOnARealJob says why a fault's protocol point is one the real job does not report,
// or "": a KafkaSink subtask's written (the simulated sink's write acknowledged) has no
// counterpart in FlinkApp, which sees a KafkaSink's writes only on the wire, as the
// broker's appended and responded.
func (s *Scene) unseenOnARealJob(f FaultSpec) string {
	w := f.When
	if w == nil || w.Event != sinks.Written || !slices.Contains(s.partNames(), w.Node) || !strings.HasPrefix(sim.PortOf(w.Node), "sink-") {
		return ""
	}
	for _, js := range s.Jobs {
		if js.Name == sim.NodeOf(w.Node) && js.Spec.DBSink == "" {
			return fmt.Sprintf("the conformance runner does not see %s written on a real job (a KafkaSink's writes are seen at the broker: appended, responded)", w.Node)
		}
	}
	return ""
}

// realSubtaskPause says why a pause of a Flink subtask cannot be made on the real job, or
// "": the runner stops a subtask's thread only at one of its own record points (FlinkApp
// blocks in the emit operator after emitted, in the operator after processed), so a pause
// must be triggered there; at any other moment the real subtask would block nothing
// until its next record while the simulated one holds its barriers too.
func (s *Scene) realSubtaskPause(f FaultSpec) string {
	if f.Fault.Kind != sim.FaultPause || !slices.Contains(s.partNames(), f.Fault.Node) {
		return ""
	}
	if w := f.When; w != nil && w.Node == f.Fault.Node && (w.Event == flink.Emitted || w.Event == flink.Processed) {
		return ""
	}
	return fmt.Sprintf("the conformance runner pauses %s only at its own record point (when: {node: %s, event: emitted or processed})", f.Fault.Node, f.Fault.Node)
}

// sourceProperties are the KafkaSource's consumer properties: its isolation.level, and
// its group.id when it commits its checkpoints' offsets.
func sourceProperties(src flink.SourceSpec) map[string]string {
	props := map[string]string{"isolation.level": src.Consumer.Isolation.String()}
	if src.GroupID != "" {
		props["group.id"] = src.GroupID
	}
	return props
}

// planJob resolves a Flink job for the real runner.
func planJob(js JobSpec) PlanJob {
	s := js.Spec
	start := "earliest"
	switch {
	case s.Source.Latest:
		start = "latest"
	case s.Source.Committed:
		start = "committed"
	}
	sink := s.Sink.Producer.Properties()
	if s.Sink.Guarantee == flink.GuaranteeExactlyOnce {
		// The sink names its transactional ids itself; the timeout is the scene's (or the
		// builder's own default, an hour).
		sink["transaction.timeout.ms"] = strconv.FormatInt(s.Sink.Producer.TransactionTimeoutMs, 10)
	}
	ps := PlanJobSink{Topic: s.Sink.Topic, DeliveryGuarantee: s.Sink.Guarantee.String(),
		TransactionalIDPrefix: s.Sink.TransactionalIDPrefix, Properties: sink}
	if s.DBSink != "" {
		ps = PlanJobSink{Db: &PlanJobDB{Sink: s.DBSink, TwoPhaseCommit: s.DBTwoPhaseCommit}, Properties: map[string]string{}}
	}
	return PlanJob{Name: js.Name, CheckpointIntervalMs: s.Checkpointing.IntervalMs, CheckpointingMode: s.Checkpointing.Mode.String(),
		CheckpointTimeoutMs: s.Checkpointing.TimeoutMs, RestartDelayMs: s.RestartDelayMs,
		Source: PlanJobSource{Topic: s.Source.Topic, Parallelism: s.Source.Parallelism, StartingOffsets: start,
			Properties: sourceProperties(s.Source)},
		Keyed: s.Keyed, Operator: s.Operator.String(), Parallelism: s.Parallelism,
		Sink: ps, StartMs: js.StartMs}
}

// Plan resolves the scene for a real run; it fails for a scene that cannot run on a
// real cluster, and says why.
func (s *Scene) Plan(simEndMs int64) (Plan, error) {
	if s.SimulatorOnly != "" {
		return Plan{}, fmt.Errorf("simulator only: %s", s.SimulatorOnly)
	}
	cluster := s.Cluster
	cluster.Groups = s.groupIDs()
	cluster.TransactionalIDs = s.transactionalIDs()
	props := cluster.Config.Properties()
	if len(cluster.TransactionalIDs) > 0 {
		maps.Copy(props, cluster.Config.TransactionProperties())
	}
	p := Plan{Scene: s.Name, Brokers: cluster.Brokers, BrokerProperties: props, LatencyMs: s.LatencyMs,
		JitterMs: s.JitterMs, Sinks: s.Sinks, StopMs: s.StopMs, LimitMs: s.StopMs}
	if s.KafkaVersion != protocol.Kafka39 {
		// 3.9's plans stay as they were: the runner's default release and features.
		p.KafkaVersion = s.KafkaVersion.Release()
		p.Features = cluster.Config.Features()
	}
	if p.LimitMs == 0 {
		// Real processes start, fail over and catch up more slowly than the simulated
		// ones: give the run room, but not for ever.
		p.LimitMs = min(2*simEndMs+60000, MaxRunMs)
	}
	for _, ps := range cluster.Created() {
		p.Partitions = append(p.Partitions, PlanPartition{Topic: ps.TP.Topic, Partition: ps.TP.Partition, Replicas: ps.Replicas})
	}
	for _, link := range sim.SortedPairs(s.Links) {
		p.Links = append(p.Links, PlanLink{Between: link, LatencyMs: s.Links[link]})
	}
	for _, ps := range s.Producers {
		pp := PlanProducer{Name: ps.Name, Properties: ps.Config.Properties(), Topic: ps.Work.Topic, IntervalMs: ps.Work.IntervalMs,
			StartMs: ps.StartMs, OnRestart: ps.OnRestart, Sync: ps.Sync,
			TransactionSize: ps.TransactionSize, AbortTransactions: ps.AbortTransactions}
		partitions := 1
		for _, t := range cluster.Topics {
			if t.Name == ps.Work.Topic {
				partitions = t.Partitions
			}
		}
		for n := 1; n <= ps.Work.Count; n++ {
			pp.Messages = append(pp.Messages, PlanMessage{ID: apps.MessageID(ps.Name, n),
				Key: apps.Expand(ps.Work.Key, n), Value: apps.Expand(ps.Work.Value, n), Partition: (n - 1) % partitions})
		}
		p.Producers = append(p.Producers, pp)
	}
	for _, cs := range s.Consumers {
		p.Consumers = append(p.Consumers, PlanConsumer{Name: cs.Name, Group: cs.Group, Topics: cs.Topics,
			Properties: cs.Config.Properties(), Commit: cs.Spec.Commit, Async: cs.Spec.Async,
			ProcessingMs: cs.Spec.ProcessingMs, Sink: cs.Spec.Sink, StartMs: cs.StartMs})
	}
	for _, ss := range s.Streams {
		producer := ss.Producer.Properties()
		if ss.Spec.Guarantee == apps.ExactlyOnceV2 {
			// Streams names the transactional id itself; its timeout is the scene's.
			producer["transaction.timeout.ms"] = strconv.FormatInt(ss.Producer.TransactionTimeoutMs, 10)
		}
		p.Streams = append(p.Streams, PlanStreams{Name: ss.Name, From: ss.Spec.From, To: ss.Spec.To, Guarantee: string(ss.Spec.Guarantee),
			CommitIntervalMs: ss.Spec.CommitIntervalMs, ConsumerProperties: ss.Consumer.Properties(),
			ProducerProperties: producer, StartMs: ss.StartMs})
	}
	for _, js := range s.Jobs {
		p.Jobs = append(p.Jobs, planJob(js))
	}
	for _, f := range s.Faults {
		if f.Fault.WireID != 0 {
			return Plan{}, fmt.Errorf("faults (line %d): a message named by its simulated wire id has no counterpart on a real cluster", f.Line)
		}
		// pause and resume are SIGSTOP and SIGCONT of the node's process; a sink is a table
		// inside the runner, with no process of its own to stop.
		if (f.Fault.Kind == sim.FaultPause || f.Fault.Kind == sim.FaultResume) && slices.ContainsFunc(s.Sinks, func(k SinkSpec) bool { return k.Name == f.Fault.Node }) {
			return Plan{}, fmt.Errorf("faults (line %d): a sink has no process of its own to %s on a real cluster", f.Line, f.Fault.Kind)
		}
		if why := s.unseenOnARealJob(f); why != "" {
			return Plan{}, fmt.Errorf("faults (line %d): %s", f.Line, why)
		}
		if why := s.realSubtaskPause(f); why != "" {
			return Plan{}, fmt.Errorf("faults (line %d): %s", f.Line, why)
		}
		if f.When != nil && !slices.Contains(realEvents, f.When.Event) {
			return Plan{}, fmt.Errorf("faults (line %d): the conformance runner cannot see the protocol point %s on a real cluster", f.Line, f.When.Event)
		}
		pf := PlanFault{AtMs: f.AtMs, Kind: f.Fault.Kind, Node: f.Fault.Node, From: f.Fault.From, To: f.Fault.To,
			Groups: f.Fault.Groups, ForMs: f.Fault.ForMs, DelayMs: f.Fault.DelayMs}
		if t := f.When; t != nil {
			pf.When = &PlanTrigger{Node: t.Node, Event: t.Event, Message: t.Message, Detail: t.Detail, Checkpoint: t.Checkpoint}
		}
		p.Faults = append(p.Faults, pf)
	}
	return p, nil
}

// How a scene's faults are timed, as the conformance table tells a reader: a fault at a
// protocol point strikes the same record in a real run as in the simulator, one at an
// at.ms strikes whatever the real clients are doing at that wall-clock moment, which a
// real run's batching and scheduling can shift from one run to the next.
const (
	FaultsNone     = "none"            // no fault
	FaultsAtPoints = "protocol points" // every fault waits for a protocol point
	FaultsAtClock  = "wall clock"      // at least one fault comes at an at.ms
)

// FaultTiming says how the scene's faults are timed: FaultsNone, FaultsAtPoints or
// FaultsAtClock. A fault at a protocol point whose undo comes for.ms later still counts
// as at a point: the undo is timed from the point, not from the scene's 0 ms.
func (s *Scene) FaultTiming() string {
	if len(s.Faults) == 0 {
		return FaultsNone
	}
	for _, f := range s.Faults {
		if f.When == nil {
			return FaultsAtClock
		}
	}
	return FaultsAtPoints
}
