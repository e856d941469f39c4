package deliverylab.conformance;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.header.Header;

/**
 * The fault proxy: every connection to a broker and to the controller passes through
 * it, frame by frame (Kafka's 4-byte size prefix, then the request or response). It names
 * the two ends of a connection (the client id of the first request, or the fixed source
 * of a controller port), delays each frame by the scene's link latency, drops frames on
 * cut links and frames a crashed node sent after its crash, and decodes produce requests
 * and responses with Kafka's own classes, so that protocol-point triggers work: "when
 * broker-1 has answered the produce request carrying p1#5, crash broker-1".
 */
final class Proxy implements AutoCloseable {
    /**
     * The requests a producer's TransactionManager sends to a coordinator, whose answers'
     * errors a client is counted as receiving (the simulator's observeCoordinatorErrors).
     */
    static final java.util.Set<ApiKeys> TXN_APIS = java.util.EnumSet.of(ApiKeys.INIT_PRODUCER_ID,
        ApiKeys.ADD_PARTITIONS_TO_TXN, ApiKeys.ADD_OFFSETS_TO_TXN, ApiKeys.END_TXN, ApiKeys.TXN_OFFSET_COMMIT);

    /** The record header that carries a message's identity ("p1#5"). */
    static final String MSG_HEADER = "dl-msg";

    /**
     * What to do with the frame at a protocol point; keep: deliver it even though its
     * sender crashed at this very point (the answer it crashed after sending).
     */
    record Action(boolean drop, boolean duplicate, long delayMs, boolean keep) {
        static final Action NONE = new Action(false, false, 0, false);

        Action and(Action o) {
            return new Action(drop || o.drop, duplicate || o.duplicate, Math.max(delayMs, o.delayMs), keep || o.keep);
        }
    }

    /** The harness: it records observations and fires the triggers they match. */
    interface Points {
        /** A protocol point on a frame; record says whether it is an observation of the run. */
        Action point(Observation o, boolean record);
    }

    // The run's rules and harness: a cluster kept up across runs (Stage) keeps its proxy,
    // and each run puts in its own (use). Connections read them at every frame.
    private volatile Network net;
    private volatile Points points;
    private final MetadataLog metadata;
    // The markers of one transaction's end go to each leader at once, and again on a
    // retry: the first request of them, per coordinator, producer, epoch and result
    // within this long, is the point.
    private volatile Map<String, Long> preparedSeen = new ConcurrentHashMap<>();
    private static final long PREPARED_SAME_END_NANOS = TimeUnit.SECONDS.toNanos(2);
    private volatile List<String> streamsApps; // their clients are named after them (nodeOf)
    private volatile Map<org.apache.kafka.common.Uuid, String> topicNames = Map.of();
    private volatile java.io.PrintWriter trace; // every frame, with DL_PROXY_TRACE set: for debugging a run
    private final List<ServerSocket> listeners = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    Proxy(Network net, Points points, java.nio.file.Path dir, List<String> streamsApps) throws IOException {
        // The metadata log's records are seen once per cluster (a broker fetching them again
        // after a restart is no new election), and reported to the run of the moment.
        this.metadata = new MetadataLog((o, record) -> this.points.point(o, record));
        use(net, points, dir, streamsApps);
    }

    /**
     * Puts in a run's rules (its links' latencies, its cuts and crashes), the harness that
     * records its points, and its applications' names, for every frame from now on,
     * connections already open included: a cluster kept up from an earlier run keeps its
     * brokers' connections to one another and to the controller.
     */
    synchronized void use(Network net, Points points, java.nio.file.Path dir, List<String> streamsApps) throws IOException {
        this.net = net;
        this.points = points;
        this.streamsApps = List.copyOf(streamsApps);
        this.preparedSeen = new ConcurrentHashMap<>();
        if (trace != null) trace.close();
        this.trace = System.getenv("DL_PROXY_TRACE") == null ? null
            : new java.io.PrintWriter(java.nio.file.Files.newBufferedWriter(dir.resolve("proxy.trace")), true);
    }

