package deliverylab.conformance;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.apache.kafka.common.protocol.Errors;
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
        int transactionsBegun = 0;
        for (String line : AppMain.remembered()) {
            String[] f = line.split(" ", 2);
            if (f[0].equals("sent")) sent.add(f[1]);
            if (f[0].equals("told")) told.add(f[1]);
            if (f[0].equals("txn")) transactionsBegun = Math.max(transactionsBegun, Integer.parseInt(f[1]));
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
        if (spec.transactionSize > 0 && !spec.transactional()) {
            throw new IllegalArgumentException("producer " + spec.name + ": transactionSize " + spec.transactionSize
                + " needs a transactional.id in its properties");
        }
        Properties props = new Properties();
        props.putAll(spec.properties);
        if (spec.transactional()) props.put("transactional.id", AppMain.named(spec.properties.get("transactional.id")));
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
            if (spec.transactionSize == 0) {
                sendAll(producer, todo);
            } else if (!new Transactions(producer, transactionsBegun).run(todo)) {
                // Fenced, or a fatal error: a producer that can do nothing more, told how
                // every send ended. DONE comes first: close() waits for the requests still
                // in flight, up to request.timeout.ms (a fenced zombie's ended a real run
                // 30 s after the simulated one had settled), and nothing it waits for is
                // a message's fate.
                AppMain.control("DONE");
                producer.close();
                Thread.sleep(Long.MAX_VALUE);
            }
            AppMain.control("DONE");
            Thread.sleep(Long.MAX_VALUE); // idle: the harness ends the run
        }
    }

    /** Sends each message on its own, every interval.ms, and waits to be told how each ended. */
    private void sendAll(KafkaProducer<String, String> producer, List<Plan.Message> todo) throws InterruptedException {
        for (int i = 0; i < todo.size(); i++) {
            Plan.Message m = todo.get(i);
            observeSent(m);
            // send() itself blocks while buffer.memory is full, up to max.block.ms.
            var result = producer.send(record(m), (md, e) -> outcome(m.id, md, e));
            if (spec.sync) {
                try {
                    result.get(); // sending: sync
                } catch (ExecutionException e) {
                    // the callback has told the outcome
                }
            }
            if (i + 1 < todo.size()) Thread.sleep(spec.intervalMs);
        }
        // No flush(): the simulated application does not flush after its last send, and a
        // flush makes every batch sendable at once (RecordAccumulator.ready: sendable when
        // flushInProgress()), so the last record and any other batch still lingering would
        // leave before their linger.ms — a real run of a keyed producer with linger.ms 1500
        // sent a batch 500 ms early and the record handed 10 ms before a kill with it.
        while (told.size() < spec.messages.size() && !allTold()) Thread.sleep(20);
    }

    private void observeSent(Plan.Message m) {
        AppMain.observe(new Observation("", "sent").msgs(List.of(m.id)));
        AppMain.remember("sent " + m.id);
    }

    /**
     * The record of a message, its identity in a header. An unkeyed message goes to the
     * partition the plan names: round robin, as the scene format defines it (Kafka 3.9's
     * own choice would be sticky, KIP-794).
     */
    private ProducerRecord<String, String> record(Plan.Message m) {
        Integer partition = m.key.isEmpty() ? m.partition : null;
        ProducerRecord<String, String> rec = new ProducerRecord<>(spec.topic, partition, m.key.isEmpty() ? null : m.key, m.value);
        rec.headers().add(Proxy.MSG_HEADER, m.id.getBytes(StandardCharsets.UTF_8));
        return rec;
    }

    private boolean allTold() {
        for (Plan.Message m : spec.messages) if (!told.contains(m.id)) return false;
        return true;
    }

    private void outcome(String id, RecordMetadata md, Exception e) {
        if (e == null) {
            acked(id, md);
            return;
        }
        String err = AppMain.errorName(e);
        String partition = md == null ? null : md.topic() + "-" + md.partition();
        // The client's error comes before the application is told, as in the simulator.
        clientError(List.of(id), partition, err);
        failed(id, partition, err);
    }

    /** The application is told the message succeeded, where it was written. */
    private void acked(String id, RecordMetadata md) {
        Observation o = new Observation("", "acked").msgs(List.of(id));
        if (md != null) o.at(md.topic() + "-" + md.partition(), md.hasOffset() ? md.offset() : -1);
        tell(id, o);
    }

    /** The application is told the message failed, and why. */
    private void failed(String id, String partition, String err) {
        Observation o = new Observation("", "failed").msgs(List.of(id)).err(err);
        o.partition = partition;
        tell(id, o);
    }

    private void tell(String id, Observation o) {
        if (told.add(id)) AppMain.remember("told " + id);
        AppMain.observe(o);
    }

    /** An error the client reported, about these messages. */
    private static void clientError(List<String> ids, String partition, String err) {
        Observation o = new Observation("", "error").msgs(ids).err(err);
        o.partition = partition;
        AppMain.observe(o);
    }

    /**
     * The transactional producer application (transaction.size): initTransactions() once
     * as it starts — a restarted instance with the same transactional.id bumps the epoch,
     * which fences the old instance and aborts its open transaction
     * (TransactionCoordinator.handleInitProducerId) — then, for each chunk of
     * transactionSize messages in send order, beginTransaction(), the sends, and
     * commitTransaction(), or abortTransaction() for a transaction the scene aborts. The
     * application is told at the end of each transaction: every message acked when the
     * commit returned (KafkaProducer.commitTransaction: by then every send's callback has
     * run, so each has its offset), every message failed TRANSACTION_ABORTED when the
     * abort returned. Errors as KafkaProducer's javadoc handles them: a fenced producer
     * (ProducerFencedException, or InvalidProducerEpochException: a newer epoch wrote to
     * the partition) can only be closed; a timeout of commit or abort is retried, the one
     * operation allowed after it; any other error aborts the transaction.
     */
    private final class Transactions {
        private final KafkaProducer<String, String> producer;
        private int number;

        Transactions(KafkaProducer<String, String> producer, int begunBefore) {
            this.producer = producer;
            this.number = begunBefore; // transactions are numbered across restarts
        }

        /** Runs the transactions; false when the producer was fenced or failed for good. */
        boolean run(List<Plan.Message> todo) throws InterruptedException {
            if (!initTransactions()) return false;
            for (int from = 0; from < todo.size(); from += spec.transactionSize) {
                if (from > 0) Thread.sleep(spec.intervalMs);
                List<Plan.Message> chunk = todo.subList(from, Math.min(todo.size(), from + spec.transactionSize));
                if (!transaction(chunk)) return false;
            }
            return true;
        }

        private boolean initTransactions() {
            try {
                untilNoTimeout(producer::initTransactions);
                return true;
            } catch (KafkaException e) {
                clientError(null, null, name(e));
                return false;
            }
        }

        /** One transaction; false when the producer can do nothing more. */
        private boolean transaction(List<Plan.Message> chunk) throws InterruptedException {
            number++;
            AppMain.remember("txn " + number);
            boolean abort = spec.abortTransactions.contains(number);
            List<String> ids = new ArrayList<>();
            Map<String, RecordMetadata> written = new ConcurrentHashMap<>();
            try {
                producer.beginTransaction();
                for (int i = 0; i < chunk.size(); i++) {
                    Plan.Message m = chunk.get(i);
                    observeSent(m);
                    ids.add(m.id);
                    var result = producer.send(record(m), (md, e) -> {
                        if (e == null) {
                            written.put(m.id, md);
                        } else if (!(e instanceof TransactionAbortedException)) {
                            // (a batch the abort discarded is no error of its own: the abort tells)
                            clientError(List.of(m.id), md == null ? null : md.topic() + "-" + md.partition(), name(e));
                        }
                    });
                    if (spec.sync) {
                        try {
                            result.get(); // sending: sync
                        } catch (ExecutionException e) {
                            // the transaction's end tells the outcome
                        }
                    }
                    if (i + 1 < chunk.size()) Thread.sleep(spec.intervalMs);
                }
                if (abort) {
                    // What was sent reaches the log before the abort, as the commit flushes it
                    // (abortTransaction would discard unsent batches): a read_uncommitted
                    // reader sees the aborted records.
                    producer.flush();
                    untilNoTimeout(producer::abortTransaction);
                    aborted(ids, written, "TRANSACTION_ABORTED");
                    return true;
                }
                untilNoTimeout(producer::commitTransaction);
                for (String id : ids) acked(id, written.get(id));
                AppMain.observe(new Observation("", "txn-committed").msgs(List.copyOf(ids)));
                return true;
            } catch (KafkaException e) {
                String err = name(e);
                clientError(List.copyOf(ids), null, err);
                if (fenced(e)) {
                    aborted(ids, written, Errors.PRODUCER_FENCED.name());
                    return false;
                }
                // Any other error: abort, and the application goes on (KafkaProducer's javadoc).
                try {
                    untilNoTimeout(producer::abortTransaction);
                } catch (KafkaException e2) {
                    clientError(List.copyOf(ids), null, name(e2));
                    aborted(ids, written, fenced(e2) ? Errors.PRODUCER_FENCED.name() : name(e2));
                    return false;
                }
                aborted(ids, written, "TRANSACTION_ABORTED");
                return true;
            }
        }

        /**
         * Makes a call of the transaction API, again after each timeout: "safe to retry",
         * and the only call allowed after it (KafkaProducer.initTransactions,
         * commitTransaction, abortTransaction).
         */
        private void untilNoTimeout(Runnable call) {
            while (true) {
                try {
                    call.run();
                    return;
                } catch (org.apache.kafka.common.errors.TimeoutException e) {
                    clientError(null, null, AppMain.errorName(e));
                }
            }
        }

        /**
         * The application is told each message of a transaction that did not commit
         * failed; after a real abort, "txn-aborted" follows. Like "txn-committed" it is
         * reported when the call returned: the coordinator answers EndTxn once the
         * PrepareAbort (PrepareCommit) is in its log and writes the markers right after
         * (TransactionCoordinator.handleEndTransaction); the runner cannot see them.
         */
        private void aborted(List<String> ids, Map<String, RecordMetadata> written, String err) {
            for (String id : ids) {
                RecordMetadata md = written.get(id);
                failed(id, md == null ? null : md.topic() + "-" + md.partition(), err);
            }
            if (err.equals("TRANSACTION_ABORTED")) AppMain.observe(new Observation("", "txn-aborted").msgs(List.copyOf(ids)));
        }
    }

    /** Whether an error means a newer instance of the transactional id fenced this one. */
    static boolean fenced(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) return true;
        }
        return false;
    }

    /**
     * The Kafka name of an error: the client wraps the cause of a fatal or abortable
     * state in a plain KafkaException ("Cannot execute transactional method because we
     * are in an error state"), which has no name of its own.
     */
    static String name(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.apache.kafka.common.errors.ApiException || t instanceof org.apache.kafka.common.errors.TimeoutException) {
                return AppMain.errorName(t);
            }
        }
        return AppMain.errorName(e);
    }
}
