package deliverylab.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Committer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two-phase-commit database sink without a cluster: the XA branches of a transactional
 * sink (XaBranches, and Sink.java's XA requests over its TCP protocol), and FlinkXaSink's
 * writer and committer against a real Sink on loopback: the xids, the recovery decision of a
 * restored writer, the pre-commit at a barrier, the commit and its XAER_NOTA.
 */
class FlinkXaSinkTest {
    @TempDir
    Path dir;

    private Sink sink;

    @BeforeEach
    void startSink() throws IOException {
        Plan plan = new Plan();
        plan.sinks.add(new Plan.Sink());
        plan.sinks.get(0).name = "orders_db";
        plan.sinks.get(0).kind = "transactional";
        sink = new Sink("orders_db", "transactional", new Network(plan), o -> {});
        sink.start();
    }

    @AfterEach
    void stopSink() { sink.close(); }

    /**
     * Starts the crashed sink again on its port, once the closed connections' threads let
     * go of it (a socket closed while a thread reads it is released by that thread).
     */
    private void restart() throws Exception {
        for (int i = 0; ; i++) {
            try {
                sink.start();
                return;
            } catch (java.net.BindException e) {
                if (i == 100) throw e;
                Thread.sleep(20);
            }
        }
    }

    private FlinkXaSink.Db db() { return new FlinkXaSink.Db("totals", sink.port(), "totals/sink-0"); }

    private static FlinkApp.Rec rec(String msg) {
        FlinkApp.Rec r = new FlinkApp.Rec();
        r.key = ("order-" + msg).getBytes(StandardCharsets.UTF_8);
        r.value = "1".getBytes(StandardCharsets.UTF_8);
        r.msg = msg;
        return r;
    }

    /** A CommitRequest that remembers what the committer signalled. */
    private static final class Request implements Committer.CommitRequest<FlinkXaSink.Committable> {
        final FlinkXaSink.Committable c;
        final List<String> signals = new ArrayList<>();

        Request(FlinkXaSink.Committable c) { this.c = c; }

        @Override public FlinkXaSink.Committable getCommittable() { return c; }
        @Override public int getNumberOfRetries() { return 0; }
        @Override public void signalFailedWithKnownReason(Throwable t) { signals.add("failed-known"); }
        @Override public void signalFailedWithUnknownReason(Throwable t) { signals.add("failed-unknown"); }
        @Override public void retryLater() { signals.add("retry"); }
        @Override public void updateAndRetryLater(FlinkXaSink.Committable c) { signals.add("update-retry"); }
        @Override public void signalAlreadyCommitted() { signals.add("already-committed"); }
    }

    @Test
    void branchesKeepTheirRowsOutOfTheTableUntilTheyCommit() {
        XaBranches xa = new XaBranches();
        Object session = new Object();
        assertNull(xa.write(session, "j-sink-0-1", "p1#1", true));
        assertNull(xa.write(session, "j-sink-0-1", "p1#2", false));
        assertNull(xa.prepare("j-sink-0-1"));
        assertEquals(XaBranches.NOTA, xa.write(session, "j-sink-0-1", "p1#3", false), "a prepared branch takes no more rows");
        assertEquals(XaBranches.NOTA, xa.prepare("j-sink-0-1"), "prepared already");
        assertEquals(List.of("p1#1", "p1#2"), xa.commit("j-sink-0-1"));
        assertNull(xa.commit("j-sink-0-1"), "a second commit finds no such transaction and stores nothing");
        assertNull(xa.commit("j-sink-0-9"));
        assertEquals(XaBranches.NOTA, xa.rollback("j-sink-0-1"));
        assertEquals(Map.of(), xa.describe());
    }

    @Test
    void recoverListsThePreparedBranchesOfThePrefixAfterRollingBackItsActiveOnes() {
        XaBranches xa = new XaBranches();
        Object s = new Object();
        xa.write(s, "j-sink-0-3", "p1#3", true);
        xa.prepare("j-sink-0-3");
        xa.write(s, "j-sink-0-1", "p1#1", true);
        xa.prepare("j-sink-0-1");
        xa.write(s, "j-sink-0-4", "p1#4", true); // active
        xa.write(s, "j-sink-1-2", "p1#2", true); // another subtask's, active
        xa.write(s, "j-sink-0-10", "p1#5", true);
        xa.prepare("j-sink-0-10");
        assertEquals(List.of("j-sink-0-1", "j-sink-0-10", "j-sink-0-3"), xa.recover("j-sink-0-"));
        assertEquals(Map.of("j-sink-0-1", "prepared 1", "j-sink-0-10", "prepared 1", "j-sink-0-3", "prepared 1", "j-sink-1-2", "active 1"),
            xa.describe());
    }

    @Test
    void aCrashKeepsPreparedBranchesAndASessionsEndRollsBackOnlyItsActiveOnes() {
        XaBranches xa = new XaBranches();
        Object a = new Object(), b = new Object();
        xa.write(a, "j-sink-0-1", "p1#1", true);
        xa.prepare("j-sink-0-1");
        xa.write(a, "j-sink-0-2", "p1#2", true);
        xa.write(b, "j-sink-1-2", "p1#3", true);
        xa.sessionEnded(a);
        assertEquals(Map.of("j-sink-0-1", "prepared 1", "j-sink-1-2", "active 1"), xa.describe());
        xa.crash();
        assertEquals(Map.of("j-sink-0-1", "prepared 1"), xa.describe());
        assertEquals(XaBranches.NOTA, xa.write(b, "j-sink-1-2", "p1#4", false),
            "a later row into a branch the crash took is refused, not a new branch without the rows before");
    }

    @Test
    void xidsNameTheJobTheSubtaskAndTheCheckpointAndARestoreRollsBackOnlyLaterOnes() {
        assertEquals("totals-sink-0-", FlinkXaSink.prefix("totals", 0));
        assertEquals("totals-sink-2-12", FlinkXaSink.xid("totals", 2, 12));
        assertEquals(12, FlinkXaSink.checkpointOf("my-job-sink-2-12"));
        List<String> prepared = List.of("totals-sink-0-1", "totals-sink-0-2", "totals-sink-0-3", "totals-sink-0-10");
        assertEquals(List.of("totals-sink-0-3", "totals-sink-0-10"), FlinkXaSink.toRollBack(prepared, 2));
        assertEquals(prepared, FlinkXaSink.toRollBack(prepared, 0), "a fresh start recorded none");
    }

    @Test
    void aCommitMakesTheRowsRowsOnceAndTheSecondIsAlreadyCommitted() throws Exception {
        FlinkXaSink.Writer w = new FlinkXaSink.Writer("totals", 0, db(), 0);
        assertEquals(1, w.current());
        w.write(rec("p1#1"), null);
        w.write(rec("p1#2"), null);
        assertEquals(Map.of("totals-sink-0-1", "active 2"), sink.branches());
        List<FlinkXaSink.Committable> cs = new ArrayList<>(w.prepareCommit());
        assertEquals(List.of(new FlinkXaSink.Committable("totals-sink-0-1", 1)), cs);
        assertEquals(Map.of("totals-sink-0-1", "prepared 2"), sink.branches());
        assertEquals(Map.of(), sink.effects(), "prepared rows are not rows");
        assertEquals(List.of(), List.copyOf(w.prepareCommit()), "an empty branch is not prepared");

        FlinkXaSink.XaCommitter committer = new FlinkXaSink.XaCommitter(db());
        Request first = new Request(cs.get(0));
        committer.commit(List.of(first));
        assertEquals(List.of(), first.signals);
        assertEquals(Map.of("p1#1", 1, "p1#2", 1), sink.effects());
        Request again = new Request(cs.get(0));
        committer.commit(List.of(again));
        assertEquals(List.of("already-committed"), again.signals);
        assertEquals(Map.of("p1#1", 1, "p1#2", 1), sink.effects());
        committer.close();
        w.close();
    }

    @Test
    void aRestoredWriterRollsBackWhatNoCompletedCheckpointRecordedAndLeavesTheRestToTheCommitter() throws Exception {
        // An earlier attempt: branch 1 prepared at barrier 1, branch 2 at barrier 2 (which never
        // completed), branch 3 active when it failed; another subtask's branch is not this writer's.
        FlinkXaSink.Db old = db();
        old.untilAnswered("XA-START", "totals-sink-0-1", "p1#1", "k", "1");
        old.untilAnswered("XA-PREPARE", "totals-sink-0-1");
        old.untilAnswered("XA-START", "totals-sink-0-2", "p1#2", "k", "1");
        old.untilAnswered("XA-PREPARE", "totals-sink-0-2");
        old.untilAnswered("XA-START", "totals-sink-0-3", "p1#3", "k", "1");
        old.untilAnswered("XA-START", "totals-sink-1-3", "p1#4", "k", "1");
        old.untilAnswered("XA-PREPARE", "totals-sink-1-3");

        FlinkXaSink.Writer w = new FlinkXaSink.Writer("totals", 0, db(), 1);
        assertEquals(2, w.current(), "restored from checkpoint 1: the next branch is for 2");
        assertEquals(Map.of("totals-sink-0-1", "prepared 1", "totals-sink-1-3", "prepared 1"), sink.branches());
        // The replay writes into a new branch 2, which the old one's rollback left free.
        w.write(rec("p1#2"), null);
        assertEquals("active 1", sink.branches().get("totals-sink-0-2"));
        // The old session's end does not touch what the new session wrote.
        old.close();
        Thread.sleep(200);
        assertEquals("active 1", sink.branches().get("totals-sink-0-2"));
        w.close();
    }

    @Test
    void aWriterWhoseConnectionClosesLosesItsOpenBranch() throws Exception {
        FlinkXaSink.Writer w = new FlinkXaSink.Writer("totals", 0, db(), 0);
        w.write(rec("p1#1"), null);
        w.close();
        long deadline = System.currentTimeMillis() + 5000;
        while (!sink.branches().isEmpty() && System.currentTimeMillis() < deadline) Thread.sleep(10);
        assertEquals(Map.of(), sink.branches());
    }

    @Test
    void aCrashOfTheSinkKeepsPreparedBranchesAndARowIntoAPreparedBranchIsRefused() throws Exception {
        FlinkXaSink.Db wdb = db();
        FlinkXaSink.Writer w = new FlinkXaSink.Writer("totals", 0, wdb, 0);
        w.write(rec("p1#1"), null);
        w.prepareCommit();
        FlinkXaSink.Db other = db();
        other.untilAnswered("XA-START", "totals-sink-0-7", "p1#7", "k", "1");
        assertEquals("XA-NOTA", other.untilAnswered("XA-WRITE", "totals-sink-0-1", "p1#2", "k", "1")[0]);
        sink.crash();
        wdb.close();
        other.close();
        restart();
        assertEquals(Map.of("totals-sink-0-1", "prepared 1"), sink.branches());
        // The writer's branch 1 is prepared: a row into it is refused and fails the task.
        assertThrows(IOException.class, () -> w.write(rec("p1#3"), null));
        w.close();
        other.close();
    }

    @Test
    void committablesAndTheWriterStateSurviveTheirSerializers() throws IOException {
        var cs = new FlinkXaSink.CommittableSerializer();
        FlinkXaSink.Committable c = new FlinkXaSink.Committable("totals-sink-0-7", 7);
        assertEquals(c, cs.deserialize(cs.getVersion(), cs.serialize(c)));
        var ws = new FlinkXaSink.NextBranchSerializer();
        assertEquals(8L, ws.deserialize(ws.getVersion(), ws.serialize(8L)));
        assertThrows(IOException.class, () -> ws.deserialize(2, ws.serialize(8L)));
    }

    @Test
    void onlyAPlanWithTwoPhaseCommitGetsTheXaSink() {
        Plan.Job j = new Plan.Job();
        j.sink = new Plan.JobSink();
        assertTrue(!FlinkXaSink.of(j));
        j.sink.db = new Plan.JobDb();
        j.sink.db.sink = "orders_db";
        assertTrue(!FlinkXaSink.of(j));
        j.sink.db.twoPhaseCommit = true;
        assertTrue(FlinkXaSink.of(j));
    }
}
