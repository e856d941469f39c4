package deliverylab.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A sink, as the simulator's core/sinks: a database that consumer applications write to.
 * Its stored state survives a crash; a crash only breaks its connections and refuses new
 * ones until it restarts. The kinds:
 * <ul>
 * <li>table: every write appends a row, so a re-delivered record is a duplicate row.
 * <li>unique-key: one row per record key ("" for a null key). A write whose key already
 *     has a row is refused, as a primary key refuses it: nothing is stored, the sink
 *     observes "duplicate-refused" and answers "D". This is the dedup-table recipe.
 * <li>upsert: one row per record key; a write replaces that key's row (its message and
 *     value), an idempotent PUT.
 * <li>transactional: rows appended as in a table, and, when the write carries them, the
 *     consumer's offsets stored in the same transaction (both or neither): the "storing
 *     offsets outside Kafka" pattern of KafkaConsumer's javadoc. A write whose offset is
 *     already stored is the retry of a transaction that committed: it stores nothing and
 *     is answered "A", with no observation.
 * <li>counter: a dashboard total; each write adds the record's value (a whole number).
 * </ul>
 * A message's effects are, for table and transactional, the rows carrying its identity;
 * for unique-key and upsert, the rows present at the end; for counter, how many times it
 * was folded into the total.
 * <p>
 * The protocol is TCP, one line a request, one line an answer; the first line a writer
 * sends is its name. Each way is delayed by the scene's latency between the writer and
 * the sink, and lost when that link is cut.
 * <ul>
 * <li>"W\tid\tmsg\tkey\tvalue": a write, answered "A\tid" (stored) or "D\tid" (refused
 *     by a unique key). A consumer with commit: with-results adds
 *     "\tgroup\ttopic-partition\tnextOffset" (for example "\tdash\torders-0\t8", the
 *     record's offset + 1), which a transactional sink stores with the row.
 * <li>"R\tid\tgroup": the offsets a transactional sink stores for the group, answered
 *     "O\tid\ttp=offset,tp=offset" sorted by topic-partition ("O\tid\t" when none).
 * </ul>
 * A transactional sink also has XA branches (XaBranches, as core/sinks/xa.go), for a Flink
 * job's two-phase-commit sink (FlinkXaSink). A branch's rows are rows only once it commits:
 * each is then observed written, as any other write. An XA request is answered "XA-OK\tid",
 * or "XA-NOTA\tid" (XA's XAER_NOTA: no such transaction) when the sink holds no such branch
 * or, for a write, the branch is prepared already.
 * <ul>
 * <li>"XA-START\tid\txid\tmsg\tkey\tvalue": the first row of branch xid, starting it;
 *     "XA-WRITE\tid\txid\tmsg\tkey\tvalue": a later row, into a branch that must be there
 *     (one the sink lost in a crash is "XA-NOTA"); answered "A\tid" when written.
 * <li>"XA-PREPARE\tid\txid", "XA-COMMIT\tid\txid", "XA-ROLLBACK\tid\txid": xa_prepare,
 *     xa_commit, xa_rollback of the branch.
 * <li>"XA-RECOVER\tid\tprefix": xa_recover, after rolling back the active branches with
 *     that prefix (their writer restarted: its session is over); answered
 *     "XA-XIDS\tid\txid,xid" with the prepared xids of that prefix, sorted.
 * </ul>
 * A crash keeps the prepared branches and drops the active ones; a writer's connection
 * that closes rolls back the active branches it wrote (a database ends a dead session's
 * transaction).
 */
final class Sink implements AutoCloseable {
    static final Set<String> KINDS = Set.of("table", "unique-key", "upsert", "transactional", "counter");

    /** A stored row: the identity of the message it came from, and the record's value. */
    private record Row(String msg, String value) {}

    private final String name;
    private final String kind;
    private final Network net;
    /** Where its observations go: the run's recorder (a function, so that a test can run a sink without a run). */
    private final Consumer<Observation> recorder;
    /** table, transactional: the message identity of every row, in write order. */
    private final List<String> rows = new ArrayList<>();
    /** unique-key, upsert: the row of each record key. */
    private final Map<String, Row> byKey = new LinkedHashMap<>();
    /** transactional: per group, the next offset to read of each topic-partition. */
    private final Map<String, Map<String, Long>> offsets = new HashMap<>();
    /** transactional: the XA branches, whose rows join rows when they commit. */
    private final XaBranches xa = new XaBranches();
    /**
     * counter: the dashboard's total, and how many times each message was added to it
     * (what the verdict judges: the effects in the final value).
     */
    private long total;
    private final Map<String, Integer> folded = new LinkedHashMap<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final int port;
    private volatile ServerSocket server;

    Sink(String name, String kind, Network net, Consumer<Observation> recorder) {
        if (!KINDS.contains(kind)) throw new IllegalArgumentException("sink " + name + ": unknown kind " + kind);
        this.name = name;
        this.kind = kind;
        this.net = net;
        this.recorder = recorder;
        this.port = Cluster.freePort();
    }

    String name() { return name; }

    int port() { return port; }

    synchronized void start() throws IOException {
        if (server != null) return;
        ServerSocket ss = new ServerSocket();
        ss.setReuseAddress(true);
        ss.bind(new InetSocketAddress("127.0.0.1", port));
        server = ss;
        Thread t = new Thread(() -> accept(ss), "sink-" + name);
        t.setDaemon(true);
        t.start();
    }

    /** The sink crashed: its connections break and new ones are refused; what it stored stays. */
    synchronized void crash() {
        xa.crash();
        close();
    }

    private void accept(ServerSocket ss) {
        while (true) {
            Socket s;
            try {
                s = ss.accept();
            } catch (IOException e) {
                return;
            }
            open.add(s);
            try {
                s.setTcpNoDelay(true);
            } catch (IOException e) {
                // closed already
            }
            Thread t = new Thread(() -> serve(s), "sink-conn-" + name);
            t.setDaemon(true);
            t.start();
        }
    }

    /** Serves one writer's connection: each request in turn, each way delayed, lost on a cut link. */
    private void serve(Socket s) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
             PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String writer = in.readLine(); // the first line names the writer
            for (String line; (line = in.readLine()) != null; ) {
                String[] f = line.split("\t", -1);
                Thread.sleep(net.latencyMs(writer, name));
                if (net.isCut(writer, name)) continue; // lost on the way
                String answer = switch (f[0]) {
                    case "W" -> write(s, f);
                    case "R" -> read(s, f);
                    case "XA-START", "XA-WRITE", "XA-PREPARE", "XA-COMMIT", "XA-ROLLBACK", "XA-RECOVER" -> xa(s, f);
                    default -> throw new IOException("sink " + name + ": unknown request " + line);
                };
                if (answer == null) return; // the sink crashed while the request was on its way
                Thread.sleep(net.latencyMs(name, writer));
                if (net.isCut(name, writer)) continue;
                out.println(answer);
            }
        } catch (IOException | InterruptedException e) {
            // the writer went away, or the sink crashed
        } finally {
            sessionEnded(s);
        }
    }

    /** A writer's connection closed: its session's active XA branches roll back. */
    private synchronized void sessionEnded(Socket s) {
        xa.sessionEnded(s);
    }

    /**
     * An XA request (transactional only): the answer, or null when the sink crashed
     * before it arrived. A commit's rows are observed written outside the lock, as
     * writes are (a trigger on written may crash this sink).
     */
    private String xa(Socket s, String[] f) throws IOException {
        if (!kind.equals("transactional")) throw new IOException("sink " + name + " (" + kind + ") has no XA branches: " + String.join("\t", f));
        int fields = f[0].equals("XA-WRITE") || f[0].equals("XA-START") ? 6 : 3;
        if (f.length != fields) throw new IOException("sink " + name + ": bad request " + String.join("\t", f));
        String id = f[1];
        List<String> committed;
        String answer;
        synchronized (this) {
            if (s.isClosed()) return null;
            committed = f[0].equals("XA-COMMIT") ? xa.commit(f[2]) : null;
            answer = switch (f[0]) {
                case "XA-START", "XA-WRITE" -> xa.write(s, f[2], f[3], f[0].equals("XA-START")) == null ? "A\t" + id : "XA-NOTA\t" + id;
                case "XA-PREPARE" -> xa.prepare(f[2]) == null ? "XA-OK\t" + id : "XA-NOTA\t" + id;
                case "XA-ROLLBACK" -> xa.rollback(f[2]) == null ? "XA-OK\t" + id : "XA-NOTA\t" + id;
                case "XA-RECOVER" -> "XA-XIDS\t" + id + "\t" + String.join(",", xa.recover(f[2]));
                case "XA-COMMIT" -> (committed == null ? "XA-NOTA\t" : "XA-OK\t") + id;
                default -> throw new IllegalStateException(f[0]);
            };
            if (committed != null) rows.addAll(committed);
        }
        if (committed != null) {
            for (String msg : committed) {
                Observation o = new Observation(name, "written").msgs(List.of(msg));
                o.output = name;
                recorder.accept(o);
            }
        }
        return answer;
    }

    /** The XA branches the sink holds, by xid (XaBranches.describe). */
    synchronized Map<String, String> branches() { return xa.describe(); }

    /**
     * A write: stores it as the kind says and observes it (outside the lock: a trigger on
     * the observation may crash this sink). Returns the answer, or null when the sink
     * crashed before the request arrived.
     */
    private String write(Socket s, String[] f) throws IOException {
        if (f.length != 5 && f.length != 8) throw new IOException("sink " + name + ": bad write " + String.join("\t", f));
        String id = f[1];
        String msg = f[2];
        Stored stored = store(s, f);
        if (stored == null) return null;
        if (stored == Stored.BEFORE) return "A\t" + id; // a retried transaction: nothing new to observe
        Observation o = new Observation(name, stored == Stored.WRITTEN ? "written" : "duplicate-refused").msgs(List.of(msg));
        o.output = name;
        recorder.accept(o);
        return (stored == Stored.WRITTEN ? "A\t" : "D\t") + id;
    }

    /**
     * Stores a write in one critical section, which is the database's transaction: the
     * row and (transactional, with-results) the offset are stored both or neither, and a
     * crash either comes before it (nothing stored) or after it. Returns what became of
     * it, or null when the sink is down.
     */
    private synchronized Stored store(Socket s, String[] f) {
        if (s.isClosed()) return null; // crashed meanwhile: the request reached a dead sink
        String msg = f[2];
        String key = f[3];
        String value = f[4];
        switch (kind) {
            case "table" -> rows.add(msg);
            case "unique-key" -> {
                if (byKey.containsKey(key)) return Stored.REFUSED; // the primary key refuses the insert
                byKey.put(key, new Row(msg, value));
            }
            case "upsert" -> byKey.put(key, new Row(msg, value));
            case "transactional" -> {
                Long next = f.length == 8 ? Long.valueOf(f[7]) : null; // parsed first: a bad line stores neither
                Long stored = next == null ? null : offsets.getOrDefault(f[5], Map.of()).get(f[6]);
                if (stored != null && stored >= next) {
                    // The retry of a transaction that committed (its answer was lost): a
                    // database commits it once, the retry finds its offset stored and
                    // commits nothing (core/sinks Transactional.committedBefore).
                    return Stored.BEFORE;
                }
                rows.add(msg);
                if (next != null) offsets.computeIfAbsent(f[5], g -> new HashMap<>()).put(f[6], next);
            }
            case "counter" -> {
                total += Long.parseLong(value);
                folded.merge(msg, 1, Integer::sum);
            }
            default -> throw new IllegalStateException(kind);
        }
        return Stored.WRITTEN;
    }

    /** What became of a write: stored, refused by a unique key, or committed before (a transactional retry). */
    private enum Stored { WRITTEN, REFUSED, BEFORE }

    /** A read of a group's stored offsets: the answer, or null when the sink crashed meanwhile. */
    private synchronized String read(Socket s, String[] f) throws IOException {
        if (f.length != 3) throw new IOException("sink " + name + ": bad read " + String.join("\t", f));
        if (s.isClosed()) return null;
        StringJoiner list = new StringJoiner(",");
        new TreeMap<>(offsets.getOrDefault(f[2], Map.of())).forEach((tp, off) -> list.add(tp + "=" + off));
        return "O\t" + f[1] + "\t" + list;
    }

    /** Each message identity's effects, as SCENE-FORMAT.md's Fates defines them for this kind. */
    synchronized Map<String, Integer> effects() {
        Map<String, Integer> out = new LinkedHashMap<>();
        switch (kind) {
            case "table", "transactional" -> rows.forEach(m -> out.merge(m, 1, Integer::sum));
            case "unique-key", "upsert" -> byKey.values().forEach(r -> out.merge(r.msg(), 1, Integer::sum));
            case "counter" -> out.putAll(folded);
            default -> throw new IllegalStateException(kind);
        }
        return out;
    }

    @Override
    public synchronized void close() {
        try {
            if (server != null) server.close();
        } catch (IOException e) {
            // closed
        }
        server = null;
        for (Socket s : open) {
            try {
                s.close();
            } catch (IOException e) {
                // closed
            }
        }
        open.clear();
    }
}
