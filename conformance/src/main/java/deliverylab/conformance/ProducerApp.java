package deliverylab.conformance;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A producer application, as the simulator's apps.Producer: it sends its messages one
 * every interval.ms from start.ms on, each with its identity in a record header, and
 * writes down which it was told succeeded or failed. After a restart it resends what it
 * was never told about (on.restart: resend-unacknowledged) or goes on with the next
 * message (continue).
 */
final class ProducerApp {
    private final Plan.Producer spec;
    private final Set<String> told = ConcurrentHashMap.newKeySet();

    ProducerApp(Plan.Producer spec) { this.spec = spec; }

    void run() throws Exception {
        Set<String> sent = new HashSet<>();
        for (String line : AppMain.remembered()) {
            String[] f = line.split(" ", 2);
            if (f[0].equals("sent")) sent.add(f[1]);
            if (f[0].equals("told")) told.add(f[1]);
        }
        List<Plan.Message> todo = new ArrayList<>();
        for (Plan.Message m : spec.messages) {
            boolean resend = spec.onRestart.equals("resend-unacknowledged") && sent.contains(m.id) && !told.contains(m.id);
            if (!sent.contains(m.id) || resend) todo.add(m);
        }
        if (spec.onRestart.equals("resend-unacknowledged")) {
            // What it was not told about first, as the simulator's application does.
            todo.sort((a, b) -> Boolean.compare(!sent.contains(a.id), !sent.contains(b.id)));
        }
        Properties props = new Properties();
        props.putAll(spec.properties);
        props.put("bootstrap.servers", AppMain.launch.bootstrap);
        props.put("client.id", spec.name);
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            if (!AppMain.launch.restarted) {
                producer.partitionsFor(spec.topic); // the metadata a real application has by the time it sends
                AppMain.readyAndWait();
                AppMain.sleepUntil(spec.startMs);
            }
            for (int i = 0; i < todo.size(); i++) {
                Plan.Message m = todo.get(i);
                AppMain.observe(new Observation("", "sent").msgs(List.of(m.id)));
                AppMain.remember("sent " + m.id);
                // An unkeyed message goes to the partition the plan names: round robin, as the
                // scene format defines it (Kafka 3.9's own choice would be sticky, KIP-794).
                Integer partition = m.key.isEmpty() ? m.partition : null;
                ProducerRecord<String, String> rec = new ProducerRecord<>(spec.topic, partition, m.key.isEmpty() ? null : m.key, m.value);
                rec.headers().add(Proxy.MSG_HEADER, m.id.getBytes(StandardCharsets.UTF_8));
                // send() itself blocks while buffer.memory is full, up to max.block.ms.
                var result = producer.send(rec, (md, e) -> outcome(m.id, md, e));
                if (spec.sync) {
                    try {
                        result.get(); // sending: sync
                    } catch (ExecutionException e) {
                        // the callback has told the outcome
                    }
                }
                if (i + 1 < todo.size()) Thread.sleep(spec.intervalMs);
            }
            producer.flush();
            while (told.size() < spec.messages.size() && !allTold()) Thread.sleep(20);
            AppMain.control("DONE");
            Thread.sleep(Long.MAX_VALUE); // idle: the harness ends the run
        }
    }

    private boolean allTold() {
        for (Plan.Message m : spec.messages) if (!told.contains(m.id)) return false;
        return true;
    }

    private void outcome(String id, org.apache.kafka.clients.producer.RecordMetadata md, Exception e) {
        Observation o;
        if (e == null) {
            String tp = md.topic() + "-" + md.partition();
            o = new Observation("", "acked").msgs(List.of(id)).at(tp, md.hasOffset() ? md.offset() : -1);
        } else {
            String err = AppMain.errorName(e);
            o = new Observation("", "failed").msgs(List.of(id)).err(err);
            if (md != null) o.partition = md.topic() + "-" + md.partition();
            // The client's error comes before the application is told, as in the simulator.
            Observation clientErr = new Observation("", "error").msgs(List.of(id)).err(err);
            clientErr.partition = o.partition;
            AppMain.observe(clientErr);
        }
        if (told.add(id)) AppMain.remember("told " + id);
        AppMain.observe(o);
    }
}
