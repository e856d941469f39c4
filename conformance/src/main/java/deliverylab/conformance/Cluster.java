package deliverylab.conformance;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A real KRaft cluster on loopback: one controller (a quorum of one, as the playground's
 * controller is) and the scene's brokers, each a separate JVM started from Kafka's jars
 * with its own log directory. Every connection to a broker or to the controller goes
 * through the fault proxy: brokers advertise the proxy's port, and each broker is given
 * its own proxy port for the controller, so that the proxy knows who talks to whom.
 *
 * <p>A crash is SIGKILL of the broker's process; a restart starts it again on the same log
 * directory.
 */
public final class Cluster implements AutoCloseable {
    /** The controller's node id; brokers are 1..N, as broker-1..broker-N. */
    static final int CONTROLLER_ID = 100;

    private final Path dir;
    private final String clusterId;
    private final String classpath;
    private final List<String> brokers;
    private final int controllerPort;
    private final int quorumProxyPort;
    private final Map<String, Integer> realPorts = new LinkedHashMap<>();
    private final Map<String, Integer> advertisedPorts = new LinkedHashMap<>();
    private final Map<String, Integer> controllerProxyPorts = new LinkedHashMap<>();
    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Map<String, String> brokerProperties;
    /** The metadata version the cluster is formatted with: the plan's Kafka release. */
    private final String release;
    /** Feature levels formatted beside the release's defaults (--feature NAME=LEVEL). */
    private final Map<String, Integer> features;
    private final ClassArchives archives;

    Cluster(Path dir, List<String> brokers, Map<String, String> brokerProperties, String release,
            Map<String, Integer> features, ClassArchives archives) throws IOException {
        this.dir = dir;
        this.release = release;
        this.features = new java.util.TreeMap<>(features);
        this.archives = archives;
        this.brokers = brokers;
        this.brokerProperties = brokerProperties;
        this.classpath = System.getProperty("java.class.path");
        this.clusterId = org.apache.kafka.common.Uuid.randomUuid().toString();
        this.controllerPort = freePort();
        this.quorumProxyPort = freePort();
        for (String b : brokers) {
            realPorts.put(b, freePort());
            advertisedPorts.put(b, freePort());
            controllerProxyPorts.put(b, freePort());
        }
        writeLog4j();
    }

    List<String> brokers() { return brokers; }

    /** Where broker's real listener is. */
    InetSocketAddress realAddress(String node) {
        return new InetSocketAddress("127.0.0.1", node.equals("controller") ? controllerPort : realPorts.get(node));
    }

    int advertisedPort(String broker) { return advertisedPorts.get(broker); }

    int controllerProxyPort(String broker) { return controllerProxyPorts.get(broker); }

    /** Kafka 4: the proxy port every broker fetches the metadata log through (advertisesQuorumEndpoint). */
    int quorumProxyPort() { return quorumProxyPort; }

    /** Whether brokers fetch the metadata log from the quorum's advertised endpoint (KIP-853, Kafka 4). */
    boolean advertisesQuorumEndpoint() { return !release.startsWith("3."); }

    /** The bootstrap servers a client is given: every broker, through the proxy. */
    String bootstrap() {
        List<String> out = new ArrayList<>();
        for (String b : brokers) out.add("127.0.0.1:" + advertisedPorts.get(b));
        return String.join(",", out);
    }

    Path logDir(String node) { return dir.resolve(node); }

