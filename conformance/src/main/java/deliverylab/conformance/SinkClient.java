package deliverylab.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A writer's one connection to a sink of the runner (Sink.java's line protocol), as a
 * plain database client: a consumer application's (ConsumerApp) and each subtask of a
 * Flink job's database sink (FlinkDbSink). Requests are sequential (synchronized: with
 * processing: async a consumer's worker writes while its consumer thread may read
 * offsets), and each waits for its answer:
 * <ul>
 * <li>while the sink is down — it refuses the connection or breaks it — the request is
 *     tried again every 100 ms on a new connection, with an "error" SINK_UNAVAILABLE each
 *     time;
 * <li>a request with no answer in 5 s (it or its answer was lost on a cut link) is sent
 *     again with a new id, with an "error" SINK_TIMEOUT: the simulated writers' query
 *     timeout (core/apps sinkWriteTimeoutMs, core/flink dbWriteTimeoutMs), without which
 *     a lost answer would stop the writer for good. A late answer to the earlier try is
 *     skipped by its id; a table stores such a write twice.
 * </ul>
 * The first line names the writer, and the sink delays and cuts both ways by the
 * scene's link between that name and the sink.
 */
final class SinkClient implements AutoCloseable {
    /** How long a request waits for its answer before it is sent again. */
    static final int ANSWER_TIMEOUT_MS = 5000;
    /** How long a writer waits before it tries a sink that is down again. */
    static final long RETRY_MS = 100;

    private final String writer;
    private final int port;
    private final String node;
    private final Consumer<Observation> observer;
    private Socket socket;
    private PrintWriter out;
    private BufferedReader in;
    private long seq;

    /**
     * writer: the first line, the scene's node whose links to the sink apply; node and
     * observer: who reports the client's errors ("" for the application itself) and how.
     */
    SinkClient(String writer, int port, String node, Consumer<Observation> observer) {
        this.writer = writer;
        this.port = port;
        this.node = node;
        this.observer = observer;
    }

    /**
     * Writes a record: "W\tid\tmsg\tkey\tvalue", plus offsetFields when given (a consumer
     * with commit: with-results: "group\ttopic-partition\tnextOffset"). Returns the
     * answer's kind: "A" stored, "D" refused by a unique key (an earlier delivery of the
     * record is stored already). Either is done.
     */
    String write(String msg, String key, String value, String offsetFields) throws InterruptedException {
        String fields = msg + "\t" + key + "\t" + value;
        if (offsetFields != null) fields += "\t" + offsetFields;
        return request("W", fields, List.of(msg)).split("\t", -1)[0];
    }

    /** The offsets the sink stores for the group: "R\tid\tgroup", answered "O\tid\ttp=off,…". */
    Map<String, Long> readOffsets(String group) throws InterruptedException {
        String[] answer = request("R", group, null).split("\t", -1);
        Map<String, Long> out = new HashMap<>();
        if (answer.length < 3 || answer[2].isEmpty()) return out;
        for (String entry : answer[2].split(",")) {
            int eq = entry.lastIndexOf('=');
            out.put(entry.substring(0, eq), Long.parseLong(entry.substring(eq + 1)));
        }
        return out;
    }

    /** Sends "kind\tid\tfields" until the sink answers it; returns the answer line. */
    private synchronized String request(String kind, String fields, List<String> msgs) throws InterruptedException {
        while (true) {
            try {
                String answer = once(kind, fields);
                if (answer != null) return answer;
                observer.accept(new Observation(node, "error").msgs(msgs).err("SINK_TIMEOUT"));
            } catch (IOException e) {
                observer.accept(new Observation(node, "error").msgs(msgs).err("SINK_UNAVAILABLE"));
                Thread.sleep(RETRY_MS);
            }
        }
    }

    /**
     * One try of a request, "kind\tid\tfields" with a new id: its answer line, or null
     * when none came in ANSWER_TIMEOUT_MS (the connection stays). An IOException when the
     * sink refused the connection (java.net.ConnectException) or broke it: the connection
     * is dropped, and the next try makes a new one. A writer that may not write again (the
     * two-phase-commit sink, FlinkXaSink) makes its own decisions on top of this.
     */
    synchronized String once(String kind, String fields) throws IOException {
        try {
            if (socket == null) connect();
            long id = ++seq;
            out.println(kind + "\t" + id + "\t" + fields);
            if (out.checkError()) throw new IOException("the sink closed the connection");
            return answer(id);
        } catch (IOException e) {
            disconnect();
            throw e;
        }
    }

    /**
     * The answer to request id, or null when none came in ANSWER_TIMEOUT_MS. Answers to
     * earlier tries of the request (sent again after their timeout) are passed over.
     */
    private String answer(long id) throws IOException {
        long deadline = System.currentTimeMillis() + ANSWER_TIMEOUT_MS;
        String want = Long.toString(id);
        while (true) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) return null;
            socket.setSoTimeout((int) left);
            String line;
            try {
                line = in.readLine();
            } catch (SocketTimeoutException e) {
                return null;
            }
            if (line == null) throw new IOException("the sink closed the connection");
            String[] f = line.split("\t", -1);
            if (f.length >= 2 && f[1].equals(want)) return line;
        }
    }

    private void connect() throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8);
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out.println(writer);
    }

    /** Drops a broken connection; the next try makes a new one. */
    private void disconnect() {
        try {
            if (socket != null) socket.close();
        } catch (IOException e) {
            // closed already
        }
        socket = null;
    }

    @Override
    public synchronized void close() { disconnect(); }
}
