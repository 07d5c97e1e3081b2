package io.strata.node.runtime;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Gauge;
import io.strata.node.config.NodeConfig;
import io.strata.micrometer.EmbeddedChild;
import io.strata.micrometer.StrataMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static io.strata.node.runtime.NodeMetersTest.parse;
import static io.strata.node.runtime.NodeMetersTest.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bytes out and replication at {@code /metrics} while a Strata child streams into a parent node:
 * the child's sender and the parent's replication requests count their bytes, and once the
 * child's charts are replicated the parent shows none replicating and no lag.
 */
class StreamMetersTest {

    static final String KEY = "22222222-3333-4444-5555-666666666666";

    @TempDir
    Path tmp;

    @Test
    void bytesOutMoveAndReplicationLagSettlesAtZero() throws Exception {
        Path pconf = Files.createDirectories(tmp.resolve("parent"));
        Files.writeString(pconf.resolve("netdata.conf"), "[global]\n\thostname = parent\n[db]\n\tstorage tiers = 1\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + pconf.resolve("cache") + "\n\tlib = " + pconf.resolve("lib") + "\n");
        Files.writeString(pconf.resolve("stream.conf"), "[stream]\n\tenabled = no\n\n[" + KEY + "]\n\tenabled = yes\n"
                + "\tallow from = *\n");
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try (StrataNode parent = NodeRoles.start(NodeConfig.load(pconf), null)) {
            URI metrics = URI.create("http://127.0.0.1:" + parent.listening().get(0).getPort() + "/metrics");
            Map<String, Double> idle = scrape(http, metrics);
            assertEquals(0, value(idle, "strata_stream_sent_bytes_total{side=\"receiver\"}"));
            assertEquals(0, value(idle, "strata_stream_replication_charts"));
            assertEquals(0, value(idle, "strata_stream_replication_lag_max_seconds"));
            double senderBefore = value(idle, "strata_stream_sent_bytes_total{side=\"sender\"}");

            String streamConf = "[stream]\n\tenabled = yes\n\tdestination = 127.0.0.1:"
                    + parent.listening().get(0).getPort() + "\n\tapi key = " + KEY + "\n";
            try (EmbeddedChild child = EmbeddedChild.open(tmp.resolve("app"), "metered-app", 1, streamConf);
                 StrataMeterRegistry registry = new StrataMeterRegistry(child, "app", Clock.SYSTEM)) {
                AtomicInteger queue = new AtomicInteger(42);
                Gauge.builder("queue.size", queue, AtomicInteger::get).register(registry);
                registry.defineNow();
                child.connect();
                registry.startPublishing();

                Map<String, Double> now = null;
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (System.nanoTime() < deadline) {
                    now = scrape(http, metrics);
                    if (value(now, "strata_stream_children_connected") == 1
                            && value(now, "strata_stream_sent_bytes_total{side=\"receiver\"}") > 0
                            && value(now, "strata_stream_samples_received_total{kind=\"collected\"}") > 0
                            && value(now, "strata_stream_replication_charts") == 0) {
                        break;
                    }
                    Thread.sleep(200);
                }
                assertEquals(1, value(now, "strata_stream_children_connected"));
                // the parent asked the child to replicate its charts (REPLAY_CHART lines)
                assertTrue(value(now, "strata_stream_sent_bytes_total{side=\"receiver\"}") > 0);
                // the child's sender lives in this JVM too: its bytes are the process's
                assertTrue(value(now, "strata_stream_sent_bytes_total{side=\"sender\"}") > senderBefore);
                assertTrue(value(now, "strata_stream_samples_received_total{kind=\"collected\"}") > 0);
                // caught up: live samples flow, nothing replicates, no lag
                assertEquals(0, value(now, "strata_stream_replication_charts"));
                assertEquals(0, value(now, "strata_stream_replication_lag_max_seconds"));
            }
        }
    }

    private static Map<String, Double> scrape(HttpClient http, URI metrics) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        return parse(r.body());
    }
}
