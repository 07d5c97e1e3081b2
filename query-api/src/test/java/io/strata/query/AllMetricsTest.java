package io.strata.query;

import io.strata.testsupport.GuardPerClass;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code /api/v1/allmetrics} in its four formats against the recorded parent's answers. */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class AllMetricsTest {

    @TempDir
    static Path dir;
    static RecordedParent parent;
    static TestServer server;

    /** A Prometheus sample line: name, labels, value, optional timestamp. */
    static final Pattern SAMPLE = Pattern.compile(
            "[a-zA-Z_:][a-zA-Z0-9_:]*\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\.)*\",?)*\\} -?[0-9]+(\\.[0-9]+)?( [0-9]+)?");

    @BeforeAll
    static void start() throws Exception {
        parent = new RecordedParent(dir);
        server = new TestServer(parent.api);
        // the allmetrics vectors were taken with 1795263113 as the newest second
        parent.clock.set(RecordedParent.LAST + 1);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        parent.close();
    }

    static String block(String body, String startMarker) {
        int from = body.indexOf(startMarker);
        assertTrue(from >= 0, startMarker);
        int to = body.indexOf("\n\n", from);
        return body.substring(from, to < 0 ? body.length() : to);
    }

    @Test
    void shellPrintsRoundedValuesAndTheVisibleTotal() throws Exception {
        HttpResponse<String> r = server.get("/api/v1/allmetrics?format=shell");
        assertEquals(200, r.statusCode());
        assertEquals(Vectors.headers("allmetrics-shell").get("content-type"),
                r.headers().firstValue("content-type").orElse(null));
        String recorded = Vectors.body("allmetrics-shell");
        // system.cpu holds the recorded values at 1795263113, when the shell vector was taken
        assertEquals(block(recorded, "# chart: system.cpu "), block(r.body(), "# chart: system.cpu "));
        assertTrue(r.body().startsWith("\n# chart: system.idlejitter (name: system.idlejitter)\n"));
        // a dimension stored negated prints its collected (positive) magnitude
        String disk = block(r.body(), "# chart: disk.vda ");
        assertFalse(disk.contains("=\"-"), disk);
        assertEquals(count(recorded, "# chart: "), count(r.body(), "# chart: "));
        // the alarms section follows the charts, as recorded (empty: no health engine)
        assertTrue(recorded.contains("\n# NETDATA ALARMS RUNNING\n"));
        assertTrue(r.body().endsWith("\n# NETDATA ALARMS RUNNING\n"), r.body().substring(r.body().length() - 200));
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void jsonHasEveryChartWithItsNewestValues() throws Exception {
        HttpResponse<String> r = server.get("/api/v1/allmetrics?format=json");
        assertEquals(200, r.statusCode());
        JsonNode recorded = Vectors.json("allmetrics-json");
        JsonNode ours = Vectors.JSON.readTree(r.body());
        assertEquals(GoldenAssert.fieldNames(recorded), GoldenAssert.fieldNames(ours));
        GoldenAssert.sameShape(recorded.get("system.cpu"), ours.get("system.cpu"), "system.cpu");
        assertEquals(RecordedParent.LAST, ours.get("system.cpu").get("last_updated").asLong());
        for (String dim : RecordedParent.CPU_DIMS) {
            GoldenAssert.close(recorded.get("system.cpu").get("dimensions").get(dim).get("value").asDouble(),
                    ours.get("system.cpu").get("dimensions").get(dim).get("value").asDouble(), dim);
        }
        assertTrue(r.body().contains("\"value\": 57.9487200"), "values print with 7 decimals");
    }

    private static List<String> samples(String body) {
        List<String> out = new ArrayList<>();
        for (String line : body.split("\n")) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                assertTrue(SAMPLE.matcher(line).matches(), "not a Prometheus sample: " + line);
                out.add(line);
            }
        }
        return out;
    }

    /** name and labels of the samples whose name contains {@code part}. */
    private static Set<String> series(List<String> samples, String part) {
        Set<String> s = new TreeSet<>();
        for (String line : samples) {
            String key = line.substring(0, line.indexOf('}') + 1);
            if (key.contains(part)) {
                s.add(key);
            }
        }
        return s;
    }

    @Test
    void prometheusNamesLabelsAndValues() throws Exception {
        parent.clock.set(RecordedParent.LAST + 1);
        HttpResponse<String> r = server.get("/api/v1/allmetrics?format=prometheus&server=test1");
        assertEquals(200, r.statusCode());
        assertEquals(Vectors.headers("allmetrics-prometheus").get("content-type"),
                r.headers().firstValue("content-type").orElse(null));
        List<String> ours = samples(r.body());
        List<String> recorded = samples(Vectors.body("allmetrics-prometheus"));
        assertTrue(ours.get(0).startsWith("netdata_info{instance=\"ndq-parent\",application=\"netdata\",version=\"v1.37.1\""));
        for (String part : new String[] {"netdata_system_cpu_percentage_average", "netdata_disk_io_KiB_persec_average",
                "netdata_system_idlejitter_microseconds_lost_persec_average", "chart=\"system.load\""}) {
            assertEquals(series(recorded, part), series(ours, part), part);
        }
        // a first scrape averages over the exporter's 10 s before now, both ends two seconds back and
        // the end one more: LAST − 11 .. LAST − 2, stamped LAST − 2
        String user = ours.stream().filter(l -> l.contains("system.cpu") && l.contains("dimension=\"user\""))
                .findFirst().orElseThrow();
        GoldenAssert.close(Math.round(userAverage(RecordedParent.LAST - 11, RecordedParent.LAST - 2) * 1e7) / 1e7,
                Double.parseDouble(user.split(" ")[1]), "first scrape's average of user");
        assertTrue(user.endsWith(" " + (RecordedParent.LAST - 2) * 1000), user);
    }

    private static double userAverage(long from, long to) {
        double sum = 0;
        for (long t = from; t <= to; t++) {
            sum += parent.cpu.get(t)[5];
        }
        return sum / (to - from + 1);
    }

    @Test
    void prometheusAveragesSinceTheServersLastScrape() throws Exception {
        parent.clock.set(RecordedParent.LAST + 1 - 10);
        server.get("/api/v1/allmetrics?format=prometheus&server=averaging&filter=system.cpu");
        parent.clock.set(RecordedParent.LAST + 1);
        String body = server.get("/api/v1/allmetrics?format=prometheus&server=averaging&filter=system.cpu").body();
        // the 10 s since the last scrape, both ends moved two seconds back and the end one more
        double expected = userAverage(RecordedParent.LAST - 11, RecordedParent.LAST - 2);
        String user = samples(body).stream().filter(l -> l.contains("dimension=\"user\"")).findFirst().orElseThrow();
        double value = Double.parseDouble(user.split(" ")[1]);
        GoldenAssert.close(Math.round(expected * 1e7) / 1e7, value, "10-second average of user");

        // Netdata 1.37.1 puts the units in the name of averages only (prometheus.c): a sum is named
        // by context and source alone, as a real parent answers source=sum
        String sum = server.get("/api/v1/allmetrics?format=prometheus&server=s2&source=sum&filter=system.cpu").body();
        assertTrue(sum.contains("\nnetdata_system_cpu_sum{chart=\"system.cpu\""), sum);
        String sumHelp = server.get("/api/v1/allmetrics?format=prometheus&server=s3&source=sum&filter=system.cpu"
                + "&types=yes").body();
        assertTrue(sumHelp.contains("# TYPE netdata_system_cpu_sum gauge\n"), sumHelp);
        String raw = server.get("/api/v1/allmetrics?format=prometheus&server=raw&source=as-collected&filter=system.cpu"
                + "&timestamps=no").body();
        // collected values are named without units, counters (system.cpu's incremental dimensions)
        // with _total; the value is the newest stored one (Netdata prints the raw collected counter)
        assertTrue(raw.contains("netdata_system_cpu_total{chart=\"system.cpu\",family=\"cpu\",dimension=\"user\"} "
                + "57.9487200\n"), raw);
    }

    /**
     * The recorded parent's {@code help=yes&types=yes} answer line for line (its {@code netdata_info}
     * line aside: labels and the moment): the header's time range and {@code FIRST SEEN}, the
     * loopback client named {@code localhost}, each metric's {@code dt <after> to <before> inclusive}
     * and the value and timestamp of Netdata's exporting window (from the last scrape, both ends
     * two intervals back, the end one more: here the point at LAST − 2).
     */
    @Test
    void prometheusHelpWindowAndValuesAsRecorded() throws Exception {
        parent.clock.set(RecordedParent.LAST + 1);
        String first = server.get(Vectors.path("allmetrics-prometheus-filter") + "&server=first").body();
        assertTrue(first.startsWith("# COMMENT netdata \"ndq-parent\" to FIRST SEEN prometheus \"first\", source "
                + "\"average\", last seen 0 never, time range " + (RecordedParent.LAST + 1 - 10) + " to "
                + (RecordedParent.LAST + 1) + "\n\n"), first);
        // the loopback client's scrapes (the first one may have been made by another test)
        server.get(Vectors.path("allmetrics-prometheus-filter"));
        String again = server.get(Vectors.path("allmetrics-prometheus-filter")).body();
        List<String> ours = new ArrayList<>(List.of(again.split("\n", -1)));
        List<String> recorded = new ArrayList<>(List.of(Vectors.body("allmetrics-prometheus-filter").split("\n", -1)));
        // idle is not in the recorded answers RecordedParent is built from: its value there is made up
        // (100 minus the rest), so its sample line is left out with netdata_info's
        ours.removeIf(l -> l.startsWith("netdata_info{") || l.contains("dimension=\"idle\"}"));
        recorded.removeIf(l -> l.startsWith("netdata_info{") || l.contains("dimension=\"idle\"}"));
        assertEquals(String.join("\n", recorded), String.join("\n", ours));
    }

    @Test
    void prometheusFilterHelpAndTypes() throws Exception {
        HttpResponse<String> r = server.get(Vectors.path("allmetrics-prometheus-filter"));
        String body = r.body();
        List<String> ours = samples(body);
        List<String> recorded = samples(Vectors.body("allmetrics-prometheus-filter"));
        assertEquals(series(recorded, "_average{"), series(ours, "_average{"));
        // the host's configured labels; their order is not kept by the metadata
        String info = ours.get(0);
        assertTrue(info.startsWith("netdata_info{instance=\"ndq-parent\",application=\"netdata\",version=\"v1.37.1\","), info);
        assertTrue(info.contains("_is_ephemeral=\"false\"") && info.contains("_has_unstable_connection=\"false\""), info);
        assertFalse(info.contains("_is_parent"), "labels Netdata derives itself are not exported");
        assertTrue(body.contains("# TYPE netdata_system_cpu_percentage_average gauge\n"), body);
        assertTrue(body.contains("# COMMENT homogeneous chart \"system.cpu\", context \"system.cpu\", family \"cpu\", "
                + "units \"percentage\"\n"), body);
    }

    /** Netdata reads {@code filter=} with its default separators: white space, not the data API's {@code |}. */
    @Test
    void filterIsASpaceSeparatedList() throws Exception {
        JsonNode both = Vectors.JSON.readTree(server.get("/api/v1/allmetrics?format=json&filter=system.cpu%20system.load").body());
        assertEquals(Set.of("system.cpu", "system.load"), keys(both));
        JsonNode piped = Vectors.JSON.readTree(server.get("/api/v1/allmetrics?format=json&filter=system.cpu%7Csystem.load").body());
        assertEquals(Set.of(), keys(piped), "'system.cpu|system.load' is one glob that names no chart");
    }

    private static Set<String> keys(JsonNode object) {
        Set<String> s = new TreeSet<>();
        object.fieldNames().forEachRemaining(s::add);
        return s;
    }

    /** The charts a host's samples name. */
    private static Set<String> charts(List<String> samples, String host) {
        Set<String> s = new TreeSet<>();
        for (String line : samples) {
            int c = line.indexOf("chart=\"");
            if (c >= 0 && line.contains("instance=\"" + host + "\"")) {
                s.add(line.substring(c, line.indexOf('"', c + 7)));
            }
        }
        return s;
    }

    @Test
    void prometheusAllHostsLabelsEachSampleWithItsHost() throws Exception {
        HttpResponse<String> r = server.get("/api/v1/allmetrics?format=prometheus_all_hosts&server=all");
        List<String> ours = samples(r.body());
        List<String> recorded = samples(Vectors.body("allmetrics-prometheus-all-hosts"));
        assertEquals(2, ours.stream().filter(l -> l.startsWith("netdata_info{")).count());
        // every chart Netdata exported for each host (ours may have more: Netdata skips charts without a value yet)
        assertTrue(charts(ours, "ndq-child").containsAll(charts(recorded, "ndq-child")));
        assertEquals(charts(recorded, "ndq-parent"), charts(ours, "ndq-parent"));
        assertEquals(series(recorded, "system_cpu"), series(ours, "system_cpu"));
    }
}
