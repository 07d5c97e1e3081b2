package io.strata.query;

import io.strata.testsupport.GuardPerClass;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code info}, {@code charts} and {@code chart} against the recorded parent's answers: same
 * fields, order and types; the values our metadata and retention determine (hosts, chart
 * definitions, first entries, dimensions, labels) equal to the recorded ones.
 */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class InfoChartsGoldenTest {

    @TempDir
    static Path dir;
    static RecordedParent parent;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        parent = new RecordedParent(dir);
        server = new TestServer(parent.api);
        parent.clock.set(RecordedParent.LAST + 1);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        parent.close();
    }

    static JsonNode get(String path) throws Exception {
        HttpResponse<String> r = server.get(path);
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        assertEquals("application/json; charset=utf-8", r.headers().firstValue("content-type").orElse(null));
        return Vectors.JSON.readTree(r.body());
    }

    @Test
    void infoListsEveryHostTheEngineHolds() throws Exception {
        JsonNode recorded = Vectors.json("info");
        JsonNode ours = get("/api/v1/info");
        GoldenAssert.sameShape(recorded, ours, "info");
        assertEquals(recorded.get("version"), ours.get("version"));
        assertEquals(recorded.get("uid"), ours.get("uid"));
        assertEquals(recorded.get("mirrored_hosts"), ours.get("mirrored_hosts"));
        for (int i = 0; i < 2; i++) {
            JsonNode r = recorded.get("mirrored_hosts_status").get(i);
            JsonNode o = ours.get("mirrored_hosts_status").get(i);
            for (String f : new String[] {"guid", "hostname", "reachable", "hops", "claim_id", "node_id"}) {
                assertEquals(r.get(f), o.get(f), "mirrored_hosts_status[" + i + "]." + f);
            }
        }
        assertEquals(labels(recorded.get("host_labels")), labels(ours.get("host_labels")));
        assertEquals(collectors(recorded), collectors(ours));
        assertEquals(2, ours.get("hosts-available").asInt());

        JsonNode child = get("/host/ndq-child/api/v1/info");
        JsonNode childRecorded = Vectors.json("host-child-info");
        assertEquals(childRecorded.get("uid"), child.get("uid"));
        assertEquals(childRecorded.get("mirrored_hosts"), child.get("mirrored_hosts"));
        for (String f : new String[] {"os_name", "os_version", "kernel_version", "architecture", "cores_total",
                "ram_total", "total_disk_space", "virtualization", "container"}) {
            assertEquals(childRecorded.get(f), child.get(f), f + " from the child's host labels");
        }
        for (String f : new String[] {"os_id", "os_id_like", "os_version_id", "os_detection", "kernel_name",
                "virt_detection", "container_detection"}) {
            assertEquals(childRecorded.get(f), child.get(f), f + " from the child's handshake");
        }
        // host labels in the order received, as Netdata lists them (not sorted)
        assertEquals(labels(childRecorded.get("host_labels")), labels(child.get("host_labels")));
    }

    private static Set<String> collectors(JsonNode info) {
        Set<String> s = new HashSet<>();
        for (JsonNode c : info.get("collectors")) {
            s.add(c.get("plugin").asText() + "/" + c.get("module").asText());
        }
        return s;
    }

    @Test
    void chartsMatchTheRecordedDefinitionsAndRetention() throws Exception {
        compareCharts(Vectors.json("charts"), get("/api/v1/charts"), RecordedParent.LAST);
    }

    @Test
    void childChartsThroughTheHostPrefix() throws Exception {
        compareCharts(Vectors.json("host-child-charts"), get("/host/ndq-child/api/v1/charts"),
                RecordedParent.CHILD_LAST);
    }

    private static void compareCharts(JsonNode recorded, JsonNode ours, long last) {
        GoldenAssert.sameShape(recorded, ours, "charts");
        for (String f : new String[] {"hostname", "version", "release_channel", "os", "timezone", "update_every",
                "history", "memory_mode", "custom_info", "charts_count", "dimensions_count", "hosts_count", "hosts"}) {
            assertEquals(recorded.get(f), ours.get(f), f);
        }
        assertEquals(GoldenAssert.fieldNames(recorded.get("charts")), GoldenAssert.fieldNames(ours.get("charts")));
        for (Iterator<String> it = recorded.get("charts").fieldNames(); it.hasNext(); ) {
            String id = it.next();
            compareChart(recorded.get("charts").get(id), ours.get("charts").get(id), last);
        }
    }

    private static void compareChart(JsonNode rec, JsonNode mine, long last) {
        String id = rec.get("id").asText();
        GoldenAssert.sameShape(rec, mine, id);
        for (String f : new String[] {"id", "name", "type", "family", "context", "title", "priority", "plugin",
                "module", "units", "data_url", "chart_type", "first_entry", "update_every", "dimensions",
                "functions"}) {
            assertEquals(rec.get(f), mine.get(f), id + "." + f);
        }
        // the recorded answers were taken a second or two before our last stored point
        long first = rec.get("first_entry").asLong();
        long ue = rec.get("update_every").asLong();
        long ours = first + (last - first) / ue * ue;
        assertEquals(ours, mine.get("last_entry").asLong(), id + ".last_entry");
        assertEquals(ours - first + ue, mine.get("duration").asLong(), id + ".duration");
        assertEquals(labels(rec.get("chart_labels")), labels(mine.get("chart_labels")), id + ".chart_labels");
    }

    /** Labels as "name=value" in the order listed: Netdata lists them in the order received. */
    private static List<String> labels(JsonNode n) {
        List<String> m = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : n.properties()) {
            m.add(e.getKey() + "=" + e.getValue().asText());
        }
        return m;
    }

    @Test
    void oneChartByIdOrName() throws Exception {
        HttpResponse<String> r = server.get("/api/v1/chart?chart=system.cpu");
        assertEquals(Vectors.headers("chart-system.cpu").get("cache-control"),
                r.headers().firstValue("cache-control").orElse(null));
        JsonNode recorded = Vectors.json("chart-system.cpu");
        JsonNode ours = Vectors.JSON.readTree(r.body());
        compareChart(recorded, ours, RecordedParent.LAST);
        // the layout too: the same lines up to the retention, which differs by the recording delay
        String[] recLines = Vectors.body("chart-system.cpu").split("\n");
        String[] ourLines = r.body().split("\n");
        for (int i = 0; i < 13; i++) {
            assertEquals(recLines[i], ourLines[i], "line " + i);
        }
        assertTrue(r.body().contains("\t\t\t\t\"iowait\": { \"name\": \"iowait\" }\n\t\t\t},\n"), r.body());
        assertEquals(400, server.get("/api/v1/chart").statusCode());
    }
}
