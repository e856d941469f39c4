package deliverylab.conformance;

import static deliverylab.conformance.TestFaults.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamConfig;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.runtime.partitioner.ForwardPartitioner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Flink job's source subtasks and pauses without a cluster: the emitted point, the Emit
 * operator's place in the job graph (chained into the source's task), the paused set of
 * subtask attempts and the thread it holds, the runner's PAUSE / RESUME / FAIL commands, the
 * job's own faults at its points, and the checkpointing mode as the tasks get it.
 */
class FlinkPauseTest {
    @AfterEach
    void forget() {
        FlinkApp.PAUSES.clear();
        FlinkApp.FAIL.clear();
        FlinkApp.FIRED.clear();
        AppMain.launch = null;
    }

    /** The job's JVM as AppMain starts it, with these faults of its own (its points print to standard output). */
    private static void launch(Plan.Fault... jobFaults) {
        Launch l = new Launch();
        l.name = "totals";
        l.epochMs = System.currentTimeMillis();
        l.jobFaults = List.of(jobFaults);
        AppMain.launch = l;
    }

    private static Observation emitted(int source, String msg, long offset) {
        return new Observation("totals/source-" + source, "emitted").at("orders-" + source, offset).msgs(List.of(msg));
    }

    @Test
    void emittedIsASourceSubtasksPointWithTheRecordAndNoDetail() {
        Observation o = emitted(1, "p1#2", 4);
        assertEquals("", o.detail());
        Plan.Trigger t = fault("pause", "totals/source-1", "totals/source-1", "emitted", "p1#2", 0).when;
        assertTrue(t.matches(o));
        assertTrue(fault("crash", "totals/source-1", "totals", "emitted", null, 0).when.matches(o), "the job's node covers its subtasks");
        assertFalse(t.matches(emitted(0, "p1#2", 4)));
        assertFalse(t.matches(new Observation("totals/source-1", "processed").msgs(List.of("p1#2"))));

        Observation back = Observation.parse(o.line());
        assertEquals("totals/source-1", back.node);
        assertEquals("emitted", back.event);
        assertEquals(List.of("p1#2"), back.msgs);
        assertEquals("orders-1", back.partition);
        assertEquals(4, back.offset);
        assertNull(back.output);
        assertFalse(o.line().contains("\"output\""), o.line());
    }

    @Test
    void aPauseHoldsTheAttemptItCameForAndNoLaterOne() {
        SubtaskPauses p = new SubtaskPauses();
        // Before the job runs: its first attempt.
        p.pause("totals/source-0");
        assertTrue(p.paused("totals/source-0", 0));
        assertFalse(p.paused("totals/source-1", 0));
        p.started("totals/source-0", 0);
        assertTrue(p.paused("totals/source-0", 0));
        // The job failed over: the next attempt runs unpaused.
        p.started("totals/source-0", 1);
        assertFalse(p.paused("totals/source-0", 1));
        // A pause now is the running attempt's.
        p.pause("totals/source-0");
        assertTrue(p.paused("totals/source-0", 1));
        p.resume("totals/source-0");
        assertFalse(p.paused("totals/source-0", 0));
        assertFalse(p.paused("totals/source-0", 1));
        // A resume of a subtask that is not paused changes nothing.
        p.resume("totals/map-0");
        // An attempt that ended keeps no pause.
        p.pause("totals/source-0");
        p.ended("totals/source-0", 1);
        assertFalse(p.paused("totals/source-0", 1));
        // A name that prefixes another's is not it.
        p.started("totals/source-1", 0);
        p.started("totals/source-10", 0);
        p.pause("totals/source-1");
        p.pause("totals/source-10");
        p.resume("totals/source-1");
        assertTrue(p.paused("totals/source-10", 0));
    }

