package deliverylab.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Class-data sharing for the harness's JVMs (JDK 17's dynamic CDS archives, JEP 350): a JVM
 * started from an archive of the classes its kind loaded before maps them in instead of
 * loading, verifying and linking each from the jars. A run starts five to eight JVMs
 * (the controller, the brokers, each application) on two cores, and most of their start
 * is that work: a controller is up in about 0.8 s instead of 1.6 s, with half the CPU.
 *
 * <p>One archive per kind of JVM (controller, broker, producer, consumer, streams, job),
 * in the directory the system property {@code deliverylab.cds} names (the Go side passes
 * the module's target/cds). A kind without a valid archive runs with
 * {@code -XX:+RecordDynamicDumpInfo}, and at the end of the run, while the process is
 * still up and has done everything a run makes it do, {@code jcmd PID VM.cds dynamic_dump}
 * writes the archive: no graceful shutdown is needed (the harness ends every process with
 * SIGKILL). An archive is valid for one JDK and one set of jars (its key file says which);
 * the JVM checks that too and, on a mismatch, starts without it. Sharing changes how fast a
 * JVM starts, never what it runs.
 */
final class ClassArchives {
    private final Path dir; // null: sharing is off
    private final String key;
    private final Map<String, Process> recording = new LinkedHashMap<>();

    private ClassArchives(Path dir, String key) {
        this.dir = dir;
        this.key = key;
    }

    /** The archives named by the system property deliverylab.cds, or none when it is unset. */
    static ClassArchives fromSystemProperties() {
        String d = System.getProperty("deliverylab.cds", "");
        if (d.isEmpty() || !Files.isExecutable(jcmd())) return new ClassArchives(null, "");
        return new ClassArchives(Path.of(d), keyOf(System.getProperty("java.class.path")));
    }

    /** The JVM options for a process of this kind: share its archive, or record what to archive. */
    synchronized List<String> options(String kind) {
        if (dir == null) return List.of();
        // Sharing's warnings (a class it skips) go to standard error: an application's
        // standard output is the harness's pipe.
        List<String> out = new ArrayList<>(List.of("-Xlog:disable", "-Xlog:all=warning:stderr"));
        if (valid(kind)) {
            out.add("-XX:SharedArchiveFile=" + archive(kind));
        } else {
            out.add("-XX:+RecordDynamicDumpInfo");
        }
        return out;
    }

    /** Notes a process just started: the first live one of a kind without an archive records it. */
    synchronized void started(String kind, Process p) {
        if (dir == null || valid(kind)) return;
        Process current = recording.get(kind);
        if (current == null || !current.isAlive()) recording.put(kind, p);
    }

    /**
     * Writes the archive of every kind that has none, from its recording process if that is
     * still up (a crashed one's kind waits for a later run). The dumps run side by side.
     */
    void dumpMissing() {
        Map<String, Process> todo;
        synchronized (this) {
            todo = new LinkedHashMap<>(recording);
            recording.clear();
        }
        if (todo.isEmpty()) return;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            return;
        }
        Map<String, Process> dumps = new LinkedHashMap<>();
        for (var e : todo.entrySet()) {
            if (!e.getValue().isAlive()) continue;
            try {
                dumps.put(e.getKey(), new ProcessBuilder(jcmd().toString(), String.valueOf(e.getValue().pid()), "VM.cds", "dynamic_dump",
                    dumping(e.getKey()).toString()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
            } catch (IOException ex) {
                // no archive for this kind this time: it starts as before
            }
        }
        for (var e : dumps.entrySet()) {
            String kind = e.getKey();
            Path tmp = dumping(kind);
            try {
                if (!e.getValue().waitFor(60, TimeUnit.SECONDS)) {
                    e.getValue().destroyForcibly();
                    continue;
                }
                if (e.getValue().exitValue() != 0 || !Files.exists(tmp)) continue;
                move(tmp, archive(kind));
                Files.writeString(keyFile(kind), key, StandardCharsets.UTF_8);
            } catch (IOException ex) {
                // as above
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private boolean valid(String kind) {
        try {
            return Files.exists(archive(kind)) && Files.readString(keyFile(kind), StandardCharsets.UTF_8).equals(key);
        } catch (IOException e) {
            return false;
        }
    }

    private Path archive(String kind) { return dir.resolve(kind + ".jsa"); }

    /** Where this runner's jcmd writes a kind's archive before it is moved into place. */
    private Path dumping(String kind) { return dir.resolve(kind + "." + ProcessHandle.current().pid() + ".tmp"); }

    private Path keyFile(String kind) { return dir.resolve(kind + ".key"); }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static Path jcmd() { return Path.of(System.getProperty("java.home"), "bin", "jcmd"); }

    /**
     * What an archive was made from: the JDK, and each class path entry with its size and
     * time (a rebuilt jar makes every archive stale).
     */
    static String keyOf(String classpath) {
        StringBuilder b = new StringBuilder();
        b.append(System.getProperty("java.home")).append(' ').append(System.getProperty("java.vm.version")).append('\n');
        for (String entry : classpath.split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry);
            b.append(entry);
            try {
                b.append(' ').append(Files.size(p)).append(' ').append(Files.getLastModifiedTime(p).toMillis());
            } catch (IOException e) {
                b.append(" missing");
            }
            b.append('\n');
        }
        return b.toString();
    }
}
