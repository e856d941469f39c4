package scene

import (
	"hash/fnv"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"deliverylab/core/apps"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/server"
	"deliverylab/core/props"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// keys_test.go proves that no key a scene accepts is inert: for every key, a variant
// of a small scene that changes only that key runs differently from the scene without
// the change (another trace hash). Some keys matter only in a situation (a crashed
// leader, a stalled follower, failing sends): the row builds it with faults first, in
// both runs. Keys that cannot change a run (presentation, the expectation, values that
// equal the default) are listed with the reason, and the test asserts that reason. The
// coverage tests ask the parser and the kafka key lists which keys exist, so a key
// added later without a row here fails.

// keysBase is the scene every row starts from: three brokers, two topics, a producer
// and a consumer that reads from the beginning, and a sink nobody writes to yet.
const keysBase = `
seed: 1
stop.ms: 1500
cluster:
  brokers: 3
  config: {group.initial.rebalance.delay.ms: 0}
  topics:
    - {name: orders, partitions: 2, replication.factor: 3}
    - {name: other, partitions: 1, replication.factor: 3}
apps:
  - producer: p1
    config: {acks: all, enable.idempotence: false}
    send: {topic: orders, count: 4, interval.ms: 10}
  - consumer: c1
    topics: [orders]
    config: {enable.auto.commit: false, auto.offset.reset: earliest}
sinks:
  - {name: db}
`

// keysEdit sets one value of a scene: path is slash-separated ("apps/0/config/acks",
// because keys hold dots), value is YAML. Missing mapping keys are added; an index one
// past a list's end appends.
type keysEdit struct{ path, value string }

// Situations: faults and settings that make a key matter, applied to both runs.
var (
	// c1 writes each record to db and crashes after processing p1#2, before its commit:
	// the restarted c1 gets p1#2 again (each message has a key of its own).
	keysRedelivery = []keysEdit{
		{"apps/0/send/key", `"k{n}"`},
		{"apps/1/sink", "db"},
		{"apps/1/commit", "after-processing"},
		{"apps/1/config/session.timeout.ms", "6000"},
		{"apps/1/config/heartbeat.interval.ms", "2000"},
		{"faults", "[{when: {node: c1, event: processed, message: p1#2}, crash: c1, for.ms: 100}]"},
		{"stop.ms", "12000"},
	}
	// broker-3 crashes early and is fenced fast, so the ISR shrinks to two.
	keysFollowerDown = []keysEdit{
		{"cluster/config/broker.heartbeat.interval.ms", "100"},
		{"cluster/config/broker.session.timeout.ms", "300"},
		{"apps/0/start.ms", "600"},
		{"faults", "[{at.ms: 20, crash: broker-3}]"},
		{"stop.ms", "2500"},
	}
	// every acks=all send fails with NOT_ENOUGH_REPLICAS and is retried.
	keysFailingSends = append(append([]keysEdit(nil), keysFollowerDown...),
		keysEdit{"cluster/config/min.insync.replicas", "3"})
	// the produce response of p1#2 is lost on the wire.
	keysDroppedResponse = []keysEdit{
		{"faults", "[{when: {event: responded, message: p1#2}, drop: response}]"},
	}
	// broker-3 cannot fetch from broker-1, leader of orders-0. (Kafka refuses a
	// replica.lag.time.max.ms below replica.fetch.wait.max.ms, so that is lowered too.)
	keysStalledFollower = []keysEdit{
		{"cluster/config/replica.fetch.wait.max.ms", "100"},
		{"faults", "[{at.ms: 50, cut: [broker-1, broker-3]}]"},
	}
	// orders-0 (replicas broker-1, broker-2) shrinks its ISR to broker-1, then broker-1
	// crashes: no live ISR member is left.
	keysNoLiveISR = []keysEdit{
		{"cluster/topics/0/replication.factor", "2"},
		{"cluster/config/replica.lag.time.max.ms", "200"},
		{"cluster/config/replica.fetch.wait.max.ms", "100"},
		{"cluster/config/broker.heartbeat.interval.ms", "100"},
		{"cluster/config/broker.session.timeout.ms", "300"},
		{"faults", "[{at.ms: 50, cut: [broker-1, broker-2]}, {at.ms: 600, crash: broker-1}]"},
		{"stop.ms", "2000"},
	}
	// broker-1 crashes the moment broker-3 copied p1#3, before either follower learned
	// the HW that covers it; it is fenced fast and broker-2 leads.
	keysLeaderCrashAfterAck = []keysEdit{
		{"apps/0/config", "{acks: 1}"},
		{"cluster/config/broker.heartbeat.interval.ms", "100"},
		{"cluster/config/broker.session.timeout.ms", "300"},
		{"faults", "[{when: {node: broker-3, event: replicated, message: p1#3}, crash: broker-1}]"},
	}
	// c1 crashes and stays down; the coordinator allows short sessions.
	keysConsumerCrash = []keysEdit{
		{"cluster/config/group.min.session.timeout.ms", "100"},
		{"apps/1/config/heartbeat.interval.ms", "50"},
		{"faults", "[{at.ms: 300, crash: c1}]"},
	}
	// broker-1, leader of orders-0, crashes the moment broker-2 replicated from it, so
	// broker-2's next fetch reaches a crashed broker and is refused.
	keysLeaderCrash = []keysEdit{
		{"faults", "[{when: {node: broker-2, event: replicated}, crash: broker-1}]"},
		{"stop.ms", "2500"},
	}
	// broker-2 crashes at 300 ms.
	keysBrokerCrash = []keysEdit{{"faults", "[{at.ms: 300, crash: broker-2}]"}}
	// broker-3 crashes at 300 ms and is fenced fast, and c1 commits what it processed:
	// with 50 offsets partitions group c1 lives on __consumer_offsets-18, led by
	// broker-1, which the crash leaves alone; with 4 it lives on __consumer_offsets-2,
	// led by broker-3, whose crash stops the group until broker-1 takes the partition.
	keysCoordinatorCrash = []keysEdit{
		{"cluster/config/broker.heartbeat.interval.ms", "100"},
		{"cluster/config/broker.session.timeout.ms", "300"},
		{"apps/0/send/count", "8"},
		{"apps/0/send/interval.ms", "100"},
		{"apps/1/commit", "after-processing"},
		{"faults", "[{at.ms: 300, crash: broker-3}]"},
		{"stop.ms", "2500"},
	}
	// Kafka 4, and c1 is a member of the consumer group protocol (KIP-848).
	keysConsumerProtocol = []keysEdit{{"kafka.version", `"4.x"`}, {"apps/1/config/group.protocol", "consumer"}}
	// ... and crashes at 300 ms for good.
	keysConsumerProtocolCrash = append(append([]keysEdit(nil), keysConsumerProtocol...),
		keysEdit{"faults", "[{at.ms: 300, crash: c1}]"}, keysEdit{"cluster/config/group.consumer.heartbeat.interval.ms", "100"})
	// ... and c2 joins c1's group 200 ms after c1.
	keysConsumerProtocolJoin = append(append([]keysEdit(nil), keysConsumerProtocol...),
		keysEdit{"apps/2", "{consumer: c2, group: c1, topics: [orders], start.ms: 200, " +
			"config: {group.protocol: consumer, enable.auto.commit: false, auto.offset.reset: earliest}}"})
	// c1 cannot reach broker-1 from 200 ms on.
	keysConsumerCut = []keysEdit{{"faults", "[{at.ms: 200, cut: [c1, broker-1]}]"}}
	// c1 starts when everything has been produced.
	keysLateConsumer = []keysEdit{{"apps/1/start.ms", "300"}}
	// broker-3 is far from broker-1.
	keysFarLink = []keysEdit{{"network/links", "[{between: [broker-1, broker-3], latency.ms: 50}]"}}
	// p1's batches wait 100 ms for more records.
	keysLongLinger = []keysEdit{{"apps/0/config/linger.ms", "100"}}
	// ... and hold one record each.
	keysOneRecordBatches = []keysEdit{{"apps/0/config/linger.ms", "100"}, {"apps/0/config/batch.size", "100"}}
	// a narration step exists.
	keysNarrated = []keysEdit{{"narration", "[{at.ms: 100, en: a, zh: b}]"}}
	// p1 is transactional: its four messages go in two transactions of two.
	keysTxn = []keysEdit{{"apps/0/config", "{acks: all, transactional.id: tx-1}"}, {"apps/0/transaction.size", "2"}}
	// ... and crashes inside its first transaction, which stays open until the
	// coordinator's sweep aborts it (after 100 ms).
	keysTxnLeftOpen = append(append([]keysEdit(nil), keysTxn...),
		keysEdit{"apps/0/config/transaction.timeout.ms", "100"},
		keysEdit{"faults", "[{when: {event: appended, message: p1#1}, crash: p1}]"})
	// a Kafka Streams application s1 copies orders to a third topic.
	keysStreams = []keysEdit{{"cluster/topics/2", "{name: third, partitions: 1, replication.factor: 3}"},
		{"apps/2", "{streams: s1, from: orders, to: third}"}}
	// j1 is a Flink job: it reads orders with one source subtask, checkpoints every 100 ms
	// and writes every record to third with a KafkaSink (NONE).
	keysJob = []keysEdit{{"cluster/topics/2", "{name: third, partitions: 1, replication.factor: 3}"},
		{"apps/2", "{job: j1, checkpointing: {interval.ms: 100}, source: {topic: orders}, sink: {kafka: {topic: third}}}"}}
	// ... with an EXACTLY_ONCE sink
	keysJobEOS = append(append([]keysEdit(nil), keysJob...), keysEdit{"apps/2/sink/kafka",
		"{topic: third, delivery.guarantee: EXACTLY_ONCE, transactional.id.prefix: j1, transaction.timeout.ms: 60000}"})
	// ... and its map subtask fails at 300 ms
	keysJobFailure = append(append([]keysEdit(nil), keysJob...), keysEdit{"faults", "[{at.ms: 300, crash: j1/map-0}]"})
	// ... keyed, with two source subtasks
	keysJobKeyed = append(append([]keysEdit(nil), keysJob...), keysEdit{"apps/2/keyed", "true"}, keysEdit{"apps/2/source/parallelism", "2"})
	// the first append anywhere crashes broker-3.
	keysAppendTrigger = []keysEdit{{"faults", "[{when: {event: appended}, crash: broker-3}]"}}
	// the first acknowledgement crashes broker-3.
	keysAckTrigger = []keysEdit{{"faults", "[{when: {event: acked}, crash: broker-3}]"}}
	// broker-2 heartbeats every 100 ms, and cannot reach the controller from 100 ms on
	// (a cut link drops what is sent; nothing is resent by itself, heartbeats are).
	keysHeartbeatsCut = []keysEdit{
		{"cluster/config/broker.heartbeat.interval.ms", "100"},
		{"faults", "[{at.ms: 100, cut: [broker-2, controller]}]"},
	}
	// c1 reads only other-0 and fetches without a long poll; broker-2, its leader,
	// crashes: every fetch is refused until the run ends. (One partition only: a
	// response for another partition would fetch again before the backoff is over.)
	keysFetchesRefused = []keysEdit{
		{"apps/1/topics", "[other]"},
		{"apps/1/config/fetch.max.wait.ms", "0"},
		{"faults", "[{at.ms: 300, crash: broker-2}]"},
	}
)

// keysRow is one key and how to show it matters.
type keysRow struct {
	key string     // the key as a scene spells it, "cluster.config.min.insync.replicas"
	pre []keysEdit // the situation, in both runs
	set keysEdit   // the variant's one change
	// setFrom computes the change from the base run (for a wire message id).
	setFrom func(t *testing.T, base *Run) keysEdit
	// effect compares the trace without fault and narration lines: the fault must do
	// something, not just be written down.
	effect bool
	// narrationOnly: the variant differs, but only by narration lines (captions never
	// change what happens).
	narrationOnly bool
}

var keysRows = []keysRow{
	// the scene
	{key: "seed", pre: []keysEdit{{"network/jitter.ms", "3"}}, set: keysEdit{"seed", "2"}},
	{key: "stop.ms", set: keysEdit{"stop.ms", "1600"}},
	// Kafka 4: the transactional producer sends no AddPartitionsToTxn (its leaders add
	// the partitions) and every EndTxn bumps its epoch.
	{key: "kafka.version", pre: keysTxn, set: keysEdit{"kafka.version", `"4.x"`}},
	// Kafka 4 formatted with transactions version 0: the producer adds its partitions
	// itself again, and its epoch stays.
	{key: "cluster.config.transaction.version", pre: append(append([]keysEdit(nil), keysTxn...), keysEdit{"kafka.version", `"4.x"`}),
		set: keysEdit{"cluster/config/transaction.version", "0"}},
	// Kafka 4 formatted without eligible leader replicas: broker-3's fence leaves the
	// ISR of orders below min.insync.replicas 3, and no ELR keeps broker-3.
	{key: "cluster.config.eligible.leader.replicas.version", pre: append(append([]keysEdit(nil), keysFailingSends...), keysEdit{"kafka.version", `"4.x"`}),
		set: keysEdit{"cluster/config/eligible.leader.replicas.version", "0"}},
	// KIP-848's coordinator: a crashed member is fenced when its session runs out; a
	// member heartbeats at the interval the coordinator gives; a second member that joins
	// within the assignment interval gets the old target, nothing.
	{key: "cluster.config.group.consumer.session.timeout.ms", pre: keysConsumerProtocolCrash,
		set: keysEdit{"cluster/config/group.consumer.session.timeout.ms", "1000"}},
	{key: "cluster.config.group.consumer.heartbeat.interval.ms", pre: keysConsumerProtocol,
		set: keysEdit{"cluster/config/group.consumer.heartbeat.interval.ms", "500"}},
	{key: "cluster.config.group.consumer.assignment.interval.ms", pre: keysConsumerProtocolJoin,
		set: keysEdit{"cluster/config/group.consumer.assignment.interval.ms", "0"}},
	{key: "cluster.brokers", set: keysEdit{"cluster/brokers", "4"}},
	{key: "cluster.topics[].name", set: keysEdit{"cluster/topics/1/name", "other2"}},
	{key: "cluster.topics[].partitions", set: keysEdit{"cluster/topics/0/partitions", "3"}},
	{key: "cluster.topics[].replication.factor", set: keysEdit{"cluster/topics/0/replication.factor", "2"}},
	{key: "cluster.topics[].leaders", set: keysEdit{"cluster/topics/0/leaders", "[broker-2, broker-1]"}},
	{key: "network.latency.ms", set: keysEdit{"network/latency.ms", "7"}},
	{key: "network.jitter.ms", set: keysEdit{"network/jitter.ms", "3"}},
	{key: "network.links", set: keysEdit{"network/links", "[{between: [broker-1, broker-3], latency.ms: 50}]"}},
	{key: "network.links[].between", pre: keysFarLink, set: keysEdit{"network/links/0/between", "[broker-1, broker-2]"}},
	{key: "network.links[].latency.ms", pre: keysFarLink, set: keysEdit{"network/links/0/latency.ms", "80"}},
	{key: "producer.producer", set: keysEdit{"apps/0/producer", "p9"}},
	{key: "producer.send.topic", set: keysEdit{"apps/0/send/topic", "other"}},
	{key: "producer.send.count", set: keysEdit{"apps/0/send/count", "5"}},
	{key: "producer.send.interval.ms", set: keysEdit{"apps/0/send/interval.ms", "20"}},
	// unkeyed sends go round robin over orders' two partitions; key "k" sends all to one
	{key: "producer.send.key", set: keysEdit{"apps/0/send/key", "k"}},
	{key: "producer.send.value", set: keysEdit{"apps/0/send/value", "v{n}"}},
	{key: "producer.start.ms", set: keysEdit{"apps/0/start.ms", "50"}},
	// a send waits for its acknowledgement (about 20 ms) before the 10 ms interval starts
	{key: "producer.sending", set: keysEdit{"apps/0/sending", "sync"}},
	// p1 crashes before p1#1 and p1#2 are acknowledged: resend them or go on with p1#3
	{key: "producer.config.transactional.id", pre: keysTxn, set: keysEdit{"apps/0/config/transactional.id", "tx-2"}},
	{key: "producer.config.transaction.timeout.ms", pre: keysTxn, set: keysEdit{"apps/0/config/transaction.timeout.ms", "1000"}},
	{key: "producer.transaction.size", pre: keysTxn, set: keysEdit{"apps/0/transaction.size", "1"}},
	{key: "producer.abort.transactions", pre: keysTxn, set: keysEdit{"apps/0/abort.transactions", "[1]"}},
	{key: "cluster.config.transaction.max.timeout.ms", pre: keysTxn, set: keysEdit{"cluster/config/transaction.max.timeout.ms", "1000"}},
	{key: "cluster.config.transaction.abort.timed.out.transaction.cleanup.interval.ms", pre: keysTxnLeftOpen,
		set: keysEdit{"cluster/config/transaction.abort.timed.out.transaction.cleanup.interval.ms", "200"}},
	// an id idle for 1 ms is expired at the next sweep; the sweep runs every 10 ms
	// instead of every hour (a tombstone in __transaction_state once the transactions end)
	{key: "cluster.config.transactional.id.expiration.ms",
		pre: append(append([]keysEdit(nil), keysTxn...),
			keysEdit{"cluster/config/transaction.remove.expired.transaction.cleanup.interval.ms", "10"}),
		set: keysEdit{"cluster/config/transactional.id.expiration.ms", "1"}},
	{key: "cluster.config.transaction.remove.expired.transaction.cleanup.interval.ms",
		pre: append(append([]keysEdit(nil), keysTxn...), keysEdit{"cluster/config/transactional.id.expiration.ms", "1"}),
		set: keysEdit{"cluster/config/transaction.remove.expired.transaction.cleanup.interval.ms", "10"}},
	{key: "cluster.config.transaction.state.log.num.partitions", pre: keysTxn, set: keysEdit{"cluster/config/transaction.state.log.num.partitions", "10"}},
	// KIP-890 off: a transaction's first batch to a partition is appended without asking
	// the coordinator first.
	{key: "cluster.config.transaction.partition.verification.enable", pre: keysTxn,
		set: keysEdit{"cluster/config/transaction.partition.verification.enable", "false"}},
	{key: "producer.on.restart", pre: []keysEdit{{"faults", "[{at.ms: 12, crash: p1, for.ms: 100}]"}},
		set: keysEdit{"apps/0/on.restart", "continue"}},
	{key: "consumer.consumer", set: keysEdit{"apps/1/consumer", "c9"}},
	{key: "consumer.group", set: keysEdit{"apps/1/group", "dashboard"}},
	{key: "consumer.topics", set: keysEdit{"apps/1/topics", "[orders, other]"}},
	{key: "consumer.commit", set: keysEdit{"apps/1/commit", "before-processing"}},
	{key: "consumer.processing.ms", set: keysEdit{"apps/1/processing.ms", "20"}},
	{key: "consumer.processing", pre: keysLateConsumer, set: keysEdit{"apps/1/processing", "async"}},
	{key: "consumer.sink", set: keysEdit{"apps/1/sink", "db"}},
	{key: "consumer.start.ms", set: keysEdit{"apps/1/start.ms", "200"}},
	{key: "streams.streams", pre: keysStreams, set: keysEdit{"apps/2/streams", "s9"}},
	{key: "streams.from", pre: keysStreams, set: keysEdit{"apps/2/from", "other"}},
	{key: "streams.to", pre: keysStreams, set: keysEdit{"apps/2/to", "other"}},
	{key: "streams.start.ms", pre: keysStreams, set: keysEdit{"apps/2/start.ms", "200"}},
	// at_least_once commits every 30 s: not within the run; exactly_once_v2 every 100 ms
	{key: "streams.config.processing.guarantee", pre: keysStreams, set: keysEdit{"apps/2/config/processing.guarantee", "exactly_once_v2"}},
	{key: "streams.config.commit.interval.ms", pre: keysStreams, set: keysEdit{"apps/2/config/commit.interval.ms", "200"}},
	// a client key goes to the client that has it (here the main consumer)
	{key: "streams.config.max.poll.records (a client key)", pre: keysStreams, set: keysEdit{"apps/2/config/max.poll.records", "1"}},
	{key: "job.job", pre: keysJob, set: keysEdit{"apps/2/job", "j9"}},
	{key: "job.start.ms", pre: keysJob, set: keysEdit{"apps/2/start.ms", "200"}},
	// AT_LEAST_ONCE does not hold source-0's records back while source-1, paused at its
	// first record, has not sent its barrier of the checkpoint: the operator takes them
	// before it snapshots
	{key: "job.checkpointing.mode", pre: append(append([]keysEdit(nil), keysJobKeyed...), keysEdit{"apps/0/send/interval.ms", "100"},
		keysEdit{"faults", "[{when: {node: j1/source-1, event: emitted}, pause: j1/source-1, for.ms: 400}]"}),
		set: keysEdit{"apps/2/checkpointing/mode", "AT_LEAST_ONCE"}},
	{key: "job.checkpointing.interval.ms", pre: keysJob, set: keysEdit{"apps/2/checkpointing/interval.ms", "200"}},
	// the sink's flush at the barrier waits for third's leader (broker-2) 100 ms away: the
	// checkpoint expires first
	{key: "job.checkpointing.timeout.ms", pre: append(append([]keysEdit(nil), keysJob...),
		keysEdit{"apps/2/sink/kafka/delivery.guarantee", "AT_LEAST_ONCE"}, keysEdit{"apps/0/start.ms", "90"},
		keysEdit{"network/links", "[{between: [j1, broker-1], latency.ms: 100}, {between: [j1, broker-2], latency.ms: 100}, {between: [j1, broker-3], latency.ms: 100}]"}),
		set: keysEdit{"apps/2/checkpointing/timeout.ms", "50"}},
	{key: "job.restart.delay.ms", pre: keysJobFailure, set: keysEdit{"apps/2/restart.delay.ms", "100"}},
	{key: "job.source.topic", pre: keysJob, set: keysEdit{"apps/2/source/topic", "other"}},
	{key: "job.source.parallelism", pre: keysJob, set: keysEdit{"apps/2/source/parallelism", "2"}},
	{key: "job.source.starting.offsets", pre: append(append([]keysEdit(nil), keysJob...), keysEdit{"apps/2/start.ms", "200"}),
		set: keysEdit{"apps/2/source/starting.offsets", "latest"}},
	// the source commits each completed checkpoint's offsets to the group
	{key: "job.source.group.id", pre: keysJob, set: keysEdit{"apps/2/source/group.id", "j1-offsets"}},
	{key: "job.source.isolation.level", pre: keysJob, set: keysEdit{"apps/2/source/isolation.level", "read_committed"}},
	{key: "job.keyed", pre: keysJob, set: keysEdit{"apps/2/keyed", "true"}},
	{key: "job.parallelism", pre: keysJobKeyed, set: keysEdit{"apps/2/parallelism", "1"}},
	// the job writes to the database sink db instead of Kafka
	{key: "job.sink.db", pre: keysJob, set: keysEdit{"apps/2/sink", "{db: {sink: db}}"}},
	// ... to another one
	{key: "job.sink.db.sink", pre: append(append([]keysEdit(nil), keysJob...), keysEdit{"apps/2/sink", "{db: {sink: db}}"},
		keysEdit{"sinks/1", "{name: db2}"}), set: keysEdit{"apps/2/sink/db/sink", "db2"}},
	// a count writes each key's running total instead of the record
	{key: "job.operator", pre: keysJobKeyed, set: keysEdit{"apps/2/operator", "count"}},
	{key: "job.sink.kafka.topic", pre: keysJob, set: keysEdit{"apps/2/sink/kafka/topic", "other"}},
	// AT_LEAST_ONCE flushes the producer at each barrier (and reports pre-committed)
	{key: "job.sink.kafka.delivery.guarantee", pre: keysJob, set: keysEdit{"apps/2/sink/kafka/delivery.guarantee", "AT_LEAST_ONCE"}},
	// EXACTLY_ONCE writes in transactions named after the prefix, with the timeout asked for
	{key: "job.sink.kafka.delivery.guarantee (EXACTLY_ONCE)", pre: keysJob,
		set: keysEdit{"apps/2/sink/kafka", "{topic: third, delivery.guarantee: EXACTLY_ONCE, transactional.id.prefix: j1, transaction.timeout.ms: 60000}"}},
	{key: "job.sink.kafka.transactional.id.prefix", pre: keysJobEOS, set: keysEdit{"apps/2/sink/kafka/transactional.id.prefix", "other-prefix"}},
	{key: "job.sink.kafka.transaction.timeout.ms", pre: keysJobEOS, set: keysEdit{"apps/2/sink/kafka/transaction.timeout.ms", "30000"}},
	// without idempotence the sink's producer asks for no producer id
	{key: "job.sink.kafka.config.enable.idempotence (a client key)", pre: keysJob, set: keysEdit{"apps/2/sink/kafka/config", "{enable.idempotence: false}"}},
	{key: "sinks[].name", set: keysEdit{"sinks/0/name", "db2"}},
	{key: "sinks[].kind", pre: keysRedelivery, set: keysEdit{"sinks/0/kind", "unique-key"}},

	// faults: each must change what happens, not only add its own trace line
	{key: "faults", set: keysEdit{"faults", "[{at.ms: 300, crash: broker-2}]"}, effect: true},
	{key: "faults[].crash", set: keysEdit{"faults", "[{at.ms: 300, crash: c1}]"}, effect: true},
	{key: "faults[].at.ms", pre: keysBrokerCrash, set: keysEdit{"faults/0/at.ms", "400"}, effect: true},
	{key: "faults[].for.ms", pre: keysBrokerCrash, set: keysEdit{"faults/0/for.ms", "300"}, effect: true},
	{key: "faults[].restart", pre: keysBrokerCrash, set: keysEdit{"faults/1", "{at.ms: 600, restart: broker-2}"}, effect: true},
	{key: "faults[].cut", set: keysEdit{"faults", "[{at.ms: 100, cut: [c1, broker-1]}]"}, effect: true},
	{key: "faults[].cut-oneway", set: keysEdit{"faults", "[{at.ms: 100, cut-oneway: [broker-1, c1]}]"}, effect: true},
	{key: "faults[].heal", pre: keysHeartbeatsCut, set: keysEdit{"faults/1", "{at.ms: 300, heal: [broker-2, controller]}"}, effect: true},
	{key: "faults[].heal (all)", pre: keysHeartbeatsCut, set: keysEdit{"faults/1", "{at.ms: 300, heal: all}"}, effect: true},
	{key: "faults[].pause", set: keysEdit{"faults", "[{at.ms: 100, pause: c1}]"}, effect: true},
	{key: "faults[].for.ms (pause)", pre: []keysEdit{{"faults", "[{at.ms: 100, pause: broker-1}]"}}, set: keysEdit{"faults/0/for.ms", "200"}, effect: true},
	{key: "faults[].resume", pre: []keysEdit{{"faults", "[{at.ms: 100, pause: c1}]"}}, set: keysEdit{"faults/1", "{at.ms: 400, resume: c1}"}, effect: true},
	{key: "faults[].heal-oneway", pre: keysHeartbeatsCut, set: keysEdit{"faults/1", "{at.ms: 300, heal-oneway: [broker-2, controller]}"}, effect: true},
	{key: "faults[].partition", set: keysEdit{"faults", "[{at.ms: 100, partition: [[broker-1], [broker-2, broker-3]]}]"}, effect: true},
	{key: "faults[].drop", set: keysEdit{"faults", "[{when: {event: responded, message: p1#2}, drop: response}]"}, effect: true},
	{key: "faults[].id", setFrom: keysWireFault("{drop: message}"), effect: true},
	{key: "faults[].delay", set: keysEdit{"faults", "[{when: {event: responded, message: p1#2}, delay: response, delay.ms: 100}]"}, effect: true},
	{key: "faults[].delay (message)", setFrom: keysWireFault("{delay: message, delay.ms: 50}"), effect: true},
	{key: "faults[].delay.ms", pre: []keysEdit{{"faults", "[{when: {event: responded, message: p1#2}, delay: response, delay.ms: 100}]"}},
		set: keysEdit{"faults/0/delay.ms", "200"}, effect: true},
	{key: "faults[].duplicate", set: keysEdit{"faults", "[{when: {event: responded, message: p1#2}, duplicate: response}]"}, effect: true},
	{key: "faults[].duplicate (message)", setFrom: keysWireFault("{duplicate: message}"), effect: true},
	{key: "faults[].when", pre: keysBrokerCrash,
		set: keysEdit{"faults/0", "{when: {event: acked, message: p1#3}, crash: broker-2}"}, effect: true},
	{key: "faults[].when.event", pre: keysAppendTrigger, set: keysEdit{"faults/0/when/event", "acked"}, effect: true},
	{key: "faults[].when.node", pre: keysAppendTrigger, set: keysEdit{"faults/0/when/node", "broker-2"}, effect: true},
	{key: "faults[].when.message", pre: keysAckTrigger, set: keysEdit{"faults/0/when/message", "p1#4"}, effect: true},
	// polled carries the record's value as its detail
	// the application crashes when checkpoint 2 completes, not 1
	{key: "faults[].when.checkpoint", pre: append(append([]keysEdit(nil), keysJob...),
		keysEdit{"faults", "[{when: {event: checkpoint-completed, checkpoint: 1}, crash: c1}]"}),
		set: keysEdit{"faults/0/when/checkpoint", "2"}, effect: true},
	{key: "faults[].when.detail", pre: []keysEdit{{"faults", "[{when: {event: polled}, crash: c1}]"}},
		set: keysEdit{"faults/0/when/detail", "3"}, effect: true},

	// narration: captions are recorded in the trace and change nothing else
	{key: "narration", set: keysEdit{"narration", "[{at.ms: 100, en: a, zh: b}]"}, narrationOnly: true},
	{key: "narration[].at.ms", pre: keysNarrated, set: keysEdit{"narration/0/at.ms", "200"}, narrationOnly: true},
	{key: "narration[].when", pre: keysNarrated, set: keysEdit{"narration/0", "{when: {event: assigned}, en: a, zh: b}"}, narrationOnly: true},

	// cluster.config
	{key: "cluster.config.min.insync.replicas", pre: keysFollowerDown, set: keysEdit{"cluster/config/min.insync.replicas", "3"}},
	{key: "cluster.config.unclean.leader.election.enable", pre: keysNoLiveISR, set: keysEdit{"cluster/config/unclean.leader.election.enable", "true"}},
	// broker-3 holds p1#3 above its HW when it follows the new leader: with the toggle it
	// truncates it first.
	{key: "cluster.config.broker.truncate.to.high.watermark", pre: append(append([]keysEdit(nil), keysLeaderCrashAfterAck...),
		keysEdit{"simulator-only", "a historical toggle"}), set: keysEdit{"cluster/config/broker.truncate.to.high.watermark", "true"}},
	{key: "cluster.config.replica.lag.time.max.ms", pre: keysStalledFollower, set: keysEdit{"cluster/config/replica.lag.time.max.ms", "300"}},
	{key: "cluster.config.replica.fetch.wait.max.ms", set: keysEdit{"cluster/config/replica.fetch.wait.max.ms", "100"}},
	{key: "cluster.config.replica.fetch.backoff.ms", pre: keysLeaderCrash, set: keysEdit{"cluster/config/replica.fetch.backoff.ms", "100"}},
	{key: "cluster.config.broker.session.timeout.ms", pre: keysBrokerCrash, set: keysEdit{"cluster/config/broker.session.timeout.ms", "500"}},
	{key: "cluster.config.broker.heartbeat.interval.ms", set: keysEdit{"cluster/config/broker.heartbeat.interval.ms", "500"}},
	{key: "cluster.config.group.initial.rebalance.delay.ms", set: keysEdit{"cluster/config/group.initial.rebalance.delay.ms", "100"}},
	{key: "cluster.config.offsets.topic.num.partitions", pre: keysCoordinatorCrash,
		set: keysEdit{"cluster/config/offsets.topic.num.partitions", "4"}},

	// producer config
	{key: "producer.config.acks", set: keysEdit{"apps/0/config/acks", "1"}},
	{key: "producer.config.retries", pre: keysFailingSends, set: keysEdit{"apps/0/config/retries", "2"}},
	{key: "producer.config.retry.backoff.ms", pre: keysFailingSends, set: keysEdit{"apps/0/config/retry.backoff.ms", "50"}},
	{key: "producer.config.retry.backoff.max.ms", pre: keysFailingSends, set: keysEdit{"apps/0/config/retry.backoff.max.ms", "150"}},
	{key: "producer.config.request.timeout.ms", pre: keysDroppedResponse, set: keysEdit{"apps/0/config/request.timeout.ms", "300"}},
	{key: "producer.config.delivery.timeout.ms",
		pre: append(append([]keysEdit(nil), keysFailingSends...), keysEdit{"apps/0/config/request.timeout.ms", "200"}),
		set: keysEdit{"apps/0/config/delivery.timeout.ms", "400"}},
	{key: "producer.config.linger.ms", set: keysEdit{"apps/0/config/linger.ms", "20"}},
	// with a long linger, the sends share batches; batch.size 100 makes each record a
	// full batch, sent at once
	{key: "producer.config.batch.size", pre: keysLongLinger, set: keysEdit{"apps/0/config/batch.size", "100"}},
	// one-record batches that linger: room for one batch blocks the next send until the
	// first is acknowledged
	{key: "producer.config.buffer.memory", pre: keysOneRecordBatches, set: keysEdit{"apps/0/config/buffer.memory", "100"}},
	// ... and with max.block.ms 0 the blocked send fails at once instead
	{key: "producer.config.max.block.ms",
		pre: append(append([]keysEdit(nil), keysOneRecordBatches...), keysEdit{"apps/0/config/buffer.memory", "100"}),
		set: keysEdit{"apps/0/config/max.block.ms", "0"}},
	// p1#2's answer is lost and the batch sent again: the idempotent producer asks for a
	// producer id first, and its retry is answered with the original offset, not appended
	{key: "producer.config.enable.idempotence", pre: keysDroppedResponse, set: keysEdit{"apps/0/config/enable.idempotence", "true"}},
	// p1#2's answer is lost: with one request in flight to its broker, p1#4 waits behind it
	{key: "producer.config.max.in.flight.requests.per.connection",
		pre: append([]keysEdit{{"apps/0/send/interval.ms", "100"}}, keysDroppedResponse...),
		set: keysEdit{"apps/0/config/max.in.flight.requests.per.connection", "1"}},

	// consumer config
	{key: "consumer.config.enable.auto.commit", set: keysEdit{"apps/1/config/enable.auto.commit", "true"}},
	{key: "consumer.config.auto.commit.interval.ms", pre: []keysEdit{{"apps/1/config/enable.auto.commit", "true"}},
		set: keysEdit{"apps/1/config/auto.commit.interval.ms", "100"}},
	{key: "consumer.config.auto.offset.reset", set: keysEdit{"apps/1/config/auto.offset.reset", "latest"}},
	{key: "consumer.config.session.timeout.ms", pre: keysConsumerCrash, set: keysEdit{"apps/1/config/session.timeout.ms", "400"}},
	{key: "consumer.config.heartbeat.interval.ms", set: keysEdit{"apps/1/config/heartbeat.interval.ms", "1000"}},
	{key: "consumer.config.max.poll.records", pre: keysLateConsumer, set: keysEdit{"apps/1/config/max.poll.records", "1"}},
	{key: "consumer.config.fetch.max.wait.ms", set: keysEdit{"apps/1/config/fetch.max.wait.ms", "100"}},
	// the first FindCoordinator reaches broker-1 before it has metadata and is retried
	{key: "consumer.config.retry.backoff.ms", set: keysEdit{"apps/1/config/retry.backoff.ms", "50"}},
	{key: "consumer.config.retry.backoff.max.ms", pre: keysFetchesRefused, set: keysEdit{"apps/1/config/retry.backoff.max.ms", "200"}},
	{key: "consumer.config.request.timeout.ms", pre: keysConsumerCut, set: keysEdit{"apps/1/config/request.timeout.ms", "300"}},
	// without transactional producers only the fetches' isolation level and LSO differ
	// (core/kafka/testdata/transactions_read.txt shows what it filters)
	{key: "consumer.config.isolation.level", set: keysEdit{"apps/1/config/isolation.level", "read_committed"}},
	// ConsumerGroupHeartbeat instead of JoinGroup and SyncGroup
	{key: "consumer.config.group.protocol", pre: []keysEdit{{"kafka.version", `"4.x"`}},
		set: keysEdit{"apps/1/config/group.protocol", "consumer"}},
}

// keysWireFault drops, delays or duplicates the first produce request of the base run
// while it is on the wire, naming it by its wire id.
func keysWireFault(action string) func(t *testing.T, base *Run) keysEdit {
	return func(t *testing.T, base *Run) keysEdit {
		re := regexp.MustCompile(`^(\d+) send #(\d+) p1->broker-\d+ Produce `)
		for _, l := range base.World.Trace().Texts(true) {
			if m := re.FindStringSubmatch(l); m != nil {
				at, _ := strconv.ParseInt(m[1], 10, 64)
				fault := strings.TrimSuffix(action, "}") + ", at.ms: " + strconv.FormatInt(at+1, 10) + ", id: " + m[2] + "}"
				return keysEdit{"faults", "[" + fault + "]"}
			}
		}
		require.Fail(t, "the base run sends no produce request")
		return keysEdit{}
	}
}

// TestKeysAreNotInert runs every row: the variant's trace hash differs from the base's.
func TestKeysAreNotInert(t *testing.T) {
	for _, row := range keysRows {
		t.Run(row.key, func(t *testing.T) {
			base := keysApply(t, keysBase, row.pre...)
			b := keysRun(t, base)
			set := row.set
			if row.setFrom != nil {
				set = row.setFrom(t, b)
			}
			v := keysRun(t, keysApply(t, base, set))
			keysLogFirstDifference(t, b, v)
			assert.NotEqual(t, b.World.Trace().Hash(), v.World.Trace().Hash(), "%s=%s changes nothing in the run", set.path, set.value)
			if row.effect {
				assert.NotEqual(t, keysEffect(b), keysEffect(v), "%s=%s is written down but changes nothing else", set.path, set.value)
			}
			if row.narrationOnly {
				assert.Equal(t, keysEffect(b), keysEffect(v), "narration must not change what happens")
			}
		})
	}
}

// keysPresentation are keys that do not change a run by design: titles, captions and
// the expectation are read by people and by `check`, not by the simulation.
var keysPresentation = map[string]keysEdit{
	// simulator-only tells the conformance suite not to run the scene on a real cluster
	// (cmd/deliverylab's TestConformSkipsSimulatorOnlyScenes); the run is the same.
	"simulator-only": {"simulator-only", "a historical toggle"},
	// holds.for says which releases the expect describes (make conformance runs the scene
	// on each: cmd/deliverylab's conform tests); the run is the same.
	"holds.for":      {"holds.for", `["3.9", "4.x"]`},
	"title":          {"title", "{en: t, zh: t}"},
	"summary":        {"summary", "{en: s, zh: s}"},
	"narration[].en": {"narration/0/en", "other words"},
	"narration[].zh": {"narration/0/zh", "别的话"},
	// pause and highlight are for the playground: a pausing caption stops the session
	// until Continue (core/play TestAPausingCaptionStopsTheRunUntilContinue proves it
	// stops there), and highlight names the nodes State.captions[].nodes gives the
	// canvas (TestCaptionKeysReachTheScene); the run itself is the same.
	"narration[].pause":     {"narration/0/pause", "true"},
	"narration[].highlight": {"narration/0/highlight", "[broker-1, c1]"},
	// quiz is for the page: it asks the questions before the run and answers them from
	// the ledger at its end (core/play TestQuizIsAskedThenAnsweredByTheRun proves each key
	// reaches the page, and TestQuizKeysAreChecked that each is read); the run is the same.
	"quiz":           {"quiz", "[{ask: verdict}]"},
	"quiz[].ask":     {"quiz", "[{ask: lost, choices: [0, 1]}]"},
	"quiz[].choices": {"quiz", "[{ask: verdict, choices: [exactly-once, none]}]"},
	"quiz[].why":     {"quiz", "[{ask: verdict, why: {en: a, zh: b}}]"},
	// explore steers Find a failure, never the run itself: core/explore's tests show
	// each of its keys change the search (TestExploreKeysSteerTheSearch).
	"explore": {"explore", "{faults: [crash: c1], depth: 2, budget: 5}"},
}

// keysExpectPrefix: every expect key only states what `check` compares after the run.
const keysExpectPrefix = "expect."

// keysRejected are scene keys the parser accepts as names but rejects with a reason
// (features that come with later issues); the test asserts the reason is given.
var keysRejected = map[string]struct {
	edit   keysEdit
	reason string
}{
	"producer.transaction.size":                       {keysEdit{"apps/0/transaction.size", "5"}, "needs config.transactional.id"},
	"faults[].when.checkpoint (an event without one)": {keysEdit{"faults", "[{when: {event: polled, checkpoint: 2}, crash: c1}]"}, "polled carries no checkpoint"},
	"job.sink.kafka.transaction.timeout.ms (not EXACTLY_ONCE)": {keysEdit{"apps/2", "{job: j1, checkpointing: {interval.ms: 100}, source: {topic: orders}, " +
		"sink: {kafka: {topic: other, transaction.timeout.ms: 60000}}}"}, "only used by an EXACTLY_ONCE sink"},
	"job.sink.kafka.transactional.id.prefix (missing)": {keysEdit{"apps/2", "{job: j1, checkpointing: {interval.ms: 100}, source: {topic: orders}, " +
		"sink: {kafka: {topic: other, delivery.guarantee: EXACTLY_ONCE}}}"}, "requires a transactionalIdPrefix"},
	"job.sink.db.sink (unknown)": {keysEdit{"apps/2", "{job: j1, checkpointing: {interval.ms: 100}, source: {topic: orders}, " +
		"sink: {db: {sink: nowhere}}}"}, `sink.db.sink: expected a sink of sinks, got "nowhere"`},
	"job.operator (count, not keyed)": {keysEdit{"apps/2", "{job: j1, checkpointing: {interval.ms: 100}, source: {topic: orders}, operator: count, " +
		"sink: {kafka: {topic: other}}}"}, "needs a keyed stream: set keyed: true"},
	"job.operator (sum of words)": {keysEdit{"apps", "[{producer: p1, send: {topic: orders, count: 2, value: \"word-{n}\"}}, " +
		"{job: j1, checkpointing: {interval.ms: 100}, source: {topic: orders}, keyed: true, operator: sum, sink: {kafka: {topic: other}}}]"},
		"sums each record's value per key: expected a whole number"},
	"job.sink.kafka.transactional.id.prefix (not EXACTLY_ONCE)": {keysEdit{"apps/2", "{job: j1, checkpointing: {interval.ms: 100}, source: {topic: orders}, " +
		"sink: {kafka: {topic: other, transactional.id.prefix: j1}}}"}, "only used by an EXACTLY_ONCE sink"},
}

// keysContainers hold other keys; their keys are covered at their own level.
var keysContainers = map[string]bool{
	"cluster": true, "cluster.config": true, "cluster.topics": true, "network": true, "apps": true,
	"sinks": true, "expect": true, "producer.config": true, "producer.send": true,
	"consumer.config": true, "faults[].when": true, "streams.config": true,
	"job.checkpointing": true, "job.source": true, "job.sink": true, "job.sink.kafka": true, "job.sink.kafka.config": true,
}

// TestKeysPresentationChangesNoRun: title, summary, captions and expect leave the run
// exactly as it was.
func TestKeysPresentationChangesNoRun(t *testing.T) {
	base := keysApply(t, keysBase, keysNarrated...)
	want := keysRun(t, base).World.Trace().Hash()
	edits := map[string]keysEdit{}
	for k, e := range keysPresentation {
		edits[k] = e
	}
	// the base has two outputs (db and c1), so expect names one
	edits[keysExpectPrefix+"output"] = keysEdit{"expect", "{output: c1}"}
	for _, k := range []string{"verdict: exactly-once", "lost: 0", "duplicated: \">=1\"", "delivered: 4",
		"acked: 4", "failed: 0", "unavailable: 0", "sent: 4", "errors: {NOT_ENOUGH_REPLICAS: 0}",
		"anomalies: {duplicate: 0}"} {
		name, _, _ := strings.Cut(k, ": ")
		edits[keysExpectPrefix+name] = keysEdit{"expect", "{output: c1, " + k + "}"}
	}
	for k, e := range edits {
		t.Run(k, func(t *testing.T) {
			assert.Equal(t, want, keysRun(t, keysApply(t, base, e)).World.Trace().Hash())
		})
	}
}

// TestKeysRejectedSayWhy: keys of later issues are refused with the reason.
func TestKeysRejectedSayWhy(t *testing.T) {
	for k, r := range keysRejected {
		t.Run(k, func(t *testing.T) {
			_, err := Parse("rejected.yaml", []byte(keysApply(t, keysBase, r.edit)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), r.reason)
		})
	}
}

// TestKeysCoverEverySceneKey fails for a scene key with no row and no reason here.
func TestKeysCoverEverySceneKey(t *testing.T) {
	covered := map[string]bool{}
	for _, r := range keysRows {
		name, _, _ := strings.Cut(r.key, " (")
		covered[name] = true
	}
	for _, k := range keysSceneKeys(t) {
		name := k.name
		_, presentation := keysPresentation[name]
		_, rejected := keysRejected[name]
		switch {
		case covered[name], presentation, rejected, keysContainers[name],
			strings.HasPrefix(name, keysExpectPrefix), keysExceptions[name] != "":
		default:
			t.Errorf("scene key %s has no row in keysRows and no reason to be left out", name)
		}
	}
}

// keysSceneKey is a key as the parser lists it at its level, and its full name.
type keysSceneKey struct{ name, key string }

// keysSceneKeys asks the parser which keys each level of a scene accepts: the error for
// an unknown key lists them. (A narration's when is read by the same code as a fault's.)
func keysSceneKeys(t *testing.T) []keysSceneKey {
	t.Helper()
	levels := []struct {
		label string
		pre   []keysEdit
		probe string
	}{
		{"", nil, "zz-probe"},
		{"cluster", nil, "cluster/zz-probe"},
		{"cluster.topics[]", nil, "cluster/topics/0/zz-probe"},
		{"network", nil, "network/zz-probe"},
		{"network.links[]", keysFarLink, "network/links/0/zz-probe"},
		{"producer", nil, "apps/0/zz-probe"},
		{"producer.send", nil, "apps/0/send/zz-probe"},
		{"consumer", nil, "apps/1/zz-probe"},
		{"streams", keysStreams, "apps/2/zz-probe"},
		{"job", keysJob, "apps/2/zz-probe"},
		{"job.checkpointing", keysJob, "apps/2/checkpointing/zz-probe"},
		{"job.source", keysJob, "apps/2/source/zz-probe"},
		{"job.sink", keysJob, "apps/2/sink/zz-probe"},
		{"job.sink.kafka", keysJob, "apps/2/sink/kafka/zz-probe"},
		{"sinks[]", nil, "sinks/0/zz-probe"},
		{"faults[]", keysBrokerCrash, "faults/0/zz-probe"},
		{"faults[].when", keysAppendTrigger, "faults/0/when/zz-probe"},
		{"narration[]", keysNarrated, "narration/0/zz-probe"},
		{"quiz[]", []keysEdit{{"quiz", "[{ask: verdict}]"}}, "quiz/0/zz-probe"},
		{"expect", nil, "expect/zz-probe"},
	}
	var out []keysSceneKey
	for _, l := range levels {
		text := keysApply(t, keysApply(t, keysBase, l.pre...), keysEdit{l.probe, "1"})
		_, err := Parse("probe.yaml", []byte(text))
		var perr *Error
		require.ErrorAs(t, err, &perr, l.label)
		_, list, ok := strings.Cut(perr.Msg, "expected one of: ")
		require.True(t, ok, "level %q: %s", l.label, perr.Msg)
		for _, k := range strings.Split(list, ", ") {
			out = append(out, keysSceneKey{name: join(l.label, k), key: k})
		}
	}
	return out
}

// keysExceptions are accepted keys that cannot change a run that parses: every value
// they accept equals the default, or they only decide whether another key's value is
// accepted. TestKeysExceptions asserts exactly that.
var keysExceptions = map[string]string{
	// The broker bounds only decide whether a consumer's session.timeout.ms is accepted
	// (Kafka answers JoinGroup with INVALID_SESSION_TIMEOUT); the parser checks them, so
	// a scene that parses runs the same whatever they are.
	"cluster.config.group.min.session.timeout.ms": "validation only: bounds session.timeout.ms",
	"cluster.config.group.max.session.timeout.ms": "validation only: bounds session.timeout.ms",
}

// TestOffsetsTopicNumPartitionsPicksTheCoordinator shows what the key's row only hashes:
// the partition count decides which broker coordinates group c1, and so whether
// broker-3's crash interrupts its commits.
func TestOffsetsTopicNumPartitionsPicksTheCoordinator(t *testing.T) {
	// who answered each commit, in order, and the errors c1 saw
	observe := func(text string) (committers []string, errors int) {
		for _, l := range keysRun(t, text).World.Trace().Texts(false) {
			_, rest, _ := strings.Cut(l, " ")
			f := strings.Fields(rest)
			switch {
			case len(f) > 2 && f[0] == "observe" && f[2] == "offset-committed":
				committers = append(committers, f[1])
			case len(f) > 2 && f[0] == "observe" && f[1] == "c1" && f[2] == "error":
				errors++
			}
		}
		return committers, errors
	}
	crashed := keysBase
	for _, e := range keysCoordinatorCrash {
		crashed = keysApply(t, crashed, e)
	}
	fifty, fiftyErrors := observe(crashed)
	four, fourErrors := observe(keysApply(t, crashed, keysEdit{"cluster/config/offsets.topic.num.partitions", "4"}))
	require.NotEmpty(t, fifty)
	require.NotEmpty(t, four)
	for _, b := range fifty {
		assert.Equal(t, "broker-1", b, "with 50 partitions broker-1 (leader of __consumer_offsets-18) coordinates c1 throughout")
	}
	assert.Zero(t, fiftyErrors, "broker-3's crash does not touch the group")
	assert.Equal(t, "broker-3", four[0], "with 4 partitions broker-3 (leader of __consumer_offsets-2) coordinates c1")
	assert.Equal(t, "broker-1", four[len(four)-1], "until broker-1 is elected leader of __consumer_offsets-2")
	assert.Positive(t, fourErrors, "broker-3's crash breaks the group's commit in flight")
}

// TestKeysExceptions asserts each exception's reason: the one accepted value runs the
// same as the default, and the others are refused.
func TestKeysExceptions(t *testing.T) {
	same := func(t *testing.T, base string, e keysEdit) {
		t.Helper()
		assert.Equal(t, keysRun(t, base).World.Trace().Hash(), keysRun(t, keysApply(t, base, e)).World.Trace().Hash())
	}
	refused := func(t *testing.T, base string, e keysEdit, reason string) {
		t.Helper()
		_, err := Parse("exception.yaml", []byte(keysApply(t, base, e)))
		require.Error(t, err)
		assert.Contains(t, err.Error(), reason)
	}
	acks1 := keysApply(t, keysBase, keysEdit{"apps/0/config", "{acks: 1}"})
	t.Run("producer.config.enable.idempotence", func(t *testing.T) {
		// with acks=1 the default gives way silently, as in Kafka: false either way
		same(t, acks1, keysEdit{"apps/0/config/enable.idempotence", "false"})
		// set explicitly, a conflict is an error naming both keys (R11)
		refused(t, acks1, keysEdit{"apps/0/config/enable.idempotence", "true"}, "acks must be all in order to use the idempotent producer")
	})
	t.Run("cluster.config.group.min.session.timeout.ms", func(t *testing.T) {
		same(t, keysBase, keysEdit{"cluster/config/group.min.session.timeout.ms", "1000"})
		refused(t, keysBase, keysEdit{"cluster/config/group.min.session.timeout.ms", "50000"}, "INVALID_SESSION_TIMEOUT")
	})
	t.Run("cluster.config.group.max.session.timeout.ms", func(t *testing.T) {
		same(t, keysBase, keysEdit{"cluster/config/group.max.session.timeout.ms", "60000"})
		refused(t, keysBase, keysEdit{"cluster/config/group.max.session.timeout.ms", "40000"}, "INVALID_SESSION_TIMEOUT")
	})
}

// keysTryValues are values tried on every kafka key to learn whether it is accepted.
var keysTryValues = []props.Value{{Text: "1"}, {Text: "100"}, {Text: "true"}, {Text: "false"}, {Text: "all"},
	{Text: "earliest"}, {Text: "read_uncommitted"}, {Text: "at_least_once"}, {Text: "2"}, {Text: "classic"}, {Null: true}}

// TestKeysCoverEveryConfigKey fails for a Kafka key that Set* accepts and that has no
// row and no exception; a key every value of which is refused must say "not modelled
// yet" (scenes/README.md lists those with their reason).
func TestKeysCoverEveryConfigKey(t *testing.T) {
	covered := map[string]bool{}
	for _, r := range keysRows {
		covered[r.key] = true
	}
	sides := []struct {
		prefix string
		keys   []string
		set    func(key string, v props.Value) error
	}{
		{"cluster.config.", server.ConfigKeys.Keys(), func(k string, v props.Value) error {
			c := server.DefaultConfig()
			return server.ConfigKeys.Set(&c, k, v)
		}},
		{"producer.config.", clients.ProducerKeys.Keys(), func(k string, v props.Value) error {
			c := clients.DefaultProducerConfig()
			return clients.ProducerKeys.Set(&c, k, v)
		}},
		{"consumer.config.", clients.ConsumerKeys.Keys(), func(k string, v props.Value) error {
			c := clients.DefaultConsumerConfig()
			return clients.ConsumerKeys.Set(&c, k, v)
		}},
		{"streams.config.", apps.StreamsKeys.Keys(), func(k string, v props.Value) error {
			c := apps.DefaultStreamsConfig()
			return apps.StreamsKeys.Set(&c, k, v)
		}},
	}
	for _, side := range sides {
		require.NotEmpty(t, side.keys)
		for _, k := range side.keys {
			name := side.prefix + k
			var lastErr error
			accepted := false
			for _, v := range keysTryValues {
				if lastErr = side.set(k, v); lastErr == nil {
					accepted = true
					break
				}
			}
			switch {
			case accepted:
				assert.True(t, covered[name] || keysExceptions[name] != "", "%s is accepted but has no row in keysRows", name)
			default:
				assert.Contains(t, lastErr.Error(), "not modelled yet", "%s refuses every value without saying why", name)
				assert.False(t, covered[name], "%s is refused, yet has a row", name)
			}
		}
	}
}

// TestKeysREADMEDocumentsEveryKey: scenes/README.md names every scene key, every Kafka
// key the parser knows (accepted or refused) and every trigger event.
func TestKeysREADMEDocumentsEveryKey(t *testing.T) {
	doc, err := os.ReadFile("../../scenes/README.md")
	require.NoError(t, err)
	var all []string
	all = append(all, server.ConfigKeys.Keys()...)
	all = append(all, clients.ProducerKeys.Keys()...)
	all = append(all, clients.ConsumerKeys.Keys()...)
	all = append(all, apps.StreamsKeys.Keys()...)
	for _, k := range all {
		assert.Contains(t, string(doc), "`"+k+"`", "scenes/README.md does not document %s", k)
	}
	for _, k := range keysSceneKeys(t) {
		// `latency.ms`, or within a path: `send.count`, `topics[].leaders`
		assert.True(t, strings.Contains(string(doc), "`"+k.key+"`") || strings.Contains(string(doc), "."+k.key+"`"),
			"scenes/README.md does not document the scene key %s", k.name)
	}
	for _, ev := range append(eventNames(), slices.Sorted(maps.Keys(futureEvents))...) {
		assert.Contains(t, string(doc), "`"+ev+"`", "scenes/README.md does not document the trigger event %s", ev)
	}
}

// TestKeysTriggerEventsFire: every trigger event a `when` accepts happens in some run,
// so a narration (or a fault) waiting for it fires, and it fills the fields its
// registration promises.
func TestKeysTriggerEventsFire(t *testing.T) {
	withSink := []keysEdit{{"apps/1/sink", "db"}}
	crashRestart := []keysEdit{{"faults", "[{at.ms: 300, crash: broker-2, for.ms: 300}]"}}
	failing := append(append([]keysEdit(nil), keysFailingSends...), keysEdit{"apps/0/config/retries", "1"})
	truncation := []keysEdit{
		{"apps/0/config", "{acks: 1}"},
		{"cluster/config/broker.heartbeat.interval.ms", "100"},
		{"cluster/config/broker.session.timeout.ms", "300"},
		{"faults", "[{when: {node: broker-1, event: responded, message: p1#1}, crash: broker-1, for.ms: 600}]"},
	}
	consumerGone := append(append([]keysEdit(nil), keysConsumerCrash...), keysEdit{"apps/1/config/session.timeout.ms", "400"})
	// c1 reads from broker-1, alone in the ISR, what broker-2 never got; broker-2 is
	// elected uncleanly and c1 finds its position past broker-2's log end for its epoch.
	consumerPastTruncation := append(append([]keysEdit(nil), keysNoLiveISR...),
		keysEdit{"cluster/config/unclean.leader.election.enable", "true"},
		keysEdit{"apps/0/start.ms", "400"},
		keysEdit{"apps/1/config/request.timeout.ms", "1000"},
		keysEdit{"stop.ms", "4000"})
	situation := map[string][]keysEdit{
		"sent": nil, "requested": nil, "appended": nil, "replicated": nil, "responded": nil, "acked": nil,
		"polled": nil, "processed": nil, "offset-committed": nil, "started": nil, "assigned": nil,
		"written":       withSink,
		"txn-committed": keysTxn,
		"txn-prepared":  keysTxn,
		"txn-aborted":   append(append([]keysEdit(nil), keysTxn...), keysEdit{"apps/0/abort.transactions", "[1]"}),
		// a unique key refuses the record re-delivered after c1's crash
		"duplicate-refused": append(append([]keysEdit(nil), keysRedelivery...), keysEdit{"sinks/0/kind", "unique-key"}),
		"crashed":           crashRestart,
		"restarted":         crashRestart,
		"failed":            failing,
		"error":             failing,
		"elected":           truncation,
		"truncated":         truncation,
		"offline":           keysNoLiveISR,
		// the coordinator removes c1 when its session runs out
		"member-removed":      consumerGone,
		"truncation-detected": consumerPastTruncation,
		// a Flink job's checkpoints, its sink's flush at a barrier, and a task failure
		// while checkpoint 1 is under way
		"checkpoint-triggered": keysJob,
		"emitted":              keysJob,
		"checkpoint-completed": keysJob,
		"restored":             keysJob,
		"pre-committed":        append(append([]keysEdit(nil), keysJob...), keysEdit{"apps/2/sink/kafka/delivery.guarantee", "AT_LEAST_ONCE"}),
		"task-failed":          keysJobFailure,
		"checkpoint-aborted": append(append([]keysEdit(nil), keysJob...),
			keysEdit{"faults", "[{when: {event: checkpoint-triggered, checkpoint: 1}, crash: j1/map-0}]"}),
	}
	for _, spec := range sim.EventSpecs() {
		ev := string(spec.Event)
		t.Run(ev, func(t *testing.T) {
			pre, ok := situation[ev]
			require.True(t, ok, "no situation for the trigger event %s: add one", ev)
			text := keysApply(t, keysApply(t, keysBase, pre...), keysEdit{"narration", "[{when: {event: " + ev + "}, en: a, zh: b}]"})
			r := keysRun(t, text)
			assert.Len(t, r.World.Narrated(), 1, "no %s happened, so the narration never fired", ev)
			filled := map[sim.Field]bool{}
			for _, o := range r.World.Observations().All() {
				if o.Event == spec.Event {
					for f := range filledFields(o) {
						filled[f] = true
					}
				}
			}
			for _, f := range spec.Fields {
				assert.True(t, filled[f], "%s promises the field %s but never fills it", ev, f)
			}
		})
	}
}

// filledFields lists the Observation fields that hold something.
func filledFields(o sim.Observation) map[sim.Field]bool {
	return map[sim.Field]bool{
		sim.FieldMsgs: len(o.Msgs) > 0, sim.FieldWireID: o.WireID != 0, sim.FieldRequestWire: o.WireID != 0, sim.FieldPartition: o.Partition != "",
		sim.FieldOffset: o.Partition != "", sim.FieldEpoch: o.Epoch != 0, sim.FieldErr: o.Err != "",
		sim.FieldElection: o.Election != "", sim.FieldGroup: o.Group != "", sim.FieldMember: o.Member != "",
		sim.FieldGeneration: o.Generation != 0, sim.FieldAssigned: o.Assigned != nil, sim.FieldCommitted: len(o.Committed) > 0,
		sim.FieldOutput: o.Output != "", sim.FieldValue: o.Value != "", sim.FieldTxnID: o.TxnID != "",
		sim.FieldCheckpoint: o.Checkpoint != 0,
	}
}

// keysLogFirstDifference shows (with -v) where the variant's run departs from the
// base's, to see that a row passes for the right reason.
func keysLogFirstDifference(t *testing.T, base, variant *Run) {
	bl, vl := base.World.Trace().Texts(true), variant.World.Trace().Texts(true)
	for i := 0; i < len(bl) && i < len(vl); i++ {
		if bl[i] != vl[i] {
			t.Logf("first difference:\n  base:    %s\n  variant: %s", bl[i], vl[i])
			return
		}
	}
}

func keysRun(t *testing.T, text string) *Run {
	t.Helper()
	s, err := Parse("keys.yaml", []byte(text))
	require.NoError(t, err)
	r := s.NewRun()
	r.ToEnd()
	return r
}

// keysEffect hashes the trace without the lines that write faults and narration down.
func keysEffect(r *Run) string {
	h := fnv.New64a()
	for _, l := range r.World.Trace().Texts(true) {
		_, rest, _ := strings.Cut(l, " ")
		if strings.HasPrefix(rest, "fault ") || strings.HasPrefix(rest, "narrate ") {
			continue
		}
		h.Write([]byte(l + "\n"))
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// keysApply applies edits to a scene's YAML text.
func keysApply(t *testing.T, text string, edits ...keysEdit) string {
	t.Helper()
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(text), &doc))
	for _, e := range edits {
		var val yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte(e.value), &val), e.value)
		v := val.Content[0]
		n := doc.Content[0]
		parts := strings.Split(e.path, "/")
		for i, p := range parts {
			last := i == len(parts)-1
			switch n.Kind {
			case yaml.SequenceNode:
				idx, err := strconv.Atoi(p)
				require.NoError(t, err, e.path)
				require.LessOrEqual(t, idx, len(n.Content), e.path)
				if idx == len(n.Content) {
					n.Content = append(n.Content, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"})
				}
				if last {
					n.Content[idx] = v
				} else {
					n = n.Content[idx]
				}
			case yaml.MappingNode:
				at := -1
				for j := 0; j+1 < len(n.Content); j += 2 {
					if n.Content[j].Value == p {
						at = j + 1
					}
				}
				if at < 0 {
					n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p},
						&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"})
					at = len(n.Content) - 1
				}
				if last {
					n.Content[at] = v
				} else {
					n = n.Content[at]
				}
			default:
				require.Failf(t, "bad edit", "%s: %s is not a mapping or a list", e.path, p)
			}
		}
	}
	out, err := yaml.Marshal(&doc)
	require.NoError(t, err)
	return string(out)
}
