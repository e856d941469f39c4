package deliverylab.conformance;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A protocol point, as the simulator's sim.Observation has it (the Go side reads these
 * with the same field names and judges them with the same ledger).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class Observation {
    public long atMs;
    public String node = "";
    public String event = "";
    public List<String> msgs;
    public String partition;
    public long offset;
    public int epoch;
    public String err;
    public String election;
    public String group;
    public String member;
    public int generation;
    public List<String> assigned;
    public List<String> committed;
    public String output;
    public String value;
    /** A Flink checkpoint's id (checkpoint-triggered, -completed, pre-committed, restored). */
    public Long checkpoint;
    /** A transactional id; a Flink XA sink's pre-committed: the branch's xid (the simulator's TxnID). */
    public String txnId;
    /**
     * A consumer's polled / processed of a record with a dl-folds header (a Flink count /
     * sum output): the record's key as text and the identities its value is folded from.
     */
    public String key;
    public List<String> folds;

    public Observation() {}

    public Observation(String node, String event) {
        this.node = node;
        this.event = event;
    }

    public Observation msgs(List<String> m) { msgs = m; return this; }
    public Observation at(String partition, long offset) { this.partition = partition; this.offset = offset; return this; }
    public Observation err(String e) { err = e; return this; }
    public Observation checkpoint(long n) { checkpoint = n; return this; }

    /** What a trigger's detail matches, as the simulator's event registry defines it. */
    public String detail() {
        switch (event) {
            case "responded": case "error": case "failed": return err == null ? "" : err;
            case "polled": case "txn-prepared": return value == null ? "" : value;
            case "processed": case "written": case "duplicate-refused": return output == null ? "" : output;
            case "elected": return election == null ? "" : election;
            case "member-removed": return group + "/" + member;
            case "assigned": return group + " gen=" + generation + " [" + String.join(",", assigned) + "]";
            case "offset-committed": return group + " " + String.join(",", committed);
            default: return "";
        }
    }

    public String line() {
        try {
            return Plan.JSON.writeValueAsString(this);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static Observation parse(String line) {
        try {
            return Plan.JSON.readValue(line, Observation.class);
        } catch (Exception e) {
            throw new IllegalArgumentException("not an observation: " + line, e);
        }
    }
}
