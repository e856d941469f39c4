package deliverylab.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/** The prefixes a run on a kept cluster names its groups and transactional ids with. */
class NamespaceTest {
    /** The coordinator's partition of an id, as GroupMetadataManager and TransactionStateManager compute it. */
    private static int partitionFor(String id, int partitions) { return Utils.abs(id.hashCode()) % partitions; }

    @Test
    void theFirstRunOnAClusterKeepsTheScenesNames() {
        assertEquals("", Namespace.prefix(0));
        assertEquals("orders-group", Namespace.unprefixed("", "orders-group"));
    }

    @Test
    void everyRunHasItsOwnPrefixWithHashCodeZero() {
        assertTrue(Namespace.words().size() > 40, "words: " + Namespace.words());
        Set<String> seen = new HashSet<>();
        for (int run = 1; run <= 5000; run++) {
            String p = Namespace.prefix(run);
            assertEquals(0, p.hashCode(), p);
            assertTrue(seen.add(p), "run " + run + " repeats " + p);
        }
    }

    /**
     * A prefixed id has its coordinator's partition, for any number of partitions, and so
     * has every id built from it by appending: Flink's sink names its transactions
     * prefix-subtask-checkpoint, Streams' producer application.id-processId-1.
     */
    @Test
    void aPrefixedIdKeepsItsCoordinator() {
        for (String id : List.of("g1", "orders-group", "tx-1", "dashboard", "enricher", "totals-sink", "")) {
            for (int run : List.of(1, 7, 51, 52, 2703)) {
                String p = Namespace.prefix(run);
                assertNotEquals(id, p + id);
                assertEquals(id, Namespace.unprefixed(p, p + id));
                for (int n : List.of(1, 3, 50, 7)) {
                    assertEquals(partitionFor(id, n), partitionFor(p + id, n), p + id + " over " + n);
                    assertEquals(partitionFor(id + "-0-12", n), partitionFor(p + id + "-0-12", n), "Flink's transactional ids");
                }
            }
        }
    }
}
