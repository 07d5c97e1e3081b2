package io.strata.query;

import io.strata.testsupport.GuardPerClass;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /api/v1/data} against the recorded parent's answers. Our engine holds system.cpu's
 * recorded values from 1795263051 on, so every answer built from those seconds must carry the
 * recorded numbers; each request is replayed with the clock at the second it was recorded at
 * (the newest row tells). Without {@code jsonwrap} the bodies must be byte for byte Netdata's.
 */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class DataGoldenTest {

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

    static HttpResponse<String> replay(String vector, long wall) throws Exception {
        parent.clock.set(wall);
        HttpResponse<String> r = server.get(Vectors.path(vector));
        assertEquals(Integer.parseInt(Vectors.headers(vector).get("").split(" ")[1]), r.statusCode(),
                vector + ": " + r.body());
        return r;
    }

    /** Bodies and content types equal to the recorded ones, byte for byte. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "data-format-json, 1795263112", "data-format-jsonp, 1795263112", "data-format-csv, 1795263112",
        "data-format-tsv, 1795263112", "data-format-tsv-excel, 1795263112", "data-format-ssv, 1795263112",
        "data-format-ssvcomma, 1795263112", "data-format-datatable, 1795263112",
        "data-format-datasource, 1795263112", "data-format-html, 1795263112", "data-format-markdown, 1795263112",
        "data-format-array, 1795263112", "data-format-csvjsonarray, 1795263112", "data-format-json2, 1795263112",
        "data-format-bogus, 1795263112", "data-default, 1795263113", "data-jsonp-callback, 1795263113",
        "data-datasource-tqx, 1795263113", "data-opt-abs, 1795263113", "data-opt-seconds, 1795263113",
        "data-opt-ms, 1795263113", "data-opt-flip, 1795263113", "data-opt-nonzero, 1795263113",
        "data-opt-null2zero, 1795263113", "data-opt-unaligned, 1795263113", "data-opt-min2max, 1795263113",
        "data-opt-objectrows, 1795263113", "data-opt-google_json, 1795263113", "data-opt-match-ids, 1795263113",
        "data-opt-match-names, 1795263113", "data-opt-selected-tier, 1795263113", "data-opt-raw, 1795263113",
        "data-opt-natural-points, 1795263113", "data-opt-virtual-points, 1795263113",
        "data-opt-all-dimensions, 1795263113", "data-cors-origin, 1795263114", "data-filename, 1795263114",
        "data-timeout, 1795263114",
    })
    void sameBytesAsNetdata(String vector, long wall) throws Exception {
        HttpResponse<String> r = replay(vector, wall);
        assertEquals(Vectors.headers(vector).get("content-type"), r.headers().firstValue("content-type").orElse(null));
        String expected = Vectors.body(vector);
        String actual = r.body();
        if (vector.equals("data-datasource-tqx")) {
            // signed with the chart's last collection second, which the recording does not pin down
            expected = expected.replaceFirst("sig:'\\d+'", "sig:''");
            actual = actual.replaceFirst("sig:'\\d+'", "sig:''");
        }
        assertEquals(expected, actual, vector);
        String disposition = Vectors.headers(vector).get("content-disposition");
        assertEquals(disposition, r.headers().firstValue("content-disposition").orElse(null));
    }

    @Test
    void percentageTotalsTheHiddenDimensionToo() throws Exception {
        // system.cpu's hidden idle makes each row total 100: percentages stay the stored values
        HttpResponse<String> r = replay("data-opt-percentage", 1795263113L);
        JsonNode recorded = Vectors.json("data-opt-percentage");
        JsonNode ours = Vectors.JSON.readTree(r.body());
        assertEquals(60, GoldenAssert.sameRows(recorded, ours, 0, Long.MAX_VALUE));
    }

    /** The wrapper's fields and the rows our data makes comparable. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "data-opt-jsonwrap, 1795263113", "data-opt-jsonwrap+seconds+flip, 1795263113",
        "data-opt-jsonwrap+ms+flip+nonzero, 1795263113", "data-opt-absolute+jsonwrap+nonzero, 1795263113",
        "data-group-average, 1795263114", "data-group-min, 1795263114", "data-group-max, 1795263114",
        "data-group-sum, 1795263114", "data-group-incremental-sum, 1795263114", "data-group-median, 1795263114",
        "data-group-stddev, 1795263114", "data-group-cv, 1795263114", "data-group-ses, 1795263114",
        "data-group-des, 1795263114", "data-group-countif, 1795263114", "data-group-countif-opts, 1795263114",
        "data-group-percentile95, 1795263114", "data-group-trimmed-mean5, 1795263114",
        "data-group-bogus, 1795263114", "data-gtime-10, 1795263114", "data-gtime-0-60pts, 1795263114",
        "data-points-0, 1795263113", "data-no-points, 1795263113", "data-points-more-than-avail, 1795263113",
        "data-dimensions, 1795263113", "data-absolute-after-before, 1795263114", "data-absolute-odd, 1795263114",
        "data-relative-before, 1795263113", "data-future, 1795263113", "data-long-range, 1795263113",
        "data-tier-0, 1795263113", "data-tier-1, 1795263113", "data-tier-2, 1795263113",
        "data-context, 1795263114", "data-context-disk, 1795263114", "data-label, 1795263114",
    })
    void wrapperAndRowsAsNetdata(String vector, long wall) throws Exception {
        HttpResponse<String> r = replay(vector, wall);
        JsonNode recorded = Vectors.json(vector);
        JsonNode ours = Vectors.JSON.readTree(r.body());
        GoldenAssert.sameShape(recorded, ours, vector);
        for (String f : new String[] {"api", "id", "name", "view_update_every", "update_every", "first_entry",
                "before", "after", "group", "options", "dimension_names", "dimension_ids", "functions", "chart_ids",
                "dimensions", "points", "format"}) {
            assertEquals(recorded.get(f), ours.get(f), vector + " " + f);
        }
        assertEquals(RecordedParent.LAST, ours.get("last_entry").asLong());
        long vue = ours.get("view_update_every").asLong();
        boolean cpu = !vector.startsWith("data-context-disk");
        if (cpu) {
            // rows made only of recorded seconds carry the recorded values
            int compared = GoldenAssert.sameRows(recorded.get("result"), ours.get("result"),
                    RecordedParent.CPU_FROM + vue - 1, RecordedParent.LAST);
            boolean inRecordedStretch = ours.get("before").asLong() - vue + 1 >= RecordedParent.CPU_FROM
                    && ours.get("before").asLong() <= RecordedParent.LAST;
            assertTrue(compared > 0 || !inRecordedStretch, vector + ": no row compared");
            // the newest stored values, where the recording had the same newest second as we have
            for (int i = 0; recorded.get("last_entry").asLong() == RecordedParent.LAST
                    && i < recorded.get("latest_values").size(); i++) {
                GoldenAssert.close(recorded.get("latest_values").get(i).asDouble(),
                        ours.get("latest_values").get(i).asDouble(), vector + " latest_values[" + i + "]");
            }
        }
        // before the first stored point every row is null, here as there
        for (int i = 0; i < recorded.get("result").get("data").size(); i++) {
            JsonNode rec = recorded.get("result").get("data").get(i);
            JsonNode mine = ours.get("result").get("data").get(i);
            assertEquals(rec.get(0), mine.get(0), vector + " row " + i + " time");
            if (rec.get(0).asLong() < RecordedParent.FIRST) {
                assertTrue(mine.get(1).isNull(), vector + " row " + rec.get(0) + " should be null");
            }
        }
    }

    @Test
    void tierSelectionReadsTheTierAsked() throws Exception {
        JsonNode t0 = Vectors.JSON.readTree(replay("data-tier-0", 1795263113L).body());
        JsonNode t1 = Vectors.JSON.readTree(replay("data-tier-1", 1795263113L).body());
        assertTrue(t0.get("db_points_per_tier").get(0).asLong() > 0);
        assertEquals(0, t0.get("db_points_per_tier").get(1).asLong());
        assertEquals(0, t1.get("db_points_per_tier").get(0).asLong());
        assertEquals(Vectors.json("data-tier-1").get("db_points_per_tier"), t1.get("db_points_per_tier"));
        // a tier holding nothing yet: Netdata drops selected-tier and keeps the tier's step
        JsonNode t2 = Vectors.JSON.readTree(replay("data-tier-2", 1795263113L).body());
        assertEquals(Vectors.json("data-tier-2").get("options"), t2.get("options"));
    }

    @Test
    void dbPointsPerTierCountWhatWasRead() throws Exception {
        JsonNode ours = Vectors.JSON.readTree(replay("data-opt-jsonwrap", 1795263113L).body());
        assertEquals(Vectors.json("data-opt-jsonwrap").get("db_points_per_tier"), ours.get("db_points_per_tier"));
    }

    @Test
    void childDataThroughTheHostPrefix() throws Exception {
        HttpResponse<String> r = replay("host-child-data", 1795263118L);
        JsonNode recorded = Vectors.json("host-child-data");
        JsonNode ours = Vectors.JSON.readTree(r.body());
        GoldenAssert.sameShape(recorded, ours, "host-child-data");
        for (String f : new String[] {"id", "view_update_every", "first_entry", "before", "after", "points"}) {
            assertEquals(recorded.get(f), ours.get(f), f);
        }
        assertEquals(10, GoldenAssert.sameRows(recorded.get("result"), ours.get("result"), 0, Long.MAX_VALUE));
    }

    @Test
    void nothingMatchedIsNetdatasNotFound() throws Exception {
        for (String v : new String[] {"data-dimensions-nomatch", "data-before-first-entry", "data-missing-chart"}) {
            HttpResponse<String> r = replay(v, 1795263113L);
            assertEquals(Vectors.body(v), r.body(), v);
            assertEquals(Vectors.headers(v).get("content-type"), r.headers().firstValue("content-type").orElse(null));
        }
    }
}