    /** The topic ids of the scene's topics: fetch responses name topics by id (v13+). */
    void topicNames(Map<org.apache.kafka.common.Uuid, String> names) { topicNames = Map.copyOf(names); }

    private void trace(String what, Frame f, long nowNanos) {
        java.io.PrintWriter t = trace;
        if (t == null) return;
        synchronized (t) {
            t.printf("%d %s %s->%s seq=%d size=%d%n", TimeUnit.NANOSECONDS.toMillis(nowNanos), what, f.from, f.to, f.seq, f.bytes.length);
        }
    }

    /**
     * Listens on port for connections to targetNode at target. fixedSource names the
     * connecting node when the port is its own (a broker's way to the controller); null
     * names it by the client id of its first request.
     */
    void listen(int port, InetSocketAddress target, String targetNode, String fixedSource) throws IOException {
        ServerSocket ss = new ServerSocket();
        ss.setReuseAddress(true);
        ss.bind(new InetSocketAddress("127.0.0.1", port));
        listeners.add(ss);
        Thread t = new Thread(() -> accept(ss, target, targetNode, fixedSource), "proxy-accept-" + port);
        t.setDaemon(true);
        t.start();
    }

    private void accept(ServerSocket ss, InetSocketAddress target, String targetNode, String fixedSource) {
        while (!closed) {
            Socket client;
            try {
                client = ss.accept();
            } catch (IOException e) {
                return;
            }
            Socket server = new Socket();
            try {
                // As Kafka's own sockets: no Nagle, or every small frame waits for an ACK.
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                server.connect(target, 1000);
            } catch (IOException e) {
                close(client); // the node is down: the connection is refused at once
                continue;
            }
            new Connection(client, server, targetNode, fixedSource).start();
        }
    }

    /** A request the proxy saw, kept until its response comes back. */
    private record Sent(ApiKeys api, short version, Map<String, List<String>> msgs, long atNanos) {}

    /** A frame on its way: who sent it to whom, when the proxy read it, when it may arrive. */
    private record Frame(byte[] bytes, long seq, long readNanos, String from, String to, long dueNanos, Runnable onDelivered,
                         boolean keep, Runnable onLost) {}

    private final class Connection {
        final Socket client, server;
        final String target;
        volatile String source;
        final Map<Integer, Sent> pending = new ConcurrentHashMap<>();
        final Pipe up, down;
        private final java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();

        Connection(Socket client, Socket server, String target, String fixedSource) {
            this.client = client;
            this.server = server;
            this.target = target;
            this.source = fixedSource;
            sockets.add(client);
            sockets.add(server);
            up = new Pipe(server);
            down = new Pipe(client);
        }

        void start() {
            thread("proxy-up", () -> read(client, true));
            thread("proxy-down", () -> read(server, false));
            thread("proxy-up-w", up::run);
            thread("proxy-down-w", down::run);
        }

        private void read(Socket from, boolean request) {
            try (DataInputStream in = new DataInputStream(from.getInputStream())) {
                while (true) {
                    int size = in.readInt();
                    byte[] bytes = new byte[size];
                    in.readFully(bytes);
                    long seq = net.nextSeq(), readNanos = System.nanoTime();
                    if (request) onRequest(bytes, seq, readNanos);
                    else onResponse(bytes, seq, readNanos);
                }
            } catch (EOFException | SocketException e) {
                // the other side closed, or the node died
            } catch (IOException e) {
                // likewise
            } finally {
                if (ended.compareAndSet(false, true)) unanswered(request);
                if (request) {
                    // The client closed its end (a request timed out, or it was killed): what
                    // it wrote before is on the network and still reaches the node, then the
                    // connection closes; nothing more can reach the client.
                    close(client);
                    down.stop();
                    up.finish();
                } else {
                    // The node's end closed (it died): what it sent before still arrives, then
                    // the client's connection breaks, as a reset after the last bytes.
                    close(server);
                    up.stop();
                    down.finish();
                }
            }
        }

