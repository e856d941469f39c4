package deliverylab.conformance;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * A Kafka Streams application, as the simulator's Streams application: the real
 * KafkaStreams, one stream thread, a topology that reads its input topic, passes each
 * record through unchanged (key, value, headers: the message identity travels in
 * "dl-msg") and writes it to its output topic. Its protocol points come from the clients
 * Streams is given (StreamsClients: "polled", "written", "offset-committed",
 * "txn-committed", "txn-aborted") and from the processor ("processed", before the record
 * is forwarded, so a crash there comes before its output is sent).
 * <p>
 * A restart is a new process with a new state directory: for a stateless topology
 * Streams draws a new process id each time (StateDirectory.initializeProcessId), so under
 * exactly_once_v2 a new transactional.id ("NAME-processId-1", StreamsProducer); the old
 * instance's open transaction is not fenced by it but aborted by the coordinator once
 * transaction.timeout.ms has passed.
 */
final class StreamsApp {
    /**
     * Main-consumer settings Streams sets itself (StreamsConfig.getMainConsumerConfigs
     * puts them after the "main.consumer." ones, or the client supplier's deserializers
     * replace them), or refuses (enable.auto.commit, checked on the un-prefixed and
     * "consumer." settings only: under "main.consumer." it would really be applied, so
     * it is left out here).
     */
    static final Set<String> CONSUMER_OWNED = Set.of("bootstrap.servers", "client.id", "group.id", "enable.auto.commit",
        "partition.assignment.strategy", "allow.auto.create.topics", "key.deserializer", "value.deserializer");
    /** Producer settings Streams sets itself (getProducerConfigs, StreamsProducer) or its supplier replaces. */
    static final Set<String> PRODUCER_OWNED = Set.of("bootstrap.servers", "client.id", "transactional.id", "key.serializer",
        "value.serializer");
    /**
     * Under exactly-once Streams forces read_committed on its consumers (CONSUMER_EOS_OVERRIDES;
     * under "main.consumer." a read_uncommitted would slip past its check) and idempotence
     * on its producer (PRODUCER_EOS_OVERRIDES, NON_CONFIGURABLE_PRODUCER_EOS_CONFIGS).
     */
    static final Set<String> CONSUMER_OWNED_EOS = Set.of("isolation.level");
    static final Set<String> PRODUCER_OWNED_EOS = Set.of("enable.idempotence");

    private final Plan.Streams spec;

    StreamsApp(Plan.Streams spec) { this.spec = spec; }

