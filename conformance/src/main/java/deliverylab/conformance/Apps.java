package deliverylab.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The scene's applications, each in its own JVM (AppMain): started at the scene's 0 ms
 * (a producer, consumer or Streams application then waits for its start.ms), killed with SIGKILL for a crash,
 * started again for a restart. Their protocol points reach the recorder as they print
 * them.
 */
final class Apps implements AutoCloseable {
    /** What the harness knows of one application process. */
    static final class App {
        final String name, role;
        Process process;
        volatile boolean done;        // a producer was told how every send ended
        volatile boolean idle = true; // a consumer (or Streams application) has nothing in hand
        volatile long lag = -1;       // its distance to the HW, or the LSO for read_committed (-1: unknown)
        volatile int assigned;
        volatile boolean joined;      // it has had its partitions assigned since it started
        volatile long statusAtMs = -1;
        volatile boolean ready;
        boolean started;

        App(String name, String role) {
            this.name = name;
            this.role = role;
        }

        boolean up() { return process != null && process.isAlive(); }
    }

    private final Plan plan;
    private final Path planFile, dir;
    private final String bootstrap;
    private final Map<String, Integer> sinkPorts;
    private final Run.Recorder recorder;
    private final ClassArchives archives;
    private final String namespace;
    private final Path logConfigs; // where the cluster keeps log4j.properties and log4j2.properties
    private final Map<String, App> apps = new LinkedHashMap<>();
    private long epochMs;

    Apps(Plan plan, Path planFile, Path dir, String bootstrap, Map<String, Integer> sinkPorts, Run.Recorder recorder,
        ClassArchives archives, String namespace, Path logConfigs) {
        this.plan = plan;
        this.logConfigs = logConfigs;
        this.namespace = namespace;
        this.archives = archives;
        this.planFile = planFile;
        this.dir = dir;
        this.bootstrap = bootstrap;
        this.sinkPorts = sinkPorts;
        this.recorder = recorder;
        for (Plan.Producer p : plan.producers) apps.put(p.name, new App(p.name, "producer"));
        for (Plan.Consumer c : plan.consumers) apps.put(c.name, new App(c.name, "consumer"));
        for (Plan.Streams st : plan.streams) apps.put(st.name, new App(st.name, "streams"));
        for (Plan.Job j : plan.jobs) apps.put(j.name, new App(j.name, "job"));
    }

    Map<String, App> all() { return apps; }

    boolean has(String name) { return apps.containsKey(name); }

    /** Starts every application's process and waits until each says it is ready. */
    void startAll() throws IOException, InterruptedException {
        for (App a : apps.values()) start(a.name);
        long until = System.currentTimeMillis() + 120_000;
        for (App a : apps.values()) {
            while (!a.ready) {
                if (!a.up() || System.currentTimeMillis() > until) {
                    throw new IOException(a.name + " never got ready: see " + dir.resolve(a.name + ".err"));
                }
                Thread.sleep(20);
            }
        }
    }

    /** The scene's 0 ms: every application may go. */
    void go(long epochMs) throws IOException {
        this.epochMs = epochMs;
        for (App a : apps.values()) {
            var in = a.process.getOutputStream();
            in.write(("GO " + epochMs + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }
    }

    /** Starts (or restarts) an application's process. */
    synchronized void start(String name) throws IOException {
        App a = apps.get(name);
        if (a.up()) return;
        Launch l = new Launch();
        l.plan = planFile.toString();
        l.role = a.role;
        l.name = name;
        l.epochMs = epochMs;
        l.bootstrap = bootstrap;
        l.sinkPorts = sinkPorts;
        l.stateFile = dir.resolve(name + ".state").toString();
        l.restarted = a.started;
        l.namespace = namespace;
        l.selfCrash = recorder.selfCrashTriggers(name);
        l.jobFaults = recorder.jobFaults(name);
        Path launchFile = dir.resolve(name + ".launch.json");
        Plan.JSON.writeValue(launchFile.toFile(), l);
        // A Flink job's JVM holds a MiniCluster (job manager and task manager): more heap.
        String heap = a.role.equals("job") ? "-Xmx1g" : "-Xmx256m";
        List<String> cmd = new ArrayList<>(List.of(Cluster.javaBin(), "-Xms32m", heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        cmd.addAll(archives.options(a.role));
        cmd.addAll(List.of("-Djava.net.preferIPv4Stack=true", "-Dlog4j.configuration=file:" + logConfigs.resolve("log4j.properties"),
            "-Dlog4j2.configurationFile=" + logConfigs.resolve("log4j2.properties"),
            "-Dkafka.logfile=" + dir.resolve(name + ".log"), "-cp", System.getProperty("java.class.path"),
            AppMain.class.getName(), launchFile.toString()));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".err").toFile())).start();
        archives.started(a.role, p);
        a.process = p;
        a.done = false;
        a.joined = false;
        a.started = true;
        Thread t = new Thread(() -> read(a, p), "app-" + name);
        t.setDaemon(true);
        t.start();
    }

    private void read(App a, Process p) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("{")) {
                    recorder.fromApp(a.name, Observation.parse(line));
                } else if (line.equals("READY")) {
                    a.ready = true;
                } else if (line.equals("DONE")) {
                    a.done = true;
                } else if (line.startsWith("STATUS ")) {
                    for (String kv : line.substring(7).split(" ")) {
                        String[] f = kv.split("=");
                        switch (f[0]) {
                            case "idle" -> a.idle = Boolean.parseBoolean(f[1]);
                            case "lag" -> a.lag = Long.parseLong(f[1]);
                            case "assigned" -> a.assigned = Integer.parseInt(f[1]);
                            case "joined" -> a.joined = Boolean.parseBoolean(f[1]);
                            default -> { }
                        }
                    }
                    a.statusAtMs = System.currentTimeMillis() - epochMs;
                }
            }
        } catch (IOException e) {
            // the process died
        }
    }

    /** Writes a command line to an application's standard input (a Flink job's "FAIL NAME/map-0"). */
    synchronized void command(String name, String line) throws IOException {
        App a = apps.get(name);
        if (!a.up()) throw new IOException(name + " is not running");
        var in = a.process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** The application's process id, or -1 when it is not running. */
    synchronized long pid(String name) {
        App a = apps.get(name);
        return a.up() ? a.process.pid() : -1;
    }

    /** SIGKILLs an application: its client's buffers and uncommitted work are gone. */
    synchronized void kill(String name) {
        App a = apps.get(name);
        if (a.process == null) return;
        a.process.destroyForcibly();
        try {
            a.process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        a.statusAtMs = -1;
    }

    @Override
    public void close() {
        for (String name : apps.keySet()) kill(name);
    }
}
