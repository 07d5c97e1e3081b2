package io.strata.exporting;

import com.sun.net.httpserver.HttpServer;
import io.strata.exporting.prompb.Remote;
import io.strata.exporting.prompb.Types;
import org.xerial.snappy.Snappy;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * A remote-write receiver for tests on 127.0.0.1 (port 0): checks the headers the specification requires,
 * parses each body with snappy and the generated classes, answers the statuses it is told to (then 204),
 * and keeps every accepted sample per series.
 */
final class FakeTarget implements Closeable {

    /** One accepted sample. */
    record Point(long timeMs, double value) {
    }

    private final HttpServer server;
    final Deque<Integer> answers = new ConcurrentLinkedDeque<>();
    /** series (sorted label text) -> samples in arrival order */
    final Map<String, List<Point>> series = new TreeMap<>();
    final List<String> headerProblems = new ArrayList<>();
    int attempts;
    int accepted;

    FakeTarget() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/receive", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            int status;
            synchronized (this) {
                attempts++;
                check(ex.getRequestHeaders().getFirst("Content-Encoding"), "snappy", "Content-Encoding");
                check(ex.getRequestHeaders().getFirst("Content-Type"), "application/x-protobuf", "Content-Type");
                check(ex.getRequestHeaders().getFirst("X-Prometheus-Remote-Write-Version"), "0.1.0", "version");
                check(ex.getRequestHeaders().getFirst("User-Agent"), "Strata/0.1.0", "User-Agent");
                check(ex.getRequestMethod(), "POST", "method");
                Integer next = answers.poll();
                status = next == null ? 204 : next;
                if (status / 100 == 2) {
                    accepted++;
                    Remote.WriteRequest wr = Remote.WriteRequest.parseFrom(Snappy.uncompress(body));
                    for (Types.TimeSeries ts : wr.getTimeseriesList()) {
                        StringBuilder key = new StringBuilder();
                        for (Types.Label l : ts.getLabelsList()) {
                            key.append(l.getName()).append('=').append(l.getValue()).append(',');
                        }
                        List<Point> points = series.computeIfAbsent(key.toString(), k -> new ArrayList<>());
                        for (Types.Sample s : ts.getSamplesList()) {
                            points.add(new Point(s.getTimestamp(), s.getValue()));
                        }
                    }
                }
            }
            byte[] reason = (status / 100 == 2 ? "" : "test says " + status).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status, reason.length == 0 ? -1 : reason.length);
            if (reason.length > 0) {
                ex.getResponseBody().write(reason);
            }
            ex.close();
        });
        server.start();
    }

    private void check(String got, String want, String what) {
        if (!want.equals(got)) {
            headerProblems.add(what + ": " + got);
        }
    }

    int port() {
        return server.getAddress().getPort();
    }

    synchronized Map<String, List<Point>> snapshot() {
        Map<String, List<Point>> copy = new TreeMap<>();
        series.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        return copy;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