    void run() throws Exception {
        // A fresh directory per process: nothing is kept across a crash, as for a stateless topology.
        Path stateDir = Path.of(AppMain.launch.stateFile).resolveSibling(spec.name + ".streams-" + ProcessHandle.current().pid());
        Inputs inputs = new Inputs();
        KafkaStreams streams = new KafkaStreams(topology(spec, inputs), config(spec, AppMain.launch.bootstrap, stateDir.toString()),
            new StreamsClients(spec, inputs));
        CountDownLatch stopped = new CountDownLatch(1);
        // What Streams does unless told otherwise (KafkaStreams.defaultStreamsUncaughtExceptionHandler:
        // SHUTDOWN_CLIENT), with the error observed first.
        streams.setUncaughtExceptionHandler(e -> {
            AppMain.observe(new Observation("", "error").err(ProducerApp.name(e)));
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.ERROR) stopped.countDown();
        });
        AppMain.readyAndWait();
        if (!AppMain.launch.restarted) AppMain.sleepUntil(spec.startMs);
        streams.start();
        stopped.await();
        // Streams has shut itself down after a fatal error: the application has stopped.
        System.exit(1);
    }

    /**
     * The application's StreamsConfig: its name as application.id (the group's id) and as
     * client.id (every client Streams builds is named after it, Proxy.nodeOf), one stream
     * thread, the plan's guarantee and commit.interval.ms, and the simulated clients'
     * settings with the "main.consumer." and "producer." prefixes, less those Streams owns.
     */
    static Properties config(Plan.Streams spec, String bootstrap, String stateDir) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, AppMain.named(spec.name));
        p.put(StreamsConfig.CLIENT_ID_CONFIG, spec.name);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, spec.processingGuarantee);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(spec.commitIntervalMs));
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
        spec.consumerProperties.forEach((k, v) -> {
            if (!CONSUMER_OWNED.contains(k) && !(spec.exactlyOnce() && CONSUMER_OWNED_EOS.contains(k))) {
                p.put(StreamsConfig.mainConsumerPrefix(k), v);
            }
        });
        spec.producerProperties.forEach((k, v) -> {
            if (PRODUCER_OWNED.contains(k) || (spec.exactlyOnce() && PRODUCER_OWNED_EOS.contains(k))) return;
            // Streams refuses more than 5 in flight under exactly-once (verifyMaxInFlightRequestPerConnection).
            if (spec.exactlyOnce() && k.equals("max.in.flight.requests.per.connection") && Integer.parseInt(v.trim()) > 5) return;
            p.put(StreamsConfig.producerPrefix(k), v);
        });
        return p;
    }

    /** input topic -> pass -> output topic, bytes as they are. */
    static Topology topology(Plan.Streams spec, Inputs inputs) {
        ProcessorSupplier<byte[], byte[], byte[], byte[]> pass = () -> new PassThrough(inputs);
        Topology t = new Topology();
        t.addSource("input", new ByteArrayDeserializer(), new ByteArrayDeserializer(), spec.from);
        t.addProcessor("pass", pass, "input");
        t.addSink("output", spec.to, new ByteArraySerializer(), new ByteArraySerializer(), "pass");
        return t;
    }

    /** Forwards each record unchanged, after saying it processed it ("processed"). */
    private static final class PassThrough implements Processor<byte[], byte[], byte[], byte[]> {
        private final Inputs inputs;
        private ProcessorContext<byte[], byte[]> context;

        PassThrough(Inputs inputs) { this.inputs = inputs; }

        @Override
        public void init(ProcessorContext<byte[], byte[]> context) { this.context = context; }

        @Override
        public void process(Record<byte[], byte[]> record) {
            RecordMetadata md = context.recordMetadata().orElseThrow(); // a record from a source always has it
            String partition = md.topic() + "-" + md.partition();
            inputs.processed(partition, md.offset());
            AppMain.observe(new Observation("", "processed").msgs(ConsumerApp.ids(record.headers())).at(partition, md.offset()));
            context.forward(record);
        }
    }

    /**
     * The input records the application has polled that no commit covers yet, in poll
     * order, each marked once processed; the outputs sent and not yet acknowledged, and
     * the inputs whose output failed; and whether a transaction is open. The stream thread
     * adds and commits, the producer's thread acknowledges and ends transactions:
     * synchronized.
     */
    static final class Inputs {
        private record Input(String partition, long offset, List<String> ids, boolean processed) {}

        private final Map<String, Input> uncommitted = new LinkedHashMap<>(); // "orders-0@5" -> the record
        private int unacknowledged; // outputs sent, not yet acknowledged nor failed
        private final java.util.Set<String> failed = new java.util.HashSet<>(); // inputs whose output failed
        private boolean transactionOpen;

        synchronized void polled(String partition, long offset, List<String> ids) {
            // polled again after a rewind (a dirty close re-reads from the committed offset): one entry
            String key = partition + "@" + offset;
            uncommitted.remove(key);
            uncommitted.put(key, new Input(partition, offset, ids, false));
            failed.remove(key);
        }

        synchronized void processed(String partition, long offset) {
            uncommitted.computeIfPresent(partition + "@" + offset, (k, in) -> new Input(in.partition, in.offset, in.ids, true));
        }

        /** An output record handed to the producer. */
        synchronized void sending() { unacknowledged++; }

        /**
         * An output's send ended: acknowledged, or failed (Streams keeps the error, and the
         * next commit throws it and the task reads its input again: until then the inputs
         * the output came from are in hand).
         */
        synchronized void sent(List<String> ids, boolean ok) {
            unacknowledged = Math.max(0, unacknowledged - 1);
            if (ok) return;
            uncommitted.forEach((key, in) -> {
                if (in.ids.stream().anyMatch(ids::contains)) failed.add(key);
            });
        }

        /** The identities the committed offsets cover (an offset is the next record to read), no longer uncommitted. */
        synchronized List<String> committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
            Map<String, Long> next = new LinkedHashMap<>();
            offsets.forEach((tp, om) -> next.put(tp.topic() + "-" + tp.partition(), om.offset()));
            List<String> covered = new ArrayList<>();
            uncommitted.entrySet().removeIf(e -> {
                Input in = e.getValue();
                Long c = next.get(in.partition);
                if (c == null || in.offset >= c) return false;
                covered.addAll(in.ids);
                failed.remove(e.getKey());
                return true;
            });
            return covered;
        }

        /**
         * The identities processed in the transaction that aborted. Streams then closes its
         * tasks dirty and reads again from the committed offsets (TaskManager's handling of
         * a corrupted or migrated task): nothing polled before stays in hand.
         */
        synchronized List<String> aborted() {
            List<String> out = new ArrayList<>();
            for (Input in : uncommitted.values()) if (in.processed) out.addAll(in.ids);
            uncommitted.clear();
            failed.clear();
            transactionOpen = false;
            return out;
        }

        synchronized void transactionOpen(boolean open) { transactionOpen = open; }

        /**
         * The settle check's idle, as the simulated Streams thread's (core/apps' Streams.idle):
         * every record polled processed, every output acknowledged, no output's error kept,
         * no transaction open. Processed inputs whose offsets no commit covers yet are not in
         * hand: under at_least_once the commit interval (30 s by default) may be far off, and
         * the simulated run settles without waiting for it.
         */
        synchronized boolean idle() {
            return !transactionOpen && unacknowledged == 0 && failed.isEmpty() && uncommitted.values().stream().allMatch(Input::processed);
        }
    }
}
