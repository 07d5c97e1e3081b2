package io.strata.query;

import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.testsupport.GuardPerClass;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code allmetrics} parameters, names and label values at 1.37.1's limits, per its
 * {@code web/api/exporters/allmetrics.c} and {@code exporting/prometheus/prometheus.c}: names are
 * cut at {@code PROMETHEUS_ELEMENT_MAX} (256) bytes with every byte but an ASCII letter or digit an
 * underscore; label values at 255 bytes with {@code "}, {@code \} and a newline escaped by a
 * backslash (the escape counted, the cut falling where the bytes end, inside a UTF-8 sequence
 * too); host labels with an empty value are left out; the prefix is written as given and the info
 * metric keeps its {@code netdata_info} name; the data source is read from any of Netdata's six
 * parameter names with its exact values; an unknown format is refused with Netdata's text.
 */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class AllMetricsLimitsTest {

    static final UUID LONG = UUID.fromString("5c0f3a6e-cc1b-11f1-9d2b-02fc00000009");

    @TempDir
    static Path dir;
    static RecordedParent parent;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        parent = new RecordedParent(dir);
        var meta = parent.engine.metadata();
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("empty", "");
        labels.put("k.é", "v\"1");
        meta.upsertHost(new HostInfo(LONG, "h\"" + "x".repeat(300), "linux", "Etc/UTC", 1, labels, Map.of()));
        String longContext = "ctx." + "a".repeat(300);
        meta.upsertChart(new ChartInfo(LONG, "long.chart", "long.chart_name", "Long", "", "\"".repeat(200),
                longContext, "line", 1000, 1, "test.plugin", "", Map.of()));
        int wide = meta.upsertDimension(new DimensionInfo(LONG, "long.chart", "wide", "é".repeat(200),
                "absolute", 1, 1, 0));
        meta.upsertChart(new ChartInfo(LONG, "mixed.chart", "mixed.chart_name", "Mixed", "units", "fam\nily",
                "mixed.ctx", "line", 1000, 1, "test.plugin", "", Map.of()));
        int up = meta.upsertDimension(new DimensionInfo(LONG, "mixed.chart", "up", "up/é", "absolute", 1, 1, 0));
        int down = meta.upsertDimension(new DimensionInfo(LONG, "mixed.chart", "down", "down", "incremental", 1, 1, 0));
        for (long t = RecordedParent.CHILD_LAST - 30; t <= RecordedParent.CHILD_LAST; t++) {
            assertTrue(parent.engine.store(wide, t, 1, 3, StorageNumber.SN_DEFAULT_FLAGS));
            assertTrue(parent.engine.store(up, t, 1, 4, StorageNumber.SN_DEFAULT_FLAGS));
            assertTrue(parent.engine.store(down, t, 1, 5, StorageNumber.SN_DEFAULT_FLAGS));
        }
        server = new TestServer(parent.api);
        parent.clock.set(RecordedParent.CHILD_LAST + 1);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        parent.close();
    }

    private static String get(String query) throws Exception {
        HttpResponse<String> r = server.get("/host/" + LONG + "/api/v1/allmetrics?timestamps=no&" + query);
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    @Test
    void namesAndLabelValuesAreCutAtNetdatasLimits() throws Exception {
        String body = get("format=prometheus&server=limits&filter=long.chart_name");
        // context: 256 bytes of name; family: 128 escaped quotes (the 128th escape reaches 256 bytes);
        // dimension: 127 two-byte letters and the first byte of the 128th (255 bytes); empty units: "_"
        String expected = "netdata_ctx_" + "a".repeat(252) + "__average{chart=\"long.chart_name\",family=\""
                + "\\\"".repeat(128) + "\",dimension=\"" + "é".repeat(127) + "\uFFFD\"} 3.0000000\n";
        assertTrue(body.contains("\n" + expected), body);
        // the hostname is a label value too; a label with an empty value is left out, a name is sanitised
        String hostname = "h\\\"" + "x".repeat(252);
        assertTrue(body.startsWith("netdata_info{instance=\"" + hostname
                + "\",application=\"netdata\",version=\"v1.37.1\",k___=\"v\\\"1\"} 1\n"), body);
        String all = get("format=prometheus_all_hosts&server=limits-all&filter=long.chart_name");
        assertTrue(all.contains("\",instance=\"" + hostname + "\"} 3.0000000\n"), all);
    }

    @Test
    void heterogeneousDimensionNamesAreSanitisedPerByteAndNewlinesEscaped() throws Exception {
        String body = get("format=prometheus&server=hetero&source=as-collected&filter=mixed.chart_name");
        assertTrue(body.contains("\nnetdata_mixed_ctx_up___{chart=\"mixed.chart_name\",family=\"fam\\\nily\"} 4"),
                body);
        assertTrue(body.contains("\nnetdata_mixed_ctx_down_total{chart=\"mixed.chart_name\",family=\"fam\\\nily\"} 5"),
                body);
    }

    @Test
    void helpCommentsPrintNamesAsTheyAre() throws Exception {
        String body = get("format=prometheus&server=help&help=yes&filter=mixed.chart_name");
        assertTrue(body.contains("# COMMENT homogeneous chart \"mixed.chart_name\", context \"mixed.ctx\", family "
                + "\"fam\nily\", units \"units\"\n"), body);
        assertTrue(body.contains("# COMMENT netdata_mixed_ctx_units_average: dimension \"up/é\", value is units"), body);
    }

    @Test
    void prefixIsWrittenAsGivenAndTheInfoMetricKeepsItsName() throws Exception {
        String body = get("format=prometheus&server=prefix&prefix=my.pfx&filter=mixed.chart_name");
        assertTrue(body.startsWith("netdata_info{"), body);
        assertTrue(body.contains("\nmy.pfx_mixed_ctx_units_average{chart=\"mixed.chart_name\""), body);
    }

    @Test
    void dataSourceIsReadUnderEveryNameNetdataAcceptsWithExactValues() throws Exception {
        String sum = get("format=prometheus&server=ds1&filter=mixed.chart_name&data=volume");
        assertTrue(sum.contains("\nnetdata_mixed_ctx_sum{chart=\"mixed.chart_name\""), sum);
        String raw = get("format=prometheus&server=ds2&filter=mixed.chart_name&data%20source=ascollected");
        assertTrue(raw.contains("\nnetdata_mixed_ctx_down_total{"), raw);
        String later = get("format=prometheus&server=ds3&filter=mixed.chart_name&source=sum&datasource=as_collected");
        assertTrue(later.contains("\nnetdata_mixed_ctx_down_total{"), later);
        // an unknown value (Netdata compares case-sensitively) leaves the default, average
        String unknown = get("format=prometheus&server=ds4&filter=mixed.chart_name&source=RAW");
        assertTrue(unknown.contains("\nnetdata_mixed_ctx_units_average{"), unknown);
    }

    @Test
    void chartsAreFilteredByNameForPrometheusAndShell() throws Exception {
        String byId = get("format=prometheus&server=filter&filter=mixed.chart");
        assertFalse(byId.contains("mixed_ctx"), byId);
        assertFalse(get("format=shell&filter=mixed.chart").contains("# chart:"));
        assertTrue(get("format=shell&filter=mixed.chart_name").contains("# chart: mixed.chart (name: mixed.chart_name)"));
        // json matches the id or the name
        assertTrue(get("format=json&filter=mixed.chart").contains("\"mixed.chart\": {"));
    }

    @Test
    void collectedValuesNotCollectedSinceTheServersLastScrapeAreLeftOut() throws Exception {
        String first = get("format=prometheus&server=stale&source=as-collected&filter=mixed.chart_name");
        assertTrue(first.contains("\nnetdata_mixed_ctx_down_total{"), first);
        // the same server again at the same second: nothing was collected since its last scrape
        String again = get("format=prometheus&server=stale&source=as-collected&filter=mixed.chart_name");
        assertFalse(again.contains("mixed_ctx"), again);
    }

    @Test
    void unknownFormatIsRefusedWithNetdatasText() throws Exception {
        HttpResponse<String> r = server.get("/host/" + LONG + "/api/v1/allmetrics?format=xml");
        assertEquals(400, r.statusCode());
        assertEquals("Which format? 'shell', 'prometheus', 'prometheus_all_hosts' and 'json' are currently supported.",
                r.body());
    }

    @Test
    void variablesAddNothingForAHostWithoutCustomHostVariables() throws Exception {
        // 1.37.1 prints only custom host variables (and custom chart variables where health runs)
        // and not even its header comment when there are none
        String plain = get("format=prometheus&server=vars1&help=yes&filter=mixed.chart_name");
        String vars = get("format=prometheus&server=vars2&help=yes&variables=yes&filter=mixed.chart_name");
        assertEquals(plain.substring(plain.indexOf('\n')).replace("vars1", ""),
                vars.substring(vars.indexOf('\n')).replace("vars2", ""));
    }
}
