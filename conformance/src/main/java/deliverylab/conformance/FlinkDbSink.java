package deliverylab.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A job's database sink (plan sink: {db: {sink: NAME}}), as the simulator's core/flink
 * dbWriter: a plain database client (a JdbcSink with batch size 1), one synchronous write
 * per record. Each subtask's writer opens its own SinkClient to the runner's sink NAME;
 * write() returns once the sink answered, so the task takes nothing else meanwhile — a
 * barrier waits behind the write, and when it reaches the writer nothing is pending:
 * flush has nothing to do and the checkpoint holds nothing of the sink's. After a restore
 * the records read again are written again (a table stores them twice).
 * <p>
 * The writer's first line is the job's name, not the subtask's: the simulator sends the
 * writes from a port of the job's node (JOB/sink-i#attempt), and links, latencies and
 * cuts are the node's (sim.NodeOf), so the scene's link between JOB and NAME applies.
 * Its points: written (JOB/sink-i, output NAME) once the sink answered, and error
 * SINK_UNAVAILABLE / SINK_TIMEOUT while it retries (SinkClient). A task failure of the
 * subtask (crash: JOB/sink-i) is thrown at its next write, flush or 10 ms timer.
 */
final class FlinkDbSink implements Sink<FlinkApp.Rec> {
    private final String jobName;
    private final String sinkName;
    private final int port;

    FlinkDbSink(String jobName, String sinkName, int port) {
        this.jobName = jobName;
        this.sinkName = sinkName;
        this.port = port;
    }

    /** The plan's database sink's port, or an error naming what is missing: before the cluster starts. */
    static int port(Plan.Job job, java.util.Map<String, Integer> sinkPorts) {
        String name = job.sink.db.sink;
        Integer p = name == null || sinkPorts == null ? null : sinkPorts.get(name);
        if (p == null) throw new IllegalArgumentException("job " + job.name + ": its db sink " + name + " is not a sink of the scene");
        return p;
    }

    @Override
    public SinkWriter<FlinkApp.Rec> createWriter(WriterInitContext context) throws IOException {
        String node = jobName + "/sink-" + context.getTaskInfo().getIndexOfThisSubtask();
        return new Writer(jobName, port, node, sinkName, FlinkApp::observe, context.getProcessingTimeService());
    }

    /** What a record becomes on the sink's line: its identity, key and value as text ("" for none). */
    static String[] fields(FlinkApp.Rec r) {
        return new String[] {
            r.msg == null ? "" : r.msg,
            r.key == null ? "" : new String(r.key, StandardCharsets.UTF_8),
            r.value == null ? "" : new String(r.value, StandardCharsets.UTF_8),
        };
    }

    static final class Writer implements SinkWriter<FlinkApp.Rec> {
        private final SinkClient client;
        private final String node;
        private final String sinkName;
        private final Consumer<Observation> observe;
        private final ProcessingTimeService time;
        private volatile boolean closed;

        /**
         * The writer of subtask node, its client named by the job; observe reports its points
         * (FlinkApp.observe, which also fires the job's faults at them). Without a time
         * service (a test) it has no timer.
         */
        Writer(String jobName, int port, String node, String sinkName, Consumer<Observation> observe, ProcessingTimeService time) {
            this.client = new SinkClient(jobName, port, node, observe);
            this.node = node;
            this.sinkName = sinkName;
            this.observe = observe;
            this.time = time;
            if (time != null) tick(time.getCurrentProcessingTime());
        }

        /** The runner's FAIL for this subtask is thrown from a timer when no record comes. */
        private void tick(long now) {
            time.registerTimer(now + 10, t -> {
                if (closed) return;
                FlinkApp.failIfTold(node);
                tick(t);
            });
        }

        /**
         * Writes the record and waits for the answer; then reports written, as the
         * simulated writer does on the sink's WriteAck (a unique key's refusal, "D", is
         * such an answer too: the record is there).
         */
        @Override
        public void write(FlinkApp.Rec r, Context context) throws IOException, InterruptedException {
            FlinkApp.failIfTold(node);
            String[] f = fields(r);
            client.write(f[0], f[1], f[2], null);
            Observation o = new Observation(node, "written").msgs(r.msg == null ? List.of() : List.of(r.msg));
            o.output = sinkName;
            observe.accept(o);
        }

        /** Nothing is pending (each write waited for its answer); a FAIL told meanwhile is thrown here, at the barrier. */
        @Override
        public void flush(boolean endOfInput) {
            FlinkApp.failIfTold(node);
        }

        @Override
        public void close() {
            closed = true;
            client.close();
        }
    }
}
