package deliverylab.conformance;

import static deliverylab.conformance.TestFaults.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Pauses in a running Flink job (a local MiniCluster in this JVM, no Kafka): a source
 * subtask paused at its own emitted holds that record for for.ms; a paused subtask whose
 * job fails over is cancelled out of its hold, and its next attempt runs unpaused.
 */
class FlinkPauseJobTest {
    /** What the sink got: "msg@ms" (wall clock), and "|@ms" for each checkpoint's barrier, in order. */
    static final List<String> GOT = new CopyOnWriteArrayList<>();

    @AfterEach
    void forget() {
        FlinkApp.PAUSES.clear();
        FlinkApp.FAIL.clear();
        FlinkApp.FIRED.clear();
        GOT.clear();
        AppMain.launch = null;
    }

    /** Writes each record's identity and when it came into GOT, and a "|" where a barrier came (the writer's flush before it). */
    static final class Collect implements Sink<FlinkApp.Rec> {
        @Override
        public SinkWriter<FlinkApp.Rec> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(FlinkApp.Rec r, Context c) { GOT.add(r.msg + "@" + System.currentTimeMillis()); }

                @Override
                public void flush(boolean endOfInput) {
                    if (!endOfInput) GOT.add("|@" + System.currentTimeMillis());
                }

                @Override
                public void close() { }
            };
        }
    }

    /** Runs a count job (source parallelism 1, keyed) over p1#1..p1#n until it ends. */
    private static void run(int n, Plan.Fault... jobFaults) throws Exception { run(n, 0, jobFaults); }

    /** The same, with a checkpoint every intervalMs (none: 0). */
    private static void run(int n, long checkpointIntervalMs, Plan.Fault... jobFaults) throws Exception {
        Launch l = new Launch();
        l.name = "totals";
        l.epochMs = System.currentTimeMillis();
        l.jobFaults = List.of(jobFaults);
        AppMain.launch = l;
        Plan.Job job = new Plan.Job();
        job.name = "totals";
        job.operator = "count";
        job.keyed = true;
        job.source = new Plan.JobSource();
        job.source.parallelism = 1;
        job.parallelism = 1;
        Configuration conf = new Configuration();
        conf.setString("restart-strategy.type", "fixed-delay");
        conf.setString("restart-strategy.fixed-delay.attempts", "3");
        conf.setString("restart-strategy.fixed-delay.delay", "100 ms");
        if (checkpointIntervalMs > 0) conf.setString("execution.checkpointing.interval", checkpointIntervalMs + " ms");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
        env.setBufferTimeout(0); // each record leaves its task at once: the times the sink sees are the holds
        GeneratorFunction<Long, FlinkApp.Rec> records = i -> {
            FlinkApp.Rec r = new FlinkApp.Rec();
            r.key = "k".getBytes();
            r.msg = "p1#" + (i + 1);
            r.partition = "orders-0";
            r.offset = i;
            return r;
        };
        FlinkApp.pipeline(env, job, "count", new DataGeneratorSource<>(records, n, TypeInformation.of(FlinkApp.Rec.class)), new Collect());
        env.execute("totals");
    }

    private static List<String> msgs() {
        List<String> out = new ArrayList<>();
        for (String g : GOT) if (!g.startsWith("|")) out.add(g.substring(0, g.indexOf('@')));
        return out;
    }

    /** What came after p1#2, up to and with p1#3: "|" for each barrier. */
    private static List<String> afterTheHold() {
        List<String> out = new ArrayList<>();
        boolean after = false;
        for (String g : GOT) {
            String what = g.substring(0, g.indexOf('@'));
            if (after) out.add(what);
            if (what.equals("p1#2")) after = true;
            if (what.equals("p1#3")) break;
        }
        return out;
    }

    private static long at(int i) { return Long.parseLong(GOT.get(i).substring(GOT.get(i).indexOf('@') + 1)); }

    @Test
    void aSourcePausedAtItsOwnEmittedHoldsThatRecordForMs() throws Exception {
        run(3, fault("pause", "totals/source-0", "totals/source-0", "emitted", "p1#2", 400));
        assertEquals(List.of("p1#1", "p1#2", "p1#3"), msgs());
        // Unpaused the two come a few ms apart; p1#1 may take a little longer to reach the sink
        // (the first record through the keyed state) than p1#2 after the hold.
        assertTrue(at(1) - at(0) >= 300, "p1#2 came " + (at(1) - at(0)) + " ms after p1#1");
    }

    @Test
    void aCheckpointTriggeredDuringTheHoldInjectsItsBarrierRightAfterTheHeldRecord() throws Exception {
        // The trigger is a mail of the source task: it runs once the held record has gone on,
        // before the source's next record.
        run(3, 100, fault("pause", "totals/source-0", "totals/source-0", "emitted", "p1#2", 500));
        assertEquals(List.of("p1#1", "p1#2", "p1#3"), msgs());
        List<String> after = afterTheHold();
        assertEquals("|", after.get(0), GOT.toString());
        assertEquals("p1#3", after.get(after.size() - 1), GOT.toString());
    }

    @Test
    void aFailoverCancelsTheHoldAndTheNextAttemptRunsUnpaused() throws Exception {
        // source-0 holds p1#2 until count-0 (another task) fails; the restarted job reads from the start.
        run(3, fault("pause", "totals/source-0", "totals/source-0", "emitted", "p1#2", 0),
            fault("crash", "totals/count-0", "totals/source-0", "emitted", "p1#2", 0));
        // p1#1 reaches the sink in the first attempt unless count-0 failed before it got there.
        List<String> got = msgs();
        assertEquals(List.of("p1#1", "p1#2", "p1#3"), got.subList(got.size() - 3, got.size()), got.toString());
        assertTrue(got.size() <= 4, got.toString());
    }
}
