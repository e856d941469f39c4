package deliverylab.conformance;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.BaseRecords;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * What the runner reads of Kafka's wire and log formats through classes whose names or
 * signatures differ between the Kafka versions it runs against: this one is built against
 * Kafka 3.9 (src/kafka-3.9), its twin against Kafka 4 (src/kafka-4, where the record
 * classes are in org.apache.kafka.common.record.internal and the parsers read a Readable).
 * The callers hold what it returns in {@code var}s, so one source serves both.
 */
final class Wire {
    private Wire() {}

    static AbstractRequest request(ApiKeys api, short version, ByteBuffer frame) {
        return AbstractRequest.parseRequest(api, version, frame).request;
    }

    static AbstractResponse response(ApiKeys api, short version, ByteBuffer frame) {
        return AbstractResponse.parseResponse(api, frame, version);
    }

    /** The batches of a request's or answer's records (none when they are not in memory). */
    static Iterable<? extends RecordBatch> batches(BaseRecords records) {
        return records instanceof MemoryRecords m ? m.batches() : java.util.List.of();
    }

    /** A log segment's file, to read its batches. */
    static FileRecords openSegment(File segment) throws IOException {
        return FileRecords.open(segment, false);
    }

    /** Whether a control batch is an ABORT marker (its one record's key says which). */
    static boolean aborts(RecordBatch control) {
        for (var r : control) return ControlRecordType.parse(r.key()) == ControlRecordType.ABORT;
        return false;
    }
}
