package deliverylab.conformance;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The conformance runner's command line:
 *
 * <pre>
 *   run PLAN.json DIR   run the plan's scene once against a fresh real cluster; write
 *                       DIR/observations.jsonl and DIR/facts.json (and every node's log)
 *   serve               make run after run as standard input asks, one line each:
 *                         run PLAN.json DIR    on the cluster kept from the last run when
 *                                              the plan needs the same one (Stage), else a
 *                                              fresh one
 *                         fresh PLAN.json DIR  on a fresh cluster
 *                       and answer each on standard output: "ok DIR" or "failed DIR: why"
 * </pre>
 *
 * {@code deliverylab conform} (the Go side) writes the plans, asks for the runs, and judges
 * each with the simulator's ledger. Serving saves each run the runner's own start and,
 * where scenes need the same cluster, the cluster's.
 */
public final class Main {
    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("serve")) {
            serve();
            System.exit(0);
        }
        if (args.length != 3 || !args[0].equals("run")) {
            System.err.println("usage: run PLAN.json DIR | serve");
            System.exit(2);
        }
        Path planFile = Path.of(args[1]).toAbsolutePath();
        Plan plan = Plan.read(new File(args[1]));
        int code = 0;
        try (Run run = new Run(plan, planFile, Path.of(args[2]).toAbsolutePath())) {
            run.execute();
        } catch (Exception e) {
            e.printStackTrace();
            code = 1;
        }
        System.exit(code); // Kafka's client threads are not all daemons
    }

    private static void serve() throws IOException {
        // Standard output carries the answers only; anything else printed goes to the log.
        PrintStream answers = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (Stage stage = new Stage(ClassArchives.fromSystemProperties())) {
            for (String line; (line = in.readLine()) != null; ) {
                String[] f = line.trim().split(" ", 3);
                if (f.length != 3 || !(f[0].equals("run") || f[0].equals("fresh"))) {
                    answers.println("failed -: expected \"run PLAN.json DIR\" or \"fresh PLAN.json DIR\", got \"" + line + "\"");
                    continue;
                }
                Path planFile = Path.of(f[1]).toAbsolutePath(), dir = Path.of(f[2]).toAbsolutePath();
                if (f[0].equals("fresh")) stage.close();
                String why = runOn(stage, planFile, dir);
                answers.println(why == null ? "ok " + dir : "failed " + dir + ": " + why);
            }
        }
    }

    /** One run on the stage's cluster; null when it was made, else why not (its trace in DIR/runner.out). */
    private static String runOn(Stage stage, Path planFile, Path dir) {
        boolean ok = false;
        Plan plan = null;
        try (Run run = new Run(plan = Plan.read(planFile.toFile()), planFile, dir, stage)) {
            run.execute();
            ok = true;
            return null;
        } catch (Exception e) {
            try {
                Files.createDirectories(dir);
                try (PrintStream ps = new PrintStream(Files.newOutputStream(dir.resolve("runner.out")), true, StandardCharsets.UTF_8)) {
                    e.printStackTrace(ps);
                }
            } catch (IOException io) {
                e.addSuppressed(io);
            }
            return String.valueOf(e).replace('\n', ' ');
        } finally {
            if (plan != null) stage.finished(plan, ok);
            else stage.close();
        }
    }
}
