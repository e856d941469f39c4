package deliverylab.conformance;

/** The job faults the Flink tests arm: a fault of a kind on a node, at a protocol point. */
final class TestFaults {
    private TestFaults() { }

    static Plan.Fault fault(String kind, String node, String whenNode, String event, String message, long forMs) {
        Plan.Fault f = new Plan.Fault();
        f.kind = kind;
        f.node = node;
        f.forMs = forMs;
        f.when = new Plan.Trigger();
        f.when.node = whenNode;
        f.when.event = event;
        f.when.message = message;
        return f;
    }
}
