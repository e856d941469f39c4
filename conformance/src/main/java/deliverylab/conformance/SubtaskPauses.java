package deliverylab.conformance;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which subtasks of a Flink job are paused (pause: JOB/source-0, JOB/map-1, ...), in the
 * job's JVM. A pause belongs to one attempt of its subtask: when the job fails over, the
 * subtask's next attempt runs unpaused, as a simulated node that crashed and restarted is no
 * longer paused. So a pause is kept as the subtask's name with the attempt it was meant for
 * (the one running, or about to run, when it came), and an attempt checks its own entry: no
 * clean-up has to catch an attempt's end, which a failover may reach in any of its paths.
 *
 * A paused subtask's thread blocks at its next protocol point (FlinkApp's Emit and Operator
 * call hold there) until the subtask is resumed or its attempt is cancelled.
 */
final class SubtaskPauses {
    /** How often a held thread looks again: short against a scene's milliseconds. */
    static final long POLL_MS = 1;

    /** Each subtask's latest attempt that started (Flink numbers a subtask's attempts 0, 1, ...). */
    private final Map<String, Integer> attempts = new ConcurrentHashMap<>();
    /** The paused attempts, as "JOB/map-0#2". */
    private final Set<String> paused = ConcurrentHashMap.newKeySet();

    private static String key(String subtask, int attempt) { return subtask + "#" + attempt; }

    /** An attempt of the subtask has started: a pause from now on is this attempt's. */
    void started(String subtask, int attempt) { attempts.put(subtask, attempt); }

    /**
     * Pauses the subtask's current attempt: the latest that started, or the first when none
     * has yet (a pause before the job runs holds its first attempt). A pause that comes while
     * the subtask fails over is the ended attempt's, so it holds nothing, as a pause of a
     * node that is down does nothing in the simulator.
     */
    void pause(String subtask) { paused.add(key(subtask, attempts.getOrDefault(subtask, 0))); }

    /** Resumes the subtask, whichever of its attempts was paused. */
    void resume(String subtask) { paused.removeIf(k -> k.startsWith(subtask + "#")); }

    boolean paused(String subtask, int attempt) { return paused.contains(key(subtask, attempt)); }

    /** The attempt is over: its pause, if any, has nothing left to hold. */
    void ended(String subtask, int attempt) { paused.remove(key(subtask, attempt)); }

    /**
     * Blocks the calling thread (the attempt's own) while the attempt is paused. Each look
     * first runs whileHeld, which may throw (a crash told while paused fails the task). Flink
     * cancels a task by interrupting its thread: the InterruptedException goes up so that the
     * cancellation proceeds, and the attempt is over.
     */
    void hold(String subtask, int attempt, Runnable whileHeld) throws InterruptedException {
        while (paused(subtask, attempt)) {
            whileHeld.run();
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                ended(subtask, attempt);
                throw e;
            }
        }
    }

    /** Forgets every pause and attempt (a test's fresh start). */
    void clear() {
        attempts.clear();
        paused.clear();
    }
}
