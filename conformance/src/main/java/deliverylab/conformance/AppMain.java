package deliverylab.conformance;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * An application process: a producer, consumer or Streams application of the scene,
 * running the real KafkaProducer, KafkaConsumer or KafkaStreams. It prints its protocol points as JSON lines
 * on standard output (the harness reads them), "STATUS ..." lines for the harness's
 * settle check, and "DONE" when a producer has been told how every send ended. It is
 * its own process so that a crash is a real one: the harness kills it with SIGKILL, or,
 * at one of its own protocol points, it halts itself there and then.
 */
public final class AppMain {
    static Launch launch;
    static Plan plan;
    private static final PrintStream OUT = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
        StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        launch = Plan.JSON.readValue(new File(args[0]), Launch.class);
        plan = Plan.read(new File(launch.plan));
        // Kafka's client logs go to a file beside the state, not to the harness's pipe.
        System.setOut(new PrintStream(new java.io.FileOutputStream(launch.stateFile + ".log", true), true, StandardCharsets.UTF_8));
        System.setErr(System.out);
        switch (launch.role) {
            case "producer" -> new ProducerApp(plan.producers.stream().filter(p -> p.name.equals(launch.name)).findFirst().orElseThrow()).run();
            case "consumer" -> new ConsumerApp(plan.consumers.stream().filter(c -> c.name.equals(launch.name)).findFirst().orElseThrow()).run();
            case "job" -> new FlinkApp(plan.jobs.stream().filter(j -> j.name.equals(launch.name)).findFirst().orElseThrow()).run();
            case "streams" -> new StreamsApp(plan.streams.stream().filter(s -> s.name.equals(launch.name)).findFirst().orElseThrow()).run();
            default -> throw new IllegalArgumentException("unknown application role " + launch.role);
        }
    }

    /**
     * The id the real client is given for a group, application or transactional id the
     * scene names: prefixed with the run's namespace on a kept cluster (Namespace), which
     * keeps its coordinator.
     */
    static String named(String id) {
        return launch == null || id == null || id.isEmpty() ? id : launch.namespace + id;
    }

    static long nowMs() { return System.currentTimeMillis() - launch.epochMs; }

    /**
     * Says the application is ready (its client built, the slow part of a JVM's start
     * behind it) and waits for the scene's 0 ms: "GO epochMs" on standard input. A
     * restarted application starts at once, as a restarted node does in the simulator.
     */
    static void readyAndWait() throws IOException {
        if (launch.restarted) return;
        control("READY");
        String line = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        if (line == null || !line.startsWith("GO ")) throw new IOException("expected GO from the harness, got " + line);
        launch.epochMs = Long.parseLong(line.substring(3).trim());
    }

    /** Sleeps until the scene's virtual time atMs (wall clock since the epoch). */
    static void sleepUntil(long atMs) throws InterruptedException {
        long wait = atMs - nowMs();
        if (wait > 0) Thread.sleep(wait);
    }

    /** Reports a protocol point; when it is one this application crashes at, it does. */
    static synchronized void observe(Observation o) {
        o.atMs = nowMs();
        if (o.node == null || o.node.isEmpty() || !o.node.startsWith(launch.name + "/")) o.node = launch.name;
        OUT.println(o.line());
        for (Plan.Trigger t : launch.selfCrash) {
            if (t.matches(o)) {
                OUT.println("CRASHED " + o.event);
                OUT.flush();
                Runtime.getRuntime().halt(137); // no shutdown hook, no close, no commit: a crash
            }
        }
    }

    static synchronized void control(String line) { OUT.println(line); }

    /**
     * The settle check's view of a consuming application: nothing in hand, its distance
     * to the end it can read (-1: unknown), how many partitions it has, whether it has
     * joined its group since it started.
     */
    static void status(boolean idle, long lag, int assigned, boolean joined) {
        control("STATUS idle=" + idle + " lag=" + lag + " assigned=" + assigned + " joined=" + joined);
    }

    /** Appends a line to the state the application keeps across a crash. */
    static synchronized void remember(String line) {
        try {
            Files.writeString(Path.of(launch.stateFile), line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static List<String> remembered() throws IOException {
        Path p = Path.of(launch.stateFile);
        return Files.exists(p) ? Files.readAllLines(p, StandardCharsets.UTF_8) : List.of();
    }

    /** The error name the simulator gives an exception a client reports. */
    static String errorName(Throwable e) {
        if (e instanceof org.apache.kafka.common.errors.TimeoutException) return "TimeoutException";
        return org.apache.kafka.common.protocol.Errors.forException(e).name();
    }
}
