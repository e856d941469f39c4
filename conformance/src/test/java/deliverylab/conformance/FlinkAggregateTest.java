package deliverylab.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.runtime.partitioner.ForwardPartitioner;
import org.apache.flink.streaming.runtime.partitioner.KeyGroupStreamPartitioner;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * The Flink job's count and sum parts that need no cluster: a key's aggregate and its
 * lineage, their state serializer (what a checkpoint writes and a restore reads), the
 * plan's checks, the keyed wiring of the stream graph, the dl-folds header the sink
 * writes, and what a consumer makes of it.
 */
class FlinkAggregateTest {
    private static FlinkApp.Rec rec(String key, String value, String msg) {
        FlinkApp.Rec r = new FlinkApp.Rec();
        r.key = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
        r.value = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        r.msg = msg;
        r.partition = "orders-0";
        return r;
    }

    private static Plan.Job job(String operator, boolean keyed) {
        Plan.Job j = new Plan.Job();
        j.name = "agg";
        j.operator = operator;
        j.keyed = keyed;
        return j;
    }

    @Test
    void eachFoldAddsToTheTotalAndListsTheRecordInFoldOrderRepeatsKept() {
        FlinkApp.Fold f = new FlinkApp.Fold();
        FlinkApp.Fold a = f.add(1, "p1#1");
        FlinkApp.Fold b = a.add(1, "p1#3");
        FlinkApp.Fold c = b.add(1, "p1#3"); // a replay folds it again
        assertEquals(3, c.total);
        assertEquals("p1#1,p1#3,p1#3", c.header());
        // A fold is a new value: what the state held before is as it was.
        assertEquals(1, a.total);
        assertEquals(List.of("p1#1"), a.folds);
        assertEquals(0, f.total);
        assertEquals("", f.header());
    }

