package deliverylab.conformance;

import java.io.File;
import java.nio.file.Path;

/**
 * The conformance runner's command line:
 *
 * <pre>
 *   run PLAN.json DIR   run the plan's scene once against a real cluster; write
 *                       DIR/observations.jsonl and DIR/facts.json (and every node's log)
 * </pre>
 *
 * {@code deliverylab conform} (the Go side) writes the plan, calls this, and judges the
 * result with the simulator's ledger.
 */
public final class Main {
    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !args[0].equals("run")) {
            System.err.println("usage: run PLAN.json DIR");
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
}
