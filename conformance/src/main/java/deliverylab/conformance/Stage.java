package deliverylab.conformance;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * The real cluster runs are made on, kept up from one run to the next when the next needs
 * the same cluster: the same brokers, the same broker settings and the same placement of
 * {@code __consumer_offsets} and {@code __transaction_state} (key). Starting a controller
 * and three brokers as fresh JVMs and waiting for them is about 4 s of every run on two
 * cores; putting a kept cluster back as a fresh one would be is about half a second.
 *
 * <p>What a run leaves and how the next run's cluster is put back to what a fresh one is:
 * <ul>
 *   <li>a paused process is resumed (SIGCONT), a crashed node started again on its log
 *       directory, and every broker registered again;</li>
 *   <li>cut links and crashed nodes are the run's own (a new Network in the proxy);</li>
 *   <li>the scene's topics are deleted and created again with the next plan's placement, so
 *       their logs, producer states and leader epochs start afresh;</li>
 *   <li>every partition of the internal topics is led by its first replica again (preferred
 *       elections) with its whole replica set in sync, as on a fresh cluster;</li>
 *   <li>groups and transactional ids: their state stays in the internal topics, so each run
 *       names its own with a prefix (Namespace) that keeps every id's coordinator;</li>
 *   <li>a run that ends with a transaction in progress, or fails, leaves the cluster to be
 *       stopped: the next run starts a fresh one.</li>
 * </ul>
 */
final class Stage implements AutoCloseable {
    private final ClassArchives archives;
    private Cluster cluster;
    private Proxy proxy;
    private Admin admin;
    private String key;
    /** How many runs have been made on the cluster, this one included. */
    private int runs;

    Stage(ClassArchives archives) { this.archives = archives; }

    /** The class-data sharing archives every JVM of the stage's runs starts from. */
    ClassArchives archives() { return archives; }

    /**
     * What a run needs its cluster to be: its brokers, their settings, and the placement
     * of the internal topics (a kept cluster keeps those topics).
     */
    static String key(Plan plan) {
        StringBuilder b = new StringBuilder().append(plan.kafkaVersion).append(' ').append(new TreeMap<>(plan.features))
            .append(' ').append(plan.brokers).append(' ').append(new TreeMap<>(plan.brokerProperties));
        for (Plan.Partition pp : plan.partitions) {
            if (pp.topic.startsWith("__")) b.append(' ').append(pp.name()).append(pp.replicas);
        }
        return b.toString();
    }

    /**
     * The cluster for a plan's run: the kept one when the plan's key is its key, else a new
     * one whose files go in dir (started by ready).
     */
    Cluster take(Plan plan, Path dir) throws IOException {
        String k = key(plan);
        if (cluster == null || !k.equals(key)) {
            close();
            cluster = new Cluster(dir, plan.brokerNames(), plan.brokerProperties, plan.kafkaVersion, plan.features, archives);
            key = k;
        }
        runs++;
        return cluster;
    }

    /** This run's number on its cluster: 0 for the run that started it. */
    int run() { return runs - 1; }

    /** The prefix of this run's group and transactional ids (empty on a fresh cluster). */
    String namespace() { return Namespace.prefix(run()); }

    /** Where the cluster's files are: the directory of the run that started it. */
    Path clusterDir() { return cluster.dir().toPath(); }

    Admin admin() { return admin; }

    /**
     * A new admin client, bootstrapped from every broker's address: one that timed out
     * waiting for a node assignment can stay stuck on the dead brokers it knew.
     */
    Admin renewAdmin() {
        if (admin != null) admin.close(Duration.ofSeconds(2));
        admin = newAdmin();
        return admin;
    }

    /**
     * Gets the cluster ready for a run: the proxy with the run's rules and harness, every
     * node up and every broker registered, exactly the plan's topics with its placement,
     * each partition led by its first replica with all its replicas in sync.
     */
    void ready(Plan plan, Network net, Proxy.Points points, Path runDir, List<String> namedApps) throws Exception {
        boolean kept = proxy != null;
        if (kept) {
            proxy.use(net, points, runDir, namedApps);
            for (String node : cluster.nodes()) {
                if (cluster.alive(node)) cluster.signal(node, "CONT");
                else cluster.start(node);
            }
        } else {
            start(net, points, runDir, namedApps);
        }
        waitFor(Duration.ofSeconds(120), "every broker registered", () -> registered(plan));
        if (kept) { // the last run's topics go: the plan's are made afresh
            Set<String> old = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            if (!old.isEmpty()) {
                admin.deleteTopics(old).all().get(30, TimeUnit.SECONDS);
                waitFor(Duration.ofSeconds(60), "the last run's topics deleted", () -> admin.listTopics().names().get().isEmpty());
            }
        }
        createTopics(plan);
        waitFor(Duration.ofSeconds(60), "every partition led by its first replica", () -> placementLed(plan));
        Map<org.apache.kafka.common.Uuid, String> ids = new java.util.HashMap<>();
        for (TopicDescription d : admin.describeTopics(topics(plan).keySet()).allTopicNames().get().values()) ids.put(d.topicId(), d.name());
        proxy.topicNames(ids);
    }

