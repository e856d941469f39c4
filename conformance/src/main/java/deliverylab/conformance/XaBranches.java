package deliverylab.conformance;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The XA side of a transactional sink, as the simulator's core/sinks/xa.go: rows written
 * into a transaction branch named by its xid, the branch prepared at a Flink checkpoint's
 * barrier, committed once the checkpoint completes, rolled back when no checkpoint
 * recorded it. The database keeps what XA makes it keep: a prepared branch survives a
 * crash of the database and of its client, an active (not yet prepared) one does not. Only
 * committed rows are rows a reader sees; the sink adds them to its table.
 * <p>
 * Not thread-safe: the sink calls it under its own lock, which is the database's
 * transaction.
 */
final class XaBranches {
    /** XA's XAER_NOTA: the xid names no branch the database holds (committed or rolled back already, or lost in a crash). */
    static final String NOTA = "XAER_NOTA";

    /** A branch: whether it is prepared, its rows (message identities) in write order, and the session that wrote them. */
    private static final class Branch {
        boolean prepared;
        final List<String> rows = new ArrayList<>();
        /** The connection whose session the active branch belongs to; a prepared branch belongs to none. */
        Object session;
    }

    private final Map<String, Branch> branches = new TreeMap<>();

    /**
     * Writes a row into branch xid for a session; start: the writer's first row of the
     * branch (xa_start), which starts it when it is new. Returns null when written, NOTA
     * when the branch is prepared already (no more rows go into it) or, for a later row,
     * not there: the sink lost it in a crash with the rows before, and does not quietly
     * start it again. The session is the one whose end rolls the branch back.
     */
    String write(Object session, String xid, String msg, boolean start) {
        Branch b = start ? branches.computeIfAbsent(xid, x -> new Branch()) : branches.get(xid);
        if (b == null || b.prepared) return NOTA;
        b.rows.add(msg);
        b.session = session;
        return null;
    }

    /** xa_prepare: the branch becomes durable, waiting for its commit or rollback. Returns null, or NOTA. */
    String prepare(String xid) {
        Branch b = branches.get(xid);
        if (b == null || b.prepared) return NOTA;
        b.prepared = true;
        b.session = null; // a prepared branch outlives its session
        return null;
    }

    /**
     * xa_commit: the branch's rows become rows. Returns them, or null (NOTA) when the
     * database knows no such branch: the commit of a branch committed already stores
     * nothing. An active branch's commit is a one-phase commit: a database allows it
     * (the writer never asks for it).
     */
    List<String> commit(String xid) {
        Branch b = branches.remove(xid);
        return b == null ? null : b.rows;
    }

    /** xa_rollback: the branch and its rows are gone. Returns null, or NOTA. */
    String rollback(String xid) {
        return branches.remove(xid) == null ? NOTA : null;
    }

    /**
     * xa_recover for the xids starting with prefix: the prepared ones, sorted. The active
     * ones with that prefix are rolled back first: their writer restarted, so their
     * session is over.
     */
    List<String> recover(String prefix) {
        List<String> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, Branch>> it = branches.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Branch> e = it.next();
            if (!e.getKey().startsWith(prefix)) continue;
            if (e.getValue().prepared) out.add(e.getKey());
            else it.remove();
        }
        return out;
    }

    /** A session ended (its connection closed): the database rolls back its active branches. */
    void sessionEnded(Object session) {
        branches.values().removeIf(b -> !b.prepared && b.session == session);
    }

    /** The database crashed: it restarts with the prepared branches only. */
    void crash() {
        branches.values().removeIf(b -> !b.prepared);
    }

    /** The branches the database holds, by xid: "prepared" or "active" and the number of rows, for tests and logs. */
    Map<String, String> describe() {
        Map<String, String> out = new TreeMap<>();
        branches.forEach((x, b) -> out.put(x, (b.prepared ? "prepared " : "active ") + b.rows.size()));
        return out;
    }
}
