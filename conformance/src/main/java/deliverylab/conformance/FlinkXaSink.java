package deliverylab.conformance;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * A job's two-phase-commit database sink (a plan's sink with db.twoPhaseCommit), as the
 * simulator's core/flink/sink_xa.go models flink-connector-jdbc's exactly-once JdbcSink
 * with an XA data source: each checkpoint's rows go into one XA branch of the
 * transactional sink (Sink.java's XA-* requests), xid "JOB-sink-i-C" for the checkpoint C
 * the branch is for (the restored checkpoint + 1 at start, n + 1 after the snapshot of
 * checkpoint n). At barrier n the writer prepares the branch if it holds rows (the
 * pre-commit: durable in the database, not visible) and hands its xid to Flink as a
 * committable; the committer commits it once checkpoint n completes, and only then are the
 * rows rows.
 * <p>
 * A (re)started writer first asks the database for its prepared branches (xa_recover) and
 * rolls back those for a checkpoint after the restored one: they were prepared at a barrier
 * whose checkpoint never completed. Those at or before it are in the restored checkpoint's
 * committer state, and Flink's CommitterOperator commits them again on restore. Every call is
 * synchronous, in the task's thread. A write or prepare that fails fails the task: exactly-once
 * allows no retry of a statement (JdbcExactlyOnceOptions wants maxRetries 0), and a broken
 * session lost its branch. The committer's calls are idempotent and made again: a commit
 * the database answers XAER_NOTA was committed before (its answer lost, or before a restart).
 */
final class FlinkXaSink implements Sink<FlinkApp.Rec>, SupportsWriterState<FlinkApp.Rec, Long>, SupportsCommitter<FlinkXaSink.Committable> {
    private final String jobName;
    private final String sinkName;
    private final int port;

    FlinkXaSink(String jobName, String sinkName, int port) {
        this.jobName = jobName;
        this.sinkName = sinkName;
        this.port = port;
    }

    /** Whether the plan's job writes to a database with two-phase commit. */
    static boolean of(Plan.Job job) { return job.sink.db != null && job.sink.db.twoPhaseCommit; }

    /** What every xid of a subtask starts with: "totals-sink-0-". */
    static String prefix(String job, int subtask) { return job + "-sink-" + subtask + "-"; }

    /** The subtask's branch for checkpoint c: "totals-sink-0-2". */
    static String xid(String job, int subtask, long c) { return prefix(job, subtask) + c; }

    /** The checkpoint a branch is for: the number its xid ends with. */
    static long checkpointOf(String xid) { return Long.parseLong(xid.substring(xid.lastIndexOf('-') + 1)); }

    /**
     * The prepared branches a writer restored from checkpoint `restored` (0: none) rolls
     * back: those for a later checkpoint, which never completed. A branch for checkpoint C
     * is prepared at a barrier n >= C, so every branch the restored checkpoint recorded is
     * for C <= restored, and every later one for C > restored.
     */
    static List<String> toRollBack(List<String> prepared, long restored) {
        List<String> out = new ArrayList<>();
        for (String x : prepared) if (checkpointOf(x) > restored) out.add(x);
        return out;
    }

    @Override
    public SinkWriter<FlinkApp.Rec> createWriter(WriterInitContext context) throws IOException {
        return restoreWriter(context, List.of());
    }

    @Override
    public StatefulSinkWriter<FlinkApp.Rec, Long> restoreWriter(WriterInitContext context, Collection<Long> state) throws IOException {
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        long restored = context.getRestoredCheckpointId().orElse(0);
        // The state is the checkpoint the next branch is for, which the restored id gives
        // too: a state that disagrees is a bug of this writer, not a run to judge.
        for (Long next : state) {
            if (next != restored + 1) throw new IllegalStateException("sink-" + subtask + ": restored checkpoint " + restored + " but state " + next);
        }
        Db db = new Db(jobName, port, jobName + "/sink-" + subtask);
        try {
            return new Writer(jobName, subtask, db, restored);
        } catch (InterruptedException e) {
            db.close();
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    @Override
    public SimpleVersionedSerializer<Long> getWriterStateSerializer() { return new NextBranchSerializer(); }

    @Override
    public Committer<Committable> createCommitter(CommitterInitContext context) {
        return new XaCommitter(new Db(jobName, port, jobName + "/sink-" + context.getTaskInfo().getIndexOfThisSubtask()));
    }

    @Override
    public SimpleVersionedSerializer<Committable> getCommittableSerializer() { return new CommittableSerializer(); }

    @Override
    public String toString() { return "FlinkXaSink(" + jobName + " -> " + sinkName + ")"; }

    /** A prepared branch waiting for its checkpoint: its xid and the checkpoint it is for. */
    record Committable(String xid, long checkpoint) {}

    /**
     * The writer: the open branch's checkpoint and how many rows it holds, and the branch
     * prepareCommit prepared for the snapshot that follows it.
     */
    static final class Writer implements StatefulSinkWriter<FlinkApp.Rec, Long>, CommittingSinkWriter<FlinkApp.Rec, Committable> {
        private final String job;
        private final int subtask;
        private final Db db;
        private long current;
        private int rows;
        private String prepared;

        /** Starts the writer restored from checkpoint `restored` (0: fresh): recovery first, before any record. */
        Writer(String job, int subtask, Db db, long restored) throws InterruptedException {
            this.job = job;
            this.subtask = subtask;
            this.db = db;
            this.current = restored + 1;
            String[] ids = db.untilAnswered("XA-RECOVER", prefix(job, subtask));
            List<String> xids = ids.length < 3 || ids[2].isEmpty() ? List.of() : Arrays.asList(ids[2].split(","));
            // A rollback answered XAER_NOTA found the branch gone already: as good.
            for (String x : toRollBack(xids, restored)) db.untilAnswered("XA-ROLLBACK", x);
        }

        /** The checkpoint the open branch is for. */
        long current() { return current; }

        @Override
        public void write(FlinkApp.Rec r, Context context) throws IOException, InterruptedException {
            FlinkApp.failIfTold(db.node);
            String key = r.key == null ? "" : new String(r.key, StandardCharsets.UTF_8);
            String value = r.value == null ? "" : new String(r.value, StandardCharsets.UTF_8);
            String[] a = db.once(rows == 0 ? "XA-START" : "XA-WRITE", rows == 0, xid(job, subtask, current), r.msg == null ? "" : r.msg, key, value);
            if (!a[0].equals("A")) throw new IOException("sink-" + subtask + ": " + xid(job, subtask, current) + " refused a row: " + XaBranches.NOTA);
            rows++;
        }

        /** Nothing to flush: every write was answered before write returned. */
        @Override
        public void flush(boolean endOfInput) {}

        /** At barrier n (before snapshotState(n)): prepares the open branch if it holds rows. */
        @Override
        public Collection<Committable> prepareCommit() throws IOException, InterruptedException {
            if (rows == 0) return List.of();
            String xid = xid(job, subtask, current);
            String[] a = db.once("XA-PREPARE", false, xid);
            if (!a[0].equals("XA-OK")) throw new IOException("sink-" + subtask + ": " + xid + " could not be prepared: " + XaBranches.NOTA);
            rows = 0;
            prepared = xid;
            return List.of(new Committable(xid, current));
        }

        /** Snapshot n: the branch prepared at its barrier is pre-committed; the next branch is for n + 1. */
        @Override
        public List<Long> snapshotState(long checkpointId) {
            if (prepared != null) {
                Observation o = new Observation(db.node, "pre-committed").checkpoint(checkpointId);
                o.txnId = prepared;
                prepared = null;
                FlinkApp.observe(o);
            }
            current = checkpointId + 1;
            FlinkApp.failIfTold(db.node);
            return List.of(current);
        }

        /** The session ends: the database rolls back the open branch. */
        @Override
        public void close() { db.close(); }
    }

    /**
     * The committer: commits each prepared branch once its checkpoint completed. XAER_NOTA
     * is a branch committed before, dropped; a sink that is down or does not answer is
     * asked again later (CommitRequest.retryLater: Flink's CommitterOperator asks again at
     * once, sink.committer.retries times, 10 by default, and then fails the task; the
     * restored committer commits again).
     */
    static final class XaCommitter implements Committer<Committable> {
        private final Db db;

        XaCommitter(Db db) { this.db = db; }

        @Override
        public void commit(Collection<CommitRequest<Committable>> requests) throws InterruptedException {
            for (CommitRequest<Committable> r : requests) {
                try {
                    String[] a = db.once("XA-COMMIT", false, r.getCommittable().xid());
                    if (a[0].equals("XA-NOTA")) r.signalAlreadyCommitted();
                } catch (IOException e) {
                    Thread.sleep(SinkClient.RETRY_MS);
                    r.retryLater();
                }
            }
        }

        @Override
        public void close() { db.close(); }
    }

    /**
     * A connection to the database sink, as ConsumerApp's writer makes one: its first line
     * names the client, the job, which is the node the simulator's sink subtask belongs to
     * (its address JOB/sink-i#attempt), so the runner applies the link's latency and cuts
     * between the job and the sink. One request at a time, "TAG\tid\tfields", each answer
     * naming its request: an answer to a request made again since is skipped.
     */
    static final class Db implements AutoCloseable {
        private final SinkClient client;
        /** The subtask the calls are for, whose errors they are: JOB/sink-i. */
        final String node;

        Db(String client, int port, String node) {
            this.client = new SinkClient(client, port, node, FlinkApp::observe);
            this.node = node;
        }

        /**
         * One request, answered or failed: IOException when the sink is down (observed
         * SINK_UNAVAILABLE), the connection broke, or no answer came in
         * SinkClient.ANSWER_TIMEOUT_MS (SocketTimeoutException, observed SINK_TIMEOUT; the
         * connection stays). With reconnect, a connection found broken is made again once
         * and the request sent on it: a writer whose session holds no rows lost nothing
         * with the old one.
         */
        String[] once(String tag, boolean reconnect, String... fields) throws IOException {
            try {
                String line = client.once(tag, String.join("\t", fields));
                if (line == null) throw new SocketTimeoutException("no answer from the sink in " + SinkClient.ANSWER_TIMEOUT_MS + " ms");
                return line.split("\t", -1);
            } catch (SocketTimeoutException e) {
                FlinkApp.observe(new Observation(node, "error").err("SINK_TIMEOUT"));
                throw e;
            } catch (ConnectException e) {
                FlinkApp.observe(new Observation(node, "error").err("SINK_UNAVAILABLE"));
                throw e;
            } catch (IOException e) {
                if (!reconnect) throw e;
                return once(tag, false, fields);
            }
        }

        /** A call the task cannot go on without (recover, rollback): made again until answered. */
        String[] untilAnswered(String tag, String... fields) throws InterruptedException {
            while (true) {
                try {
                    return once(tag, false, fields);
                } catch (SocketTimeoutException e) {
                    // made again at once, as a new request
                } catch (IOException e) {
                    Thread.sleep(SinkClient.RETRY_MS);
                }
            }
        }

        @Override
        public void close() { client.close(); }
    }

    /** The committable in a checkpoint: the xid and its checkpoint. */
    static final class CommittableSerializer implements SimpleVersionedSerializer<Committable> {
        @Override
        public int getVersion() { return 1; }

        @Override
        public byte[] serialize(Committable c) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            try (DataOutputStream d = new DataOutputStream(b)) {
                d.writeUTF(c.xid());
                d.writeLong(c.checkpoint());
            }
            return b.toByteArray();
        }

        @Override
        public Committable deserialize(int version, byte[] bytes) throws IOException {
            if (version != 1) throw new IOException("unknown committable version " + version);
            try (DataInputStream d = new DataInputStream(new ByteArrayInputStream(bytes))) {
                return new Committable(d.readUTF(), d.readLong());
            }
        }
    }

    /** The writer's state in a checkpoint: the checkpoint its next branch is for. */
    static final class NextBranchSerializer implements SimpleVersionedSerializer<Long> {
        @Override
        public int getVersion() { return 1; }

        @Override
        public byte[] serialize(Long next) {
            return java.nio.ByteBuffer.allocate(Long.BYTES).putLong(next).array();
        }

        @Override
        public Long deserialize(int version, byte[] bytes) throws IOException {
            if (version != 1 || bytes.length != Long.BYTES) throw new IOException("bad writer state, version " + version);
            return java.nio.ByteBuffer.wrap(bytes).getLong();
        }
    }
}
