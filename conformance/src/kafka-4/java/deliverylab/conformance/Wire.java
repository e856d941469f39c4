package deliverylab.conformance;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * What the runner reads of Kafka's wire and log formats, built against Kafka 4: the record
 * classes are in org.apache.kafka.common.record.internal there, and the request and response
 * parsers read a Readable. Its twin in src/kafka-3.9 is built against Kafka 3.9.
 */
final class Wire {
    private Wire() {}

    static AbstractRequest request(ApiKeys api, short version, ByteBuffer frame) {
        return AbstractRequest.parseRequest(api, version, new ByteBufferAccessor(frame)).request;
    }

    static AbstractResponse response(ApiKeys api, short version, ByteBuffer frame) {
        return AbstractResponse.parseResponse(api, new ByteBufferAccessor(frame), version);
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
