package deliverylab.conformance;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A consumer application, as the simulator's apps.Consumer: poll, (commit), process each
 * record — processing.ms, then a write to the sink — (commit), poll again; with
 * processing: async the records go to a worker and polls go on. Commits are reported
 * when Kafka's client says they succeeded (a ConsumerInterceptor's onCommit, which sees
 * auto-commits too), with the identities of the records they cover.
 * <p>
 * A write the sink refuses on its unique key ("D") is done all the same: the dedup-table
 * recipe, the record was processed before, move on.
 * <p>
 * With commit: with-results the application stores its offsets in its (transactional)
 * sink instead of Kafka, as KafkaConsumer's javadoc "Storing Offsets Outside Kafka" shows:
 * it never commits to Kafka (enable.auto.commit is false), each write carries the
 * record's next offset so that the row and the offset are stored in one transaction, and
 * when partitions are assigned it reads the group's offsets from the sink and seeks to
 * them. A partition the sink has no offset for keeps Kafka's usual position.
 */
final class ConsumerApp {
    private final Plan.Consumer spec;
    private KafkaConsumer<String, String> consumer;
    private final LinkedBlockingQueue<ConsumerRecord<String, String>> work = new LinkedBlockingQueue<>();
    private final AtomicInteger inHand = new AtomicInteger();
    private final AtomicBoolean batchProcessed = new AtomicBoolean();
    private SinkClient sink;
    /** commit: with-results: the offsets live in the sink, with the results. */
    private final boolean withResults;
    private volatile boolean joined;

    /** The records poll returned that no commit covers yet, oldest first. */
    private static final List<ConsumerRecord<String, String>> uncommitted = new ArrayList<>();

    ConsumerApp(Plan.Consumer spec) {
        this.spec = spec;
        this.withResults = spec.commit.equals("with-results");
    }

    void run() throws Exception {
        Properties props = new Properties();
        props.putAll(spec.properties);
        props.put("bootstrap.servers", AppMain.launch.bootstrap);
        props.put("client.id", spec.name);
        props.put("group.id", AppMain.named(spec.group));
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", StringDeserializer.class.getName());
        props.put("interceptor.classes", CommitObserver.class.getName());
        if (spec.sink != null && !spec.sink.isEmpty()) sink = new SinkClient(spec.name, AppMain.launch.sinkPorts.get(spec.sink), "", AppMain::observe);
        consumer = new KafkaConsumer<>(props);
        AppMain.readyAndWait();
        if (!AppMain.launch.restarted) AppMain.sleepUntil(spec.startMs);
        consumer.subscribe(spec.topics, new Rebalance());
        if (spec.async) startWorker();
        long lastStatus = 0;
        while (true) {
            ConsumerRecords<String, String> recs = poll();
            List<ConsumerRecord<String, String>> batch = new ArrayList<>();
            for (ConsumerRecord<String, String> r : recs) {
                batch.add(r);
                synchronized (uncommitted) {
                    uncommitted.add(r);
                }
                Observation o = new Observation("", "polled").msgs(ids(r)).at(r.topic() + "-" + r.partition(), r.offset());
                o.value = r.value();
                lineage(o, r.key(), r.headers());
                AppMain.observe(o);
            }
            if (!batch.isEmpty()) {
                if (spec.commit.equals("before-processing")) commit();
                if (spec.async) {
                    inHand.addAndGet(batch.size());
                    work.addAll(batch);
                } else {
                    for (ConsumerRecord<String, String> r : batch) process(r);
                    if (spec.commit.equals("after-processing")) commit();
                }
            }
            if (spec.async && spec.commit.equals("after-processing") && batchProcessed.getAndSet(false)) commit();
            if (AppMain.nowMs() - lastStatus >= 200) {
                lastStatus = AppMain.nowMs();
                status();
            }
        }
    }

    private ConsumerRecords<String, String> poll() {
        try {
            return consumer.poll(Duration.ofMillis(20));
        } catch (org.apache.kafka.common.KafkaException e) {
            AppMain.observe(new Observation("", "error").err(AppMain.errorName(e)));
            return ConsumerRecords.empty();
        }
    }

    private void commit() {
        try {
            consumer.commitSync();
        } catch (org.apache.kafka.common.KafkaException e) {
            AppMain.observe(new Observation("", "error").err(AppMain.errorName(e)));
        }
    }

    private void process(ConsumerRecord<String, String> r) throws InterruptedException {
        Thread.sleep(spec.processingMs);
        if (sink != null) write(r);
        Observation o = new Observation("", "processed").msgs(ids(r)).at(r.topic() + "-" + r.partition(), r.offset());
        if (sink != null) o.output = spec.sink;
        lineage(o, r.key(), r.headers());
        AppMain.observe(o);
    }

    /**
     * Writes the record to the sink: its identity, key ("" when null) and value, and with
     * commit: with-results the offset to resume at once this row is stored.
     */
    private void write(ConsumerRecord<String, String> r) throws InterruptedException {
        String msg = ids(r).isEmpty() ? "" : ids(r).get(0);
        String offset = withResults ? spec.group + "\t" + r.topic() + "-" + r.partition() + "\t" + (r.offset() + 1) : null;
        sink.write(msg, r.key() == null ? "" : r.key(), r.value(), offset);
    }

