package deliverylab.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.metadata.PartitionChangeRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.metadata.LeaderRecoveryState;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.junit.jupiter.api.Test;

/**
 * The controller's elections, read off a metadata fetch answer written with Kafka's own
 * record classes: a PartitionChangeRecord naming a leader is "elected" (unclean when it
 * marks the leader RECOVERING), one naming none "offline", one that changes only the ISR
 * nothing; a record fetched by a second broker is not a second point.
 */
class MetadataLogTest {
    private static final Uuid TOPIC = Uuid.randomUuid();

    private static SimpleRecord rec(ApiMessage m) {
        ApiMessageAndVersion mv = new ApiMessageAndVersion(m, m.highestSupportedVersion());
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buf = ByteBuffer.allocate(MetadataRecordSerde.INSTANCE.recordSize(mv, cache));
        MetadataRecordSerde.INSTANCE.write(mv, cache, new ByteBufferAccessor(buf));
        return new SimpleRecord(0L, null, buf.array());
    }

    private static FetchResponse answer(long baseOffset, SimpleRecord... records) {
        MemoryRecords mr = MemoryRecords.withRecords(baseOffset, Compression.NONE, records);
        FetchResponseData data = new FetchResponseData();
        data.responses().add(new FetchResponseData.FetchableTopicResponse().setTopicId(Uuid.METADATA_TOPIC_ID)
            .setPartitions(List.of(new FetchResponseData.PartitionData().setPartitionIndex(0).setRecords(mr))));
        return new FetchResponse(data);
    }

    @Test
    void partitionChangesAreElectionsAndOfflines() {
        List<Observation> seen = new ArrayList<>();
        MetadataLog log = new MetadataLog((o, record) -> {
            seen.add(o);
            return Proxy.Action.NONE;
        });
        FetchResponse first = answer(0,
            rec(new TopicRecord().setName("orders").setTopicId(TOPIC)),
            rec(new PartitionRecord().setTopicId(TOPIC).setPartitionId(0).setLeader(1).setLeaderEpoch(0)),
            rec(new PartitionChangeRecord().setTopicId(TOPIC).setPartitionId(0).setIsr(List.of(1))), // ISR only
            rec(new PartitionChangeRecord().setTopicId(TOPIC).setPartitionId(0).setLeader(2)));
        log.read(first);
        log.read(first); // another broker fetches the same records
        log.read(answer(4,
            rec(new PartitionChangeRecord().setTopicId(TOPIC).setPartitionId(0).setLeader(-1)),
            rec(new PartitionChangeRecord().setTopicId(TOPIC).setPartitionId(0).setLeader(3).setIsr(List.of(3))
                .setLeaderRecoveryState(LeaderRecoveryState.RECOVERING.value()))));
        List<String> got = new ArrayList<>();
        for (Observation o : seen) got.add(o.node + " " + o.event + " " + o.partition + " epoch=" + o.epoch + " " + o.election);
        assertEquals(List.of("controller elected orders-0 epoch=1 clean", "controller offline orders-0 epoch=0 null",
            "controller elected orders-0 epoch=3 unclean"), got);
    }
}
