package io.strata.node.runtime;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.node.config.NodeConfig;
import io.strata.streaming.load.LoadGenerator;
import io.strata.streaming.receiver.ReceiverRegistry;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.sender.SenderStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node's meters: read from the receivers' and the engine's own counters (a scrape after
 * ingest and queries shows them moved), and end to end through a running node's {@code /metrics}
 * while synthetic children stream into it.
 */
class NodeMetersTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";

    @TempDir
    Path dir;

    /** Prometheus text format: {@code name{labels} value} per sample line, comments skipped. */
    static Map<String, Double> parse(String text) {
        Map<String, Double> samples = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return samples;
    }

    static double value(Map<String, Double> samples, String key) {
        Double v = samples.get(key);
        assertNotNull(v, () -> key + " is not among " + samples.keySet());
        return v;
    }

    @Test
    void metersFollowTheReceiverAndEngineCounters() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")))) {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            ReceiverStats stats = new ReceiverStats();
            AtomicLong nanos = new AtomicLong(1_000_000_000L);
            NodeMeters meters = new NodeMeters(registry, stats, SenderStats.PROCESS, new ReceiverRegistry(), engine,
                    nanos::get, System::currentTimeMillis);
            Map<String, Double> before = parse(registry.scrape());
            assertEquals(0, value(before, "strata_stream_samples_received_total{kind=\"collected\"}"));
            assertEquals(0, value(before, "strata_stream_children_connected"));
            assertEquals(0, value(before, "strata_stream_replication_charts"));
            assertEquals(0, value(before, "strata_stream_replication_lag_max_seconds"));
            assertEquals(0, value(before, "strata_stream_sent_bytes_total{side=\"receiver\"}"));
            value(before, "strata_stream_sent_bytes_total{side=\"sender\"}");
            assertTrue(Double.isNaN(value(before, "strata_engine_cache_hit_ratio{cache=\"page\"}")));

            // what receivers count: 3000 live and 600 replayed samples, 1 MiB, in 2 s
            stats.samplesCollected.add(3000);
            stats.samplesReplayed.add(600);
            stats.bytesReceived.add(1 << 20);
            stats.bytesSent.add(4096);
            nanos.addAndGet(2_000_000_000L);
            meters.sample();
            assertEquals(1800.0, meters.samplesPerSecond(), 1e-9);

            // the engine: 2 hours of one metric, flushed, then read twice (the second time from the cache)
            UUID host = UUID.randomUUID();
            engine.metadata().upsertHost(new HostInfo(host, "h", "linux", "UTC", 1, Map.of()));
            engine.metadata().upsertChart(new ChartInfo(host, "c.c", "c.c", "t", "u", "f", "c.c", "line", 1, 1,
                    "p", "m", Map.of()));
            int metric = engine.metadata().upsertDimension(new DimensionInfo(host, "c.c", "d", "d", "absolute",
                    1, 1, 0));
            long t0 = 1_700_000_000L;
            for (long t = t0; t < t0 + 7200; t++) {
                if (t < t0 + 1000 || t >= t0 + 1010) { // a hole of 10 s, filled behind the newest point below
                    assertTrue(engine.store(metric, t, 1, t % 100, StorageNumber.SN_DEFAULT_FLAGS));
                }
            }
            int[] hole = new int[10];
            for (int i = 0; i < hole.length; i++) {
                hole[i] = StorageNumber.pack(i, StorageNumber.SN_DEFAULT_FLAGS);
            }
            assertEquals(10, engine.storePast(metric, t0 + 1000, 1, hole, 0, 10));
            assertEquals(0, engine.storePast(metric, t0 + 1000, 1, hole, 0, 10)); // a stored value wins
            engine.flush();
            engine.query(metric, 1, t0, t0 + 3600, 60, (time, sum, min, max, count, anomalies) -> { });
            engine.query(metric, 1, t0, t0 + 3600, 60, (time, sum, min, max, count, anomalies) -> { });

            Map<String, Double> after = parse(registry.scrape());
            assertEquals(3000, value(after, "strata_stream_samples_received_total{kind=\"collected\"}"));
            assertEquals(600, value(after, "strata_stream_samples_received_total{kind=\"replayed\"}"));
            assertEquals(1800, value(after, "strata_stream_samples_received_rate"), 1e-9);
            assertEquals(1 << 20, value(after, "strata_stream_received_bytes_total"));
            assertEquals(4096, value(after, "strata_stream_sent_bytes_total{side=\"receiver\"}"));
            assertTrue(value(after, "strata_engine_pages_flushed_total") > 0);
            assertTrue(value(after, "strata_engine_points_stored_total") >= 7000);
            assertEquals(0, value(after, "strata_engine_flush_queue_pages"));
            double hits = value(after, "strata_engine_cache_lookups_total{cache=\"page\",result=\"hit\"}");
            double misses = value(after, "strata_engine_cache_lookups_total{cache=\"page\",result=\"miss\"}");
            assertTrue(hits > 0 && misses > 0, "hits " + hits + ", misses " + misses);
            assertEquals(hits / (hits + misses), value(after, "strata_engine_cache_hit_ratio{cache=\"page\"}"), 1e-12);
            assertTrue(value(after, "strata_engine_disk_read_bytes_total") > 0);
            assertEquals(10, value(after, "strata_engine_past_points_total{result=\"stored\"}"));
            assertEquals(10, value(after, "strata_engine_past_points_total{result=\"held\"}"));
            assertEquals(0, value(after, "strata_engine_past_runs_lost_total{reason=\"queue.full\"}"));
            assertEquals(0, value(after, "strata_engine_past_runs_lost_total{reason=\"read.failed\"}"));
            assertTrue(value(after, "strata_engine_tier_windows_rebuilt_total") > 0);
            assertEquals(0, value(after, "strata_engine_tier_rebuilds_unrecorded_total"));
            assertTrue(after.containsKey("strata_engine_tier_rebuilds_pending"));
        }
    }

    @Test
    void aRunningNodeServesItsMetersWhileChildrenStream() throws Exception {
        Path base = Files.createDirectories(dir.resolve("node"));
        Files.writeString(base.resolve("netdata.conf"), "[global]\n\thostname = metered-parent\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 2\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + base.resolve("cache") + "\n\tlib = " + base.resolve("lib") + "\n");
        Files.writeString(base.resolve("stream.conf"), "[stream]\n\tenabled = no\n\n"
                + "[" + KEY + "]\n\tenabled = yes\n\tallow from = *\n");
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        ExecutorService load = Executors.newSingleThreadExecutor();
        try (StrataNode node = NodeRoles.start(NodeConfig.load(base), null)) {
            int port = node.listening().get(0).getPort();
            URI metrics = URI.create("http://127.0.0.1:" + port + "/metrics");
            Map<String, Double> idle = scrape(http, metrics);
            assertEquals(0, value(idle, "strata_stream_children_connected"));

            Future<LoadGenerator.Result> run = load.submit(() -> new LoadGenerator().run(new LoadGenerator.Options(
                    "127.0.0.1", port, 2, 100, 10, 4.0, true, KEY, 20, 7)));
            // while they stream: both children connected and samples arriving at some rate (the
            // children stream 4 s from their handshakes, which a busy machine may take seconds to make)
            Map<String, Double> during = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!run.isDone() && System.nanoTime() < deadline) {
                during = scrape(http, metrics);
                if (value(during, "strata_stream_children_connected") == 2
                        && value(during, "strata_stream_samples_received_rate") > 0) {
                    break;
                }
                Thread.sleep(100);
            }
            assertEquals(2, value(during, "strata_stream_children_connected"));
            assertTrue(value(during, "strata_stream_samples_received_rate") > 0);
            LoadGenerator.Result result = run.get(30, TimeUnit.SECONDS);
            assertEquals(2, result.childrenAccepted(), "refusals " + result.refusals());

            HttpResponse<String> data = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/host/load-child-0/api/v1/data?chart=load.chart1&after=-2&points=2")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, data.statusCode(), data.body());

            Map<String, Double> after = scrape(http, metrics);
            assertEquals(2, value(after, "strata_stream_connections_total{outcome=\"accepted\"}"));
            assertTrue(value(after, "strata_stream_samples_received_total{kind=\"collected\"}") > 0);
            assertTrue(value(after, "strata_stream_received_bytes_total") > 0);
            assertEquals(0, value(after, "strata_stream_protocol_errors_total"));
            assertEquals(1, value(after, "strata_query_data_seconds_count"));
            assertTrue(value(after, "strata_http_sent_bytes_total") > value(idle, "strata_http_sent_bytes_total"));
            assertTrue(value(after, "strata_http_received_bytes_total") > value(idle, "strata_http_received_bytes_total"));
            for (String name : Set.of("strata_engine_flush_queue_pages", "strata_engine_page_memory_bytes",
                    "strata_engine_cache_hit_ratio{cache=\"extent\"}", "strata_stream_last_data_age_max_seconds")) {
                value(after, name);
            }
        } finally {
            load.shutdownNow();
        }
    }

    private static Map<String, Double> scrape(HttpClient http, URI metrics) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        return parse(r.body());
    }
}
