package deliverylab.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness's transaction support that needs no cluster: what a log holds for a
 * read_committed reader (LogReader on a segment written with Kafka's own record classes),
 * how the producer application names and classifies a transactional error, and which
 * node the broker-to-broker transaction traffic belongs to.
 */
class TransactionsTest {
    @TempDir
    Path dir;

    private static SimpleRecord msg(String id) {
        return new SimpleRecord(0L, null, id.getBytes(StandardCharsets.UTF_8),
            new Header[] {new RecordHeader(Proxy.MSG_HEADER, id.getBytes(StandardCharsets.UTF_8))});
    }

    private static MemoryRecords marker(long offset, long producerId, ControlRecordType type) {
        return MemoryRecords.withEndTransactionMarker(offset, 0L, 0, producerId, (short) 0, new EndTransactionMarker(type, 0));
    }

    /**
     * A log: p1#1 (no transaction), producer 7's transaction p2#1 p2#2 committed, its next
     * one p2#3 aborted, producer 9's p3#1 in a transaction still open, p1#2.
     */
    private void writeLog() throws Exception {
        Path partition = dir.resolve("t-0");
        Files.createDirectories(partition);
        try (FileRecords log = FileRecords.open(partition.resolve("00000000000000000000.log").toFile())) {
            log.append(MemoryRecords.withRecords(0, Compression.NONE, msg("p1#1")));
            log.append(MemoryRecords.withTransactionalRecords(1, Compression.NONE, 7, (short) 0, 0, 0, msg("p2#1"), msg("p2#2")));
            log.append(marker(3, 7, ControlRecordType.COMMIT));
            log.append(MemoryRecords.withTransactionalRecords(4, Compression.NONE, 7, (short) 0, 2, 0, msg("p2#3")));
            log.append(MemoryRecords.withTransactionalRecords(5, Compression.NONE, 9, (short) 0, 0, 0, msg("p3#1")));
            log.append(marker(6, 7, ControlRecordType.ABORT));
            log.append(MemoryRecords.withRecords(7, Compression.NONE, msg("p1#2")));
            log.flush();
        }
    }

    private static List<String> entries(List<LogReader.Entry> es) {
        List<String> out = new ArrayList<>();
        for (LogReader.Entry e : es) out.add(e.offset() + " " + e.msg());
        return out;
    }

    @Test
    void readUncommittedHoldsAbortedRecordsButNoMarkers() throws Exception {
        writeLog();
        assertEquals(List.of("0 p1#1", "1 p2#1", "2 p2#2", "4 p2#3", "5 p3#1", "7 p1#2"), entries(LogReader.read(dir, "t-0")));
    }

    @Test
    void readCommittedNeverHoldsAnAbortedRecord() throws Exception {
        writeLog();
        // p2#3 aborted: gone; p3#1's transaction has no marker yet: kept, in offset order.
        assertEquals(List.of("0 p1#1", "1 p2#1", "2 p2#2", "5 p3#1", "7 p1#2"), entries(LogReader.read(dir, "t-0", true)));
    }

    @Test
    void abortedRecordsAreThoseWhoseProducersNextMarkerIsAnAbort() throws Exception {
        writeLog();
        // p2#3 only: p2#1 p2#2 committed, p3#1's transaction has no marker yet, p1#1 p1#2 in none.
        assertEquals(List.of("4 p2#3"), entries(LogReader.aborted(dir, "t-0")));
        assertEquals(List.of(), entries(LogReader.aborted(dir, "no-such-0")));
    }

    @Test
    void fencedIsFoundThroughTheClientsWrapping() {
        assertTrue(ProducerApp.fenced(new ProducerFencedException("newer epoch")));
        assertTrue(ProducerApp.fenced(new KafkaException("Cannot execute transactional method because we are in an error state",
            new ProducerFencedException("newer epoch"))));
        assertTrue(ProducerApp.fenced(new InvalidProducerEpochException("old epoch")));
        assertFalse(ProducerApp.fenced(new TimeoutException("slow")));
        assertEquals("PRODUCER_FENCED", ProducerApp.name(new KafkaException("error state", new ProducerFencedException("x"))));
        assertEquals("TimeoutException", ProducerApp.name(new TimeoutException("slow")));
    }

    @Test
    void brokerToBrokerTransactionTrafficIsTheBrokers() {
        assertEquals("broker-2", Proxy.nodeOf("broker-2-txn-marker-sender"));
        assertEquals("broker-3", Proxy.nodeOf("AddPartitionsManager-client-3"));
        assertEquals("broker-1", Proxy.nodeOf("broker-1-fetcher-0"));
        assertEquals("broker-2", Proxy.nodeOf("raft-client-2"), "a Kafka 4 broker's fetch of the metadata log");
        assertEquals("p1", Proxy.nodeOf("p1"));
    }

    @Test
    void aStreamsApplicationsClientsAreTheApplications() {
        List<String> streams = List.of("enrich");
        assertEquals("enrich", Proxy.nodeOf("enrich-StreamThread-1-consumer", streams));
        assertEquals("enrich", Proxy.nodeOf("enrich-StreamThread-1-restore-consumer", streams));
        assertEquals("enrich", Proxy.nodeOf("enrich-StreamThread-1-producer", streams));
        assertEquals("enrich", Proxy.nodeOf("enrich-admin", streams));
        // Another application whose name merely starts like it keeps its own.
        assertEquals("enrich-2", Proxy.nodeOf("enrich-2", streams));
        assertEquals("enrich-StreamThread-1-consumer", Proxy.nodeOf("enrich-StreamThread-1-consumer"));
    }
}