    private void startWorker() {
        Thread t = new Thread(() -> {
            try {
                while (true) {
                    ConsumerRecord<String, String> r = work.take();
                    process(r);
                    if (inHand.decrementAndGet() == 0) batchProcessed.set(true);
                }
            } catch (InterruptedException e) {
                // the application stops
            }
        }, "worker");
        t.setDaemon(true);
        t.start();
    }

    /**
     * STATUS idle=… lag=…: nothing in hand, and how far the member is behind the HW (the
     * last stable offset for read_committed: endOffsets answers with the consumer's
     * isolation level). Offsets may have gaps (a transaction's markers): the position
     * moves past them as the fetch returns them (FetchCollector.fetchRecords).
     */
    private void status() {
        long lag = 0;
        try {
            var assigned = consumer.assignment();
            if (!assigned.isEmpty()) {
                Map<TopicPartition, Long> end = consumer.endOffsets(assigned, Duration.ofMillis(500));
                for (TopicPartition tp : assigned) lag += Math.max(0, end.get(tp) - consumer.position(tp, Duration.ofMillis(500)));
            }
        } catch (RuntimeException e) {
            lag = -1; // no answer: not caught up as far as anyone knows
        }
        AppMain.status(inHand.get() == 0, lag, consumer.assignment().size(), joined);
    }

    static List<String> ids(ConsumerRecord<?, ?> r) { return ids(r.headers()); }

    /** The message identity a record carries in its headers, as a list of one (none without it). */
    static List<String> ids(Headers headers) {
        var h = headers.lastHeader(Proxy.MSG_HEADER);
        return h == null ? List.of() : List.of(new String(h.value(), StandardCharsets.UTF_8));
    }

    /**
     * An aggregate's lineage on a consumer's point: with a dl-folds header (FlinkApp's count
     * and sum) the observation gets the record's key and the identities folded into its
     * value, split on ","; without the header it is left as it is.
     */
    static Observation lineage(Observation o, String key, Headers headers) {
        var h = headers.lastHeader(FlinkApp.FOLDS_HEADER);
        if (h == null) return o;
        o.key = key;
        o.folds = folds(new String(h.value(), StandardCharsets.UTF_8));
        return o;
    }

    static Observation lineage(Observation o, byte[] key, Headers headers) {
        return lineage(o, key == null ? null : new String(key, StandardCharsets.UTF_8), headers);
    }

    /** A dl-folds header's identities, in fold order; none for an empty header. */
    static List<String> folds(String header) {
        return header.isEmpty() ? List.of() : List.of(header.split(",", -1));
    }

    /** "assigned": the group's partitions this member got, in the generation it joined. */
    static Observation assigned(String group, int generation, Collection<TopicPartition> partitions) {
        Observation o = new Observation("", "assigned");
        o.group = group;
        o.generation = generation;
        List<String> tps = new ArrayList<>();
        for (TopicPartition tp : partitions) tps.add(tp.topic() + "-" + tp.partition());
        tps.sort(null);
        o.assigned = tps;
        return o;
    }

    /** "offset-committed": the group committed these offsets, which cover these messages. */
    static Observation committed(String group, Map<TopicPartition, OffsetAndMetadata> offsets, List<String> covered) {
        Observation o = new Observation("", "offset-committed").msgs(covered);
        o.group = group;
        List<String> committed = new ArrayList<>();
        offsets.forEach((tp, om) -> committed.add(tp.topic() + "-" + tp.partition() + "=" + om.offset()));
        committed.sort(null);
        o.committed = committed;
        return o;
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            AppMain.observe(assigned(spec.group, consumer.groupMetadata().generationId(), partitions));
            joined = true;
            if (withResults && sink != null) seekToStored(partitions);
        }

        /**
         * Moves each assigned partition to the offset the sink stored with the results,
         * the next record after the last one written. This runs inside poll, on the
         * consumer's thread, before it fetches from the new assignment: where seek belongs.
         * A partition without a stored offset keeps Kafka's usual position (its committed
         * offset, which this application never writes, else auto.offset.reset).
         */
        private void seekToStored(Collection<TopicPartition> partitions) {
            Map<String, Long> stored;
            try {
                stored = sink.readOffsets(spec.group);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the application is stopping: nothing to resume
                return;
            }
            for (TopicPartition tp : partitions) {
                Long offset = stored.get(tp.topic() + "-" + tp.partition());
                if (offset != null) consumer.seek(tp, offset);
            }
        }
    }

    /** Reports each commit Kafka's client says succeeded, with the records it covers. */
    public static final class CommitObserver implements ConsumerInterceptor<String, String> {
        @Override
        public ConsumerRecords<String, String> onConsume(ConsumerRecords<String, String> records) { return records; }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            List<String> covered = new ArrayList<>();
            synchronized (uncommitted) {
                uncommitted.removeIf(r -> {
                    OffsetAndMetadata c = offsets.get(new TopicPartition(r.topic(), r.partition()));
                    if (c == null || r.offset() >= c.offset()) return false;
                    covered.addAll(ids(r));
                    return true;
                });
            }
            String group = AppMain.plan.consumers.stream().filter(c -> c.name.equals(AppMain.launch.name)).findFirst().orElseThrow().group;
            AppMain.observe(committed(group, offsets, covered));
        }

        @Override
        public void close() {}

        @Override
        public void configure(Map<String, ?> configs) {}
    }
}
