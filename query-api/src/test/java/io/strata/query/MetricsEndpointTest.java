package io.strata.query;

import io.strata.testsupport.GuardPerClass;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.strata.query.metrics.ApiMeters;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /metrics} through a real server: the Prometheus text of the context's registry, with the
 * data-query timer, the answers by status class and the HTTP bytes moving as requests are made.
 */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class MetricsEndpointTest {

    @TempDir
    static Path dir;
    static RecordedParent parent;
    static PrometheusMeterRegistry registry;
    static ApiContext api;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        parent = new RecordedParent(dir.resolve("db"));
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        api = new ApiContext(parent.engine, RecordedParent.PARENT, "ndq-parent", null, parent.clock,
                ApiContext.defaultExecutor(2), new ApiMeters(registry));
        server = new TestServer(api);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        api.close();
        parent.close();
    }

    /** Parses Prometheus text format: {@code name{labels} value} per sample line, comments skipped. */
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

    Map<String, Double> scrape() throws Exception {
        HttpResponse<String> r = server.get("/metrics");
        assertEquals(200, r.statusCode());
        assertEquals(ApiMeters.PROMETHEUS_TEXT, r.headers().firstValue("content-type").orElse(null));
        assertEquals("no-cache, no-store, must-revalidate", r.headers().firstValue("cache-control").orElse(null));
        return parse(r.body());
    }

    @Test
    void scrapeShowsDataQueriesAnswersAndBytesMoving() throws Exception {
        Map<String, Double> before = scrape();
        double queries = value(before, "strata_query_data_seconds_count");
        double ok = value(before, "strata_http_responses_total{status=\"2xx\"}");
        double notFound = value(before, "strata_http_responses_total{status=\"4xx\"}");
        double in = value(before, "strata_http_received_bytes_total");
        double out = value(before, "strata_http_sent_bytes_total");

        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = server.get("/api/v1/data?chart=system.cpu&after=-60&points=10&format=json");
            assertEquals(200, r.statusCode());
            assertTrue(r.body().contains("\"labels\""));
        }
        assertEquals(404, server.get("/api/v1/data?chart=no.such&after=-10").statusCode());

        Map<String, Double> after = scrape();
        // the four data requests, the 404 included: latency is measured whatever the answer
        assertEquals(queries + 4, value(after, "strata_query_data_seconds_count"));
        assertTrue(value(after, "strata_query_data_seconds_sum") > value(before, "strata_query_data_seconds_sum"));
        assertTrue(value(after, "strata_query_data_seconds_max") > 0);
        assertTrue(after.containsKey("strata_query_data_seconds{quantile=\"0.99\"}"), after.keySet()::toString);
        // the first scrape's answer is counted once it is written, before the second scrape
        assertEquals(ok + 4, value(after, "strata_http_responses_total{status=\"2xx\"}"));
        assertEquals(notFound + 1, value(after, "strata_http_responses_total{status=\"4xx\"}"));
        // each request line alone is over 40 bytes; each data answer holds ten rows of nine values
        assertTrue(value(after, "strata_http_received_bytes_total") > in + 4 * 40);
        assertTrue(value(after, "strata_http_sent_bytes_total") > out + 3 * 10 * 9 * 2);
    }

    @Test
    void metricsIsOnlyTheRootPath() throws Exception {
        // under a host prefix the name is an ordinary static path (no web directory here: 404)
        assertEquals(404, server.get("/host/ndq-child/metrics").statusCode());
        assertEquals(200, server.get("/metrics?x=1").statusCode());
    }
}
