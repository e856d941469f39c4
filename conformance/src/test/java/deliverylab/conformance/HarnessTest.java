package deliverylab.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness itself, on a real one-broker cluster: the fault proxy's cut, drop and
 * protocol-point trigger, and a crash and restart that keeps the broker's log. Each test
 * runs a small plan through Run, as `deliverylab conform` does, and reads what it wrote.
 */
class HarnessTest {
    @TempDir
    Path dir;

    /** A plan: one broker, topic t with one partition, producer p1 sending n messages. */
    private static Plan plan(int n, long intervalMs, Map<String, String> producer) {
        Plan p = new Plan();
        p.scene = "harness";
        p.brokers = 1;
        p.brokerProperties = Map.of("broker.heartbeat.interval.ms", "500", "broker.session.timeout.ms", "1500");
        Plan.Partition t = new Plan.Partition();
        t.topic = "t";
        t.partition = 0;
        t.replicas = List.of("broker-1");
        p.partitions.add(t);
        p.latencyMs = 5;
        Plan.Producer pr = new Plan.Producer();
        pr.name = "p1";
        pr.topic = "t";
        pr.intervalMs = intervalMs;
        pr.onRestart = "resend-unacknowledged";
        pr.properties = new java.util.HashMap<>(Map.of("acks", "1", "linger.ms", "0", "enable.idempotence", "false"));
        pr.properties.putAll(producer);
        addMessages(pr, n);
        p.producers.add(pr);
        p.limitMs = 60_000;
        return p;
    }

    /** n unkeyed messages name#1..name#n, values 1..n. */
    private static void addMessages(Plan.Producer pr, int n) {
        for (int i = 1; i <= n; i++) {
            Plan.Message m = new Plan.Message();
            m.id = pr.name + "#" + i;
            m.key = "";
            m.value = String.valueOf(i);
            pr.messages.add(m);
        }
    }

    private static Plan.Fault fault(String kind, String node, long atMs) {
        Plan.Fault f = new Plan.Fault();
        f.kind = kind;
        f.node = node;
        f.atMs = atMs;
        return f;
    }

    private static Plan.Trigger when(String node, String event, String message) {
        Plan.Trigger t = new Plan.Trigger();
        t.node = node;
        t.event = event;
        t.message = message;
        return t;
    }

    private List<Observation> run(Plan plan) throws Exception {
        Path planFile = dir.resolve("plan.json");
        Plan.JSON.writeValue(planFile.toFile(), plan);
        Path runDir = dir.resolve("run");
        try (Run r = new Run(plan, planFile, runDir)) {
            r.execute();
        }
        List<Observation> out = new ArrayList<>();
        for (String line : Files.readAllLines(runDir.resolve("observations.jsonl"), StandardCharsets.UTF_8)) {
            out.add(Observation.parse(line));
        }
        return out;
    }

    /** A run on the stage's cluster, in its own directory: its observations. */
    private List<Observation> runOn(Stage stage, Plan plan, String name) throws Exception {
        Path planFile = dir.resolve(name + ".json");
        Plan.JSON.writeValue(planFile.toFile(), plan);
        Path runDir = dir.resolve(name);
        boolean ok = false;
        try (Run r = new Run(plan, planFile, runDir, stage)) {
            r.execute();
            ok = true;
        } finally {
            stage.finished(plan, ok);
        }
        List<Observation> out = new ArrayList<>();
        for (String line : Files.readAllLines(runDir.resolve("observations.jsonl"), StandardCharsets.UTF_8)) {
            out.add(Observation.parse(line));
        }
        return out;
    }

    private static int index(List<Observation> obs, String node, String event, String msg) {
        for (int i = 0; i < obs.size(); i++) {
            Observation o = obs.get(i);
            if (o.node.equals(node) && o.event.equals(event) && (msg == null || (o.msgs != null && o.msgs.contains(msg)))) return i;
        }
        return -1;
    }

    private List<String> log(String broker) throws Exception { return log(dir.resolve("run"), broker); }

    private static List<String> log(Path clusterDir, String broker) throws Exception {
        List<String> out = new ArrayList<>();
        for (LogReader.Entry e : LogReader.read(clusterDir.resolve(broker), "t-0")) out.add(e.msg());
        return out;
    }

    /** A trigger crashes the broker right after it answered p1#2; a restart keeps its log. */
    @Test
    void triggerCrashesAtAProtocolPointAndARestartKeepsTheLog() throws Exception {
        Plan p = plan(3, 400, Map.of());
        Plan.Fault crash = fault("crash", "broker-1", 0);
        crash.when = when("broker-1", "responded", "p1#2");
        p.faults.add(crash);
        p.faults.add(fault("restart", "broker-1", 4000));
        List<Observation> obs = run(p);

        int responded = index(obs, "broker-1", "responded", "p1#2");
        int crashed = index(obs, "broker-1", "crashed", null);
        int restarted = index(obs, "broker-1", "restarted", null);
        assertTrue(responded >= 0 && crashed > responded, "crashed right after answering p1#2: " + obs);
        for (int i = crashed + 1; i < restarted; i++) {
            assertFalse(obs.get(i).node.equals("broker-1") && obs.get(i).event.equals("responded"), "a crashed broker answers nothing");
        }
        assertTrue(index(obs, "p1", "acked", "p1#2") >= 0, "the answer sent before the crash arrives");
        assertTrue(index(obs, "p1", "acked", "p1#3") > restarted, "p1#3 is accepted once broker-1 is back");
        assertEquals(List.of("p1#1", "p1#2", "p1#3"), log("broker-1"), "the log survived the SIGKILL");
    }