    /**
     * Formats every log directory with one cluster id, as kafka-storage.sh format does, in
     * this JVM: StorageTool's own entry point, without a JVM of its own per node (four
     * JVM starts were about 3 s of every run on two cores).
     */
    void format() throws IOException {
        for (String node : nodes()) {
            Path props = writeProperties(node);
            Path out = dir.resolve(node + "-format.out");
            int rc;
            try (PrintStream ps = new PrintStream(Files.newOutputStream(out), true, StandardCharsets.UTF_8)) {
                try {
                    List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", props.toString(),
                        "--release-version", release));
                    features.forEach((name, level) -> args.addAll(List.of("--feature", name + "=" + level)));
                    rc = kafka.tools.StorageTool.execute(args.toArray(new String[0]), ps);
                } catch (RuntimeException e) {
                    e.printStackTrace(ps);
                    rc = -1;
                }
            }
            if (rc != 0) throw new IOException("formatting " + node + " failed: see " + out);
        }
    }

    List<String> nodes() {
        List<String> out = new ArrayList<>();
        out.add("controller");
        out.addAll(brokers);
        return out;
    }

    /** Starts a node's process (the controller or a broker). */
    synchronized void start(String node) throws IOException {
        Process old = processes.get(node);
        if (old != null && old.isAlive()) return;
        String kind = node.equals("controller") ? "controller" : "broker";
        Process p = java(archives.options(kind), "kafka.Kafka", node, dir.resolve(node + ".properties").toString());
        archives.started(kind, p);
        processes.put(node, p);
    }

    /** SIGKILLs a node's process: nothing it had in memory survives, its log does. */
    /** The node's process id, or -1 when it is not running. */
    synchronized long pid(String node) {
        Process p = processes.get(node);
        return p != null && p.isAlive() ? p.pid() : -1;
    }

    synchronized void kill(String node) {
        Process p = processes.get(node);
        if (p == null) return;
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends a node's process a signal ("STOP", "CONT"). */
    void signal(String node, String sig) throws IOException, InterruptedException { signal(node, pid(node), sig); }

    /** Sends the process of a node (a broker's, the controller's, an application's) a signal. */
    static void signal(String node, long pid, String sig) throws IOException, InterruptedException {
        if (pid < 0) throw new IllegalStateException(node + " has no process to " + sig);
        int rc = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start().waitFor();
        if (rc != 0) throw new IOException("kill -" + sig + " " + pid + " exited " + rc);
    }

    synchronized boolean alive(String node) {
        Process p = processes.get(node);
        return p != null && p.isAlive();
    }

    @Override
    public void close() {
        for (String node : new ArrayList<>(processes.keySet())) kill(node);
    }

    private Path writeProperties(String node) throws IOException {
        Properties p = new Properties();
        // The settings the simulation assumes, then the scene's (effective) broker settings.
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("log.dirs", logDir(node).toString());
        p.setProperty("offsets.topic.replication.factor", String.valueOf(Math.min(3, brokers.size())));
        p.setProperty("transaction.state.log.replication.factor", String.valueOf(Math.min(3, brokers.size())));
        p.setProperty("transaction.state.log.min.isr", "1");
        p.setProperty("auto.create.topics.enable", "false");
        // The simulated controller never moves a leader back to its preferred replica on its
        // own; a real one checks every leader.imbalance.check.interval.seconds (300 s) from
        // its start, which a cluster kept across runs (Stage) would reach within a scene.
        p.setProperty("auto.leader.rebalance.enable", "false");
        p.setProperty("num.network.threads", "2");
        p.setProperty("num.io.threads", "2");
        p.setProperty("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
        p.putAll(brokerProperties);
        if (node.equals("controller")) {
            p.setProperty("process.roles", "controller");
            p.setProperty("node.id", String.valueOf(CONTROLLER_ID));
            p.setProperty("controller.quorum.voters", CONTROLLER_ID + "@127.0.0.1:" + controllerPort);
            p.setProperty("listeners", "CONTROLLER://127.0.0.1:" + controllerPort);
            if (advertisesQuorumEndpoint()) {
                // A Kafka 4 broker fetches the metadata log from the endpoint the quorum's
                // leader advertises for its controller listener (KIP-853): the proxy's
                // quorum port, which names each broker by its Raft client's id. (Kafka
                // 3.9's brokers fetch it from their own controller.quorum.voters, their
                // proxy port.)
                p.setProperty("advertised.listeners", "CONTROLLER://127.0.0.1:" + quorumProxyPort);
            }
            p.setProperty("listener.security.protocol.map", "CONTROLLER:PLAINTEXT");
        } else {
            p.setProperty("process.roles", "broker");
            p.setProperty("node.id", node.substring("broker-".length()));
            p.setProperty("controller.quorum.voters", CONTROLLER_ID + "@127.0.0.1:" + controllerProxyPorts.get(node));
            p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + realPorts.get(node));
            p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + advertisedPorts.get(node));
            p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        }
        Path file = dir.resolve(node + ".properties");
        try (var w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "Delivery Lab conformance: " + node);
        }
        return file;
    }

    private Process java(List<String> sharing, String mainClass, String name, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(javaBin(), "-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        cmd.addAll(sharing);
        cmd.addAll(List.of("-Djava.net.preferIPv4Stack=true", "-Dlog4j.configuration=file:" + dir.resolve("log4j.properties"),
            "-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties"), "-Dkafka.logfile=" + dir.resolve(name + ".log"),
            "-cp", classpath, mainClass));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".out").toFile()));
        return pb.start();
    }

    static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private void writeLog4j() throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("log4j.properties"), String.join("\n",
            "log4j.rootLogger=INFO, F",
            "log4j.appender.F=org.apache.log4j.FileAppender",
            "log4j.appender.F.File=${kafka.logfile}",
            "log4j.appender.F.layout=org.apache.log4j.PatternLayout",
            "log4j.appender.F.layout.ConversionPattern=[%d] %p %m (%c)%n",
            "log4j.logger.org.apache.kafka.clients=WARN",
            ""));
        // Kafka 4 logs through Log4j 2: the same, in its words.
        Files.writeString(dir.resolve("log4j2.properties"), String.join("\n",
            "appender.f.type=File",
            "appender.f.name=F",
            "appender.f.fileName=${sys:kafka.logfile}",
            "appender.f.layout.type=PatternLayout",
            "appender.f.layout.pattern=[%d] %p %m (%c)%n",
            "rootLogger.level=INFO",
            "rootLogger.appenderRef.f.ref=F",
            "logger.clients.name=org.apache.kafka.clients",
            "logger.clients.level=WARN",
            ""));
    }

    /** Ports below Linux's ephemeral range (32768 up): no outgoing connection takes them. */
    private static final int PORT_LOW = 20000, PORT_HIGH = 32000;
    private static final java.util.concurrent.atomic.AtomicInteger nextPort =
        new java.util.concurrent.atomic.AtomicInteger(PORT_LOW + (int) (ProcessHandle.current().pid() * 97 % (PORT_HIGH - PORT_LOW)));

    /**
     * A port to listen on. Not one the kernel picks (new ServerSocket(0) would take it from
     * the ephemeral range, where a broker's outgoing connection can take it first before
     * the listener binds it), but one below that range that is free now.
     */
    static int freePort() {
        for (int tries = 0; tries < PORT_HIGH - PORT_LOW; tries++) {
            int port = PORT_LOW + Math.floorMod(nextPort.getAndIncrement() - PORT_LOW, PORT_HIGH - PORT_LOW);
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress("127.0.0.1", port));
                return port;
            } catch (IOException e) {
                // taken: try the next one
            }
        }
        throw new UncheckedIOException(new IOException("no free port from " + PORT_LOW + " to " + PORT_HIGH));
    }

    static Duration since(long nanos) { return Duration.ofNanos(System.nanoTime() - nanos); }

    File dir() { return dir.toFile(); }
}
