package deliverylab.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Flink job's database sink without a cluster: the plan the Go side writes for it, the
 * sink as Flink gets it (serialized into the job graph), and each subtask's writer against
 * the runner's own Sink over its line protocol — one write per record, written once the
 * sink answered, the scene's link between the job and the sink applied, retried while the
 * sink is down, written again when the answer is lost, and the runner's FAIL.
 */
class FlinkDbSinkTest {
    private final List<Observation> seen = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) c.close();
        FlinkApp.FAIL.clear();
        AppMain.launch = null;
    }

    private static Plan plan(long linkLatencyMs) {
        Plan p = new Plan();
        if (linkLatencyMs > 0) {
            Plan.Link l = new Plan.Link();
            l.between = List.of("totals", "orders_db");
            l.latencyMs = linkLatencyMs;
            p.links.add(l);
        }
        return p;
    }

    private Sink sink(String kind, Network net, boolean start) throws Exception {
        Sink s = new Sink("orders_db", kind, net, seen::add);
        open.add(s);
        if (start) s.start();
        return s;
    }

    private FlinkDbSink.Writer writer(Sink s) {
        FlinkDbSink.Writer w = new FlinkDbSink.Writer("totals", s.port(), "totals/sink-0", "orders_db", seen::add, null);
        open.add(w);
        return w;
    }

    private static FlinkApp.Rec rec(String key, String value, String msg) {
        FlinkApp.Rec r = new FlinkApp.Rec();
        r.key = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
        r.value = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        r.msg = msg;
        return r;
    }

    private List<Observation> seen(String node, String event) {
        return seen.stream().filter(o -> o.node.equals(node) && o.event.equals(event)).toList();
    }

    @Test
    void theGoPlannersJobWithADbSinkReadsAsAPlanJob() throws Exception {
        // Written by core/scene's TestPlanJobWritesToItsDbSink: the same bytes on both sides.
        Plan.Job job = Plan.JSON.readValue(new File("src/test/resources/plan-job-db.json"), Plan.Job.class);
        assertNotNull(job.sink.db);
        assertEquals("orders_db", job.sink.db.sink);
        assertEquals("totals", job.name);
        assertEquals(1, job.parallelism);
    }

    @Test
    void aDbPlanGetsTheDatabaseSinkAndAKafkaPlanTheKafkaSink() {
        AppMain.launch = new Launch();
        AppMain.launch.bootstrap = "127.0.0.1:9";
        AppMain.launch.sinkPorts = Map.of("orders_db", 4711);
        Plan.Job db = new Plan.Job();
        db.name = "totals";
        db.sink = new Plan.JobSink();
        db.sink.db = new Plan.JobDb();
        db.sink.db.sink = "orders_db";
        assertInstanceOf(FlinkDbSink.class, FlinkApp.sink(db));
        db.sink.db.sink = "elsewhere";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FlinkApp.sink(db));
        assertTrue(e.getMessage().contains("elsewhere"), e.getMessage());

        Plan.Job kafka = new Plan.Job();
        kafka.name = "totals";
        kafka.sink = new Plan.JobSink();
        kafka.sink.topic = "out";
        kafka.sink.deliveryGuarantee = "AT_LEAST_ONCE";
        kafka.sink.properties = Map.of();
        assertNull(kafka.sink.db);
        assertInstanceOf(FlinkApp.ObservedSink.class, FlinkApp.sink(kafka));
    }

    @Test
    void theSinkSurvivesJavaSerializationAsTheJobGraphCarriesIt() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new FlinkDbSink("totals", "orders_db", 4711));
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertInstanceOf(FlinkDbSink.class, in.readObject());
        }
    }

    @Test
    void eachRecordIsOneRowWrittenOnceTheSinkAnsweredAndAReplayIsASecondRow() throws Exception {
        Sink s = sink("table", new Network(plan(0)), true);
        FlinkDbSink.Writer w = writer(s);
        w.write(rec("order-1", "1", "p1#1"), null);
        // Done when write returns: the sink stored it before the writer reported it.
        assertEquals(Map.of("p1#1", 1), s.effects());
        w.write(rec("order-2", "2", "p1#2"), null);
        w.flush(false); // nothing pending
        w.write(rec("order-1", "1", "p1#1"), null); // read again after a restore
        assertEquals(Map.of("p1#1", 2, "p1#2", 1), s.effects());

        List<Observation> written = seen("totals/sink-0", "written");
        assertEquals(List.of(List.of("p1#1"), List.of("p1#2"), List.of("p1#1")), written.stream().map(o -> o.msgs).toList());
        assertTrue(written.stream().allMatch(o -> "orders_db".equals(o.output)));
        assertEquals(3, seen("orders_db", "written").size());
        assertTrue(seen("totals/sink-0", "error").isEmpty());
    }

    @Test
    void anUpsertKeepsOneRowPerKey() throws Exception {
        Sink s = sink("upsert", new Network(plan(0)), true);
        FlinkDbSink.Writer w = writer(s);
        w.write(rec("order-1", "1", "p1#1"), null);
        w.write(rec("order-1", "1", "p1#1"), null);
        w.write(rec("order-2", "2", "p1#2"), null);
        assertEquals(Map.of("p1#1", 1, "p1#2", 1), s.effects());
    }

    @Test
    void aRecordWithoutKeyOrValueIsWrittenWithEmptyText() {
        assertEquals(List.of("p1#1", "", ""), List.of(FlinkDbSink.fields(rec(null, null, "p1#1"))));
        assertEquals(List.of("", "k", "7"), List.of(FlinkDbSink.fields(rec("k", "7", null))));
    }

    @Test
    void theWriterIsTheJobOnTheScenesLinkToTheSink() throws Exception {
        // The link totals–orders_db delays each way; a writer named by its subtask would
        // get the default (0 here) instead.
        Sink s = sink("table", new Network(plan(150)), true);
        FlinkDbSink.Writer w = writer(s);
        long t0 = System.nanoTime();
        w.write(rec("order-1", "1", "p1#1"), null);
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(tookMs >= 300, "a write took " + tookMs + " ms over a 150 ms link");
    }

    @Test
    void aSinkThatIsDownIsTriedAgainUntilItIsUp() throws Exception {
        Sink s = sink("table", new Network(plan(0)), false);
        FlinkDbSink.Writer w = writer(s);
        Thread starter = new Thread(() -> {
            try {
                Thread.sleep(350);
                s.start();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        starter.start();
        w.write(rec("order-1", "1", "p1#1"), null);
        starter.join();
        assertEquals(Map.of("p1#1", 1), s.effects());
        List<Observation> errors = seen("totals/sink-0", "error");
        assertTrue(errors.size() >= 2, "retried every 100 ms: " + errors.size());
        assertTrue(errors.stream().allMatch(o -> "SINK_UNAVAILABLE".equals(o.err) && o.msgs.equals(List.of("p1#1"))));
        assertEquals(1, seen("totals/sink-0", "written").size());
    }

    @Test
    void aWriteWhoseAnswerIsLostIsWrittenAgainAfterFiveSeconds() throws Exception {
        Network net = new Network(plan(0));
        Sink s = sink("table", net, true);
        FlinkDbSink.Writer w = writer(s);
        net.cut("orders_db", "totals");
        Thread healer = new Thread(() -> {
            try {
                Thread.sleep(1000);
                net.heal("orders_db", "totals");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        healer.start();
        long t0 = System.nanoTime();
        w.write(rec("order-1", "1", "p1#1"), null);
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        healer.join();
        assertTrue(tookMs >= SinkClient.ANSWER_TIMEOUT_MS, "written again after " + tookMs + " ms");
        // The first write was stored, its answer lost: the table has it twice.
        assertEquals(Map.of("p1#1", 2), s.effects());
        List<Observation> errors = seen("totals/sink-0", "error");
        assertEquals(1, errors.size());
        assertEquals("SINK_TIMEOUT", errors.get(0).err);
        assertEquals(1, seen("totals/sink-0", "written").size());
    }

    @Test
    void aJobIsIdleOnlyOnceItHasACompletedCheckpointCoveringWhatItProcessed() {
        // Before the first checkpoint (no consumer, nothing sent yet: the db scenes'
        // start) the job is not idle, or the run would settle before a fault waiting for
        // checkpoint-completed fires.
        assertFalse(FlinkApp.idle(false, -1, -1));
        assertTrue(FlinkApp.idle(true, -1, -1)); // restored one, nothing processed since
        assertTrue(FlinkApp.idle(true, -1, 1000));
        assertFalse(FlinkApp.idle(true, 1500, 1000)); // processed after the latest completed
        assertTrue(FlinkApp.idle(true, 1500, 2000));
    }

    @Test
    void theRunnersFailIsThrownAtTheNextWriteOrFlush() throws Exception {
        Sink s = sink("table", new Network(plan(0)), true);
        FlinkDbSink.Writer w = writer(s);
        FlinkApp.FAIL.add("totals/sink-0");
        assertThrows(RuntimeException.class, () -> w.write(rec("order-1", "1", "p1#1"), null));
        assertEquals(Map.of(), s.effects()); // thrown before the write
        FlinkApp.FAIL.add("totals/sink-0");
        assertThrows(RuntimeException.class, () -> w.flush(false));
        FlinkApp.FAIL.add("totals/sink-1"); // another subtask's
        w.write(rec("order-1", "1", "p1#1"), null);
        assertEquals(Map.of("p1#1", 1), s.effects());
    }
}
