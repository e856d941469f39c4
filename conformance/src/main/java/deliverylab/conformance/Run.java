package deliverylab.conformance;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * One run of a scene against a real cluster: start the controller and the brokers, the
 * fault proxy and the sinks; create the topics with the scene's placement; start the
 * applications at the scene's 0 ms; apply the faults at their times and protocol points;
 * stop once the run has settled (as SCENE-FORMAT.md defines it) or at stop.ms; then write
 * what the checker needs: the observations, each sink's effects, and what the logs still
 * hold. The Go side judges them with the simulator's own ledger.
 */
public final class Run implements AutoCloseable {
    /** How long nothing may happen before a run that meets every other condition has settled. */
    static final long QUIET_MS = 1500;
    /** A broker killed at a protocol point of its own gets this long to finish what it was doing. */
    static final long APPENDED_GRACE_MS = 20;

    private final Plan plan;
    private final Path dir;
    private final Network net;
    private final Recorder recorder;
    private final Cluster cluster;
    /** Where the cluster comes from, and whether it is this run's own (closed with it). */
    private final Stage stage;
    private final boolean ownStage;
    /** The prefix of this run's group and transactional ids on a kept cluster (Namespace). */
    private final String namespace;
    private final Map<String, Sink> sinks = new LinkedHashMap<>();
    private final Apps apps;
    private final ClassArchives archives;
    /** Where the run's wall time went, in ms since the runner started: the referee's own speed. */
    private final Map<String, Long> phasesMs = new LinkedHashMap<>();
    /** When the run began: the JVM's start for a run of its own, the moment it was asked for when served. */
    private final long runnerStartMs;
    private final ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "faults");
        t.setDaemon(true);
        return t;
    });
    private volatile long epochMs;
    private final java.util.concurrent.atomic.AtomicInteger pendingFaults = new java.util.concurrent.atomic.AtomicInteger();
    private final Map<String, Long> brokerCrashedAtMs = new HashMap<>();
    /** Each fault applied at a protocol point: when the point was seen, and its latency. */
    private final List<Map<String, Object>> faulted = java.util.Collections.synchronizedList(new ArrayList<>());

    /** A run on a fresh cluster of its own, stopped when the run is closed. */
    public Run(Plan plan, Path planFile, Path dir) throws IOException {
        this(plan, planFile, dir, null);
    }

    /**
     * A run on the stage's cluster: the one kept from the stage's last run when this plan
     * needs the same cluster, else a fresh one (Stage.take). A null stage: a fresh cluster
     * of the run's own.
     */
    public Run(Plan plan, Path planFile, Path dir, Stage stage) throws IOException {
        this.plan = plan;
        this.dir = dir;
        Files.createDirectories(dir);
        this.runnerStartMs = stage == null ? java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime() : System.currentTimeMillis();
        this.ownStage = stage == null;
        this.stage = stage == null ? new Stage(ClassArchives.fromSystemProperties()) : stage;
        this.archives = this.stage.archives();
        this.net = new Network(plan);
        this.recorder = new Recorder();
        this.cluster = this.stage.take(plan, dir);
        this.namespace = this.stage.namespace();
        Map<String, Integer> sinkPorts = new HashMap<>();
        for (Plan.Sink s : plan.sinks) {
            Sink sink = new Sink(s.name, s.kind, net, recorder::record);
            sinks.put(s.name, sink);
            sinkPorts.put(s.name, sink.port());
        }
        this.apps = new Apps(plan, planFile, dir, cluster.bootstrap(), sinkPorts, recorder, archives, namespace,
            cluster.dir().toPath());
    }

    /** Runs the scene and writes observations.jsonl and facts.json into the run's directory. */
    public void execute() throws Exception {
        phase("runner");
        startCluster();
        phase("cluster");
        for (Sink s : sinks.values()) s.start();
        apps.startAll();
        phase("applications");
        epochMs = System.currentTimeMillis();
        recorder.startedAt(epochMs);
        for (String node : cluster.nodes()) recorder.record(new Observation(node, "started"));
        apps.go(epochMs);
        for (Plan.Fault f : plan.faults) {
            if (f.when == null) schedule(f.atMs, () -> apply(f));
        }
        String note = waitForEnd();
        phase("scene");
        writeFacts(note);
        archives.dumpMissing();
    }

    /** Notes the end of a phase of the run (facts.json's phasesMs). */
    private void phase(String name) {
        phasesMs.put(name, System.currentTimeMillis() - runnerStartMs);
    }

    private void startCluster() throws Exception {
        stage.ready(plan, net, recorder, dir, concat(plan.streamsNames(), plan.jobNames()));
        if (stage.run() > 0) {
            Files.writeString(dir.resolve("cluster.txt"), "run " + stage.run() + " on the cluster kept in " + stage.clusterDir()
                + " (its nodes' logs and log directories); group and transactional ids prefixed with " + namespace + "\n");
        }
    }

    private Admin admin() { return stage.admin(); }

    static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    static String brokerName(Node n) { return "broker-" + n.id(); }

    private void schedule(long atMs, Runnable r) {
        pendingFaults.incrementAndGet();
        long delay = Math.max(0, epochMs + atMs - System.currentTimeMillis());
        clock.schedule(() -> {
            try {
                r.run();
            } finally {
                pendingFaults.decrementAndGet();
            }
        }, delay, TimeUnit.MILLISECONDS);
    }

    /** Applies a fault now, and schedules its undo after for.ms. */
    void apply(Plan.Fault f) {
        try {
            switch (f.kind) {
                case "crash" -> crash(f.node);
                case "restart" -> restart(f.node);
                case "cut" -> {
                    net.cut(f.from, f.to);
                    net.cut(f.to, f.from);
                }
                case "cut-oneway" -> net.cut(f.from, f.to);
                case "heal" -> {
                    net.heal(f.from, f.to);
                    net.heal(f.to, f.from);
                }
                case "heal-oneway" -> net.heal(f.from, f.to);
                case "heal-all" -> net.healAll();
                case "pause" -> pause(f.node);
                case "resume" -> resume(f.node);
                case "partition" -> {
                    List<List<String>> pairs = net.partition(f.groups, allNodes());
                    if (f.forMs > 0) schedule(nowMs() + f.forMs, () -> pairs.forEach(pr -> net.heal(pr.get(0), pr.get(1))));
                    return;
                }
                default -> throw new IllegalArgumentException("fault " + f.kind + " needs a protocol point");
            }
            if (f.forMs > 0) {
                switch (f.kind) {
                    case "crash" -> schedule(nowMs() + f.forMs, () -> restart(f.node));
                    case "cut" -> schedule(nowMs() + f.forMs, () -> {
                        net.heal(f.from, f.to);
                        net.heal(f.to, f.from);
                    });
                    case "cut-oneway" -> schedule(nowMs() + f.forMs, () -> net.heal(f.from, f.to));
                    case "pause" -> schedule(nowMs() + f.forMs, () -> {
                        try {
                            resume(f.node);
                        } catch (Exception e) {
                            recorder.note("resume " + f.node + " failed: " + e);
                        }
                    });
                    default -> { }
                }
            }
        } catch (Exception e) {
            recorder.note("fault " + f.describe() + " failed: " + e);
        }
    }

    private List<String> allNodes() {
        List<String> out = new ArrayList<>(cluster.nodes());
        out.addAll(apps.all().keySet());
        out.addAll(sinks.keySet());
        return out;
    }

    /**
     * Pauses a node: a subtask of a Flink job by telling the job's JVM ("PAUSE
     * NAME/source-1": the subtask's thread holds at its next point, FlinkApp), any other
     * node's process with SIGSTOP. As for a process, nothing is recorded: the simulator
     * reports no point for a pause.
     */
    private void pause(String node) throws IOException, InterruptedException {
        String job = jobOf(node);
        if (job != null) apps.command(job, "PAUSE " + node);
        else signal(node, "STOP");
    }

    /** Resumes a node paused by pause: "RESUME NAME/source-1" for a subtask, else SIGCONT. */
    private void resume(String node) throws IOException, InterruptedException {
        String job = jobOf(node);
        if (job != null) apps.command(job, "RESUME " + node);
        else signal(node, "CONT");
    }

    /**
     * Pauses (SIGSTOP) or resumes (SIGCONT) a broker's, the controller's or an
     * application's process: the simulator's pause, a node that handles nothing until it
     * resumes (a long GC pause) while what is sent to it waits for it — here in its
     * sockets' buffers and the proxy's.
     */
    private void signal(String node, String sig) throws IOException, InterruptedException {
        Cluster.signal(node, apps.has(node) ? apps.pid(node) : cluster.pid(node), sig);
    }

    /** The Flink job a subtask's node ("totals/map-0") belongs to, or null. */
    private String jobOf(String node) {
        if (node == null) return null;
        int slash = node.indexOf('/');
        return slash > 0 && plan.jobNames().contains(node.substring(0, slash)) ? node.substring(0, slash) : null;
    }

    /** The faults a Flink job's JVM applies to its own subtasks (FlinkApp.fire). */
    private static final Set<String> SUBTASK_FAULTS = Set.of("crash", "pause", "resume");

    /**
     * Whether the fault is one the job's own JVM applies: a crash, pause or resume of one of
     * its subtasks at a point of the same job (FlinkApp.observe matches it there, in the
     * subtask's thread when the point is its own). Any other fault of a subtask (a point the
     * runner sees, a time) the runner applies with a command to the JVM.
     */
    boolean firesInJob(Plan.Fault f) {
        String job = jobOf(f.node);
        return job != null && SUBTASK_FAULTS.contains(f.kind) && f.when != null && f.when.node != null
            && (f.when.node.equals(job) || f.when.node.startsWith(job + "/"));
    }

    private void crash(String node) {
        recorder.record(new Observation(node, "crashed"));
        String job = jobOf(node);
        if (job != null) {
            // A task failure: the subtask's operator throws (FlinkApp), the job fails over.
            try {
                apps.command(job, "FAIL " + node);
            } catch (IOException e) {
                recorder.note("crash " + node + " failed: " + e);
            }
        } else if (apps.has(node)) {
            // As the simulated application, it sends nothing from this instant: frames the
            // proxy reads from it until SIGKILL has landed are lost.
            net.crashed(node);
            apps.kill(node);
        } else if (sinks.containsKey(node)) {
            sinks.get(node).crash();
        } else {
            net.crashed(node);
            cluster.kill(node);
            brokerCrashedAtMs.put(node, nowMs());
        }
    }

    private void restart(String node) {
        try {
            if (apps.has(node)) {
                net.restarted(node);
                apps.start(node);
            } else if (sinks.containsKey(node)) {
                sinks.get(node).start();
            } else {
                net.restarted(node);
                cluster.start(node);
                brokerCrashedAtMs.remove(node);
            }
            recorder.record(new Observation(node, "restarted"));
        } catch (IOException e) {
            recorder.note("restart " + node + " failed: " + e);
        }
    }

    long nowMs() { return System.currentTimeMillis() - epochMs; }

    /**
     * What kept the run from settling last, and when (facts.json's unsettled): where a real
     * run goes on past the simulator's end, this says what it waited for.
     */
    private volatile String lastUnsettled = "";
    private static final String NO_ANSWER = "the cluster did not answer: ";
    private volatile long lastUnsettledAtMs = -1;

    /** Waits until the run has settled, or stop.ms, or the limit; returns why it ended. */
    private String waitForEnd() throws Exception {
        long settledSince = -1;
        while (true) {
            Thread.sleep(200);
            long now = nowMs();
            if (plan.stopMs > 0 && now >= plan.stopMs) return "stop.ms";
            if (now >= plan.limitMs) return plan.stopMs > 0 ? "stop.ms" : "time limit";
            if (plan.stopMs > 0) continue;
            String why = unsettled(now);
            if (why != null && why.startsWith(NO_ANSWER) && lastUnsettled.startsWith(NO_ANSWER)) {
                // An admin client that timed out waiting for a node can stay stuck on the
                // dead brokers it knew (two of three brokers down in kip-101-leader-epochs
                // kept one from answering for the rest of a run): ask with a new one,
                // bootstrapped from every broker's address.
                stage.renewAdmin();
            }
            if (why != null) {
                lastUnsettled = why;
                lastUnsettledAtMs = now;
                settledSince = -1;
                continue;
            }
            if (settledSince < 0) settledSince = now;
            if (now - settledSince >= QUIET_MS && now - recorder.lastAtMs() >= QUIET_MS) return "settled";
        }
    }

    /**
     * Whether nothing the scene cares about can still happen, as far as the cluster
     * shows: no fault ahead, every producer told how each send ended, every consumer and
     * Streams application that is up caught up with nothing in hand (nor, for Streams, a
     * transaction open), no group waiting for a member that is down,
     * and every broker that is down fenced (its session over) while every broker that is
     * up is registered. Null when it has settled, else what it waits for.
     */
    private String unsettled(long now) {
        if (pendingFaults.get() > 0) return "a fault ahead";
        for (Apps.App a : apps.all().values()) {
            if (!a.up()) continue;
            if (a.role.equals("producer") && !a.done) return a.name + " not told how every send ended";
            // A Streams application is a consumer here: its main consumer, in its group (its name).
            // A Flink job: running, and everything it processed in a completed checkpoint (FlinkApp's STATUS).
            boolean consuming = a.role.equals("consumer") || a.role.equals("streams") || a.role.equals("job");
            if (!consuming) continue;
            if (!a.joined) return a.name + " not joined";
            if (!a.idle) return a.name + " has work in hand";
            if (a.lag != 0) return a.name + " lag " + a.lag;
            if (now - a.statusAtMs > 1000) return a.name + " status older than 1 s";
        }
        long session = Long.parseLong(plan.brokerProperties.getOrDefault("broker.session.timeout.ms", "9000"));
        for (var e : brokerCrashedAtMs.entrySet()) {
            if (now - e.getValue() < session + 1000) return e.getKey() + " not fenced yet";
        }
        try {
            if (admin().describeCluster().nodes().get(5, TimeUnit.SECONDS).size() != liveBrokers()) return "brokers registered != brokers up";
            if (!groupsSettled()) return "a group rebalancing or waiting for a member";
            if (!noTransactionInProgress()) return "a transaction in progress";
            return null;
        } catch (Exception e) {
            return NO_ANSWER + e;
        }
    }

    /**
     * Whether no transaction is in progress on any coordinator, as a settled run needs:
     * one a crashed producer left open ends only when the coordinator's timeout sweep
     * aborts it (TransactionCoordinator.abortTimedOutTransactions), one in PrepareCommit or
     * PrepareAbort once its markers are written. Asked only when a producer is
     * transactional or a Streams application exactly-once (ListTransactions, KIP-664).
     */
    private boolean noTransactionInProgress() throws Exception {
        if (!plan.transactional()) return true;
        var options = new ListTransactionsOptions().filterStates(Stage.IN_PROGRESS);
        return admin().listTransactions(options).all().get(5, TimeUnit.SECONDS).isEmpty();
    }

    private int liveBrokers() {
        int n = 0;
        for (String b : cluster.brokers()) if (cluster.alive(b)) n++;
        return n;
    }

    private boolean groupsSettled() throws Exception {
        Set<String> groups = new HashSet<>();
        for (Plan.Consumer c : plan.consumers) groups.add(namespace + c.group);
        for (Plan.Streams st : plan.streams) groups.add(namespace + st.name); // application.id is the group's id
        if (groups.isEmpty()) return true;
        for (ConsumerGroupDescription g : admin().describeConsumerGroups(groups).all().get(5, TimeUnit.SECONDS).values()) {
            String group = Namespace.unprefixed(namespace, g.groupId());
            boolean anyUp = false, anyDown = false;
            for (MemberDescription m : g.members()) {
                // A Streams member's client id is its main consumer's, "NAME-StreamThread-1-consumer".
                String app = Proxy.nodeOf(m.clientId(), plan.streamsNames());
                if (apps.has(app) && apps.all().get(app).up()) anyUp = true;
                else anyDown = true;
            }
            boolean livePeer = plan.consumers.stream().anyMatch(c -> c.group.equals(group) && apps.all().get(c.name).up())
                || plan.streams.stream().anyMatch(st -> st.name.equals(group) && apps.all().get(st.name).up());
            // A classic group rebalances in PreparingRebalance and CompletingRebalance; a
            // KIP-848 group (group.protocol=consumer) while its coordinator has yet to compute
            // the target (Assigning) or a member has yet to reach it (Reconciling: a partition
            // waits for its owner's revocation, or a member for its next heartbeat).
            String state = g.state().name();
            boolean rebalancing = state.equals("PREPARING_REBALANCE") || state.equals("COMPLETING_REBALANCE")
                || state.equals("ASSIGNING") || state.equals("RECONCILING");
            if (livePeer && (anyDown || rebalancing)) return false;
            if (livePeer && !anyUp) return false; // a live member has not joined yet
        }
        return true;
    }

    /** Writes observations.jsonl and facts.json. */
    private void writeFacts(String note) throws Exception {
        long endMs = nowMs();
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("endMs", endMs);
        facts.put("endNote", note);
        Map<String, Map<String, Integer>> effects = new LinkedHashMap<>();
        for (Sink s : sinks.values()) effects.put(s.name(), s.effects());
        facts.put("effects", effects);
        facts.put("held", retryingTimeouts(this::held));
        facts.put("aborted", retryingTimeouts(this::aborted));
        synchronized (faulted) {
            facts.put("faulted", new ArrayList<>(faulted));
        }
        phase("facts");
        facts.put("phasesMs", phasesMs);
        facts.put("unsettled", Map.of("atMs", lastUnsettledAtMs, "why", lastUnsettled));
        facts.put("clusterRun", stage.run()); // 0: the cluster was started for this run
        Plan.JSON.writerWithDefaultPrettyPrinter().writeValue(dir.resolve("facts.json").toFile(), facts);
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(dir.resolve("observations.jsonl"), StandardCharsets.UTF_8))) {
            for (Observation o : recorder.all()) w.println(o.line());
        }
    }

    /**
     * For each output, the messages a log still holds where its consumers could yet get
     * them, as the simulator's brokers answer it (server.Broker.Holds): all of a down
     * replica's log when the partition has no leader; on a live leader, whatever lies
     * above the HW, and below it what lies at or past the group's committed offset (all of
     * it without one), which the group would fetch next; when every consumer of the
     * output is down, everything from the committed offset on. When the output's
     * consumers are read_committed, their end is the last stable offset instead of the HW,
     * and the records of an aborted transaction are not held: no such reader can get them.
     */
    /**
     * How long the end-of-run questions to the cluster may take. With most brokers dead
     * the admin client first tries their addresses, each up to
     * socket.connection.setup.timeout.ms (10 s): one such wait made a run of
     * kip-101-leader-epochs (two of three brokers down) miss a 10 s limit.
     */
    private static final long FACTS_TIMEOUT_S = 60;

    /**
     * An end-of-run question (held(), aborted()), asked again when the cluster did not
     * answer in time: on a loaded machine the admin client can miss its 60 s for a cluster
     * that is up (a run of acks-0-vanish once failed on "Timed out waiting for a node
     * assignment"), and the run itself is over and fine. Three tries, then the error stands.
     */
    private <T> T retryingTimeouts(Check<T> question) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return question.answer();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                boolean timedOut = e instanceof java.util.concurrent.TimeoutException
                    || e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException;
                if (!timedOut || attempt == 3) throw e;
                // A client that timed out waiting for a node assignment can stay stuck on
                // the dead brokers it knew (a run of acks-all-isr-of-one missed all three
                // tries): the next try bootstraps a new one from every broker's address.
                stage.renewAdmin();
            }
        }
    }

    /**
     * Every record that carries a message and belongs to a transaction that aborted, as
     * "orders-0@3", in every partition of the scene's own topics: read from the logs, since
     * a transaction can abort without any application being told (the coordinator aborts a
     * crashed producer's open transaction once transaction.timeout.ms has passed,
     * TransactionCoordinator.abortTimedOutTransactions). The log read is the live leader's,
     * or without one each down replica's, as held() reads them. Sorted, each once.
     */
    private List<String> aborted() throws Exception {
        Set<String> topics = new HashSet<>();
        for (Plan.Partition pp : plan.partitions) if (!pp.topic.startsWith("__")) topics.add(pp.topic);
        if (topics.isEmpty()) return List.of();
        Map<String, TopicDescription> described = admin().describeTopics(topics).allTopicNames().get(FACTS_TIMEOUT_S, TimeUnit.SECONDS);
        java.util.TreeSet<String> out = new java.util.TreeSet<>();
        for (Plan.Partition pp : plan.partitions) {
            if (!topics.contains(pp.topic)) continue;
            String leader = liveLeader(described.get(pp.topic).partitions().get(pp.partition));
            List<String> logs = leader != null ? List.of(leader) : pp.replicas.stream().filter(b -> !cluster.alive(b)).toList();
            for (String b : logs) {
                for (LogReader.Entry en : LogReader.aborted(cluster.logDir(b), pp.name())) out.add(pp.name() + "@" + en.offset());
            }
        }
        return new ArrayList<>(out);
    }

    /** The partition's leader when it has one that is up, else null. */
    private String liveLeader(TopicPartitionInfo info) {
        String leader = info.leader() == null || info.leader().id() < 0 ? null : brokerName(info.leader());
        return leader != null && cluster.alive(leader) ? leader : null;
    }

    private Map<String, List<Map<String, String>>> held() throws Exception {
        Map<String, List<Map<String, String>>> out = new LinkedHashMap<>();
        Map<String, List<Plan.Consumer>> feeders = new LinkedHashMap<>();
        for (Plan.Consumer c : plan.consumers) {
            String output = c.sink == null || c.sink.isEmpty() ? c.name : c.sink;
            feeders.computeIfAbsent(output, k -> new ArrayList<>()).add(c);
        }
        Set<String> topics = new HashSet<>();
        for (Plan.Partition pp : plan.partitions) topics.add(pp.topic);
        Map<String, TopicDescription> described = admin().describeTopics(topics).allTopicNames().get(FACTS_TIMEOUT_S, TimeUnit.SECONDS);
        for (var e : feeders.entrySet()) {
            List<Map<String, String>> list = new ArrayList<>();
            boolean down = e.getValue().stream().noneMatch(c -> apps.all().get(c.name).up());
            boolean readCommitted = e.getValue().stream().allMatch(c -> "read_committed".equals(c.properties.get("isolation.level")));
            String group = e.getValue().get(0).group;
            Map<TopicPartition, OffsetAndMetadata> committed = committedOffsets(group);
            for (Plan.Partition pp : plan.partitions) {
                if (e.getValue().stream().noneMatch(c -> c.topics.contains(pp.topic))) continue;
                String leader = liveLeader(described.get(pp.topic).partitions().get(pp.partition));
                if (leader == null) {
                    for (String b : pp.replicas) {
                        if (cluster.alive(b)) continue;
                        for (LogReader.Entry en : LogReader.read(cluster.logDir(b), pp.name(), readCommitted)) {
                            list.add(Map.of("msg", en.msg(), "code", "held-offline", "partition", pp.name(), "broker", b));
                        }
                    }
                    continue;
                }
                TopicPartition tp = new TopicPartition(pp.topic, pp.partition);
                // The end a consumer of the output reads to: the HW, or for read_committed the
                // last stable offset (ListOffsets with its isolation level).
                var isolation = readCommitted ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED;
                long hw = admin().listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(isolation)).partitionResult(tp)
                    .get(FACTS_TIMEOUT_S, TimeUnit.SECONDS).offset();
                OffsetAndMetadata c = committed.get(tp);
                long from = c == null ? 0 : c.offset();
                for (LogReader.Entry en : LogReader.read(cluster.logDir(leader), pp.name(), readCommitted)) {
                    String code = heldAs(down, en.offset(), hw, from);
                    if (code != null) list.add(Map.of("msg", en.msg(), "code", code, "partition", pp.name(), "broker", leader));
                }
            }
            out.put(e.getKey(), list);
        }
        return out;
    }

    /** Why the live leader holds a record at offset for the output, or null (server.heldAs). */
    static String heldAs(boolean readerDown, long offset, long hw, long committed) {
        if (offset < committed && (readerDown || offset < hw)) return null;
        if (readerDown) return "held-for-reader";
        if (offset >= hw) return "held-above-hw";
        return "held-unread";
    }

    /**
     * The group's committed offsets, or none when its coordinator cannot answer (as the
     * simulator's protocol.CommittedOffset answers -1 without a leader of __consumer_offsets).
     */
    private Map<TopicPartition, OffsetAndMetadata> committedOffsets(String group) throws InterruptedException {
        try {
            Map<TopicPartition, OffsetAndMetadata> m =
                admin().listConsumerGroupOffsets(namespace + group).partitionsToOffsetAndMetadata().get(FACTS_TIMEOUT_S, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
            for (var en : m.entrySet()) if (en.getValue() != null) out.put(en.getKey(), en.getValue());
            return out;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return Map.of();
        }
    }

    private interface Check<T> {
        T answer() throws Exception;
    }

    @Override
    public void close() {
        clock.shutdownNow();
        apps.close();
        for (Sink s : sinks.values()) s.close();
        if (ownStage) stage.close();
    }

    /**
     * Records the run's observations with their time since the scene's 0 ms, and fires the
     * scene's triggers: a fault waiting for a protocol point happens when it is observed,
     * the first time it matches.
     */
    final class Recorder implements Proxy.Points {
        private final List<Observation> observations = new ArrayList<>();
        private final boolean[] fired = new boolean[plan.faults.size()];
        private volatile long startedAt;
        private volatile long lastAtMs;

        void startedAt(long epoch) { startedAt = epoch; }

        long lastAtMs() { return lastAtMs; }

        synchronized List<Observation> all() {
            List<Observation> out = new ArrayList<>(observations);
            out.sort((a, b) -> Long.compare(a.atMs, b.atMs));
            return out;
        }

        void note(String text) {
            try {
                Files.writeString(dir.resolve("notes.txt"), nowMs() + " " + text + "\n", StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            } catch (IOException e) {
                // nothing more to do
            }
        }

        /** Records an observation the harness made (a sink, a crash). */
        void record(Observation o) { point(o, true); }

        /** An observation an application made and printed. */
        void fromApp(String app, Observation o) {
            synchronized (this) {
                observations.add(o);
                if (active(o)) lastAtMs = Math.max(lastAtMs, o.atMs);
            }
            fire(o, app);
        }

        @Override
        public Proxy.Action point(Observation o, boolean record) {
            if (startedAt == 0) return Proxy.Action.NONE; // before the scene's 0 ms: setting up
            if (record) {
                o.atMs = System.currentTimeMillis() - startedAt;
                synchronized (this) {
                    observations.add(o);
                    if (active(o)) lastAtMs = Math.max(lastAtMs, o.atMs);
                }
            }
            return fire(o, null);
        }

        /**
         * Whether an observation is activity the quiet period waits out: one about a
         * message, or a crash or restart; an auto-commit that covers nothing new is not.
         */
        private boolean active(Observation o) {
            return (o.msgs != null && !o.msgs.isEmpty()) || o.event.equals("crashed") || o.event.equals("restarted");
        }

        /**
         * Applies a fault at the protocol point o, seen at pointAtMs, and writes down how
         * long it took to take effect (a SIGKILL has landed once the process is gone): the
         * simulator's fault is instant, a real one is not.
         */
        private void applyAt(Plan.Fault f, Observation o, long pointAtMs) {
            apply(f);
            faulted(f, o, pointAtMs, nowMs() - pointAtMs);
        }

        /** Writes down a fault applied at the protocol point o (seen at pointAtMs), latencyMs after it. */
        private void faulted(Plan.Fault f, Observation o, long pointAtMs, long latencyMs) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("fault", f.describe());
            m.put("point", o.node + " " + o.event + (o.msgs == null || o.msgs.isEmpty() ? "" : " " + o.msgs));
            m.put("atMs", pointAtMs);
            m.put("latencyMs", latencyMs);
            faulted.add(m);
        }

        /**
         * A fault the job's JVM applied at its own point o (FlinkApp.fire): at once, so its
         * latency is 0. A crash is recorded as the simulator records it; a pause with a for.ms
         * is ended by the JVM, and until then the run has a fault ahead, as for a pause the
         * runner ends.
         */
        private void firedInJob(Plan.Fault f, Observation o, long pointAtMs) {
            if (f.kind.equals("crash")) recorder.record(new Observation(f.node, "crashed"));
            if (f.kind.equals("pause") && f.forMs > 0) schedule(nowMs() + f.forMs, () -> { });
            faulted(f, o, pointAtMs, 0);
        }

        /** Fires the triggers o matches; returns what to do with the frame it is about. */
        private Proxy.Action fire(Observation o, String fromApp) {
            long pointAtMs = o.atMs > 0 ? o.atMs : nowMs();
            Proxy.Action action = Proxy.Action.NONE;
            List<Plan.Fault> due = new ArrayList<>();
            synchronized (this) {
                for (int i = 0; i < plan.faults.size(); i++) {
                    Plan.Fault f = plan.faults.get(i);
                    if (fired[i] || f.when == null || !f.when.matches(o)) continue;
                    fired[i] = true;
                    due.add(f);
                }
            }
            for (Plan.Fault f : due) {
                if (firesInJob(f)) {
                    firedInJob(f, o, pointAtMs);
                    continue;
                }
                switch (f.kind) {
                    case "drop" -> action = action.and(new Proxy.Action(true, false, 0, false));
                    case "duplicate" -> action = action.and(new Proxy.Action(false, true, 0, false));
                    case "delay" -> action = action.and(new Proxy.Action(false, false, f.delayMs, false));
                    case "crash" -> {
                        if (f.node.equals(o.node) && o.event.equals("responded")) {
                            // Crashed as it answered: the answer leaves, and nothing it sent
                            // at that instant after it (its followers' fetch answers) does.
                            net.crashedSince(f.node, System.nanoTime() - Network.SAME_INSTANT_NANOS);
                            action = action.and(new Proxy.Action(false, false, 0, true));
                            applyAt(f, o, pointAtMs);
                        } else if (f.node.equals(o.node) && o.event.equals("txn-prepared")) {
                            // The coordinator crashed as it sent the markers: its EndTxn
                            // answer has left, that marker request (dropped) and nothing
                            // it sends from now on does.
                            net.crashed(f.node);
                            action = action.and(new Proxy.Action(true, false, 0, false));
                            applyAt(f, o, pointAtMs);
                        } else if (f.node.equals(o.node) && o.event.equals("appended")) {
                            // The request has just reached the broker: nothing it sends from
                            // now on leaves it, and it is killed once it has had the time to
                            // append the batch, as the simulated broker has appended it.
                            net.crashed(f.node);
                            Thread t = new Thread(() -> {
                                try {
                                    Thread.sleep(APPENDED_GRACE_MS);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                                applyAt(f, o, pointAtMs);
                            }, "crash-" + f.node);
                            t.setDaemon(true);
                            t.start();
                        } else {
                            applyAt(f, o, pointAtMs);
                        }
                    }
                    default -> applyAt(f, o, pointAtMs);
                }
            }
            return action;
        }

        /** The triggers with which an application crashes itself at its own protocol points. */
        synchronized List<Plan.Trigger> selfCrashTriggers(String app) {
            List<Plan.Trigger> out = new ArrayList<>();
            for (int i = 0; i < plan.faults.size(); i++) {
                Plan.Fault f = plan.faults.get(i);
                if (!fired[i] && f.when != null && f.kind.equals("crash") && app.equals(f.node)
                    && (f.when.node == null || f.when.node.isEmpty() || f.when.node.equals(app) || f.when.node.startsWith(app + "/"))) {
                    out.add(f.when);
                }
            }
            return out;
        }

        /**
         * A Flink job's subtask faults at the job's own protocol points, not yet fired: its
         * JVM applies them (FlinkApp.observe), a crash, pause or resume (firesInJob).
         */
        synchronized List<Plan.Fault> jobFaults(String job) {
            List<Plan.Fault> out = new ArrayList<>();
            for (int i = 0; i < plan.faults.size(); i++) {
                Plan.Fault f = plan.faults.get(i);
                if (!fired[i] && firesInJob(f) && job.equals(jobOf(f.node))) out.add(f);
            }
            return out;
        }
    }
}
