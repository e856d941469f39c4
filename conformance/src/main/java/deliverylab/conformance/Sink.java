package deliverylab.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A sink of kind table, as the simulator's: every write is a row, so a re-delivered
 * record is a duplicate row. Consumer applications write to it over TCP, one line a
 * write ("W\tid\tmsg\tkey\tvalue", answered "A\tid"), each way delayed by the scene's
 * latency between the consumer and the sink; a crashed sink refuses connections.
 */
final class Sink implements AutoCloseable {
    private final String name;
    private final Network net;
    private final Run.Recorder recorder;
    private final List<String> rows = new ArrayList<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final int port;
    private volatile ServerSocket server;

    Sink(String name, Network net, Run.Recorder recorder) {
        this.name = name;
        this.net = net;
        this.recorder = recorder;
        this.port = Cluster.freePort();
    }

    String name() { return name; }

    int port() { return port; }

    synchronized void start() throws IOException {
        if (server != null) return;
        ServerSocket ss = new ServerSocket();
        ss.setReuseAddress(true);
        ss.bind(new InetSocketAddress("127.0.0.1", port));
        server = ss;
        Thread t = new Thread(() -> accept(ss), "sink-" + name);
        t.setDaemon(true);
        t.start();
    }

    /** The sink crashed: its connections break and new ones are refused; its rows stay. */
    synchronized void crash() {
        close();
    }

    private void accept(ServerSocket ss) {
        while (true) {
            Socket s;
            try {
                s = ss.accept();
            } catch (IOException e) {
                return;
            }
            open.add(s);
            try {
                s.setTcpNoDelay(true);
            } catch (IOException e) {
                // closed already
            }
            Thread t = new Thread(() -> serve(s), "sink-conn-" + name);
            t.setDaemon(true);
            t.start();
        }
    }

    private void serve(Socket s) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
             PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String consumer = in.readLine(); // the first line names the writer
            for (String line; (line = in.readLine()) != null; ) {
                String[] f = line.split("\t", -1);
                long latency = net.latencyMs(consumer, name);
                Thread.sleep(latency);
                if (net.isCut(consumer, name)) continue; // lost on the way
                synchronized (this) {
                    rows.add(f[2]);
                }
                Observation o = new Observation(name, "written").msgs(List.of(f[2]));
                o.output = name;
                recorder.record(o);
                Thread.sleep(net.latencyMs(name, consumer));
                if (net.isCut(name, consumer)) continue;
                out.println("A\t" + f[1]);
            }
        } catch (IOException | InterruptedException e) {
            // the writer went away, or the sink crashed
        }
    }

    synchronized Map<String, Integer> effects() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String r : rows) out.merge(r, 1, Integer::sum);
        return out;
    }

    @Override
    public synchronized void close() {
        try {
            if (server != null) server.close();
        } catch (IOException e) {
            // closed
        }
        server = null;
        for (Socket s : open) {
            try {
                s.close();
            } catch (IOException e) {
                // closed
            }
        }
        open.clear();
    }
}