    /** A dropped response: the client times out, retries, and the record is written twice. */
    @Test
    void droppedResponseIsRetriedAndWrittenTwice() throws Exception {
        Plan p = plan(2, 300, Map.of("request.timeout.ms", "1000", "delivery.timeout.ms", "5000", "max.in.flight.requests.per.connection", "1"));
        Plan.Fault drop = fault("drop", null, 0);
        drop.when = when("", "responded", "p1#1");
        p.faults.add(drop);
        List<Observation> obs = run(p);

        assertTrue(index(obs, "p1", "error", "p1#1") >= 0, "the client timed out: " + obs);
        assertEquals("REQUEST_TIMED_OUT", obs.get(index(obs, "p1", "error", "p1#1")).err);
        assertEquals(List.of("p1#1", "p1#1", "p1#2"), log("broker-1"), "the blind retry appended p1#1 again");
    }

    /** A cut link loses what is sent on it; once healed, the client's retry goes through. */
    @Test
    void cutLinkLosesFramesUntilHealed() throws Exception {
        Plan p = plan(1, 0, Map.of("request.timeout.ms", "1000", "delivery.timeout.ms", "10000"));
        Plan.Fault cut = fault("cut", null, 0);
        cut.from = "p1";
        cut.to = "broker-1";
        cut.forMs = 2000;
        p.faults.add(cut);
        List<Observation> obs = run(p);

        int acked = index(obs, "p1", "acked", "p1#1");
        assertTrue(acked >= 0, "delivered in the end: " + obs);
        assertTrue(obs.get(acked).atMs >= 2000, "not before the link healed, at " + obs.get(acked).atMs + " ms");
        assertEquals(List.of("p1#1"), log("broker-1"), "nothing crossed the cut link");
    }

    private static final Map<String, String> TRANSACTIONAL =
        Map.of("acks", "all", "enable.idempotence", "true", "transactional.id", "tx", "max.in.flight.requests.per.connection", "5");

    /** A plan whose producer p1 is transactional; one partition of __transaction_state, created fast. */
    private static Plan transactional(int n, long intervalMs) {
        Plan p = plan(n, intervalMs, TRANSACTIONAL);
        p.brokerProperties = new java.util.HashMap<>(p.brokerProperties);
        p.brokerProperties.put("transaction.state.log.num.partitions", "1");
        p.producers.get(0).transactionSize = 2;
        return p;
    }

    private List<String> readCommittedLog() throws Exception {
        List<String> out = new ArrayList<>();
        for (LogReader.Entry e : LogReader.read(dir.resolve("run").resolve("broker-1"), "t-0", true)) out.add(e.msg());
        return out;
    }

    /**
     * transaction.size 2, the second transaction aborted: p1#1 and p1#2 are acked when the
     * commit returns, p1#3 and p1#4 fail TRANSACTION_ABORTED; the aborted records are in
     * the log (flushed before the abort) but a read_committed reader never gets them.
     */
    @Test
    void transactionsCommitAndAbortAsTheSceneSays() throws Exception {
        Plan p = transactional(4, 200);
        p.producers.get(0).abortTransactions = List.of(2);
        List<Observation> obs = run(p);

        int committed = index(obs, "p1", "txn-committed", "p1#1");
        assertTrue(committed >= 0, "the first transaction committed: " + obs);
        assertEquals(List.of("p1#1", "p1#2"), obs.get(committed).msgs);
        for (String m : List.of("p1#1", "p1#2")) {
            int acked = index(obs, "p1", "acked", m);
            assertTrue(acked >= 0 && obs.get(acked).offset >= 0, m + " acked with its offset: " + obs);
            assertTrue(obs.get(acked).atMs >= obs.get(index(obs, "p1", "sent", "p1#2")).atMs, m + " acked once the commit returned");
        }
        for (String m : List.of("p1#3", "p1#4")) {
            int failed = index(obs, "p1", "failed", m);
            assertTrue(failed >= 0, m + " failed: " + obs);
            assertEquals("TRANSACTION_ABORTED", obs.get(failed).err);
            assertEquals(-1, index(obs, "p1", "acked", m), m + " is never acked");
        }
        assertTrue(index(obs, "p1", "txn-aborted", "p1#3") >= 0, "the second transaction aborted: " + obs);
        assertEquals(List.of("p1#1", "p1#2", "p1#3", "p1#4"), log("broker-1"), "read_uncommitted sees the aborted records");
        assertEquals(List.of("p1#1", "p1#2"), readCommittedLog(), "read_committed never gets an aborted record");
    }