    @Test
    void countAddsOneSumAddsTheValue() {
        assertEquals(1, FlinkApp.delta("count", rec("k", "not a number", "p1#1")));
        assertEquals(1, FlinkApp.delta("count", rec("k", null, "p1#1")));
        assertEquals(42, FlinkApp.delta("sum", rec("k", "42", "p1#1")));
        assertEquals(-7, FlinkApp.delta("sum", rec("k", "-7", "p1#1")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FlinkApp.delta("sum", rec("k", "4.5", "p1#2")));
        assertTrue(e.getMessage().contains("p1#2"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FlinkApp.delta("sum", rec("k", null, "p1#3")));
    }

    @Test
    void theStateIsAPojoOfFlinksOwnSerializersAndRoundTripsTheLineage() throws Exception {
        assertInstanceOf(PojoTypeInfo.class, FlinkApp.Fold.TYPE);
        TypeSerializer<FlinkApp.Fold> s = FlinkApp.Fold.TYPE.createSerializer(new SerializerConfigImpl());
        assertInstanceOf(PojoSerializer.class, s);
        FlinkApp.Fold f = new FlinkApp.Fold().add(5, "p1#1").add(3, "p2#1").add(3, "p2#1");
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(f, out);
        FlinkApp.Fold back = s.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertEquals(11, back.total);
        assertEquals(List.of("p1#1", "p2#1", "p2#1"), back.folds);
        FlinkApp.Fold copy = s.copy(f);
        assertEquals(f.folds, copy.folds);
        assertFalse(f.folds == copy.folds);
    }

    @Test
    void theRecordStaysAPojo() {
        assertInstanceOf(PojoTypeInfo.class, TypeInformation.of(FlinkApp.Rec.class));
    }

    @Test
    void countAndSumNeedTheKeyedStream() {
        assertEquals("map", FlinkApp.operator(job(null, false)));
        assertEquals("map", FlinkApp.operator(job("map", true)));
        assertEquals("count", FlinkApp.operator(job("count", true)));
        assertEquals("sum", FlinkApp.operator(job("sum", true)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FlinkApp.operator(job("sum", false)));
        assertTrue(e.getMessage().contains("keyed"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FlinkApp.operator(job("count", false)));
        assertThrows(IllegalArgumentException.class, () -> FlinkApp.operator(job("max", true)));
    }

    /** The graph only: nothing runs. */
    private static StreamNode operatorNode(Plan.Job job, String op) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlinkApp.operate(env.fromData(TypeInformation.of(FlinkApp.Rec.class), rec("a", "1", "p1#1")), job, op, 1);
        return env.getStreamGraph().getStreamNodes().stream().filter(n -> n.getOperatorName().equals(op)).findFirst().orElseThrow();
    }

    @Test
    void theAggregateIsAKeyedOperatorOnTheKeysText() throws Exception {
        StreamNode n = operatorNode(job("sum", true), "sum");
        assertNotNull(n.getStateKeySerializer());
        assertInstanceOf(KeyGroupStreamPartitioner.class, n.getInEdges().get(0).getPartitioner());
        @SuppressWarnings("unchecked")
        var selector = (org.apache.flink.api.java.functions.KeySelector<FlinkApp.Rec, String>) n.getStatePartitioners()[0];
        assertEquals("a", selector.getKey(rec("a", "1", "p1#1")));
        assertEquals("", selector.getKey(rec(null, "1", "p1#1")));

        StreamNode map = operatorNode(job("map", false), "map");
        assertNull(map.getStateKeySerializer());
        assertInstanceOf(ForwardPartitioner.class, map.getInEdges().get(0).getPartitioner());
    }

    @Test
    void theSinkWritesTheLineageHeaderOnlyForAnAggregate() {
        FlinkApp.Serializer s = new FlinkApp.Serializer("totals");
        FlinkApp.Rec out = rec("a", "2", "p1#3");
        out.folds = "p1#1,p1#3";
        ProducerRecord<byte[], byte[]> pr = s.serialize(out, null, null);
        assertEquals("p1#3", new String(pr.headers().lastHeader("dl-msg").value(), StandardCharsets.UTF_8));
        assertEquals("p1#1,p1#3", new String(pr.headers().lastHeader("dl-folds").value(), StandardCharsets.UTF_8));
        assertEquals("a", new String(pr.key(), StandardCharsets.UTF_8));

        ProducerRecord<byte[], byte[]> mapped = s.serialize(rec("a", "x", "p1#1"), null, null);
        assertNull(mapped.headers().lastHeader("dl-folds"));
    }

    @Test
    void aConsumerReportsKeyAndFoldsOnlyWithTheHeader() {
        RecordHeaders h = new RecordHeaders();
        h.add("dl-msg", "p1#3".getBytes(StandardCharsets.UTF_8));
        h.add("dl-folds", "p1#1,p1#3,p1#3".getBytes(StandardCharsets.UTF_8));
        Observation o = ConsumerApp.lineage(new Observation("", "polled").msgs(ConsumerApp.ids(h)), "a", h);
        assertEquals("a", o.key);
        assertEquals(List.of("p1#1", "p1#3", "p1#3"), o.folds);
        assertEquals(List.of("p1#3"), o.msgs);
        Observation parsed = Observation.parse(o.line());
        assertEquals("a", parsed.key);
        assertEquals(List.of("p1#1", "p1#3", "p1#3"), parsed.folds);

        // The Streams application's records have byte[] keys.
        assertEquals("a", ConsumerApp.lineage(new Observation("", "processed"), "a".getBytes(StandardCharsets.UTF_8), h).key);

        RecordHeaders plain = new RecordHeaders();
        plain.add("dl-msg", "p1#1".getBytes(StandardCharsets.UTF_8));
        Observation p = ConsumerApp.lineage(new Observation("", "polled").msgs(ConsumerApp.ids(plain)), "a", plain);
        assertNull(p.key);
        assertNull(p.folds);
        assertFalse(p.line().contains("\"key\""), p.line());
        assertFalse(p.line().contains("\"folds\""), p.line());

        RecordHeaders empty = new RecordHeaders();
        empty.add("dl-folds", new byte[0]);
        assertEquals(List.of(), ConsumerApp.lineage(new Observation("", "polled"), "a", empty).folds);
    }
}
