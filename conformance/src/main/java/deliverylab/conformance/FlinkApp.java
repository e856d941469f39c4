package deliverylab.conformance;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * A Flink job of the scene, in its own JVM: a local MiniCluster running KafkaSource →
 * (keyBy) → the operator → KafkaSink (or a database sink: FlinkDbSink), as
 * flink-contract.md describes. Its protocol points:
 * checkpoint-triggered / -completed (node NAME/jobmanager) from the checkpoint directory
 * (chk-N created by FsCheckpointStorageAccess.initializeLocationForCheckpoint at the trigger,
 * its _metadata written by PendingCheckpoint.finalizeCheckpoint once every subtask has
 * acknowledged, before notifyCheckpointComplete), emitted (NAME/source-i, in the Emit operator
 * chained to the source, before the record goes on), processed (NAME/map-i, NAME/count-i or
 * NAME/sum-i, in the operator before it forwards or folds the record), pre-committed
 * (NAME/sink-i, when the writer is snapshotted at barrier n, right after its flush and
 * prepareCommit: SinkWriterOperator.prepareSnapshotPreBarrier then snapshotState), restored
 * (NAME/jobmanager, the operator's StateInitializationContext.getRestoredCheckpointId, 0
 * without one).
 *
 * A task failure (crash: NAME/map-0, NAME/source-1) is an exception the operator throws: at
 * its own point (a trigger of the job) at once, in the subtask's thread; on the runner's
 * command (a line "FAIL NAME/map-0" on standard input) from a processing-time timer of the
 * subtask. A pause of a subtask (pause: NAME/source-1; "PAUSE NAME/source-1", "RESUME
 * NAME/source-1") holds its thread at its next emitted or processed, before the record goes
 * on, until it is resumed (SubtaskPauses).
 */
public final class FlinkApp {
    /** The header with an aggregate's lineage: the identities folded into its key's total, in fold order, joined with ",". */
    static final String FOLDS_HEADER = "dl-folds";

    /**
     * A record of the job: the Kafka record's key, value and message identity (header
     * dl-msg); an aggregate's output also carries its lineage (folds: header dl-folds).
     */
    public static final class Rec implements Serializable {
        public byte[] key;
        public byte[] value;
        public String msg;
        public String partition;
        public long offset;
        /** count / sum: Fold.header() of the key after this record; null for map (no header). */
        public String folds;

        public Rec() {}
    }

    /**
     * One key's aggregate (the keyed state of count and sum): its total and the identities
     * of the records folded into it, in fold order, repeats kept. The lineage is in the
     * same state value as the total so that a checkpoint holds, and a restore brings back,
     * the one with the other: the referee judges each input by how often the last value of
     * its key lists it.
     */
    public static final class Fold {
        public long total;
        public List<String> folds = new ArrayList<>();

        public Fold() {}

        /**
         * The state's type, each field given: a POJO of a long and a list of strings
         * (Flink's own LongSerializer and ListSerializer), not a Kryo black box.
         */
        static final TypeInformation<Fold> TYPE = Types.POJO(Fold.class, Map.of("total", Types.LONG, "folds", Types.LIST(Types.STRING)));

        /**
         * This aggregate with one more record folded in: a new value, this one untouched
         * (what the state backend holds is replaced by update, never changed in place).
         * A record without an identity counts but cannot be listed.
         */
        Fold add(long delta, String msg) {
            Fold next = new Fold();
            next.total = total + delta;
            next.folds = new ArrayList<>(folds.size() + 1);
            next.folds.addAll(folds);
            if (msg != null) next.folds.add(msg);
            return next;
        }

        /** The dl-folds header's value. */
        String header() { return String.join(",", folds); }
    }

    /** What each record adds to its key's total: count 1, sum the value as a whole number. */
    static long delta(String operator, Rec r) {
        if (operator.equals("count")) return 1;
        String text = r.value == null ? null : new String(r.value, StandardCharsets.UTF_8);
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("deliverylab: sum needs whole-number values, " + r.msg + " has " + text, e);
        }
    }

    /**
     * The plan's operator (map when none): map, or count / sum, which keep keyed state and
     * so need the keyed stream; anything else is a plan this runner cannot run.
     */
    static String operator(Plan.Job job) {
        String op = job.operator == null || job.operator.isEmpty() ? "map" : job.operator;
        switch (op) {
            case "map":
                return op;
            case "count":
            case "sum":
                if (!job.keyed) throw new IllegalArgumentException("job " + job.name + ": operator " + op + " needs keyed: true (its state is per key)");
                return op;
            default:
                throw new IllegalArgumentException("job " + job.name + ": unknown operator " + op + " (map, count or sum)");
        }
    }

    private final Plan.Job job;
    /** The subtasks told to fail (by the runner, or by a trigger another subtask saw). */
    static final Set<String> FAIL = ConcurrentHashMap.newKeySet();
    /** The job faults that fired in this JVM: each fires once. */
    static final Set<Plan.Fault> FIRED = ConcurrentHashMap.newKeySet();
    /** The paused subtasks (by the runner, or by a trigger of the job). */
    static final SubtaskPauses PAUSES = new SubtaskPauses();
    /** Ends the pauses with a for.ms that fired in this JVM. */
    private static final ScheduledExecutorService LATER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "pause-ends");
        t.setDaemon(true);
        return t;
    });

    FlinkApp(Plan.Job job) { this.job = job; }

    File checkpointDir() { return new File(new File(AppMain.launch.stateFile).getParentFile(), job.name + "-checkpoints"); }

    void run() throws Exception {
        // A plan it cannot run fails before the cluster starts.
        String op = operator(job);
        Sink<Rec> sink = sink(job);
        File cpDir = checkpointDir();
        cpDir.mkdirs();
        String restoreFrom = latestCompleted(cpDir);
        // A JVM restored from a completed checkpoint has one, as the simulated job's
        // durable latest checkpoint survives its crash.
        hasCheckpoint = restoreFrom != null;
        Configuration conf = configuration(job, cpDir);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        // The MiniCluster (job manager and task manager) starts before the scene's 0 ms: it
        // takes seconds, as a real cluster is up before a job is submitted.
        int slots = Math.max(job.source.parallelism, job.parallelism > 0 ? job.parallelism : job.source.parallelism);
        org.apache.flink.runtime.minicluster.MiniCluster cluster = new org.apache.flink.runtime.minicluster.MiniCluster(
            new org.apache.flink.runtime.minicluster.MiniClusterConfiguration.Builder().setConfiguration(conf)
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(slots).build());
        cluster.start();

        pipeline(env, job, op, source(job, AppMain.launch.bootstrap), sink);

        AppMain.readyAndWait();
        AppMain.sleepUntil(job.startMs);
        // Through the job's own observe: a fault of a subtask at the job's start fires here.
        observe(new Observation(job.name, "started"));
        Thread watcher = new Thread(() -> watch(cpDir), "checkpoint-watcher");
        watcher.setDaemon(true);
        watcher.start();
        Thread commands = new Thread(FlinkApp::commands, "commands");
        commands.setDaemon(true);
        commands.start();
        var graph = env.getStreamGraph().getJobGraph(Thread.currentThread().getContextClassLoader(), null);
        // A restarted job restores from the latest completed checkpoint of the directory
        // (retained on cancellation, so a killed JVM's are there), or starts without state.
        if (restoreFrom != null) {
            graph.setSavepointRestoreSettings(org.apache.flink.runtime.jobgraph.SavepointRestoreSettings.forPath(restoreFrom, false));
        }
        cluster.submitJob(graph).get();
        running = true;
        cluster.requestJobResult(graph.getJobID()).get();
    }

    /**
     * The job's Flink settings: checkpointing as the plan says (its mode is
     * execution.checkpointing.mode: EXACTLY_ONCE aligns the barriers, AT_LEAST_ONCE only
     * counts them, CheckpointBarrierTracker), checkpoints kept in cpDir, fixed-delay restarts.
     */
    static Configuration configuration(Plan.Job job, File cpDir) {
        Configuration conf = new Configuration();
        conf.setString("execution.checkpointing.interval", job.checkpointIntervalMs + " ms");
        conf.setString("execution.checkpointing.mode", job.checkpointingMode == null ? "EXACTLY_ONCE" : job.checkpointingMode);
        conf.setString("execution.checkpointing.timeout", (job.checkpointTimeoutMs > 0 ? job.checkpointTimeoutMs : 600000) + " ms");
        conf.setString("execution.checkpointing.max-concurrent-checkpoints", "1");
        conf.setString("execution.checkpointing.storage", "filesystem");
        conf.setString("execution.checkpointing.dir", cpDir.toURI().toString());
        conf.setString("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        conf.setString("restart-strategy.type", "fixed-delay");
        conf.setString("restart-strategy.fixed-delay.attempts", Integer.toString(Integer.MAX_VALUE));
        conf.setString("restart-strategy.fixed-delay.delay", job.restartDelayMs + " ms");
        conf.setString("rest.bind-port", "0");
        return conf;
    }

    /**
     * The job's KafkaSource, its clients NAME-flink-source-i. With the plan's group.id it
     * commits each completed checkpoint's offsets there (commit.offsets.on.checkpoint's
     * default; without one KafkaSourceBuilder turns the commits off).
     */
    static KafkaSource<Rec> source(Plan.Job job, String bootstrap) {
        Properties srcProps = new Properties();
        srcProps.putAll(job.source.properties);
        if (srcProps.getProperty("group.id") != null) srcProps.setProperty("group.id", AppMain.named(srcProps.getProperty("group.id")));
        return KafkaSource.<Rec>builder()
            .setBootstrapServers(bootstrap)
            .setTopics(job.source.topic)
            .setStartingOffsets(startingOffsets(job.source.startingOffsets))
            .setProperties(srcProps)
            .setClientIdPrefix(job.name + "-flink-source")
            .setDeserializer(new Deserializer())
            .build();
    }

    /**
     * Where a job without a checkpoint starts: latest, the group's committed offsets (a
     * partition with none at the earliest, as the scene format's committed says), or the
     * earliest.
     */
    static OffsetsInitializer startingOffsets(String start) {
        if ("latest".equals(start)) return OffsetsInitializer.latest();
        if ("committed".equals(start)) return OffsetsInitializer.committedOffsets(org.apache.kafka.clients.consumer.OffsetResetStrategy.EARLIEST);
        return OffsetsInitializer.earliest();
    }

    /**
     * The job's graph on env: the source, the Emit operator chained to it (each source
     * subtask's emitted), the operator (keyed or not) and the sink.
     */
    static void pipeline(StreamExecutionEnvironment env, Plan.Job job, String op, org.apache.flink.api.connector.source.Source<Rec, ?, ?> source, Sink<Rec> sink) {
        DataStream<Rec> read = env.fromSource(source, org.apache.flink.api.common.eventtime.WatermarkStrategy.noWatermarks(), "source")
            .uid("source").name("source").setParallelism(job.source.parallelism);
        DataStream<Rec> in = emit(read, job);
        int p = job.parallelism > 0 ? job.parallelism : job.source.parallelism;
        DataStream<Rec> out = operate(in, job, op, p);
        out.sinkTo(sink).uid("sink").name("sink").setParallelism(p);
    }

    /**
     * The Emit operator right after the source: the same parallelism on a forward edge, so
     * Flink chains it into the source's task (its thread, its mailbox) and source-i's records
     * pass through Emit subtask i, which reports each as source-i's emitted.
     */
    static DataStream<Rec> emit(DataStream<Rec> read, Plan.Job job) {
        return read.transform("emit", TypeInformation.of(Rec.class), new Emit(job.name))
            .uid("emit").name("emit").setParallelism(job.source.parallelism);
    }

    /**
     * The job's sink: the database sink the plan's db names, two-phase (FlinkXaSink) or
     * plain (FlinkDbSink), or the KafkaSink to its topic, observed (ObservedSink).
     */
    static Sink<Rec> sink(Plan.Job job) {
        if (FlinkXaSink.of(job)) return new FlinkXaSink(job.name, job.sink.db.sink, FlinkDbSink.port(job, AppMain.launch.sinkPorts));
        if (job.sink.db != null) return new FlinkDbSink(job.name, job.sink.db.sink, FlinkDbSink.port(job, AppMain.launch.sinkPorts));
        Properties sinkProps = new Properties();
        sinkProps.putAll(job.sink.properties);
        sinkProps.setProperty("client.id", job.name + "-flink-sink");
        DeliveryGuarantee g = DeliveryGuarantee.valueOf(job.sink.deliveryGuarantee == null ? "NONE" : job.sink.deliveryGuarantee);
        var b = KafkaSink.<Rec>builder()
            .setBootstrapServers(AppMain.launch.bootstrap)
            .setKafkaProducerConfig(sinkProps)
            .setDeliveryGuarantee(g)
            .setRecordSerializer(new Serializer(job.sink.topic));
        if (job.sink.transactionalIdPrefix != null && !job.sink.transactionalIdPrefix.isEmpty()) b.setTransactionalIdPrefix(AppMain.named(job.sink.transactionalIdPrefix));
        return new ObservedSink(b.build(), job.name, g != DeliveryGuarantee.NONE);
    }

    /**
     * The operator on the source's stream: on the stream keyed by the record key's text when
     * the plan says keyed (a null key is ""), so that count and sum get keyed state.
     */
    static DataStream<Rec> operate(DataStream<Rec> in, Plan.Job job, String op, int parallelism) {
        // The key's type given, not extracted from the lambda.
        DataStream<Rec> keyedOrNot = job.keyed ? in.keyBy(FlinkApp::keyOf, Types.STRING) : in;
        return keyedOrNot.transform(op, TypeInformation.of(Rec.class), new Operator(job.name, op))
            .uid(op).name(op).setParallelism(parallelism);
    }

    static String keyOf(Rec r) { return r.key == null ? "" : new String(r.key, StandardCharsets.UTF_8); }

    static volatile boolean running;
    static volatile long lastProcessedMs = -1, lastCompletedMs = -1;
    /** Whether the job has a completed checkpoint (this run's, or the one it restored). */
    static volatile boolean hasCheckpoint;

    /** The runner's commands, one a line on standard input (command). */
    private static void commands() {
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = r.readLine()) != null; ) command(line);
        } catch (IOException e) {
            // the runner is gone
        }
    }

    /**
     * One command of the runner, for a subtask: "FAIL NAME/map-0" (it fails at its next
     * timer or point), "PAUSE NAME/source-1" (it holds at its next point), "RESUME
     * NAME/source-1". Returns whether the line was one.
     */
    static boolean command(String line) {
        int space = line.indexOf(' ');
        if (space < 0) return false;
        String subtask = line.substring(space + 1).trim();
        if (subtask.isEmpty()) return false;
        switch (line.substring(0, space)) {
            case "FAIL" -> FAIL.add(subtask);
            case "PAUSE" -> PAUSES.pause(subtask);
            case "RESUME" -> PAUSES.resume(subtask);
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * The newest checkpoint of the directory whose metadata was written (a completed one:
     * PendingCheckpoint.finalizeCheckpoint writes _metadata after every acknowledgement), or null.
     */
    static String latestCompleted(File cpDir) {
        File best = null;
        long bestId = -1;
        File[] jobs = cpDir.listFiles(File::isDirectory);
        if (jobs == null) return null;
        for (File j : jobs) {
            File[] chks = j.listFiles((d, n) -> n.startsWith("chk-"));
            if (chks == null) continue;
            for (File c : chks) {
                long id = Long.parseLong(c.getName().substring(4));
                if (new File(c, "_metadata").isFile() && id > bestId) {
                    bestId = id;
                    best = c;
                }
            }
        }
        return best == null ? null : best.toURI().toString();
    }

    /** Reports each checkpoint of this run as its chk-N appears (triggered) and its _metadata is written (completed). */
    private void watch(File cpDir) {
        Set<String> triggered = new HashSet<>(), completed = new HashSet<>();
        // What earlier runs (a crashed JVM) left is not this run's.
        scan(cpDir, triggered, completed, false);
        String jm = job.name + "/jobmanager";
        long statusAt = 0;
        while (true) {
            scan(cpDir, triggered, completed, true);
            if (System.currentTimeMillis() - statusAt >= 100) {
                statusAt = System.currentTimeMillis();
                AppMain.status(idle(hasCheckpoint, lastProcessedMs, lastCompletedMs), 0, 1, running);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Idle, for the settle check: the job has a completed checkpoint, and what it processed
     * is in one (so the sink's output is flushed or committed). As the simulated job
     * (core/flink settle.go: it waits for a checkpoint while it has none), a job that has
     * processed nothing yet is not idle before its first checkpoint completes: Flink
     * triggers the first one after a random delay of up to the interval
     * (CheckpointCoordinator's initial delay), and a fault waiting for it
     * (checkpoint-completed) is still ahead.
     */
    static boolean idle(boolean hasCheckpoint, long lastProcessedMs, long lastCompletedMs) {
        return hasCheckpoint && (lastProcessedMs < 0 || lastProcessedMs < lastCompletedMs);
    }

    private void scan(File cpDir, Set<String> triggered, Set<String> completed, boolean report) {
        File[] jobs = cpDir.listFiles(File::isDirectory);
        if (jobs == null) return;
        for (File j : jobs) {
            File[] chks = j.listFiles((d, n) -> n.startsWith("chk-"));
            if (chks == null) continue;
            java.util.Arrays.sort(chks, java.util.Comparator.comparingLong(c -> Long.parseLong(c.getName().substring(4))));
            for (File c : chks) {
                String k = c.getPath();
                long id = Long.parseLong(c.getName().substring(4));
                if (triggered.add(k) && report) observe(new Observation(job.name + "/jobmanager", "checkpoint-triggered").checkpoint(id));
                if (new File(c, "_metadata").isFile() && completed.add(k) && report) {
                    lastCompletedMs = System.currentTimeMillis();
                    hasCheckpoint = true;
                    observe(new Observation(job.name + "/jobmanager", "checkpoint-completed").checkpoint(id));
                }
            }
        }
    }

    /**
     * Reports a protocol point of the job; a fault of the job at it fires: the whole job
     * (AppMain.observe halts the JVM), or a subtask (fire). A crash of o's own subtask throws
     * here, in its thread, once every other fault of the point has fired.
     */
    static void observe(Observation o) {
        AppMain.observe(o);
        RuntimeException crash = null;
        for (Plan.Fault f : AppMain.launch.jobFaults) {
            if (!f.when.matches(o) || !FIRED.add(f)) continue;
            RuntimeException e = fire(f, o);
            if (crash == null) crash = e;
        }
        if (crash != null) throw crash;
    }

    /**
     * A fault of a subtask that fired at o, in this JVM: a crash fails the subtask at once
     * when o is its own point (returned, for the caller to throw) and else at its next timer
     * or point; a pause holds it at its next point (o's own subtask right after o), ended
     * after for.ms of wall clock when it has one; a resume lets it go on.
     */
    static RuntimeException fire(Plan.Fault f, Observation o) {
        switch (f.kind) {
            case "crash" -> {
                if (f.node.equals(o.node)) return new RuntimeException("deliverylab: crash " + f.node + " at " + o.event);
                FAIL.add(f.node);
            }
            case "pause" -> {
                PAUSES.pause(f.node);
                if (f.forMs > 0) LATER.schedule(() -> PAUSES.resume(f.node), f.forMs, TimeUnit.MILLISECONDS);
            }
            case "resume" -> PAUSES.resume(f.node);
            default -> { }
        }
        return null;
    }

    /** Fails the subtask now when it was told to. */
    static void failIfTold(String subtask) {
        if (FAIL.remove(subtask)) throw new RuntimeException("deliverylab: crash " + subtask);
    }

    static final class Deserializer implements KafkaRecordDeserializationSchema<Rec> {
        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Rec> out) {
            Rec r = new Rec();
            r.key = record.key();
            r.value = record.value();
            Header h = record.headers().lastHeader("dl-msg");
            r.msg = h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
            r.partition = record.topic() + "-" + record.partition();
            r.offset = record.offset();
            out.collect(r);
        }

        @Override
        public TypeInformation<Rec> getProducedType() { return TypeInformation.of(Rec.class); }
    }

    static final class Serializer implements KafkaRecordSerializationSchema<Rec> {
        private final String topic;

        Serializer(String topic) { this.topic = topic; }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(Rec r, KafkaSinkContext context, Long timestamp) {
            ProducerRecord<byte[], byte[]> pr = new ProducerRecord<>(topic, null, r.key, r.value);
            if (r.msg != null) pr.headers().add("dl-msg", r.msg.getBytes(StandardCharsets.UTF_8));
            if (r.folds != null) pr.headers().add(FOLDS_HEADER, r.folds.getBytes(StandardCharsets.UTF_8));
            return pr;
        }
    }

    /**
     * One of the job's subtasks the scene names (JOB/source-i, JOB/map-i, ...), as an
     * operator: it knows its node and its attempt, fails when told (at its point, or from a
     * timer every 10 ms) and holds its thread while it is paused.
     */
    abstract static class Part extends AbstractStreamOperator<Rec> implements OneInputStreamOperator<Rec, Rec> {
        final String jobName;
        /** The part of the job the node is named after: source, map, count, sum. */
        private final String part;
        transient String node;
        private transient int attempt;

        Part(String jobName, String part) {
            this.jobName = jobName;
            this.part = part;
        }

        @Override
        public void initializeState(StateInitializationContext context) throws Exception {
            super.initializeState(context);
            TaskInfo task = getRuntimeContext().getTaskInfo();
            node = jobName + "/" + part + "-" + task.getIndexOfThisSubtask();
            attempt = task.getAttemptNumber();
            PAUSES.started(node, attempt);
        }

        @Override
        public void open() throws Exception {
            super.open();
            tick(getProcessingTimeService().getCurrentProcessingTime());
        }

        /** The runner's FAIL reaches a subtask that has no record to take: from a timer in its mailbox. */
        private void tick(long now) {
            getProcessingTimeService().registerTimer(now + 10, t -> {
                failIfTold(node);
                tick(t);
            });
        }

        /**
         * Reports the subtask's point for the record it is about to pass on (or fold): a
         * crash of this subtask there throws, a pause holds the thread here, the record in
         * hand, until the resume. Only then does the task take its next mail (a checkpoint's
         * barrier) or record.
         */
        void point(Observation o, Rec r) throws InterruptedException {
            o.at(r.partition, r.offset);
            if (r.msg != null) o.msgs(List.of(r.msg));
            lastProcessedMs = System.currentTimeMillis();
            observe(o);
            PAUSES.hold(node, attempt, () -> failIfTold(node));
        }

        @Override
        public void close() throws Exception {
            PAUSES.ended(node, attempt);
            super.close();
        }
    }

    /**
     * Chained right after the KafkaSource (FlinkApp.emit): reports source-i's emitted for
     * each record, before it goes on into the job. A crash of source-i there keeps the
     * record from the job (a task failure); a pause holds it there.
     */
    static final class Emit extends Part {
        Emit(String jobName) { super(jobName, "source"); }

        @Override
        public void processElement(StreamRecord<Rec> element) throws Exception {
            failIfTold(node);
            point(new Observation(node, "emitted"), element.getValue());
            output.collect(element);
        }
    }

    /**
     * The operator, reporting processed for each record: map passes it on as it is (its
     * identity kept); count and sum (on the keyed stream) fold it into its key's Fold and
     * emit the new total at once, a rolling aggregate as KeyedStream.sum: the input's key
     * and identity, the total as decimal text, the key's lineage in dl-folds.
     */
    static final class Operator extends Part {
        private final String kind;
        /** count / sum: the current key's aggregate (the task sets the key of each record before processElement). */
        private transient ValueState<Fold> state;

        Operator(String jobName, String kind) {
            super(jobName, kind);
            this.kind = kind;
        }

        @Override
        public void initializeState(StateInitializationContext context) throws Exception {
            super.initializeState(context);
            if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
                long restored = context.getRestoredCheckpointId().orElse(0);
                observe(new Observation(jobName + "/jobmanager", "restored").checkpoint(restored));
            }
        }

        @Override
        public void open() throws Exception {
            super.open();
            if (!kind.equals("map")) state = getRuntimeContext().getState(new ValueStateDescriptor<>("fold", Fold.TYPE));
        }

        @Override
        public void processElement(StreamRecord<Rec> element) throws Exception {
            failIfTold(node);
            Rec r = element.getValue();
            // Before the state changes: a crash here (observe throws) leaves the record
            // unfolded, as the simulator's task failure at processed does; a pause holds it
            // unfolded.
            point(new Observation(node, "processed"), r);
            if (state == null) {
                output.collect(element);
                return;
            }
            Fold before = state.value();
            Fold after = (before == null ? new Fold() : before).add(delta(kind, r), r.msg);
            state.update(after);
            Rec out = new Rec();
            out.key = r.key;
            out.value = Long.toString(after.total).getBytes(StandardCharsets.UTF_8);
            out.msg = r.msg;
            out.partition = r.partition;
            out.offset = r.offset;
            out.folds = after.header();
            output.collect(element.replace(out));
        }
    }

    /**
     * The KafkaSink, its writer observed: pre-committed at barrier n when the writer is
     * snapshotted (SinkWriterOperator calls flush and prepareCommit in prepareSnapshotPreBarrier,
     * then snapshotState(n)); EXACTLY_ONCE's ExactlyOnceKafkaWriter.snapshotState then begins
     * the next transaction.
     */
    static final class ObservedSink implements Sink<Rec>, SupportsWriterState<Rec, KafkaWriterState>, SupportsCommitter<KafkaCommittable> {
        private final KafkaSink<Rec> sink;
        private final String jobName;
        private final boolean flushes;

        ObservedSink(KafkaSink<Rec> sink, String jobName, boolean flushes) {
            this.sink = sink;
            this.jobName = jobName;
            this.flushes = flushes;
        }

        @Override
        public SinkWriter<Rec> createWriter(WriterInitContext context) throws IOException {
            return new Writer(sink.createWriter(context), jobName + "/sink-" + context.getTaskInfo().getIndexOfThisSubtask(), flushes);
        }

        @Override
        public StatefulSinkWriter<Rec, KafkaWriterState> restoreWriter(WriterInitContext context, Collection<KafkaWriterState> state)
            throws IOException {
            return new Writer(sink.restoreWriter(context, state), jobName + "/sink-" + context.getTaskInfo().getIndexOfThisSubtask(), flushes);
        }

        @Override
        public SimpleVersionedSerializer<KafkaWriterState> getWriterStateSerializer() { return sink.getWriterStateSerializer(); }

        @Override
        public Committer<KafkaCommittable> createCommitter(CommitterInitContext context) throws IOException {
            return sink.createCommitter(context);
        }

        @Override
        public SimpleVersionedSerializer<KafkaCommittable> getCommittableSerializer() { return sink.getCommittableSerializer(); }
    }

    static final class Writer implements StatefulSinkWriter<Rec, KafkaWriterState>, CommittingSinkWriter<Rec, KafkaCommittable> {
        private final Object delegate;
        private final String node;
        private final boolean flushes;

        Writer(Object delegate, String node, boolean flushes) {
            this.delegate = delegate;
            this.node = node;
            this.flushes = flushes;
        }

        @SuppressWarnings("unchecked")
        private StatefulSinkWriter<Rec, KafkaWriterState> stateful() { return (StatefulSinkWriter<Rec, KafkaWriterState>) delegate; }

        @SuppressWarnings("unchecked")
        private CommittingSinkWriter<Rec, KafkaCommittable> committing() { return (CommittingSinkWriter<Rec, KafkaCommittable>) delegate; }

        @Override
        public void write(Rec element, Context context) throws IOException, InterruptedException {
            failIfTold(node);
            stateful().write(element, context);
        }

        @Override
        public void flush(boolean endOfInput) throws IOException, InterruptedException { stateful().flush(endOfInput); }

        @Override
        public Collection<KafkaCommittable> prepareCommit() throws IOException, InterruptedException { return committing().prepareCommit(); }

        @Override
        public List<KafkaWriterState> snapshotState(long checkpointId) throws IOException {
            if (flushes) observe(new Observation(node, "pre-committed").checkpoint(checkpointId));
            failIfTold(node);
            return stateful().snapshotState(checkpointId);
        }

        @Override
        public void writeWatermark(org.apache.flink.api.common.eventtime.Watermark watermark) throws IOException, InterruptedException {
            stateful().writeWatermark(watermark);
        }

        @Override
        public void close() throws Exception { stateful().close(); }
    }
}