    /**
     * A second instance with the same transactional.id starts while the first has its
     * second transaction open (p1#3 sent at about 6 s, p1#4 due at about 9 s): its
     * initTransactions fences the first and aborts that transaction; the zombie's next
     * send or its commit fails, it is told PRODUCER_FENCED for p1#3 and p1#4 and stops;
     * the new instance's transaction commits.
     */
    @Test
    void aNewInstanceFencesTheZombie() throws Exception {
        Plan p = withASecondInstance(transactional(4, 3000));
        List<Observation> obs = run(p);

        assertTrue(index(obs, "p1", "acked", "p1#2") >= 0, "the first transaction committed before p2 started: " + obs);
        for (String m : List.of("p1#3", "p1#4")) {
            int fenced = index(obs, "p1", "failed", m);
            assertTrue(fenced >= 0, "the zombie's transaction failed: " + obs);
            assertEquals("PRODUCER_FENCED", obs.get(fenced).err);
        }
        assertEquals(-1, index(obs, "p1", "txn-committed", "p1#3"), "the zombie commits nothing more");
        assertTrue(index(obs, "p2", "txn-committed", "p2#1") >= 0, "the new instance commits: " + obs);
        List<String> visible = readCommittedLog();
        assertFalse(visible.contains("p1#3") || visible.contains("p1#4"), "nothing of the zombie's after the fence: " + visible);
        assertTrue(visible.containsAll(List.of("p1#1", "p1#2", "p2#1", "p2#2")), "both committed transactions: " + visible);
    }

    /** The plan with p2, a second instance of p1's transactional id, starting at 7.5 s with its two messages in one transaction. */
    private static Plan withASecondInstance(Plan p) {
        Plan.Producer p2 = new Plan.Producer();
        p2.name = "p2";
        p2.topic = "t";
        p2.intervalMs = 100;
        p2.startMs = 7500;
        p2.onRestart = "resend-unacknowledged";
        p2.properties = new java.util.HashMap<>(p.producers.get(0).properties);
        p2.transactionSize = 2;
        addMessages(p2, 2);
        p.producers.add(p2);
        return p;
    }

    /** The plan on two brokers, its topic led by broker-1 and followed by broker-2. */
    private static Plan onTwoBrokers(Plan p) {
        p.brokers = 2;
        p.partitions.get(0).replicas = List.of("broker-1", "broker-2");
        return p;
    }

    /**
     * A cluster kept from a run that left it in a mess — its broker crashed, a link cut, a
     * transaction's producer gone — is put back as a fresh one would be (Stage): the next
     * run with the same cluster has the outcome a fresh cluster gives (the tests above),
     * only its own records in the topic, and its transactional id prefixed so that nothing
     * of the earlier run's is its.
     */
    @Test
    void aKeptClusterGivesTheOutcomesOfAFreshOne() throws Exception {
        try (Stage stage = new Stage(ClassArchives.fromSystemProperties())) {
            // Not transactional: a run that ends with a coordinator down could not say that it
            // left no transaction in progress. Its follower is down at the end, its producer's
            // link cut, on the cluster of the transactional runs below.
            Plan mess = onTwoBrokers(transactional(4, 300));
            mess.producers.get(0).properties.remove("transactional.id");
            mess.producers.get(0).transactionSize = 0;
            Plan.Fault cut = fault("cut", null, 1500);
            cut.from = "p1";
            cut.to = "broker-1";
            mess.faults.add(cut);
            mess.faults.add(fault("crash", "broker-2", 1000));
            mess.stopMs = 3500;
            runOn(stage, mess, "mess");
            assertEquals(0, stage.run());

            // Two runs on the kept cluster: each as its fresh-cluster test above says.
            Plan abort = onTwoBrokers(transactional(4, 200));
            abort.producers.get(0).abortTransactions = List.of(2);
            List<Observation> obs = runOn(stage, abort, "abort");
            assertEquals(1, stage.run(), "the cluster was kept");
            assertTrue(index(obs, "p1", "txn-committed", "p1#1") >= 0, "the first transaction committed: " + obs);
            assertTrue(index(obs, "p1", "txn-aborted", "p1#3") >= 0, "the second aborted: " + obs);
            assertEquals(List.of("p1#1", "p1#2", "p1#3", "p1#4"), log(stage.clusterDir(), "broker-1"), "only this run's records");
            Plan fence = withASecondInstance(onTwoBrokers(transactional(4, 3000)));
            obs = runOn(stage, fence, "fence");
            assertEquals(2, stage.run(), "the cluster was kept");
            assertEquals("PRODUCER_FENCED", obs.get(index(obs, "p1", "failed", "p1#3")).err, "the zombie is fenced: " + obs);
            assertTrue(index(obs, "p2", "txn-committed", "p2#1") >= 0, "the new instance commits: " + obs);

            // Each run's transactional id had its own name, on one coordinator.
            Set<String> ids = new HashSet<>();
            stage.admin().listTransactions().all().get().forEach(t -> ids.add(t.transactionalId()));
            assertEquals(Set.of(Namespace.prefix(1) + "tx", Namespace.prefix(2) + "tx"), ids);
        }
    }
}
