package deliverylab.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

/**
 * The Streams application's parts that need no cluster: the settings its clients end up
 * with, as Kafka Streams' own StreamsConfig derives them from what the application gives
 * it; its topology; and its account of what it has read and not yet committed.
 */
class StreamsAppTest {
    private static Plan.Streams spec(String guarantee) {
        Plan.Streams s = new Plan.Streams();
        s.name = "enrich";
        s.from = "orders";
        s.to = "enriched";
        s.processingGuarantee = guarantee;
        s.commitIntervalMs = guarantee.equals("exactly_once_v2") ? 100 : 30000;
        // What a simulated client might run with, settings Streams owns among them.
        s.consumerProperties = Map.of("isolation.level", "read_uncommitted", "enable.auto.commit", "true", "group.id", "other",
            "client.id", "other", "max.poll.records", "500", "auto.offset.reset", "earliest");
        s.producerProperties = Map.of("acks", "all", "linger.ms", "5", "enable.idempotence", "true", "transactional.id", "other",
            "max.in.flight.requests.per.connection", "5", "client.id", "other");
        return s;
    }

    private static StreamsConfig config(Plan.Streams s) {
        return new StreamsConfig(StreamsApp.config(s, "127.0.0.1:9092", "/tmp/unused"));
    }

    @Test
    void exactlyOnceTheMainConsumerReadsCommittedAndTheGroupIsTheApplication() {
        Map<String, Object> c = config(spec("exactly_once_v2")).getMainConsumerConfigs("enrich", "enrich-StreamThread-1-consumer", 1);
        assertEquals("read_committed", c.get("isolation.level"));
        assertEquals("false", c.get("enable.auto.commit"));
        assertEquals("enrich", c.get("group.id"));
        assertEquals("enrich-StreamThread-1-consumer", c.get("client.id"));
        assertEquals("500", c.get("max.poll.records")); // a setting Streams leaves to the application
    }

    @Test
    void atLeastOnceTheSimulatedIsolationLevelStands() {
        Map<String, Object> c = config(spec("at_least_once")).getMainConsumerConfigs("enrich", "enrich-StreamThread-1-consumer", 1);
        assertEquals("read_uncommitted", c.get("isolation.level"));
        assertEquals("false", c.get("enable.auto.commit"));
    }

    @Test
    void theProducerIsStreamsOwnWithTheSimulatedSettings() {
        StreamsConfig eos = config(spec("exactly_once_v2"));
        Map<String, Object> p = eos.getProducerConfigs("enrich-StreamThread-1-producer");
        assertNull(p.get("transactional.id")); // StreamsProducer sets "enrich-<process id>-1"
        assertEquals(true, p.get("enable.idempotence"));
        assertEquals("5", p.get("linger.ms"));
        assertEquals(10000, p.get("transaction.timeout.ms")); // Streams' own under exactly-once
        assertEquals("enrich-StreamThread-1-producer", p.get("client.id"));
        assertEquals(100L, eos.getLong(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG));
        assertNull(config(spec("at_least_once")).getProducerConfigs("x").get("transactional.id"));
    }

    @Test
    void theTopologyPassesTheInputToTheOutput() {
        TopologyDescription d = StreamsApp.topology(spec("at_least_once"), new StreamsApp.Inputs()).describe();
        String text = d.toString();
        assertTrue(text.contains("Source: input (topics: [orders])"), text);
        assertTrue(text.contains("Processor: pass (stores: [])"), text);
        assertTrue(text.contains("Sink: output (topic: enriched)"), text);
    }

    @Test
    void aCommitCoversWhatLiesBelowItsOffsets() {
        StreamsApp.Inputs in = new StreamsApp.Inputs();
        in.polled("orders-0", 4, List.of("p1#5"));
        in.polled("orders-0", 5, List.of("p1#6"));
        in.processed("orders-0", 4);
        assertEquals(List.of("p1#5"), in.committed(Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(5))));
        in.polled("orders-0", 5, List.of("p1#6")); // polled again after a rewind: still one
        assertEquals(List.of("p1#6"), in.committed(Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(6))));
        assertEquals(List.of(), in.committed(Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(6))));
    }

    /**
     * Idle as the simulated Streams thread is: everything polled processed, every output
     * acknowledged, no output's error kept, no transaction open; an input processed and
     * written waits for no commit (at_least_once commits every 30 s).
     */
    @Test
    void idleIsTheSimulatedThreadsIdle() {
        StreamsApp.Inputs in = new StreamsApp.Inputs();
        assertTrue(in.idle());
        in.polled("orders-0", 4, List.of("p1#5"));
        assertFalse(in.idle(), "polled, not processed");
        in.processed("orders-0", 4);
        in.sending();
        assertFalse(in.idle(), "its output not acknowledged");
        in.sent(List.of("p1#5"), true);
        assertTrue(in.idle(), "processed and written: no commit waited for");

        in.polled("orders-0", 5, List.of("p1#6"));
        in.processed("orders-0", 5);
        in.sending();
        in.sent(List.of("p1#6"), false);
        assertFalse(in.idle(), "its output failed: the next commit throws, and the task reads it again");
        in.polled("orders-0", 5, List.of("p1#6"));
        in.processed("orders-0", 5);
        in.sending();
        in.sent(List.of("p1#6"), true);
        assertTrue(in.idle(), "read again and written");

        in.transactionOpen(true);
        assertFalse(in.idle(), "a transaction open");
        in.transactionOpen(false);
        assertTrue(in.idle());
    }

    @Test
    void anAbortTellsWhatWasProcessedAndDropsEverythingInHand() {
        StreamsApp.Inputs in = new StreamsApp.Inputs();
        in.transactionOpen(true);
        in.polled("orders-0", 0, List.of("p1#1"));
        in.polled("orders-0", 1, List.of("p1#2"));
        in.processed("orders-0", 0);
        assertEquals(List.of("p1#1"), in.aborted());
        assertTrue(in.idle());
    }
}