        /**
         * The connection ended with produce requests unanswered: what their client is told.
         * It closed the connection itself after request.timeout.ms (REQUEST_TIMED_OUT, as
         * the producer's Sender calls a timed-out request), or the broker's end broke
         * (NETWORK_EXCEPTION).
         */
        private void unanswered(boolean clientClosed) {
            String client = source == null ? Network.HARNESS : source;
            long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(net.requestTimeoutMs(client));
            for (Sent sent : pending.values()) {
                if (sent.api != ApiKeys.PRODUCE) continue;
                boolean timedOut = clientClosed && System.nanoTime() - sent.atNanos >= timeoutNanos * 9 / 10;
                if (clientClosed && !timedOut) continue;
                String err = timedOut ? Errors.REQUEST_TIMED_OUT.name() : Errors.NETWORK_EXCEPTION.name();
                for (var e : sent.msgs.entrySet()) {
                    points.point(new Observation(client, "error").msgs(e.getValue()).at(e.getKey(), -1).err(err), true);
                }
            }
            pending.clear();
        }

        private void onRequest(byte[] bytes, long seq, long readNanos) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            Runnable delivered = null;
            Action action = Action.NONE;
            try {
                RequestHeader h = RequestHeader.parse(b);
                if (source == null) source = nodeOf(h.clientId(), streamsApps);
                Map<String, List<String>> msgs = Map.of();
                boolean expectsResponse = true;
                if (h.apiKey() == ApiKeys.PRODUCE) {
                    ProduceRequest req = (ProduceRequest) Wire.request(h.apiKey(), h.apiVersion(), b);
                    msgs = messages(req);
                    expectsResponse = req.acks() != 0;
                    delivered = delivery(msgs, req.acks());
                    action = requested(msgs);
                }
                if (h.apiKey() == ApiKeys.WRITE_TXN_MARKERS && source != null && source.startsWith("broker-")) {
                    WriteTxnMarkersRequest req = (WriteTxnMarkersRequest) Wire.request(h.apiKey(), h.apiVersion(), b);
                    if (markersPrepared(req).drop) return; // the coordinator crashed as it sent them: they never leave
                }
                if (expectsResponse) pending.put(h.correlationId(), new Sent(h.apiKey(), h.apiVersion(), msgs, System.nanoTime()));
            } catch (RuntimeException e) {
                if (source == null) source = Network.HARNESS;
            }
            // A dropped request leaves its client waiting (pending keeps it), as on a lossy link.
            if (action.drop) return;
            Frame f = new Frame(bytes, seq, readNanos, source, target, due(source, target, action.delayMs), delivered, false, null);
            up.send(f);
            if (action.duplicate) up.send(f);
        }

        /**
         * A produce request leaving its producer: the protocol point "requested", per
         * partition; a fault there (delay: request) holds, drops or doubles this frame.
         */
        private Action requested(Map<String, List<String>> msgs) {
            Action action = Action.NONE;
            String from = source == null ? Network.HARNESS : source;
            for (var e : msgs.entrySet()) {
                action = action.and(points.point(new Observation(from, "requested").msgs(e.getValue()).at(e.getKey(), -1), false));
            }
            return action;
        }

        /**
         * A transaction coordinator sending a transaction's COMMIT or ABORT markers to a
         * leader: its PrepareCommit or PrepareAbort is durable and EndTxn answered
         * (TransactionCoordinator.endTransaction answers, then hands the markers to
         * TransactionMarkerChannelManager, whose InterBrokerSendThread sends them over
         * the network to every leader, itself included): the protocol point
         * "txn-prepared", once per transaction end (the requests to the other leaders
         * and the retries are the same point).
         */
        private Action markersPrepared(WriteTxnMarkersRequest req) {
            Action action = Action.NONE;
            for (var m : req.data().markers()) {
                String result = m.transactionResult() ? "COMMIT" : "ABORT";
                String key = source + "/" + m.producerId() + "/" + m.producerEpoch() + "/" + result;
                long now = System.nanoTime();
                Long last = preparedSeen.put(key, now);
                if (last != null && now - last < PREPARED_SAME_END_NANOS) continue;
                Observation o = new Observation(source, "txn-prepared");
                o.value = result;
                action = action.and(points.point(o, true));
            }
            return action;
        }

