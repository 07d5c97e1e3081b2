package io.strata.node.attack;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The polling client of {@code strata attack} and HostilePortIT: its windows, failures and percentiles. */
class LatencyPollerTest {

    @Test
    void percentilesAreNearestRank() {
        double[] hundred = new double[100];
        for (int i = 0; i < 100; i++) {
            hundred[i] = i + 1;
        }
        assertEquals(50, LatencyPoller.percentile(hundred, 0.50));
        assertEquals(99, LatencyPoller.percentile(hundred, 0.99));
        assertEquals(7, LatencyPoller.percentile(new double[] {7}, 0.99));
        assertEquals(0, LatencyPoller.percentile(new double[0], 0.99));
        LatencyPoller.Window a = LatencyPoller.Window.of(new double[] {1, 2, 3}, 0, List.of());
        LatencyPoller.Window b = LatencyPoller.Window.of(new double[] {10, 20}, 1, List.of("500"));
        LatencyPoller.Window both = LatencyPoller.Window.merge(List.of(a, b));
        assertEquals(5, both.polls());
        assertEquals(1, both.failures());
        assertEquals(3, both.p50Millis());
        assertEquals(20, both.p99Millis());
        assertEquals(20.0 / 3, both.p99Ratio(a), 1e-9);
    }

    @Test
    void pollsOneUrlAndCountsWhatIsNotA200() throws Exception {
        AtomicInteger served = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/api/v1/data", ex -> {
            int n = served.incrementAndGet();
            byte[] body = "{}".getBytes(StandardCharsets.US_ASCII);
            // every fourth answer fails
            ex.sendResponseHeaders(n % 4 == 0 ? 500 : 200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
        try (LatencyPoller poller = new LatencyPoller(URI.create("http://127.0.0.1:" + server.getAddress().getPort()
                + "/api/v1/data?chart=system.cpu"), Duration.ofMillis(5), Duration.ofMinutes(2)).start()) {
            waitFor(() -> served.get() >= 20);
            LatencyPoller.Window first = poller.window();
            assertTrue(first.polls() >= 19, first.toString());
            assertTrue(first.failures() >= 4, first.toString());
            assertTrue(first.failureSamples().get(0).startsWith("500"), first.toString());
            assertTrue(first.p50Millis() > 0 && first.p50Millis() <= first.p99Millis()
                    && first.p99Millis() <= first.maxMillis(), first.toString());
            int before = served.get();
            waitFor(() -> served.get() >= before + 8);
            LatencyPoller.Window second = poller.window();
            assertTrue(second.polls() >= 7 && second.polls() <= served.get() - first.polls(), second.toString());
            assertTrue(poller.totalFailures() >= first.failures() + second.failures());
        } finally {
            server.stop(0);
        }
    }

    private interface Condition {
        boolean holds();
    }

    private static void waitFor(Condition c) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!c.holds()) {
            if (System.nanoTime() > deadline) {
                fail("not within 60 s");
            }
            Thread.sleep(20);
        }
    }
}
