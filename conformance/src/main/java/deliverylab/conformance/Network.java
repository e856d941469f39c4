package deliverylab.conformance;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rules the fault proxy applies to every frame, by the nodes at its two ends: the
 * scene's link latencies, cut links (a frame on a cut link is lost, as in the
 * simulator), and crashed nodes (what a node sent after the moment it crashed never
 * leaves it). Nodes are named as in the scene; a connection the proxy cannot name (the
 * harness's own admin client) is not subject to any rule.
 */
final class Network {
    static final String HARNESS = "harness";

    private final Plan plan;
    private final Set<List<String>> cut = new HashSet<>();
    private final Map<String, Long> crashedAtNanos = new HashMap<>();
    private final AtomicLong seq = new AtomicLong();

    Network(Plan plan) { this.plan = plan; }

    /** The next frame's sequence number: the order in which the proxy received frames. */
    long nextSeq() { return seq.incrementAndGet(); }


    /** One-way latency of a frame from one node to another, with the scene's jitter. */
    long latencyMs(String from, String to) {
        if (from.equals(HARNESS) || to.equals(HARNESS)) return 0;
        long l = plan.latencyMs(from, to);
        if (plan.jitterMs > 0) l += ThreadLocalRandom.current().nextLong(plan.jitterMs + 1);
        return l;
    }

    /** A producer's request.timeout.ms, or a Streams application's producer's (Kafka's default for anyone else). */
    long requestTimeoutMs(String client) {
        for (Plan.Producer p : plan.producers) {
            if (p.name.equals(client)) return Long.parseLong(p.properties.getOrDefault("request.timeout.ms", "30000"));
        }
        for (Plan.Streams s : plan.streams) {
            if (s.name.equals(client)) return Long.parseLong(s.producerProperties.getOrDefault("request.timeout.ms", "30000"));
        }
        return 30000;
    }

    synchronized boolean isCut(String from, String to) { return cut.contains(List.of(from, to)); }

    synchronized void cut(String from, String to) { cut.add(List.of(from, to)); }

    synchronized void heal(String from, String to) { cut.remove(List.of(from, to)); }

    synchronized void healAll() { cut.clear(); }

    /** Cuts every link between nodes of different groups; nodes not named join the last group. */
    synchronized List<List<String>> partition(List<List<String>> groups, List<String> allNodes) {
        Map<String, Integer> groupOf = new HashMap<>();
        for (int i = 0; i < groups.size(); i++) for (String n : groups.get(i)) groupOf.put(n, i);
        for (String n : allNodes) groupOf.putIfAbsent(n, groups.size() - 1);
        List<List<String>> pairs = new java.util.ArrayList<>();
        for (String a : allNodes) {
            for (String b : allNodes) {
                if (!a.equals(b) && !groupOf.get(a).equals(groupOf.get(b))) {
                    pairs.add(List.of(a, b));
                    cut.add(List.of(a, b));
                }
            }
        }
        return pairs;
    }

    /** Marks a node crashed now (unless it already is): frames it sent from now on are lost. */
    synchronized void crashed(String node) { crashedSince(node, System.nanoTime()); }

    /**
     * Marks a node crashed as of atNanos, which may be a moment ago: a broker crashed as
     * it answered a request sends nothing after that answer, but its other connections
     * carry frames it sent right after it, which the proxy may have read a little before
     * the answer (see SAME_INSTANT_NANOS).
     */
    synchronized void crashedSince(String node, long atNanos) {
        crashedAtNanos.merge(node, atNanos, Math::min);
    }

    synchronized void restarted(String node) { crashedAtNanos.remove(node); }

    /** Whether a node is down: nothing reaches it. */
    synchronized boolean isCrashed(String node) { return crashedAtNanos.containsKey(node); }

    /** Whether a frame a node sent, read by the proxy at readNanos, left before it crashed. */
    synchronized boolean sentBeforeCrash(String from, long readNanos) {
        Long at = crashedAtNanos.get(from);
        return at == null || readNanos < at;
    }

    /**
     * How far apart the proxy may read two frames a node sent at one instant on two
     * connections: a broker answers a produce request and then, in the same handling, its
     * followers' waiting fetches (ReplicaManager's delayed actions run after the produce
     * callback), but each connection has its own thread here.
     */
    static final long SAME_INSTANT_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(5);
}