        /** When a produce request reaches the broker: the protocol point "appended". */
        private Runnable delivery(Map<String, List<String>> msgs, short acks) {
            return () -> {
                for (var e : msgs.entrySet()) {
                    Observation o = new Observation(target, "appended").msgs(e.getValue()).at(e.getKey(), -1);
                    // acks=0 has no answer to learn the offset from: the delivery is all there is.
                    points.point(o, acks == 0);
                }
            };
        }

        private void onResponse(byte[] bytes, long seq, long readNanos) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            Action action = Action.NONE;
            Sent sent = pending.remove(b.getInt(0));
            if (sent != null && sent.api == ApiKeys.PRODUCE) {
                try {
                    ResponseHeader.parse(b, sent.api.responseHeaderVersion(sent.version));
                    ProduceResponse resp = (ProduceResponse) Wire.response(sent.api, sent.version, b);
                    action = onProduceResponse(resp, sent);
                } catch (RuntimeException e) {
                    // not decodable: forward it as it is
                }
            }
            String to = source == null ? Network.HARNESS : source;
            if (sent != null && TXN_APIS.contains(sent.api) && !to.equals(Network.HARNESS) && !to.startsWith("broker-")) {
                try {
                    ResponseHeader.parse(b, sent.api.responseHeaderVersion(sent.version));
                    coordinatorErrors(Wire.response(sent.api, sent.version, b), to);
                } catch (RuntimeException e) {
                    // not decodable: forward it as it is
                }
            }
            Runnable delivered = null;
            if (sent != null && sent.api == ApiKeys.FETCH && target.equals("controller")) {
                try {
                    ResponseHeader.parse(b, sent.api.responseHeaderVersion(sent.version));
                    metadata.read((FetchResponse) Wire.response(sent.api, sent.version, b));
                } catch (RuntimeException e) {
                    // not decodable: forward it as it is
                }
            } else if (sent != null && sent.api == ApiKeys.FETCH && to.startsWith("broker-")) {
                try {
                    ResponseHeader.parse(b, sent.api.responseHeaderVersion(sent.version));
                    FetchResponse resp = (FetchResponse) Wire.response(sent.api, sent.version, b);
                    delivered = replication(resp, to);
                } catch (RuntimeException e) {
                    // not decodable: forward it as it is
                }
            }
            if (action.drop) {
                if (sent != null) pending.put(b.getInt(0), sent); // its client still waits for it
                return;
            }
            // An answer lost on a cut link leaves its client waiting, as a dropped one does:
            // if the client gives up on the connection, unanswered() tells its timeout.
            int correlation = b.getInt(0);
            Runnable lost = sent == null ? null : () -> pending.putIfAbsent(correlation, sent);
            Frame f = new Frame(bytes, seq, readNanos, target, to, due(target, to, action.delayMs), delivered, action.keep, lost);
            down.send(f);
            if (action.duplicate) down.send(f);
        }

        /** When a leader's answer reaches a follower: the protocol point "replicated". */
        private Runnable replication(FetchResponse resp, String follower) {
            List<Observation> points = new ArrayList<>();
            for (var topic : resp.data().responses()) {
                String name = topic.topic() != null && !topic.topic().isEmpty() ? topic.topic() : topicNames.get(topic.topicId());
                if (name == null) continue;
                for (var p : topic.partitions()) {
                    List<String> ids = new ArrayList<>();
                    long first = -1;
                    for (var batch : Wire.batches(p.records())) {
                        if (batch.isControlBatch()) continue; // a transaction's marker carries no message
                        for (var r : batch) {
                            if (first < 0) first = r.offset();
                            String id = msgOf(r.headers());
                            if (id != null) ids.add(id);
                        }
                    }
                    if (!ids.isEmpty()) points.add(new Observation(follower, "replicated").msgs(ids).at(name + "-" + p.partitionIndex(), first));
                }
            }
            if (points.isEmpty()) return null;
            return () -> points.forEach(o -> Proxy.this.points.point(o, true));
        }

        /**
         * A coordinator's answer to a client's transactional request: each distinct error
         * it carries is an "error" the client received, whether its TransactionManager
         * retries it quietly (CONCURRENT_TRANSACTIONS) or gives up — as the simulator's
         * producer counts them.
         */
        private void coordinatorErrors(AbstractResponse resp, String client) {
            for (Errors err : new java.util.TreeSet<>(resp.errorCounts().keySet())) {
                if (err != Errors.NONE) points.point(new Observation(client, "error").err(err.name()), true);
            }
        }

        private Action onProduceResponse(ProduceResponse resp, Sent sent) {
            Action action = Action.NONE;
            for (var topic : resp.data().responses()) {
                for (var p : topic.partitionResponses()) {
                    String tp = topic.name() + "-" + p.index();
                    List<String> ids = sent.msgs.getOrDefault(tp, List.of());
                    Errors err = Errors.forCode(p.errorCode());
                    long base = err == Errors.NONE ? p.baseOffset() : -1;
                    if (err == Errors.NONE) points.point(new Observation(target, "appended").msgs(ids).at(tp, base), true);
                    Observation o = new Observation(target, "responded").msgs(ids).at(tp, base);
                    if (err != Errors.NONE) {
                        o.err(err.name());
                        // The client's side of it: an error it will retry or give up on.
                        points.point(new Observation(source == null ? Network.HARNESS : source, "error").msgs(ids).at(tp, -1).err(err.name()), true);
                    }
                    action = action.and(points.point(o, true));
                }
            }
            return action;
        }

    }

    private long due(String from, String to, long extraMs) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(net.latencyMs(from, to) + extraMs);
    }

    /** One direction of a connection: frames leave in order, each not before its time. */
    private final class Pipe {
        final Socket out;
        final LinkedBlockingQueue<Frame> queue = new LinkedBlockingQueue<>();
        long lastDue;
        volatile boolean stopped;

        Pipe(Socket out) { this.out = out; }

        synchronized void send(Frame f) {
            trace("queue", f, System.nanoTime());
            long due = Math.max(f.dueNanos, lastDue);
            lastDue = due;
            queue.add(new Frame(f.bytes, f.seq, f.readNanos, f.from, f.to, due, f.onDelivered, f.keep, f.onLost));
        }

        /** Stops at once: frames still queued are lost. */
        void stop() {
            stopped = true;
            queue.add(new Frame(null, 0, 0, "", "", 0, null, false, null));
        }

        /** Delivers the frames already queued, then closes the connection. */
        void finish() {
            queue.add(new Frame(null, 0, 0, "", "", 0, null, false, null));
        }

        void run() {
            try (DataOutputStream o = new DataOutputStream(out.getOutputStream())) {
                while (!stopped) {
                    Frame f = queue.take();
                    if (f.bytes == null) {
                        close(out);
                        return;
                    }
                    long wait = f.dueNanos - System.nanoTime();
                    if (wait > 0) TimeUnit.NANOSECONDS.sleep(wait);
                    boolean left = f.keep || net.sentBeforeCrash(f.from, f.readNanos);
                    boolean cut = net.isCut(f.from, f.to);
                    if (cut || !left || net.isCrashed(f.to)) {
                        trace("lost", f, System.nanoTime());
                        if (cut && f.onLost != null) f.onLost.run();
                        continue;
                    }
                    trace("deliver", f, System.nanoTime());
                    o.write(ByteBuffer.allocate(4 + f.bytes.length).putInt(f.bytes.length).put(f.bytes).array());
                    o.flush();
                    if (f.onDelivered != null) f.onDelivered.run();
                }
            } catch (IOException | InterruptedException e) {
                // the connection is gone
            }
        }
    }

    /** The application identities a produce request carries, by partition. */
    static Map<String, List<String>> messages(ProduceRequest req) {
        Map<String, List<String>> out = new java.util.LinkedHashMap<>();
        for (var topic : req.data().topicData()) {
            for (var p : topic.partitionData()) {
                List<String> ids = new ArrayList<>();
                for (var batch : Wire.batches(p.records())) {
                    for (var r : batch) ids.add(msgOf(r.headers()));
                }
                ids.removeIf(s -> s == null);
                out.put(topic.name() + "-" + p.index(), ids);
            }
        }
        return out;
    }

    private static final String TXN_MARKER_SENDER = "-txn-marker-sender";
    private static final String TXN_VERIFIER = "AddPartitionsManager-client-";
    /** A Kafka 4 broker's Raft client, which fetches the metadata log from the controller. */
    private static final String RAFT_CLIENT = "raft-client-";

    /** The message identity among a record's headers, or null. */
    static String msgOf(Header[] headers) {
        for (Header h : headers) {
            if (h.key().equals(MSG_HEADER)) return new String(h.value(), StandardCharsets.UTF_8);
        }
        return null;
    }

    /**
     * The node a client id names: an application's client id is its name; a broker's
     * replica fetcher is "broker-N-fetcher-M" (ReplicaFetcherManager), its transaction
     * coordinator's marker sender (WriteTxnMarkers to the partition leaders)
     * "broker-N-txn-marker-sender" (TransactionMarkerChannelManager), and its check that a
     * transactional produce's partition is in the transaction (AddPartitionsToTxn,
     * verify only, to the coordinator) "AddPartitionsManager-client-N" (BrokerServer,
     * NetworkUtils.buildNetworkClient), and a Kafka 4 broker's fetch of the metadata log
     * "raft-client-N" (KafkaRaftManager.buildNetworkClient); anything else is the harness.
     */
    static String nodeOf(String clientId) { return nodeOf(clientId, List.of()); }

    /**
     * The node a client id names, with the scene's Streams applications: Kafka Streams
     * names each client it builds after the application's client.id (StreamsApp sets it to
     * the application's name): "NAME-StreamThread-1-consumer", "-restore-consumer" and
     * "-producer" (ClientUtils.getConsumerClientId and its siblings, the thread being
     * "NAME-StreamThread-N", KafkaStreams.createAndAddStreamThread), "NAME-admin"
     * (ClientUtils.getSharedAdminClientId), a global table's "NAME-GlobalStreamThread-..."
     * — all of them the application's, so its links' faults and latencies apply to them.
     */
    static String nodeOf(String clientId, List<String> streamsApps) {
        if (clientId == null) return Network.HARNESS;
        for (String app : streamsApps) {
            if (!clientId.startsWith(app + "-")) continue;
            String rest = clientId.substring(app.length() + 1);
            if (rest.startsWith("StreamThread-") || rest.startsWith("GlobalStreamThread") || rest.equals("admin")) return app;
            if (rest.startsWith("flink-")) return app; // a Flink job's clients (FlinkApp: NAME-flink-source, NAME-flink-sink)
        }
        if (clientId.startsWith("broker-") && clientId.contains("-fetcher-")) {
            return clientId.substring(0, clientId.indexOf("-fetcher-"));
        }
        if (clientId.startsWith("broker-") && clientId.endsWith(TXN_MARKER_SENDER)) {
            return clientId.substring(0, clientId.length() - TXN_MARKER_SENDER.length());
        }
        if (clientId.startsWith(TXN_VERIFIER)) return "broker-" + clientId.substring(TXN_VERIFIER.length());
        if (clientId.startsWith(RAFT_CLIENT)) return "broker-" + clientId.substring(RAFT_CLIENT.length());
        return clientId.startsWith(Network.HARNESS) ? Network.HARNESS : clientId;
    }

    private static void thread(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        for (ServerSocket s : listeners) {
            try {
                s.close();
            } catch (IOException e) {
                // closed
            }
        }
        for (Socket s : sockets) close(s);
    }
}