    @Test
    void aHeldThreadGoesOnAtTheResume() throws Exception {
        SubtaskPauses p = new SubtaskPauses();
        p.hold("totals/map-0", 0, () -> { }); // not paused: at once
        p.pause("totals/map-0");
        CountDownLatch released = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                p.hold("totals/map-0", 0, () -> { });
                released.countDown();
            } catch (InterruptedException e) {
                // not expected
            }
        });
        t.start();
        assertFalse(released.await(50, TimeUnit.MILLISECONDS), "held while paused");
        p.resume("totals/map-0");
        assertTrue(released.await(2, TimeUnit.SECONDS), "going on once resumed");
        t.join();
    }

    @Test
    void aCancelledAttemptStopsHoldingAndEndsItsPause() throws Exception {
        SubtaskPauses p = new SubtaskPauses();
        p.pause("totals/source-0");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                p.hold("totals/source-0", 0, () -> { });
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.start();
        Thread.sleep(20);
        t.interrupt(); // Flink cancels a task so
        t.join(2000);
        assertFalse(t.isAlive());
        assertInstanceOf(InterruptedException.class, thrown.get());
        assertFalse(p.paused("totals/source-0", 0));
    }

    @Test
    void aCrashToldWhilePausedFailsTheHeldSubtask() {
        SubtaskPauses p = new SubtaskPauses();
        p.pause("totals/source-0");
        FlinkApp.FAIL.add("totals/source-0");
        RuntimeException e = assertThrows(RuntimeException.class, () -> p.hold("totals/source-0", 0, () -> FlinkApp.failIfTold("totals/source-0")));
        assertTrue(e.getMessage().contains("crash totals/source-0"), e.getMessage());
    }

    @Test
    void theRunnersCommandsFailPauseAndResumeASubtask() {
        assertTrue(FlinkApp.command("PAUSE totals/source-1"));
        assertTrue(FlinkApp.PAUSES.paused("totals/source-1", 0));
        assertTrue(FlinkApp.command("RESUME totals/source-1"));
        assertFalse(FlinkApp.PAUSES.paused("totals/source-1", 0));
        assertTrue(FlinkApp.command("FAIL totals/map-0"));
        assertTrue(FlinkApp.FAIL.contains("totals/map-0"));
        assertFalse(FlinkApp.command("PAUSE"));
        assertFalse(FlinkApp.command("PAUSE "));
        assertFalse(FlinkApp.command("STOP totals/map-0"));
        assertFalse(FlinkApp.PAUSES.paused("totals/map-0", 0));
    }

    @Test
    void aPauseAtTheSubtasksOwnPointHoldsItThereAndForMsEndsIt() throws Exception {
        launch(fault("pause", "totals/source-1", "totals/source-1", "emitted", "p1#2", 150));
        FlinkApp.PAUSES.started("totals/source-1", 0);
        FlinkApp.observe(emitted(1, "p1#1", 0));
        assertFalse(FlinkApp.PAUSES.paused("totals/source-1", 0));
        FlinkApp.observe(emitted(1, "p1#2", 1));
        assertTrue(FlinkApp.PAUSES.paused("totals/source-1", 0));
        long from = System.nanoTime();
        FlinkApp.PAUSES.hold("totals/source-1", 0, () -> { });
        long heldMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - from);
        assertTrue(heldMs >= 140 && heldMs < 2000, "held " + heldMs + " ms");
        // Each fault fires once.
        FlinkApp.observe(emitted(1, "p1#2", 1));
        assertFalse(FlinkApp.PAUSES.paused("totals/source-1", 0));
    }

    @Test
    void aPointOfAnotherSubtaskPausesResumesAndFailsThisOne() {
        launch(fault("pause", "totals/source-0", "totals/map-0", "processed", "p1#1", 0),
            fault("resume", "totals/source-0", "totals/map-0", "processed", "p1#2", 0),
            fault("crash", "totals/source-1", "totals/source-0", "emitted", "p1#3", 0));
        FlinkApp.observe(new Observation("totals/map-0", "processed").msgs(List.of("p1#1")));
        assertTrue(FlinkApp.PAUSES.paused("totals/source-0", 0));
        FlinkApp.observe(new Observation("totals/map-0", "processed").msgs(List.of("p1#2")));
        assertFalse(FlinkApp.PAUSES.paused("totals/source-0", 0));
        FlinkApp.observe(emitted(0, "p1#3", 2)); // not source-0's own crash: source-1 fails at its next timer or point
        assertTrue(FlinkApp.FAIL.contains("totals/source-1"));
    }

    @Test
    void aCrashAtTheSourcesOwnEmittedThrowsThereAfterTheOtherFaultsOfThePoint() {
        launch(fault("crash", "totals/source-1", "totals/source-1", "emitted", "p1#2", 0),
            fault("pause", "totals/map-0", "totals/source-1", "emitted", "p1#2", 0));
        RuntimeException e = assertThrows(RuntimeException.class, () -> FlinkApp.observe(emitted(1, "p1#2", 1)));
        assertTrue(e.getMessage().contains("crash totals/source-1 at emitted"), e.getMessage());
        assertTrue(FlinkApp.PAUSES.paused("totals/map-0", 0));
        assertFalse(FlinkApp.FAIL.contains("totals/source-1"));
    }

    private static Plan.Job job(String operator, boolean keyed, int sourceParallelism, int parallelism) {
        Plan.Job j = new Plan.Job();
        j.name = "totals";
        j.operator = operator;
        j.keyed = keyed;
        j.checkpointIntervalMs = 1000;
        j.restartDelayMs = 500;
        j.source = new Plan.JobSource();
        j.source.topic = "orders";
        j.source.parallelism = sourceParallelism;
        j.source.properties = java.util.Map.of();
        j.parallelism = parallelism;
        return j;
    }

    /** The stream graph FlinkApp builds, with a generated source in the KafkaSource's place (nothing runs). */
    private static StreamGraph streamGraph(Plan.Job job, StreamExecutionEnvironment env) {
        GeneratorFunction<Long, FlinkApp.Rec> records = n -> new FlinkApp.Rec();
        var source = new DataGeneratorSource<>(records, 1, TypeInformation.of(FlinkApp.Rec.class));
        FlinkApp.pipeline(env, job, FlinkApp.operator(job), source, new FlinkDbSink("totals", "orders_db", 1));
        return env.getStreamGraph();
    }

    /** The job graph FlinkApp submits: its vertices are the tasks, chained operators in one. */
    private static JobGraph graph(Plan.Job job, StreamExecutionEnvironment env) {
        return streamGraph(job, env).getJobGraph(Thread.currentThread().getContextClassLoader(), null);
    }

    @Test
    void emitIsChainedIntoEachSourceTask() {
        Plan.Job job = job("count", true, 2, 1);
        StreamGraph sg = streamGraph(job, StreamExecutionEnvironment.getExecutionEnvironment());
        var emit = sg.getStreamNodes().stream().filter(n -> n.getOperatorName().equals("emit")).findFirst().orElseThrow();
        assertEquals(2, emit.getParallelism());
        assertEquals("emit", emit.getTransformationUID());
        assertInstanceOf(ForwardPartitioner.class, emit.getInEdges().get(0).getPartitioner());

        List<JobVertex> vertices = sg.getJobGraph(Thread.currentThread().getContextClassLoader(), null).getVerticesSortedTopologicallyFromSources();
        JobVertex source = vertices.get(0);
        assertEquals(2, source.getParallelism());
        assertTrue(source.getName().contains("source") && source.getName().contains("emit"), source.getName());
        assertFalse(vertices.get(1).getName().contains("emit"), vertices.get(1).getName());
    }

    @Test
    void theCheckpointingModeReachesTheTasks() {
        for (String mode : List.of("AT_LEAST_ONCE", "EXACTLY_ONCE")) {
            Plan.Job job = job("count", true, 2, 1);
            job.checkpointingMode = mode;
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(FlinkApp.configuration(job, new File("/tmp/none")));
            JobGraph g = graph(job, env);
            assertEquals(mode.equals("EXACTLY_ONCE"), g.getCheckpointingSettings().getCheckpointCoordinatorConfiguration().isExactlyOnce(), mode);
            for (JobVertex v : g.getVertices()) {
                // What the task builds its barrier handler from (CheckpointBarrierTracker under AT_LEAST_ONCE).
                assertEquals(CheckpointingMode.valueOf(mode), new StreamConfig(v.getConfiguration()).getCheckpointMode(), v.getName());
            }
        }
    }
}
