package deliverylab.conformance;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * The clients a Streams application runs with: Kafka's own KafkaConsumer and
 * KafkaProducer, as DefaultKafkaClientSupplier builds them (bytes in, bytes out), the main
 * consumer and the producer subclassed only to report the protocol points Streams passes
 * through them. Streams calls them from its stream thread; the producer's send callbacks
 * run on the producer's I/O thread.
 */
final class StreamsClients implements KafkaClientSupplier {
    private final Plan.Streams spec;
    private final StreamsApp.Inputs inputs;

    StreamsClients(Plan.Streams spec, StreamsApp.Inputs inputs) {
        this.spec = spec;
        this.inputs = inputs;
    }

    @Override
    public Admin getAdmin(Map<String, Object> config) { return Admin.create(config); }

    /** The stream thread's producer; under exactly_once_v2 a new one after the old was fenced (StreamsProducer.resetProducer). */
    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) { return new ObservedProducer(config); }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) { return new MainConsumer(config); }

    /** The state updater's consumer: a stateless topology has no changelog for it to read. */
    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Makes a client call for Streams; an exception it throws is observed as "error", then Streams handles it. */
    private static <T> T observed(Supplier<T> call) {
        try {
            return call.get();
        } catch (KafkaException e) {
            AppMain.observe(new Observation("", "error").err(ProducerApp.name(e)));
            throw e;
        }
    }

    private static void observed(Runnable call) {
        observed(() -> {
            call.run();
            return null;
        });
    }

    /**
     * The main consumer: "polled" for each record poll returns, "offset-committed" when
     * commitSync returned (at_least_once: TaskExecutor.commitOffsetsOrTransaction commits
     * with it), "assigned" when the group gave it partitions, and the settle check's
     * STATUS, all on the stream thread that owns it (a KafkaConsumer is for one thread).
     */
    private final class MainConsumer extends KafkaConsumer<byte[], byte[]> {
        private volatile boolean joined;
        private long lastStatusMs = -1_000;

        MainConsumer(Map<String, Object> config) { super(config, new ByteArrayDeserializer(), new ByteArrayDeserializer()); }

        @Override
        public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            // (an invalid offset is Streams' to handle: StreamThread.pollRequests resets it)
            ConsumerRecords<byte[], byte[]> records = observed(() -> super.poll(timeout));
            for (ConsumerRecord<byte[], byte[]> r : records) {
                String partition = r.topic() + "-" + r.partition();
                List<String> ids = ConsumerApp.ids(r);
                inputs.polled(partition, r.offset(), ids);
                Observation o = new Observation("", "polled").msgs(ids).at(partition, r.offset());
                o.value = r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8);
                AppMain.observe(o);
            }
            if (AppMain.nowMs() - lastStatusMs >= 200) {
                lastStatusMs = AppMain.nowMs();
                AppMain.status(inputs.idle(), lag(), assignment().size(), joined);
            }
            return records;
        }

        /**
         * How far the consumer is behind the end it can read: the high watermark, or the
         * last stable offset for read_committed, as the last fetch told it
         * (KafkaConsumer.currentLag; no request, so the stream thread is not held up).
         * -1 while a partition's end is not known yet.
         */
        private long lag() {
            long lag = 0;
            for (TopicPartition tp : assignment()) {
                var l = currentLag(tp);
                if (l.isEmpty()) return -1;
                lag += l.getAsLong();
            }
            return lag;
        }

        @Override
        public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            observed(() -> super.commitSync(offsets));
            AppMain.observe(ConsumerApp.committed(spec.name, offsets, inputs.committed(offsets)));
        }

        @Override
        public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
            observed(() -> super.commitSync(offsets, timeout));
            AppMain.observe(ConsumerApp.committed(spec.name, offsets, inputs.committed(offsets)));
        }

        @Override
        public void subscribe(Collection<String> topics, ConsumerRebalanceListener listener) {
            super.subscribe(topics, new Rebalance(listener));
        }

        @Override
        public void subscribe(Pattern pattern, ConsumerRebalanceListener listener) {
            super.subscribe(pattern, new Rebalance(listener));
        }

        /** Streams' own listener (StreamsRebalanceListener), with "assigned" before it runs. */
        private final class Rebalance implements ConsumerRebalanceListener {
            private final ConsumerRebalanceListener streams;

            Rebalance(ConsumerRebalanceListener streams) { this.streams = streams; }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                AppMain.observe(ConsumerApp.assigned(spec.name, groupMetadata().generationId(), partitions));
                joined = true;
                streams.onPartitionsAssigned(partitions);
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) { streams.onPartitionsRevoked(partitions); }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) { streams.onPartitionsLost(partitions); }
        }
    }

    /**
     * The producer: "written" when a record's send is acknowledged (in the callback, on the
     * producer's I/O thread: a crash there halts before that thread can send anything else,
     * EndTxn included); under exactly_once_v2 "offset-committed" and "txn-committed" when
     * commitTransaction returned after sendOffsetsToTransaction (StreamsProducer.commitTransaction
     * makes the two calls), "txn-aborted" when abortTransaction returned. Streams begins a
     * transaction at the first send after a commit (StreamsProducer.maybeBeginTransaction).
     */
    private final class ObservedProducer extends KafkaProducer<byte[], byte[]> {
        private final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(); // sent to the open transaction

        ObservedProducer(Map<String, Object> config) { super(config, new ByteArraySerializer(), new ByteArraySerializer()); }

        @Override
        public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
            List<String> ids = ConsumerApp.ids(record.headers());
            inputs.sending();
            try {
                return sendObserved(record, callback, ids);
            } catch (RuntimeException e) {
                inputs.sent(ids, false); // refused at once (a closed or fenced producer): no callback comes
                throw e;
            }
        }

        private Future<RecordMetadata> sendObserved(ProducerRecord<byte[], byte[]> record, Callback callback, List<String> ids) {
            return super.send(record, (md, e) -> {
                inputs.sent(ids, e == null || e instanceof TransactionAbortedException);
                if (e == null) {
                    Observation o = new Observation("", "written").msgs(ids).at(md.topic() + "-" + md.partition(), md.offset());
                    o.output = record.topic();
                    AppMain.observe(o);
                } else if (!(e instanceof TransactionAbortedException)) {
                    // (a batch an abort discarded is no error of its own: the abort tells)
                    Observation o = new Observation("", "error").msgs(ids).err(ProducerApp.name(e));
                    if (md != null) o.partition = md.topic() + "-" + md.partition();
                    AppMain.observe(o);
                }
                if (callback != null) callback.onCompletion(md, e);
            });
        }

        @Override
        public void initTransactions() {
            observed(() -> super.initTransactions());
        }

        @Override
        public void beginTransaction() {
            super.beginTransaction();
            inputs.transactionOpen(true);
        }

        @Override
        public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group) {
            observed(() -> super.sendOffsetsToTransaction(offsets, group));
            synchronized (this.offsets) {
                this.offsets.putAll(offsets);
            }
        }

        @Override
        public void commitTransaction() {
            observed(() -> super.commitTransaction());
            Map<TopicPartition, OffsetAndMetadata> committed;
            synchronized (offsets) {
                committed = Map.copyOf(offsets);
                offsets.clear();
            }
            List<String> covered = inputs.committed(committed);
            inputs.transactionOpen(false);
            if (!committed.isEmpty()) AppMain.observe(ConsumerApp.committed(spec.name, committed, covered));
            AppMain.observe(new Observation("", "txn-committed").msgs(covered));
        }

        @Override
        public void abortTransaction() {
            observed(() -> super.abortTransaction());
            synchronized (offsets) {
                offsets.clear();
            }
            AppMain.observe(new Observation("", "txn-aborted").msgs(inputs.aborted()));
        }

        /** Closed (Streams replaces a fenced producer): its transaction is no longer this application's to end. */
        @Override
        public void close(Duration timeout) {
            inputs.transactionOpen(false);
            super.close(timeout);
        }
    }
}
