package deliverylab.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Reads a replica's log from a broker's log directory, with Kafka's own FileRecords, as
 * kafka-dump-log does: for a broker that is down as well as for one that is up.
 */
final class LogReader {
    /** One record of a log: its offset and the message identity it carries. */
    record Entry(long offset, String msg) {}

    /** Every record that carries a message, aborted ones included; never a control record. */
    static List<Entry> read(Path logDir, String partition) throws IOException {
        return read(logDir, partition, false);
    }

    /**
     * The records that carry a message, in offset order. Control records (a transaction's
     * COMMIT and ABORT markers) are never among them. With readCommitted, neither are the
     * records of a transaction that aborted: a read_committed consumer drops them
     * (CompletedFetch.nextFetchedRecord with the fetch's aborted transactions, which the
     * log's ABORT markers mark as well). The records of a transaction with no marker yet
     * are kept: they lie at or past the last stable offset, which a read_committed reader
     * has not reached.
     */
    static List<Entry> read(Path logDir, String partition, boolean readCommitted) throws IOException {
        Scan s = scan(logDir, partition);
        List<Entry> out = new ArrayList<>(s.kept);
        if (!readCommitted) out.addAll(s.aborted);
        out.sort(Comparator.comparingLong(Entry::offset));
        return out;
    }

    /** The records that carry a message and belong to a transaction that aborted, in offset order. */
    static List<Entry> aborted(Path logDir, String partition) throws IOException {
        return scan(logDir, partition).aborted;
    }

    /** A log's message records: those of aborted transactions, and all the others. */
    private record Scan(List<Entry> kept, List<Entry> aborted) {}

    /**
     * Reads a log once. A transaction's records are aborted when the next marker of their
     * producer id after them is an ABORT; a batch cut short by a crash ends the log.
     */
    private static Scan scan(Path logDir, String partition) throws IOException {
        Path dir = logDir.resolve(partition);
        Scan out = new Scan(new ArrayList<>(), new ArrayList<>());
        if (!Files.isDirectory(dir)) return out;
        List<Path> segments;
        try (Stream<Path> s = Files.list(dir)) {
            segments = s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        }
        Map<Long, List<Entry>> open = new HashMap<>(); // producer id -> its transaction's records so far
        for (Path seg : segments) {
            try (var records = Wire.openSegment(seg.toFile())) {
                for (var batch : records.batches()) {
                    if (batch.isControlBatch()) {
                        List<Entry> txn = open.remove(batch.producerId());
                        if (txn != null) (Wire.aborts(batch) ? out.aborted : out.kept).addAll(txn);
                        continue;
                    }
                    List<Entry> into = batch.isTransactional() ? open.computeIfAbsent(batch.producerId(), k -> new ArrayList<>()) : out.kept;
                    for (var r : batch) {
                        String msg = Proxy.msgOf(r.headers());
                        if (msg != null) into.add(new Entry(r.offset(), msg));
                    }
                }
            } catch (RuntimeException e) {
                // a batch cut short by the crash: what came before it is the log
            }
        }
        open.values().forEach(out.kept::addAll);
        out.kept.sort(Comparator.comparingLong(Entry::offset));
        out.aborted.sort(Comparator.comparingLong(Entry::offset));
        return out;
    }
}