    private void start(Network net, Proxy.Points points, Path runDir, List<String> namedApps) throws Exception {
        cluster.format();
        proxy = new Proxy(net, points, runDir, namedApps);
        for (String b : cluster.brokers()) {
            proxy.listen(cluster.advertisedPort(b), cluster.realAddress(b), b, null);
            proxy.listen(cluster.controllerProxyPort(b), cluster.realAddress("controller"), "controller", b);
        }
        if (cluster.advertisesQuorumEndpoint()) {
            proxy.listen(cluster.quorumProxyPort(), cluster.realAddress("controller"), "controller", null);
        }
        for (String node : cluster.nodes()) cluster.start(node);
        admin = newAdmin();
    }

    private boolean registered(Plan plan) throws Exception {
        return admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() == plan.brokers;
    }

    /** The plan's topics, each partition's replicas by broker id. */
    private static Map<String, Map<Integer, List<Integer>>> topics(Plan plan) {
        Map<String, Map<Integer, List<Integer>>> byTopic = new LinkedHashMap<>();
        for (Plan.Partition pp : plan.partitions) {
            List<Integer> ids = new ArrayList<>();
            for (String r : pp.replicas) ids.add(Integer.parseInt(r.substring("broker-".length())));
            byTopic.computeIfAbsent(pp.topic, t -> new LinkedHashMap<>()).put(pp.partition, ids);
        }
        return byTopic;
    }

    /** Creates the plan's topics the cluster does not have (a kept cluster has its internal ones). */
    private void createTopics(Plan plan) throws Exception {
        Set<String> have = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(30, TimeUnit.SECONDS);
        List<NewTopic> topics = new ArrayList<>();
        for (var e : topics(plan).entrySet()) {
            if (have.contains(e.getKey())) continue;
            NewTopic t = new NewTopic(e.getKey(), e.getValue());
            if (e.getKey().equals("__consumer_offsets")) t.configs(Map.of("cleanup.policy", "compact"));
            if (e.getKey().equals("__transaction_state")) {
                // As the broker would create it (TransactionStateManager.transactionTopicConfigs).
                t.configs(Map.of("cleanup.policy", "compact", "unclean.leader.election.enable", "false", "compression.type", "uncompressed",
                    "min.insync.replicas", plan.brokerProperties.getOrDefault("transaction.state.log.min.isr", "1")));
            }
            topics.add(t);
        }
        if (!topics.isEmpty()) admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
    }

    /**
     * Whether every partition of the plan is led by its first replica with all its replicas
     * in sync. A partition whose first replica is in sync but does not lead (a kept
     * cluster's internal topic after a crash) is asked for a preferred election.
     */
    private boolean placementLed(Plan plan) throws Exception {
        Set<String> names = new HashSet<>();
        for (Plan.Partition pp : plan.partitions) names.add(pp.topic);
        Map<String, TopicDescription> d = admin.describeTopics(names).allTopicNames().get();
        Set<TopicPartition> elect = new HashSet<>();
        boolean led = true;
        for (Plan.Partition pp : plan.partitions) {
            TopicPartitionInfo info = d.get(pp.topic).partitions().get(pp.partition);
            boolean first = info.leader() != null && Run.brokerName(info.leader()).equals(pp.replicas.get(0));
            if (!first && info.isr().stream().anyMatch(n -> Run.brokerName(n).equals(pp.replicas.get(0)))) {
                elect.add(new TopicPartition(pp.topic, pp.partition));
            }
            if (!first || info.isr().size() != pp.replicas.size()) led = false;
        }
        // Each partition's result says whether it needed it (ELECTION_NOT_NEEDED); the wait
        // above asks the cluster itself.
        if (!elect.isEmpty()) admin.electLeaders(ElectionType.PREFERRED, elect).partitions().get(10, TimeUnit.SECONDS);
        return led;
    }

    /** The states of a transaction that has not ended (the coordinator's TransactionState). */
    static final List<TransactionState> IN_PROGRESS =
        List.of(TransactionState.ONGOING, TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE);

    /**
     * After a run: the cluster is kept for the next run when the run ended well and, if it
     * ran transactions, left none in progress (one would stay in its coordinator until its
     * timeout, which a fresh cluster does not have); otherwise it is stopped.
     */
    void finished(Plan plan, boolean ok) {
        if (cluster == null) return;
        boolean keep = ok && admin != null;
        if (keep && plan.transactional()) {
            try {
                keep = admin.listTransactions(new ListTransactionsOptions().filterStates(IN_PROGRESS)).all().get(10, TimeUnit.SECONDS).isEmpty();
            } catch (Exception e) {
                keep = false; // a coordinator that does not answer may hold one
            }
        }
        if (!keep) close();
    }

    private Admin newAdmin() {
        Properties p = new Properties();
        p.put("bootstrap.servers", cluster.bootstrap());
        p.put("client.id", Network.HARNESS + "-admin");
        p.put("request.timeout.ms", "5000");
        p.put("default.api.timeout.ms", "10000");
        return Admin.create(p);
    }

    static void waitFor(Duration limit, String what, Condition c) throws Exception {
        long until = System.nanoTime() + limit.toNanos();
        Exception last = null;
        while (System.nanoTime() < until) {
            try {
                if (c.holds()) return;
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("timed out waiting for " + what, last);
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    /** Stops the cluster: the next run starts a fresh one. */
    @Override
    public void close() {
        if (admin != null) admin.close(Duration.ofSeconds(2));
        if (proxy != null) proxy.close();
        if (cluster != null) cluster.close();
        admin = null;
        proxy = null;
        cluster = null;
        key = null;
        runs = 0;
    }
}
