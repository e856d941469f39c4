package deliverylab.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What an application process is told when the harness starts it (as JSON, in a file). */
public final class Launch {
    public String plan;          // the plan file
    public String role;          // producer | consumer | streams
    public String name;
    public long epochMs;         // the scene's 0 ms, on the wall clock
    public String bootstrap;
    public Map<String, Integer> sinkPorts;
    public String stateFile;     // what the application remembers across a crash
    public boolean restarted;    // a restart, not the first start
    /**
     * The prefix of the run's group, application and transactional ids on a cluster kept
     * from an earlier run (Namespace; empty on a fresh cluster): the application names its
     * server-side state with it, and reports the scene's names.
     */
    public String namespace = "";
    /** The triggers that crash this application at one of its own protocol points. */
    public List<Plan.Trigger> selfCrash = new ArrayList<>();
    /** A Flink job's faults at its own protocol points (the job, or one of its subtasks, crashes there). */
    public List<Plan.Fault> jobFaults = new ArrayList<>();
}
