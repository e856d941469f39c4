package deliverylab.conformance;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metadata.PartitionChangeRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.metadata.LeaderRecoveryState;
import org.apache.kafka.metadata.MetadataRecordSerde;

/**
 * The controller's decisions, read off the metadata log as it reaches the brokers: every
 * broker fetches __cluster_metadata from the controller through the fault proxy (KRaft's
 * Fetch, KafkaRaftClient), and each record is an ApiMessage the brokers decode with
 * MetadataRecordSerde. A PartitionChangeRecord that names a leader
 * (leader != LeaderConstants.NO_LEADER_CHANGE) is the controller electing it: the
 * protocol point "elected", as the simulated controller reports it, with election
 * "unclean" when the record sets leaderRecoveryState RECOVERING (PartitionChangeBuilder
 * does exactly then: an unclean election forces the ISR to the new leader and marks it
 * recovering), "clean" otherwise. One naming no leader (LeaderConstants.NO_LEADER, -1) is
 * "offline". Each record is a point once, however many brokers fetch it: it is known by
 * its offset in the metadata log.
 */
final class MetadataLog {
    private static final int NO_LEADER = -1, NO_LEADER_CHANGE = -2;

    private final Proxy.Points points;
    private final Set<Long> seen = new HashSet<>();
    private final Map<Uuid, String> topics = new HashMap<>();
    private final Map<String, Integer> leaderEpochs = new HashMap<>();

    MetadataLog(Proxy.Points points) { this.points = points; }

    /** A controller's fetch answer to a broker: the metadata records it carries. */
    void read(FetchResponse resp) {
        for (var topic : resp.data().responses()) {
            for (var p : topic.partitions()) {
                for (var batch : Wire.batches(p.records())) {
                    if (batch.isControlBatch()) continue; // KRaft's own (LeaderChange, snapshot markers)
                    for (var r : batch) {
                        if (r.hasValue()) record(r.offset(), r.value());
                    }
                }
            }
        }
    }

    private synchronized void record(long offset, ByteBuffer value) {
        if (!seen.add(offset)) return;
        ApiMessage m;
        try {
            m = MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(value), value.remaining()).message();
        } catch (RuntimeException e) {
            return; // a record this client version does not know
        }
        if (m instanceof TopicRecord t) {
            topics.put(t.topicId(), t.name());
        } else if (m instanceof PartitionRecord pr) {
            leaderEpochs.put(pr.topicId() + "-" + pr.partitionId(), pr.leaderEpoch());
        } else if (m instanceof PartitionChangeRecord c && c.leader() != NO_LEADER_CHANGE) {
            String name = topics.get(c.topicId());
            if (name == null) return;
            String tp = name + "-" + c.partitionId();
            // The leader epoch goes up with every leader change (PartitionChangeBuilder).
            int epoch = leaderEpochs.merge(c.topicId() + "-" + c.partitionId(), 1, Integer::sum);
            if (c.leader() == NO_LEADER) {
                Observation off = new Observation("controller", "offline");
                off.partition = tp;
                points.point(off, true);
                return;
            }
            Observation o = new Observation("controller", "elected");
            o.partition = tp;
            o.epoch = epoch;
            o.election = c.leaderRecoveryState() == LeaderRecoveryState.RECOVERING.value() ? "unclean" : "clean";
            points.point(o, true);
        }
    }
}
