package deliverylab.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;

/**
 * Reads a replica's log from a broker's log directory, with Kafka's own FileRecords, as
 * kafka-dump-log does: for a broker that is down as well as for one that is up.
 */
final class LogReader {
    /** One record of a log: its offset and the message identity it carries. */
    record Entry(long offset, String msg) {}

    static List<Entry> read(Path logDir, String partition) throws IOException {
        Path dir = logDir.resolve(partition);
        List<Entry> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) return out;
        List<Path> segments;
        try (Stream<Path> s = Files.list(dir)) {
            segments = s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        }
        for (Path seg : segments) {
            try (FileRecords records = FileRecords.open(seg.toFile(), false)) {
                for (RecordBatch batch : records.batches()) {
                    if (batch.isControlBatch()) continue;
                    for (Record r : batch) {
                        String msg = Proxy.msgOf(r);
                        if (msg != null) out.add(new Entry(r.offset(), msg));
                    }
                }
            } catch (RuntimeException e) {
                // a batch cut short by the crash: what came before it is the log
            }
        }
        return out;
    }
}
