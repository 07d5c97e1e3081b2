package io.strata.query;

import io.strata.testsupport.GuardPerClass;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code contexts} and {@code context} against the recorded parent's answers. The recorded
 * parent was asked at {@link #RECORDED_NOW} (every context collected, so {@code last_time_t} is
 * that second); with our clock there, the default answers are Netdata's byte for byte.
 */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class ContextsGoldenTest {

    static final long RECORDED_NOW = 1795263118L;
    /** Lines of {@code options=queue} whose values describe Netdata's hub queue, which Strata does not have. */
    static final Set<String> QUEUE_FIELDS = Set.of("queued_reasons", "last_queued", "scheduled_dispatch",
            "last_dequeued", "dispatches", "hub_version", "version", "pp_reasons", "pp_last_queued",
            "pp_last_dequeued", "pp_executed");

    @TempDir
    static Path dir;
    static RecordedParent parent;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        parent = new RecordedParent(dir);
        server = new TestServer(parent.api);
        parent.clock.set(RECORDED_NOW);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        parent.close();
    }

    static HttpResponse<String> ok(String path) throws Exception {
        HttpResponse<String> r = server.get(path);
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        assertEquals("application/json; charset=utf-8", r.headers().firstValue("content-type").orElse(null));
        return r;
    }

    @Test
    void contextsAreNetdatasByteForByte() throws Exception {
        HttpResponse<String> r = ok("/api/v1/contexts");
        assertEquals(Vectors.headers("contexts").get("cache-control"), r.headers().firstValue("cache-control").orElse(null));
        assertEquals(Vectors.body("contexts"), r.body());
    }

    @Test
    void oneContextByDefaultIsNetdatasByteForByte() throws Exception {
        HttpResponse<String> r = ok(Vectors.path("context-system.cpu-default"));
        assertEquals(Vectors.body("context-system.cpu-default"), r.body());
        // ctx= is the short name
        assertEquals(r.body(), ok("/api/v1/context?ctx=system.cpu").body());
    }

    @Test
    void oneContextInFullHasNetdatasLinesBesideUuidsAndHubQueue() throws Exception {
        String ours = ok(Vectors.path("context-system.cpu")).body();
        String[] rec = Vectors.body("context-system.cpu").split("\n", -1);
        String[] mine = ours.split("\n", -1);
        assertEquals(rec.length, mine.length, ours);
        int compared = 0;
        for (int i = 0; i < rec.length; i++) {
            String key = key(rec[i]);
            if (key.equals("uuid") || QUEUE_FIELDS.contains(key)) {
                assertEquals(key, key(mine[i]), "line " + i);
                continue;
            }
            assertEquals(rec[i], mine[i], "line " + i);
            compared++;
        }
        assertTrue(compared > 100, "compared " + compared);
        JsonNode j = Vectors.JSON.readTree(ours);
        assertEquals(parent.engine.metadata().hosts().size(), 2);
        assertTrue(j.get("charts").get("system.cpu").get("dimensions").has("idle"), "hidden dimensions are listed");
    }

    private static String key(String line) {
        String t = line.strip();
        if (!t.startsWith("\"")) {
            return "";
        }
        return t.substring(1, t.indexOf('"', 1));
    }

    @Test
    void contextsInFullMatchTheRecordedContextsChartsAndDimensions() throws Exception {
        JsonNode recorded = Vectors.json("contexts-full");
        JsonNode ours = Vectors.JSON.readTree(ok("/api/v1/contexts?options=full").body());
        assertEquals(GoldenAssert.fieldNames(recorded), GoldenAssert.fieldNames(ours));
        assertEquals(labels(recorded.get("host_labels")), labels(ours.get("host_labels")));
        assertEquals(GoldenAssert.fieldNames(recorded.get("contexts")), GoldenAssert.fieldNames(ours.get("contexts")));
        int dims = 0;
        for (Map.Entry<String, JsonNode> ctx : recorded.get("contexts").properties()) {
            JsonNode rc = ctx.getValue();
            JsonNode oc = ours.get("contexts").get(ctx.getKey());
            assertEquals(GoldenAssert.fieldNames(rc), GoldenAssert.fieldNames(oc), ctx.getKey());
            for (String f : GoldenAssert.fieldNames(rc)) {
                if (!QUEUE_FIELDS.contains(f) && !f.equals("charts")) {
                    assertEquals(rc.get(f), oc.get(f), ctx.getKey() + "." + f);
                }
            }
            assertEquals(GoldenAssert.fieldNames(rc.get("charts")), GoldenAssert.fieldNames(oc.get("charts")));
            for (Map.Entry<String, JsonNode> ch : rc.get("charts").properties()) {
                String where = ctx.getKey() + "/" + ch.getKey();
                JsonNode rch = ch.getValue();
                JsonNode och = oc.get("charts").get(ch.getKey());
                assertEquals(GoldenAssert.fieldNames(rch), GoldenAssert.fieldNames(och), where);
                for (String f : GoldenAssert.fieldNames(rch)) {
                    if (!f.equals("uuid") && !f.equals("labels") && !f.equals("dimensions")) {
                        assertEquals(rch.get(f), och.get(f), where + "." + f);
                    }
                }
                assertEquals(labels(rch.get("labels")), labels(och.get("labels")), where + ".labels");
                // the recorded charts list hides hidden dimensions, so the parent replayed knows fewer
                List<String> recDims = GoldenAssert.fieldNames(rch.get("dimensions"));
                List<String> ourDims = GoldenAssert.fieldNames(och.get("dimensions"));
                List<String> recKnown = new ArrayList<>(recDims);
                recKnown.retainAll(ourDims);
                assertEquals(recKnown, ourDims, where + " dimensions");
                for (String d : ourDims) {
                    JsonNode rd = rch.get("dimensions").get(d);
                    JsonNode od = och.get("dimensions").get(d);
                    assertEquals(GoldenAssert.fieldNames(rd), GoldenAssert.fieldNames(od), where + "." + d);
                    // the replayed parent stores every dimension from its chart's first entry; the
                    // recorded one added some dimensions later (a worker starting, a new interface)
                    boolean sameStart = rd.get("first_time_t").equals(rch.get("first_time_t"));
                    for (String f : GoldenAssert.fieldNames(rd)) {
                        if (!f.equals("uuid") && (sameStart || !f.equals("first_time_t"))) {
                            assertEquals(rd.get(f), od.get(f), where + "." + d + "." + f);
                        }
                    }
                    assertEquals(36, od.get("uuid").asText().length());
                    dims++;
                }
            }
        }
        assertTrue(dims > 500, "dimensions compared: " + dims);
    }

    private static Map<String, String> labels(JsonNode n) {
        Map<String, String> m = new TreeMap<>();
        if (n != null) {
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                m.put(e.getKey(), e.getValue().asText());
            }
        }
        return m;
    }

    @Test
    void errorsAsNetdata() throws Exception {
        HttpResponse<String> none = server.get("/api/v1/context");
        assertEquals(400, none.statusCode());
        assertEquals("No context is given at the request.", none.body());
        HttpResponse<String> unknown = server.get("/api/v1/context?context=no.such.context");
        assertEquals(404, unknown.statusCode());
        assertEquals("", unknown.body());
        assertEquals("application/json; charset=utf-8", unknown.headers().firstValue("content-type").orElse(null));
        // a filter that leaves no chart leaves no context either
        assertEquals(404, server.get("/api/v1/context?context=system.cpu&dimensions=nosuchdim").statusCode());
    }

    @Test
    void afterAndBeforeKeepContextsWithDataInTheWindow() throws Exception {
        JsonNode recorded = Vectors.json("contexts").get("contexts");
        long after = 1795262840L;
        long before = 1795262850L;
        Set<String> expected = new LinkedHashSet<>();
        for (Map.Entry<String, JsonNode> e : recorded.properties()) {
            if (e.getValue().get("first_time_t").asLong() <= before) {
                expected.add(e.getKey());
            }
        }
        assertTrue(expected.size() > 10 && expected.size() < recorded.size(), "a window that splits: " + expected.size());
        JsonNode ours = Vectors.JSON.readTree(ok("/api/v1/contexts?after=" + after + "&before=" + before).body());
        assertEquals(List.copyOf(expected), GoldenAssert.fieldNames(ours.get("contexts")));
        // after alone is taken as given (Netdata converts only when both are set): -600 filters nothing
        JsonNode all = Vectors.JSON.readTree(ok("/api/v1/contexts?after=-600").body());
        assertEquals(recorded.size(), all.get("contexts").size());
    }

    @Test
    void labelAndDimensionFiltersSelectCharts() throws Exception {
        JsonNode byKey = Vectors.JSON.readTree(ok("/api/v1/contexts?chart_label_key=category").body()).get("contexts");
        assertFalse(byKey.isEmpty());
        for (Map.Entry<String, JsonNode> e : byKey.properties()) {
            assertTrue(e.getKey().startsWith("netdata.dictionaries."), e.getKey());
            // a filter lists the charts that passed it
            assertTrue(e.getValue().has("charts"), e.getKey());
        }
        JsonNode byValue = Vectors.JSON.readTree(ok("/api/v1/contexts?options=labels"
                + "&chart_labels_filter=_collect_module:/proc/stat").body()).get("contexts");
        assertTrue(byValue.has("system.cpu"));
        for (Map.Entry<String, JsonNode> e : byValue.properties()) {
            for (JsonNode c : e.getValue().get("charts")) {
                assertEquals("/proc/stat", c.get("labels").get("_collect_module").asText(), e.getKey());
            }
        }
        JsonNode byDim = Vectors.JSON.readTree(ok("/api/v1/contexts?dimensions=iowait|softirq").body()).get("contexts");
        assertTrue(byDim.has("system.cpu"));
        Set<String> dims = new HashSet<>();
        for (JsonNode ctx : byDim) {
            for (JsonNode c : ctx.get("charts")) {
                dims.addAll(GoldenAssert.fieldNames(c.get("dimensions")));
            }
        }
        assertEquals(Set.of("iowait", "softirq"), dims);
    }

    @Test
    void childContextsThroughTheHostPrefix() throws Exception {
        JsonNode ours = Vectors.JSON.readTree(ok("/host/ndq-child/api/v1/contexts").body());
        assertEquals("ndq-child", ours.get("hostname").asText());
        assertEquals(RecordedParent.CHILD.toString(), ours.get("machine_guid").asText());
        Set<String> expected = new LinkedHashSet<>();
        for (JsonNode c : Vectors.json("host-child-charts").get("charts")) {
            expected.add(c.get("context").asText());
        }
        assertEquals(List.copyOf(expected), GoldenAssert.fieldNames(ours.get("contexts")));
        HttpResponse<String> one = ok("/host/" + RecordedParent.CHILD.toString().toUpperCase() + "/api/v1/context?context=system.cpu");
        assertTrue(one.body().startsWith("\n\t\t{\n\t\t\t\"title\":\"Total CPU utilization\""), one.body());
    }

    @Test
    void contextsStopBeingCollectedWhenTheirPointsAge() throws Exception {
        try {
            parent.clock.set(RecordedParent.LAST + 3600);
            JsonNode cpu = Vectors.JSON.readTree(ok("/api/v1/context?context=system.cpu&options=full").body());
            assertFalse(cpu.get("collected").asBoolean());
            assertEquals(RecordedParent.LAST, cpu.get("last_time_t").asLong());
            assertEquals("QUEUED ARCHIVED LIVE_RETENTION ", cpu.get("flags").asText());
            JsonNode user = cpu.get("charts").get("system.cpu").get("dimensions").get("user");
            assertEquals(RecordedParent.LAST, user.get("last_time_t").asLong());
            assertFalse(user.get("deleted").asBoolean());
        } finally {
            parent.clock.set(RECORDED_NOW);
        }
    }
}
