package deliverylab.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.Socket;
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
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A consumer application, as the simulator's apps.Consumer: poll, (commit), process each
 * record — processing.ms, then a write to the sink — (commit), poll again; with
 * processing: async the records go to a worker and polls go on. Commits are reported
 * when Kafka's client says they succeeded (a ConsumerInterceptor's onCommit, which sees
 * auto-commits too), with the identities of the records they cover.
 */
final class ConsumerApp {
    private final Plan.Consumer spec;
    private KafkaConsumer<String, String> consumer;
    private final LinkedBlockingQueue<ConsumerRecord<String, String>> work = new LinkedBlockingQueue<>();
    private final AtomicInteger inHand = new AtomicInteger();
    private final AtomicBoolean batchProcessed = new AtomicBoolean();
    private SinkWriter sink;
    private volatile boolean joined;

    /** The records poll returned that no commit covers yet, oldest first. */
    private static final List<ConsumerRecord<String, String>> uncommitted = new ArrayList<>();

    ConsumerApp(Plan.Consumer spec) { this.spec = spec; }

    void run() throws Exception {
        Properties props = new Properties();
        props.putAll(spec.properties);
        props.put("bootstrap.servers", AppMain.launch.bootstrap);
        props.put("client.id", spec.name);
        props.put("group.id", spec.group);
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", StringDeserializer.class.getName());
        props.put("interceptor.classes", CommitObserver.class.getName());
        if (spec.sink != null && !spec.sink.isEmpty()) sink = new SinkWriter(spec.name, AppMain.launch.sinkPorts.get(spec.sink));
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
        if (sink != null) sink.write(r);
        Observation o = new Observation("", "processed").msgs(ids(r)).at(r.topic() + "-" + r.partition(), r.offset());
        if (sink != null) o.output = spec.sink;
        AppMain.observe(o);
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

    /** STATUS idle=… lag=…: nothing in hand, and how far the member is behind the HW. */
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
        AppMain.control("STATUS idle=" + (inHand.get() == 0) + " lag=" + lag + " assigned=" + consumer.assignment().size()
            + " joined=" + joined);
    }

    static List<String> ids(ConsumerRecord<String, String> r) {
        var h = r.headers().lastHeader(Proxy.MSG_HEADER);
        return h == null ? List.of() : List.of(new String(h.value(), StandardCharsets.UTF_8));
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            Observation o = new Observation("", "assigned");
            o.group = spec.group;
            o.generation = consumer.groupMetadata().generationId();
            List<String> tps = new ArrayList<>();
            for (TopicPartition tp : partitions) tps.add(tp.topic() + "-" + tp.partition());
            tps.sort(null);
            o.assigned = tps;
            AppMain.observe(o);
            joined = true;
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
            Observation o = new Observation("", "offset-committed").msgs(covered);
            o.group = AppMain.plan.consumers.stream().filter(c -> c.name.equals(AppMain.launch.name)).findFirst().orElseThrow().group;
            List<String> committed = new ArrayList<>();
            offsets.forEach((tp, om) -> committed.add(tp.topic() + "-" + tp.partition() + "=" + om.offset()));
            committed.sort(null);
            o.committed = committed;
            AppMain.observe(o);
        }

        @Override
        public void close() {}

        @Override
        public void configure(Map<String, ?> configs) {}
    }

    /** Writes rows to the sink; a sink that is down refuses, and the write is tried again. */
    private static final class SinkWriter {
        private final String consumer;
        private final int port;
        private Socket socket;
        private PrintWriter out;
        private BufferedReader in;
        private long seq;

        SinkWriter(String consumer, int port) {
            this.consumer = consumer;
            this.port = port;
        }

        void write(ConsumerRecord<String, String> r) throws InterruptedException {
            String msg = ids(r).isEmpty() ? "" : ids(r).get(0);
            while (true) {
                try {
                    if (socket == null) connect();
                    seq++;
                    out.println("W\t" + seq + "\t" + msg + "\t" + (r.key() == null ? "" : r.key()) + "\t" + r.value());
                    if (in.readLine() != null) return;
                    throw new IOException("the sink closed the connection");
                } catch (IOException e) {
                    socket = null;
                    AppMain.observe(new Observation("", "error").msgs(List.of(msg)).err("SINK_UNAVAILABLE"));
                    Thread.sleep(100);
                }
            }
        }

        private void connect() throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
            out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8);
            in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            out.println(consumer);
        }
    }
}
