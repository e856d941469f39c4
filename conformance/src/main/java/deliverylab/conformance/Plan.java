package deliverylab.conformance;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A scene resolved by the Go side ({@code deliverylab conform}, core/scene/plan.go): every
 * setting with its effective value, the replica placement, each message, and the faults.
 * The scene format has one parser, in Go; this is its output.
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public final class Plan {
    public String scene;
    public int brokers;
    public Map<String, String> brokerProperties;
    public List<Partition> partitions = new ArrayList<>();
    public long latencyMs;
    public long jitterMs;
    public List<Link> links = new ArrayList<>();
    public List<Producer> producers = new ArrayList<>();
    public List<Consumer> consumers = new ArrayList<>();
    public List<Streams> streams = new ArrayList<>();
    public List<Job> jobs = new ArrayList<>();
    public List<Sink> sinks = new ArrayList<>();
    public List<Fault> faults = new ArrayList<>();
    public long stopMs;
    public long limitMs;
    /**
     * The Kafka release the real cluster runs, as kafka-storage's --release-version names
     * its metadata version: "3.9" (the reference), or a Kafka 4 release ("4.4") that the
     * runner built against Kafka 4 runs (kafka-4/pom.xml).
     */
    public String kafkaVersion = "3.9";
    /**
     * Feature levels to format the cluster with (kafka-storage format --feature
     * NAME=LEVEL), where the scene does not leave them to its release's defaults:
     * transaction.version on Kafka 4.
     */
    public Map<String, Integer> features = new java.util.TreeMap<>();

    public static final class Partition {
        public String topic;
        public int partition;
        public List<String> replicas;

        public String name() { return topic + "-" + partition; }
    }

    public static final class Link {
        public List<String> between;
        public long latencyMs;
    }

    public static final class Producer {
        public String name;
        public Map<String, String> properties;
        public String topic;
        public List<Message> messages = new ArrayList<>();
        public long intervalMs;
        public long startMs;
        public String onRestart;
        /** Each send waits for its result (send().get()) before the interval starts. */
        public boolean sync;
        /**
         * With a transactional.id: each transaction carries this many messages in send
         * order (the last may carry fewer); 0: not transactional.
         */
        public int transactionSize;
        /** The 1-based numbers of the transactions the application aborts instead of committing. */
        public List<Integer> abortTransactions = new ArrayList<>();

        /** Whether the producer has a transactional.id (Kafka's default is none). */
        public boolean transactional() {
            String id = properties == null ? null : properties.get("transactional.id");
            return id != null && !id.isEmpty();
        }
    }

    public static final class Message {
        public String id;
        public String key;
        public String value;
        public int partition; // an unkeyed message's partition
    }

    public static final class Consumer {
        public String name;
        public String group;
        public List<String> topics;
        public Map<String, String> properties;
        public String commit;
        public boolean async;
        public long processingMs;
        public String sink;
        public long startMs;
    }

    /**
     * A Kafka Streams application (StreamsApp): its input topic's records, passed through
     * unchanged, to its output topic. Its name is its application.id, so its group's id too.
     */
    public static final class Streams {
        public String name;
        public String from;
        public String to;
        /** StreamsConfig's processing.guarantee: at_least_once or exactly_once_v2. */
        public String processingGuarantee;
        /** commit.interval.ms, Streams' default for the guarantee applied (30000, or 100 under exactly-once). */
        public long commitIntervalMs;
        /** The main consumer's settings, as the simulated one runs with them. */
        public Map<String, String> consumerProperties;
        /** The producer's settings, as the simulated one runs with them. */
        public Map<String, String> producerProperties;
        public long startMs;

        public boolean exactlyOnce() { return "exactly_once_v2".equals(processingGuarantee); }
    }

    /** A Flink job (FlinkApp): KafkaSource → optional keyBy → operator → KafkaSink or a database sink, in a MiniCluster of its own. */
    public static final class Job {
        public String name;
        public long checkpointIntervalMs;
        /** CheckpointingMode: EXACTLY_ONCE or AT_LEAST_ONCE. */
        public String checkpointingMode;
        public long checkpointTimeoutMs;
        public long restartDelayMs;
        public JobSource source;
        public boolean keyed;
        /** map (identity) | count | sum. */
        public String operator;
        public int parallelism;
        public JobSink sink;
        public long startMs;

        public boolean exactlyOnceSink() { return sink != null && "EXACTLY_ONCE".equals(sink.deliveryGuarantee); }
    }

    public static final class JobSource {
        public String topic;
        public int parallelism;
        public String startingOffsets;
        public Map<String, String> properties;
    }

    /** A job's sink: a KafkaSink to topic, or, with db, a database sink of the plan's sinks (FlinkDbSink, FlinkXaSink). */
    public static final class JobSink {
        /** The job writes to this database sink instead of Kafka; topic and the rest are then empty. */
        public JobDb db;
        public String topic;
        /** DeliveryGuarantee: NONE, AT_LEAST_ONCE or EXACTLY_ONCE. */
        public String deliveryGuarantee;
        public String transactionalIdPrefix;
        public Map<String, String> properties;
    }

    /**
     * A job's database sink (core/scene PlanJobDB): the runner's sink it writes to, and
     * whether it writes it with two-phase commit (XA branches: FlinkXaSink) or as a plain
     * client (FlinkDbSink).
     */
    public static final class JobDb {
        public String sink;
        public boolean twoPhaseCommit;
    }

    public static final class Sink {
        public String name;
        public String kind;
    }

    public static final class Fault {
        public long atMs;
        public Trigger when;
        public String kind;
        public String node;
        public String from;
        public String to;
        public List<List<String>> groups;
        public long forMs;
        public long delayMs;

        public String describe() {
            String target = node != null ? node : from != null ? from + " " + to : String.valueOf(groups);
            return kind + " " + target + (forMs > 0 ? " for " + forMs + "ms" : "");
        }
    }

    public static final class Trigger {
        public String node;
        public String event;
        public String message;
        public String detail;
        /** A Flink checkpoint id: the trigger matches only an observation of that checkpoint. */
        public Long checkpoint;

        /** Whether an observation is the protocol point this trigger waits for. */
        public boolean matches(Observation o) {
            if (!event.equals(o.event)) return false;
            if (node != null && !node.isEmpty() && !node.equals(o.node) && !o.node.startsWith(node + "/")) return false;
            if (message != null && !message.isEmpty() && (o.msgs == null || !o.msgs.contains(message))) return false;
            if (checkpoint != null && !checkpoint.equals(o.checkpoint)) return false;
            return detail == null || detail.isEmpty() || detail.equals(o.detail());
        }
    }

    public static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

    public static Plan read(File f) throws IOException {
        Plan p = JSON.readValue(f, Plan.class);
        // Go writes an empty list as null.
        if (p.partitions == null) p.partitions = new ArrayList<>();
        if (p.links == null) p.links = new ArrayList<>();
        if (p.producers == null) p.producers = new ArrayList<>();
        if (p.consumers == null) p.consumers = new ArrayList<>();
        if (p.streams == null) p.streams = new ArrayList<>();
        for (Streams st : p.streams) {
            if (st.consumerProperties == null) st.consumerProperties = Map.of();
            if (st.producerProperties == null) st.producerProperties = Map.of();
        }
        if (p.jobs == null) p.jobs = new ArrayList<>();
        for (Job j : p.jobs) {
            if (j.source.properties == null) j.source.properties = Map.of();
            if (j.sink.properties == null) j.sink.properties = Map.of();
            if (j.parallelism <= 0) j.parallelism = j.source.parallelism;
        }
        if (p.sinks == null) p.sinks = new ArrayList<>();
        if (p.faults == null) p.faults = new ArrayList<>();
        for (Producer pr : p.producers) if (pr.abortTransactions == null) pr.abortTransactions = new ArrayList<>();
        return p;
    }

    public long latencyMs(String a, String b) {
        for (Link l : links) {
            if ((l.between.get(0).equals(a) && l.between.get(1).equals(b)) || (l.between.get(0).equals(b) && l.between.get(1).equals(a))) {
                return l.latencyMs;
            }
        }
        return latencyMs;
    }

    /** The names of the Streams applications: each names the clients Streams builds after it (Proxy.nodeOf). */
    public List<String> streamsNames() {
        List<String> out = new ArrayList<>();
        for (Streams s : streams) out.add(s.name);
        return out;
    }

    /** The names of the Flink jobs: each names its Kafka clients "NAME-flink-..." (Proxy.nodeOf). */
    public List<String> jobNames() {
        List<String> out = new ArrayList<>();
        for (Job j : jobs) out.add(j.name);
        return out;
    }

    /** Whether the scene runs transactions: a transactional producer, an exactly-once Streams application or Flink sink. */
    public boolean transactional() {
        return producers.stream().anyMatch(Producer::transactional) || streams.stream().anyMatch(Streams::exactlyOnce)
            || jobs.stream().anyMatch(Job::exactlyOnceSink);
    }

    public List<String> brokerNames() {
        List<String> out = new ArrayList<>();
        for (int i = 1; i <= brokers; i++) out.add("broker-" + i);
        return out;
    }
}
