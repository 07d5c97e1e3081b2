package io.strata.query;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.testsupport.GuardPerClass;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code badge.svg}, {@code weights} and {@code metric_correlations} over HTTP against the recorded
 * parent: Netdata's bytes where the recording pins the answer down (a badge of the recorded
 * values, the weights' "no results" answer), its shapes, headers and error texts elsewhere.
 */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class EndpointsGoldenTest {

    @TempDir
    static Path dir;
    static RecordedParent parent;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        parent = new RecordedParent(dir);
        server = new TestServer(parent.api);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        parent.close();
    }

    static HttpResponse<String> get(String path, long wall) throws Exception {
        parent.clock.set(wall);
        return server.get(path);
    }

    static String header(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    // ---- badge.svg --------------------------------------------------------------------------------

    @Test
    void badgeOfTheRecordedCpuIsTheSumOfItsVisibleDimensions() throws Exception {
        // system.cpu's visible dimensions (not the hidden idle) summed over the last second, drawn
        // as Netdata draws it (BadgeSvgTest holds the drawing to Netdata's recorded bytes)
        double[] last = parent.cpu.get(RecordedParent.LAST);
        double sum = 0;
        for (double v : last) {
            sum += v;
        }
        HttpResponse<String> r = get("/api/v1/badge.svg?chart=system.cpu", RecordedParent.LAST + 1);
        assertEquals(200, r.statusCode());
        assertEquals("image/svg+xml", header(r, "content-type"));
        String value = io.strata.query.api.BadgeSvg.formatValueAndUnit(sum, "percentage", -1);
        assertEquals("81.5%", value);
        assertTrue(r.body().contains(">system.cpu</text>") && r.body().contains(">" + value + "</text>"), r.body());
        assertEquals("no-cache, no-store, must-revalidate", header(r, "cache-control"));
        assertEquals(null, header(r, "refresh"));
    }

    @Test
    void badgeValueIsTheDataApisNewestRow() throws Exception {
        long wall = RecordedParent.LAST + 1;
        HttpResponse<String> data = get("/api/v1/data?chart=system.cpu&dimension=user&after=-60&points=1&format=array",
                wall);
        double user = Vectors.JSON.readTree(data.body()).get(0).asDouble();
        String expected = String.format(java.util.Locale.ROOT, "%.1f%%", user);
        HttpResponse<String> r = get("/api/v1/badge.svg?chart=system.cpu&dimension=user&after=-60&label=cpu+user"
                + "&units=%25&precision=1", wall);
        assertTrue(r.body().contains(">cpu user</text>"), r.body());
        assertTrue(r.body().contains(">" + expected + "</text>"), expected + " in " + r.body());
        // multiplied and divided; the dimensions are the label
        HttpResponse<String> m = get("/api/v1/badge.svg?chart=system.cpu&dimension=user&after=-60&multiply=10&divide=4"
                + "&precision=2", wall);
        String scaled = String.format(java.util.Locale.ROOT, "%.2f%%", user * 10 / 4);
        assertTrue(m.body().contains(">" + scaled + "</text>"), scaled + " in " + m.body());
        assertTrue(m.body().contains(">user</text>"), "the dimensions are the label");
    }

    @Test
    void badgeRefreshAndCaching() throws Exception {
        long wall = RecordedParent.LAST + 1;
        HttpResponse<String> r = get("/api/v1/badge.svg?chart=system.cpu&refresh=auto", wall);
        // auto: the window's length, here one collection interval
        assertEquals("1", header(r, "refresh"));
        assertEquals("no-cache, no-store, must-revalidate", header(r, "cache-control"));
        r = get("/api/v1/badge.svg?chart=system.cpu&refresh=-7", wall);
        assertEquals("7", header(r, "refresh"));
        ZonedDateTime date = ZonedDateTime.parse(header(r, "date"), DateTimeFormatter.RFC_1123_DATE_TIME);
        ZonedDateTime expires = ZonedDateTime.parse(header(r, "expires"), DateTimeFormatter.RFC_1123_DATE_TIME);
        assertEquals(7, expires.toEpochSecond() - date.toEpochSecond());
        // an absolute window may be cached until the refresh
        r = get("/api/v1/badge.svg?chart=system.cpu&after=" + (RecordedParent.LAST - 10) + "&before="
                + RecordedParent.LAST + "&refresh=30", wall);
        assertEquals("public", header(r, "cache-control"));
        assertEquals("30", header(r, "refresh"));
    }

    @Test
    void badgeErrorsAsNetdata() throws Exception {
        long wall = RecordedParent.LAST + 1;
        HttpResponse<String> r = get("/api/v1/badge.svg?chart=no.such&refresh=5", wall);
        assertEquals(200, r.statusCode());
        assertTrue(r.body().contains(">chart not found</text>"), r.body());
        assertTrue(r.body().contains(">-</text>"), r.body());
        assertTrue(r.body().contains("fill=\"#999\""), "a missing value is grey");
        assertEquals(null, header(r, "refresh"));
        // no health engine: no alarm exists
        r = get("/api/v1/badge.svg?chart=system.load&alarm=load_average_1", wall);
        assertEquals(200, r.statusCode());
        assertTrue(r.body().contains(">alarm not found</text>"), r.body());
        r = get("/api/v1/badge.svg?label=x", wall);
        assertEquals(400, r.statusCode());
        assertEquals("No chart id is given at the request.", r.body());
        // data older than 3 collection intervals is not shown, and no refresh is asked for
        r = get("/api/v1/badge.svg?chart=system.cpu&refresh=5", RecordedParent.LAST + 10);
        assertTrue(r.body().contains(">-</text>"), r.body());
        assertEquals(null, header(r, "refresh"));
        // a dimension that does not exist: no value
        r = get("/api/v1/badge.svg?chart=system.cpu&dimension=nothing", wall);
        assertTrue(r.body().contains(">nothing</text>") && r.body().contains(">-</text>"), r.body());
    }

    // ---- weights and metric_correlations ---------------------------------------------------------

    static List<String> keys(JsonNode n) {
        List<String> k = new ArrayList<>();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            k.add(it.next());
        }
        return k;
    }

    @Test
    void weightsWithoutAnomaliesAnswersNetdatasNoResults() throws Exception {
        // the recorded request: the default method is anomaly-rate, and no point is anomalous
        HttpResponse<String> r = get(Vectors.path("weights"), RecordedParent.LAST + 1);
        assertEquals(404, r.statusCode());
        assertEquals(Vectors.body("weights"), r.body());
        assertEquals("application/json; charset=utf-8", header(r, "content-type"));
    }

    @Test
    void volumeWeightsHaveNetdatasShape() throws Exception {
        HttpResponse<String> r = get(Vectors.path("weights-volume"), RecordedParent.LAST + 1);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("public", header(r, "cache-control"));
        JsonNode ours = Vectors.JSON.readTree(r.body());
        JsonNode theirs = Vectors.json("weights-volume");
        assertEquals(keys(theirs), keys(ours));
        assertEquals(keys(theirs.get("statistics")), keys(ours.get("statistics")));
        for (String k : List.of("duration", "points", "baseline_duration", "baseline_points", "group", "method",
                "options")) {
            assertEquals(theirs.get(k), ours.get(k), k);
        }
        assertEquals(ours.get("before").asLong() - 59, ours.get("after").asLong());
        int dims = 0;
        for (Iterator<String> it = ours.get("contexts").fieldNames(); it.hasNext(); ) {
            String ctx = it.next();
            assertTrue(ctx.startsWith("system."), ctx);
            JsonNode c = ours.get("contexts").get(ctx);
            assertEquals(List.of("charts", "weight"), keys(c));
            double sum = 0;
            int n = 0;
            for (JsonNode chart : c.get("charts")) {
                assertEquals(List.of("dimensions", "weight"), keys(chart));
                for (JsonNode w : chart.get("dimensions")) {
                    assertTrue(w.asDouble() >= 0 && w.asDouble() <= 1);
                    sum += w.asDouble();
                    n++;
                    dims++;
                }
            }
            assertEquals(sum / n, c.get("weight").asDouble(), 1e-6, "a context weighs its dimensions' mean");
        }
        assertEquals(dims, ours.get("weighted_dimensions").asInt());
        assertTrue(dims > 0);
    }

    @Test
    void metricCorrelationsHaveNetdatasShape() throws Exception {
        HttpResponse<String> r = get(Vectors.path("metric_correlations"), RecordedParent.LAST + 1);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode ours = Vectors.JSON.readTree(r.body());
        JsonNode theirs = Vectors.json("metric_correlations");
        assertEquals(keys(theirs), keys(ours));
        for (String k : List.of("duration", "points", "baseline_duration", "baseline_points", "group", "method",
                "options")) {
            assertEquals(theirs.get(k), ours.get(k), k);
        }
        int dims = 0;
        for (Iterator<String> it = ours.get("correlated_charts").fieldNames(); it.hasNext(); ) {
            JsonNode chart = ours.get("correlated_charts").get(it.next());
            assertEquals(List.of("context", "dimensions"), keys(chart));
            dims += chart.get("dimensions").size();
        }
        assertEquals(dims, ours.get("correlated_dimensions").asInt());
        assertTrue(ours.get("total_dimensions_count").asInt() >= dims);
    }

    @Test
    void weightsErrorsAsNetdata() throws Exception {
        long wall = RecordedParent.LAST + 1;
        long t = RecordedParent.LAST - 100;
        HttpResponse<String> r = get("/api/v1/weights?after=" + t + "&before=" + t, wall);
        assertEquals(400, r.statusCode());
        assertEquals("{\"error\": \"Invalid selected time-range.\" }", r.body());
        // an absolute window: Netdata marks the answer not cacheable
        assertEquals("no-cache, no-store, must-revalidate", header(r, "cache-control"));
        r = get("/api/v1/metric_correlations?after=-60&points=10", wall);
        assertEquals(400, r.statusCode());
        assertEquals("{\"error\": \"Too few points available, at least 15 are needed.\" }", r.body());
        r = get("/api/v1/metric_correlations?after=-60&contexts=no.such", wall);
        assertEquals(404, r.statusCode());
        assertEquals("{\"error\": \"no results produced.\" }", r.body());
        // unknown methods are ks2
        r = get("/api/v1/weights?method=bogus&after=-60&contexts=system.cpu&options=null2zero", wall);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("ks2", Vectors.JSON.readTree(r.body()).get("method").asText());
        assertFalse(Vectors.JSON.readTree(r.body()).get("options").asText().contains("nonzero"));
    }
}
