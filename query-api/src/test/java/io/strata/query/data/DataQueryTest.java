package io.strata.query.data;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;
import io.strata.query.catalog.Catalog;
import io.strata.query.catalog.HostView;
import io.strata.query.http.ApiError;
import io.strata.query.http.QueryString;
import io.strata.query.text.Out;

import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Data queries on an engine whose contents are known exactly: gaps, a 5-second chart, all-zero
 * and hidden dimensions, several charts of one context; each answer checked against values
 * computed from the generator.
 */
class DataQueryTest {

    static final UUID HOST = UUID.fromString("00000000-0000-4000-8000-0000000000aa");
    static final long T0 = 1_700_000_000L;
    /** Seconds stored: T0+1 .. T0+N. */
    static final long N = 3600;
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    static StorageEngine engine;
    static HostView host;
    static int gapsMetric;
    static int slowMetric;

    /** test.gaps/a: t % 10 except every 7th second, which is a gap. */
    static double gapsValue(long t) {
        return t % 7 == 0 ? Double.NaN : t % 10;
    }

    @BeforeAll
    static void fill() throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir));
        engine.metadata().upsertHost(new HostInfo(HOST, "h", "linux", "UTC", 1, Map.of()));
        chart("test.gaps", 1, "ctx.a");
        chart("test.slow", 5, "ctx.b");
        chart("test.pair1", 1, "ctx.pair");
        chart("test.pair2", 1, "ctx.pair");
        int gaps = dim("test.gaps", "a", 0);
        gapsMetric = gaps;
        int zero = dim("test.gaps", "zero", 0);
        int hidden = dim("test.gaps", "hid", DimensionInfo.FLAG_HIDDEN);
        int slow = dim("test.slow", "s", 0);
        slowMetric = slow;
        int p1 = dim("test.pair1", "x", 0);
        int p2 = dim("test.pair2", "x", 0);
        for (long t = T0 + 1; t <= T0 + N; t++) {
            double g = gapsValue(t);
            if (Double.isNaN(g)) {
                engine.storeGap(gaps, t, 1);
            } else {
                engine.store(gaps, t, 1, g, StorageNumber.SN_DEFAULT_FLAGS);
            }
            engine.store(zero, t, 1, 0, StorageNumber.SN_DEFAULT_FLAGS);
            engine.store(hidden, t, 1, 30, StorageNumber.SN_DEFAULT_FLAGS);
            engine.store(p1, t, 1, 1, StorageNumber.SN_DEFAULT_FLAGS);
            engine.store(p2, t, 1, 2, StorageNumber.SN_DEFAULT_FLAGS);
            if (t % 5 == 0) {
                engine.store(slow, t, 5, t % 100, StorageNumber.SN_DEFAULT_FLAGS);
            }
        }
        Catalog c = Catalog.build(engine.metadata(), HOST, "h");
        host = c.local();
    }

    static void chart(String id, int ue, String context) {
        engine.metadata().upsertChart(new ChartInfo(HOST, id, id, id, "u", "f", context, "line", 1, ue, "p", "m",
                Map.of()));
    }

    static int dim(String chart, String id, int flags) {
        return engine.metadata().upsertDimension(new DimensionInfo(HOST, chart, id, id, "absolute", 1, 1, flags));
    }

    @AfterAll
    static void close() throws Exception {
        engine.close();
    }

    static JsonNode query(String q) throws Exception {
        DataRequest req = DataRequest.parse(QueryString.parse(q));
        DataResult r = DataQuery.execute(engine, host, req, T0 + N + 1);
        Out out = new Out();
        DataFormatter.write(r, out, ZoneOffset.UTC);
        return JSON.readTree(out.text());
    }

    static JsonNode queryAt(String q, long now) throws Exception {
        DataRequest req = DataRequest.parse(QueryString.parse(q));
        DataResult r = DataQuery.execute(engine, host, req, now);
        Out out = new Out();
        DataFormatter.write(r, out, ZoneOffset.UTC);
        return JSON.readTree(out.text());
    }

    static double average(long from, long to) {
        double sum = 0;
        int n = 0;
        for (long t = from; t <= to; t++) {
            double v = gapsValue(t);
            if (!Double.isNaN(v)) {
                sum += v;
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    @Test
    void gapsAreNullAndGroupsAverageWhatIsThere() throws Exception {
        JsonNode r = query("chart=test.gaps&dimensions=a&after=-30&points=30&options=jsonwrap|flip");
        JsonNode data = r.get("result").get("data");
        assertEquals(30, data.size());
        for (JsonNode row : data) {
            long t = row.get(0).asLong();
            if (t % 7 == 0) {
                assertTrue(row.get(1).isNull(), "gap at " + t);
            } else {
                assertEquals(t % 10, row.get(1).asDouble(), 0, "at " + t);
            }
        }
        JsonNode grouped = query("chart=test.gaps&dimensions=a&after=-60&points=6&options=jsonwrap");
        for (JsonNode row : grouped.get("result").get("data")) {
            long t = row.get(0).asLong();
            assertEquals(average(t - 9, t), row.get(1).asDouble(), 1e-6, "10 s ending " + t);
        }
        JsonNode zeros = query("chart=test.gaps&dimensions=a&after=-30&points=30&options=null2zero");
        for (JsonNode row : zeros.get("data")) {
            assertTrue(row.get(1).isNumber());
        }
    }

    /**
     * Netdata's tier weights: a tier's weight is how much of the window it covers, less when it
     * holds fewer points there than the rows want; the coarsest of the best answers. 25 rows of 2
     * minutes over a window both tiers cover whole: tier 1 (a point a minute) serves as well as
     * tier 0 and is read, each row the mean of the minute points it gets (the first row also gets
     * the point at its start). Ending after tier 1's last point: tier 0 covers more and is read.
     */
    @Test
    void longWindowsReadTheCoarserTierWhenItServesAsWell() throws Exception {
        // a window aligned to its 2-minute rows, ending at or before tier 1's last point
        long end = engine.registry().lastTime(gapsMetric, 1) / 120 * 120;
        JsonNode r = query("chart=test.gaps&dimensions=a&after=" + (end - 3000) + "&before=" + end
                + "&points=25&options=jsonwrap|flip");
        assertEquals(120, r.get("view_update_every").asLong());
        assertEquals(0, r.get("db_points_per_tier").get(0).asLong(), r.get("db_points_per_tier").toString());
        assertTrue(r.get("db_points_per_tier").get(1).asLong() > 0, r.get("db_points_per_tier").toString());
        boolean firstRow = true;
        for (JsonNode row : r.get("result").get("data")) {
            long t = row.get(0).asLong();
            double expected = firstRow
                    ? (average(t - 179, t - 120) + average(t - 119, t - 60) + average(t - 59, t)) / 3
                    : (average(t - 119, t - 60) + average(t - 59, t)) / 2;
            assertEquals(expected, row.get(1).asDouble(), 1e-4, "2 minutes ending " + t);
            firstRow = false;
        }
        JsonNode newest = query("chart=test.gaps&dimensions=a&after=-3000&points=50&options=jsonwrap");
        assertTrue(newest.get("db_points_per_tier").get(0).asLong() > 0, newest.get("db_points_per_tier").toString());
        assertEquals(0, newest.get("db_points_per_tier").get(1).asLong(), newest.get("db_points_per_tier").toString());
    }

    /** As in Netdata 1.37.1, {@code tier=N} of a tier the database has selects it without {@code selected-tier}. */
    @Test
    void tierParameterAloneSelectsTheTier() throws Exception {
        JsonNode r = query("chart=test.gaps&dimensions=a&after=-600&points=10&tier=1&options=jsonwrap");
        assertEquals(0, r.get("db_points_per_tier").get(0).asLong(), r.get("db_points_per_tier").toString());
        assertTrue(r.get("db_points_per_tier").get(1).asLong() > 0, r.get("db_points_per_tier").toString());
        assertTrue(r.get("id").asText().endsWith(",selected-tier/tier:1"), r.get("id").asText());
        JsonNode beyond = query("chart=test.gaps&dimensions=a&after=-600&points=10&tier=7&options=jsonwrap");
        assertTrue(!beyond.get("id").asText().contains("tier"), beyond.get("id").asText());
    }

    static String text(String q) throws Exception {
        DataRequest req = DataRequest.parse(QueryString.parse(q));
        DataResult r = DataQuery.execute(engine, host, req, T0 + N + 1);
        Out out = new Out();
        DataFormatter.write(r, out, ZoneOffset.UTC);
        return out.text();
    }

    /**
     * The wrapper's id and name as Netdata 1.37.1 writes them into its 255-byte buffer: cut at 254
     * bytes (a real parent answered a long chart's id cut inside "display_absolute") and passed
     * through json_fix_string (quote to apostrophe, backslash to slash).
     */
    @Test
    void theQueryIdIsCutAndFixedAsNetdatasBuffer() throws Exception {
        String dims = "a%7C" + "x".repeat(300);
        JsonNode r = query("chart=test.gaps&dimensions=" + dims + "&after=-10&points=10&options=jsonwrap");
        String id = r.get("id").asText();
        assertEquals(254, id.length(), id);
        // Netdata keeps the dimensions as its pattern buffer holds them, each after a '|'
        assertEquals("chart://host:h/instance:test.gaps/dimensions:|a|" + "x".repeat(254 - 48), id);
        assertEquals(id, r.get("name").asText());
        JsonNode odd = query("chart=test.gaps&dimensions=a%7C%22b%5Cc%22&after=-10&points=10&options=jsonwrap");
        assertTrue(odd.get("id").asText().startsWith("chart://host:h/instance:test.gaps/dimensions:|a|'b/c'/after:-10/"),
                odd.get("id").asText());
    }

    /**
     * {@code google_json} with {@code jsonwrap}: Netdata 1.37.1 writes the wrapper's keys without
     * quotes and its strings between apostrophes (as a real parent answered), the rows as before.
     */
    @Test
    void theGoogleJsonWrapperHasBareKeysAndApostrophes() throws Exception {
        String w = text("chart=test.gaps&dimensions=a&after=-10&points=2&options=jsonwrap%7Cgoogle_json");
        assertTrue(w.startsWith("{\n   api: 1,\n   id: 'chart://host:h/instance:test.gaps/dimensions:|a/after:-10/before:0/"
                + "points:2/group:average/options:jsonwrap,google_json',\n   name: 'chart://"), w);
        assertTrue(w.contains(",\n   group: 'average',\n   options: 'jsonwrap,google_json,natural-points',\n"
                + "   dimension_names: ['a'],\n   dimension_ids: ['a'],\n   functions: [],\n   latest_values: ["), w);
        assertTrue(w.contains("\n   format: 'json',\n   db_points_per_tier: [ "), w);
        assertTrue(w.contains("\n   result: {\n \"labels\": [\"time\",\"a\"],"), w);
        assertTrue(w.matches("(?s).*\n min: [0-9.]+,\n max: [0-9.]+\n}\n"), w);
        String csv = text("chart=test.gaps&dimensions=a&after=-10&points=2&format=csv&options=jsonwrap%7Cgoogle_json");
        assertTrue(csv.contains("\n   result: 'time,a\\n"), csv);
        assertTrue(csv.matches("(?s).*',\\n min: [0-9.]+,\n max: [0-9.]+\n}\n"), csv);
    }

    /**
     * Netdata 1.37.1 writes a csv/tsv header only from the first shown dimension: without one (a
     * percentage query whose pattern matches nothing), the line end alone.
     */
    @Test
    void aTextFormatWithoutShownDimensionsHasAnEmptyHeader() throws Exception {
        assertEquals("\r\n", text("chart=test.gaps&dimensions=no-such-dimension&after=-10&points=5&options=percentage&format=tsv"));
        assertEquals("\r\n", text("chart=test.gaps&dimensions=no-such-dimension&after=-10&points=5&options=percentage&format=csv"));
        assertEquals("\r\n\r\n", text("chart=test.gaps&dimensions=no-such-dimension&after=-10&points=5&options=percentage&format=markdown"));
        assertTrue(text("chart=test.gaps&dimensions=a&after=-10&points=5&format=tsv").startsWith("time\ta\r\n"));
    }

    /**
     * {@code dimensions=*} is a pattern to Netdata 1.37.1 (its "|*" is not the bare "*" it treats as
     * none): every dimension it matches is selected and marked non-zero, hidden ones shown, so
     * {@code nonzero} drops none (a real parent kept a disk's all-zero "reserved for root").
     */
    @Test
    void aPatternMatchingEverythingSelectsEveryDimensionAsNetdata() throws Exception {
        JsonNode r = query("chart=test.gaps&dimensions=*&after=-10&points=5&options=nonzero");
        assertEquals("[\"time\",\"a\",\"zero\",\"hid\"]", r.get("labels").toString());
        JsonNode none = query("chart=test.gaps&after=-10&points=5&options=nonzero");
        assertEquals("[\"time\",\"a\"]", none.get("labels").toString());
    }

    /** {@code all-dimensions}: the wrapper lists every dimension and chart of the target, as Netdata 1.37.1. */
    @Test
    void allDimensionsListsTheWholeTarget() throws Exception {
        JsonNode r = query("chart=test.gaps&dimensions=a&after=-10&points=10&options=jsonwrap|all-dimensions");
        assertEquals("[[\"a\",\"a\"],[\"zero\",\"zero\"],[\"hid\",\"hid\"]]", r.get("full_dimension_list").toString());
        assertEquals("[[\"test.gaps\",\"test.gaps\"]]", r.get("full_chart_list").toString());
        assertEquals("[]", r.get("full_chart_labels").toString());
        java.util.List<String> keys = new java.util.ArrayList<>();
        r.fieldNames().forEachRemaining(keys::add);
        assertEquals(keys.indexOf("dimension_ids") + 1, keys.indexOf("full_dimension_list"), keys.toString());
        assertEquals(keys.indexOf("full_chart_labels") + 1, keys.indexOf("functions"), keys.toString());
    }

    /**
     * A pattern matching nothing is a 404, unless {@code percentage} keeps every dimension in the
     * query (hidden): then Netdata 1.37.1 answers "no data", and an array of nulls.
     */
    @Test
    void percentageWithAPatternMatchingNothingAnswersNoData() throws Exception {
        assertThrows(ApiError.class, () -> query("chart=test.gaps&dimensions=nothing&after=-10&points=5"));
        JsonNode r = query("chart=test.gaps&dimensions=nothing&after=-10&points=5&options=percentage");
        assertEquals("[\"time\",\"no data\"]", r.get("labels").toString());
        assertEquals(0, r.get("data").size());
        JsonNode a = query("chart=test.gaps&dimensions=nothing&after=-10&points=5&options=percentage&format=array");
        assertEquals("[null,null,null,null,null]", a.toString());
    }

    /**
     * The datatable of a query that shows no dimension, as the json one: Netdata 1.37.1 writes both
     * with {@code rrdr2json}, which adds a "no data" column and no row.
     */
    @Test
    void aDataTableShowingNoDimensionHasANoDataColumnAndNoRow() throws Exception {
        JsonNode t = query("chart=test.gaps&dimensions=nothing&after=-10&points=1&options=percentage&format=datatable");
        assertEquals(4, t.get("cols").size(), t.toString());
        assertEquals("{\"id\":\"\",\"label\":\"no data\",\"pattern\":\"\",\"type\":\"number\"}",
                t.get("cols").get(3).toString());
        assertEquals(0, t.get("rows").size(), t.toString());
    }

    /**
     * min2max as Netdata's {@code rrdr2value}: min and max start from 0 and the first cell, so one
     * positive dimension gives its value (not 0); an empty cell counts as 0 in them.
     */
    @Test
    void min2maxStartsFromZero() throws Exception {
        JsonNode r = query("chart=test.slow&after=-20&points=2&options=min2max&format=array");
        JsonNode plain = query("chart=test.slow&after=-20&points=2&format=array");
        assertEquals(plain.toString(), r.toString());
        assertTrue(r.get(0).asDouble() > 0, r.toString());
    }

    /** The wrapper and the query id as Netdata 1.37.1 writes them. */
    @Test
    void wrapperNamesAsNetdata() throws Exception {
        JsonNode md = query("chart=test.gaps&after=-10&points=2&format=markdown&options=jsonwrap");
        assertEquals("unknown", md.get("format").asText(), "markdown has no name in 1.37.1's wrapper");
        JsonNode cja = query("chart=test.gaps&after=-10&points=2&format=csvjsonarray&options=jsonwrap|seconds");
        assertEquals("unknown", cja.get("format").asText());
        String csv = query("chart=test.gaps&after=-10&points=2&format=csv&options=jsonwrap").get("result").asText();
        assertTrue(csv.startsWith("time,a,zero\n2"), "wrapped csv lines end with \\n alone: " + csv);
        JsonNode tm = query("chart=test.gaps&after=-10&points=2&group=trimmed-median&options=jsonwrap");
        assertEquals("trimmed-median5", tm.get("group").asText());
        assertTrue(tm.get("id").asText().contains("/group:trimmed-median5/"), tm.get("id").asText());
        assertEquals("percentile95", query("chart=test.gaps&after=-10&points=2&group=percentile&options=jsonwrap")
                .get("group").asText());
        JsonNode tier = query("chart=test.gaps&after=-10&points=2&options=jsonwrap|selected-tier&gtime=1");
        assertTrue(tier.get("id").asText().endsWith("/options:jsonwrap,selected-tier/tier:0"), tier.get("id").asText());
    }

    @Test
    void unalignedRowsEndAtTheDatabaseEnd() throws Exception {
        JsonNode r = query("chart=test.gaps&dimensions=a&after=-60&points=6&options=jsonwrap|unaligned");
        assertEquals(T0 + N, r.get("before").asLong());
        for (JsonNode row : r.get("result").get("data")) {
            long t = row.get(0).asLong();
            assertEquals(average(t - 9, t), row.get(1).asDouble(), 1e-6, "10 s ending " + t);
        }
    }

    @Test
    void slowChartsCountInTheirOwnInterval() throws Exception {
        JsonNode r = query("chart=test.slow&after=-100&points=10&options=jsonwrap");
        assertEquals(5, r.get("update_every").asLong());
        assertEquals(10, r.get("view_update_every").asLong());
        for (JsonNode row : r.get("result").get("data")) {
            long t = row.get(0).asLong();
            assertEquals(((t - 5) % 100 + t % 100) / 2.0, row.get(1).asDouble(), 1e-6, "at " + t);
        }
    }

    /**
     * A chart collected every 5 s asked for 25 rows over 50 s (rows 2 s apart, finer than its
     * points): as Netdata 1.37.1, every row has a value: the points ending since the previous row
     * plus the value at the row's end, interpolated between the two points around it.
     */
    @Test
    void fiveSecondChartAskedForFinerRowsInterpolatesBetweenItsPoints() throws Exception {
        long before = T0 + N - 10;
        JsonNode v = query("chart=test.slow&after=" + (before - 50) + "&before=" + before
                + "&points=25&options=jsonwrap|flip");
        assertEquals(2, v.get("view_update_every").asLong());
        JsonNode data = v.get("result").get("data");
        assertEquals(25, data.size());
        long firstPoint = (before - 50 + 1) / 5 * 5; // the point at or before the window's first second
        for (int i = 0; i < data.size(); i++) {
            JsonNode row = data.get(i);
            long e = row.get(0).asLong();
            assertTrue(row.get(1).isNumber(), "row " + e + " is null: " + data);
            // the first row also gets the point at the window's start; every other row is the value at its end
            double expected = i == 0 ? (firstPoint % 100 + e % 100) / 2.0 : e % 100;
            assertEquals(expected, row.get(1).asDouble(), 1e-6, "row ending " + e);
        }
        // rows 3 s apart over the last 30 s
        JsonNode three = query("chart=test.slow&after=" + (before - 30) + "&before=" + before
                + "&points=10&options=jsonwrap|flip");
        assertEquals(3, three.get("view_update_every").asLong());
        JsonNode rows3 = three.get("result").get("data");
        for (int i = 1; i < rows3.size(); i++) {
            long e = rows3.get(i).get(0).asLong();
            assertEquals(e % 100, rows3.get(i).get(1).asDouble(), 1e-6, "row ending " + e);
        }
    }

    /**
     * A window narrower than a point of the chart (3 s of a 5 s chart): no tier holds a whole
     * point inside it, and Netdata still answers from tier 0, interpolated (a real parent answers
     * a 10 s chart's 5 s window so).
     */
    @Test
    void windowNarrowerThanAPointStillAnswers() throws Exception {
        long before = T0 + N - 20;
        JsonNode r = query("chart=test.slow&after=" + (before - 3) + "&before=" + before + "&points=3&options=jsonwrap|flip");
        JsonNode data = r.get("result").get("data");
        assertEquals(3, data.size(), data.toString());
        for (JsonNode row : data) {
            long e = row.get(0).asLong();
            assertEquals(e % 100, row.get(1).asDouble(), 1e-6, "row ending " + e + ": " + data);
        }
    }

    /**
     * One row narrower than a point of every tier (a 1 s window, {@code points=1}, on a 5 s chart
     * whose tier 1 holds points before the window and tier 2 none): every tier weighs
     * {@code -LONG_MAX}, so Netdata 1.37.1's {@code query_metric_best_tier_for_timeframe} picks the
     * last tier; {@code query_plan} adds tier 1 and tier 0 after it, glibc's merge sort puts tier 1
     * first (the comparator never says "equal"), and at the only row's end the plan cannot move on
     * to tier 0 (it ends there: {@code query_planer_next_plan} keeps the current plan), so the row
     * reads tier 1 after its last point: null, as a real Netdata parent answers. With two rows the
     * plan moves on to tier 0 at the first row and both rows have values. Both cases were seen as
     * differences from a real Netdata parent.
     */
    @Test
    void oneRowNarrowerThanEveryTierStaysOnTheTierBeforeIt() throws Exception {
        long before = T0 + N - 20;
        long lastTier1 = engine.registry().lastTime(slowMetric, 1);
        assertTrue(engine.registry().firstTime(slowMetric, 1) != MetricRegistry.NO_TIME
                && lastTier1 < before - 1, "tier 1 holds points before the window: " + lastTier1);
        assertEquals(MetricRegistry.NO_TIME, engine.registry().firstTime(slowMetric, 2),
                "tier 2 holds nothing");
        JsonNode one = query("chart=test.slow&after=" + (before - 1) + "&before=" + before + "&points=1&options=jsonwrap");
        JsonNode data = one.get("result").get("data");
        assertEquals(1, data.size(), data.toString());
        assertEquals(before, data.get(0).get(0).asLong(), data.toString());
        assertTrue(data.get(0).get(1).isNull(), data.toString());
        JsonNode two = query("chart=test.slow&after=" + (before - 3) + "&before=" + before + "&points=2&options=jsonwrap");
        JsonNode rows = two.get("result").get("data");
        assertEquals(2, rows.size(), rows.toString());
        for (JsonNode row : rows) {
            assertTrue(row.get(1).isNumber(), rows.toString());
        }
        // tier 1 holding points only after the window: the plan is tier 1 alone, whose storage query
        // finds no page overlapping the window, so every row is null (a real parent answered a 2 s
        // window of system.load so, three null rows)
        long early = T0 + 52;
        assertTrue(engine.registry().firstTime(slowMetric, 1) > early, "tier 1 starts after the window");
        JsonNode ahead = query("chart=test.slow&after=" + (early - 2) + "&before=" + early + "&points=3");
        JsonNode nulls = ahead.get("data");
        assertEquals(3, nulls.size(), nulls.toString());
        for (JsonNode row : nulls) {
            assertTrue(row.get(1).isNull(), nulls.toString());
        }
    }

    /**
     * One row narrower than a point of every tier, inside tier 1's retention (tier 1 holds points
     * on both sides of the window): the plan is tier 1 over the window (as above), and 1.37.1's
     * storage query finds the page holding the tier-1 points around it, so the row is the tier-1
     * point that covers it (its average), not tier 0's value. Which tier-1 point a parent holds
     * there depends on where its tier-1 retention starts: a parent that holds a chart from later
     * has no tier-1 point covering such a window, and answers null.
     */
    @Test
    void oneRowInsideTierOneRetentionIsTheTierOnePointCoveringIt() throws Exception {
        long tierStep = 300;
        long firstTier1 = engine.registry().firstTime(slowMetric, 1);
        long point = (firstTier1 / tierStep + 3) * tierStep;
        long before = point - 100;
        assertTrue(engine.registry().lastTime(slowMetric, 1) > point, "tier 1 holds points after the window");
        JsonNode one = query("chart=test.slow&after=" + (before - 1) + "&before=" + before
                + "&points=1&options=jsonwrap");
        JsonNode data = one.get("result").get("data");
        assertEquals(1, data.size(), data.toString());
        assertEquals(before, data.get(0).get(0).asLong(), data.toString());
        double sum = 0;
        int n = 0;
        for (long t = point - tierStep + 5; t <= point; t += 5) {
            sum += t % 100;
            n++;
        }
        assertEquals(sum / n, data.get(0).get(1).asDouble(), 1e-4, data.toString());
        assertEquals(0, one.get("db_points_per_tier").get(0).asLong(), one.get("db_points_per_tier").toString());
        assertTrue(one.get("db_points_per_tier").get(1).asLong() > 0, one.get("db_points_per_tier").toString());
    }

    /**
     * Netdata's query target keeps a metric whose retention ends up to two update intervals before
     * the window starts (or starts up to two after it ends: {@code query_target_add_metric},
     * database/rrdcontext.c), so such a window answers 200 with its rows, not 404 (seen: a 1.37.1
     * parent answered {@code after=-3} on a 10-second chart just after its point, the Strata parent
     * 404). Past that margin nothing is in the window: 404.
     */
    @Test
    void aWindowWithinTwoIntervalsOfTheRetentionStillAnswers() throws Exception {
        long last = T0 + N;
        assertEquals(last, engine.registry().lastTime(slowMetric, 0));
        long now = last + 100;
        JsonNode near = queryAt("chart=test.slow&after=" + (last + 1) + "&before=" + (last + 9) + "&points=1", now);
        JsonNode rows = near.get("data");
        assertEquals(1, rows.size(), near.toString());
        ApiError beyond = assertThrows(ApiError.class,
                () -> queryAt("chart=test.slow&after=" + (last + 11) + "&before=" + (last + 19) + "&points=1", now));
        assertEquals(DataQuery.NO_METRICS, beyond.getMessage());
        JsonNode early = queryAt("chart=test.slow&after=" + (T0 - 5) + "&before=" + (T0 - 1) + "&points=1", now);
        assertEquals(1, early.get("data").size(), early.toString());
        assertThrows(ApiError.class,
                () -> queryAt("chart=test.slow&after=" + (T0 - 15) + "&before=" + (T0 - 6) + "&points=1", now));
    }

    /**
     * nonzero with a dimensions pattern: Netdata marks the selected dimensions non-zero before the
     * query, so an all-zero dimension the pattern names stays; with no pattern it is dropped.
     */
    @Test
    void nonzeroKeepsTheDimensionsAPatternNames() throws Exception {
        JsonNode plain = query("chart=test.gaps&after=-10&points=5&options=nonzero");
        assertEquals("[\"time\",\"a\"]", plain.get("labels").toString());
        JsonNode named = query("chart=test.gaps&after=-10&points=5&options=nonzero&dimensions=a%7Czero");
        assertEquals("[\"time\",\"a\",\"zero\"]", named.get("labels").toString());
    }

    /**
     * With percentage Netdata's formatters restart the wrapper's min and max at every row's first
     * percentage, so they end as the last printed row's (json: the oldest row unless flip).
     */
    @Test
    void percentageMinAndMaxAreTheLastPrintedRows() throws Exception {
        JsonNode r = query("chart=test.gaps&after=-10&points=10&options=jsonwrap|percentage");
        JsonNode data = r.get("result").get("data");
        JsonNode last = data.get(data.size() - 1);
        double min = Double.NaN;
        double max = Double.NaN;
        for (int c = 1; c < last.size(); c++) {
            if (last.get(c).isNumber()) {
                double v = last.get(c).asDouble();
                min = Double.isNaN(min) ? v : Math.min(min, v);
                max = Double.isNaN(max) ? v : Math.max(max, v);
            }
        }
        assertEquals(min, r.get("min").asDouble(), 1e-6, data.toString());
        assertEquals(max, r.get("max").asDouble(), 1e-6, data.toString());
        assertTrue(max < 20, "the oldest row holds a small share: " + data);
    }

    @Test
    void hiddenDimensionsCountInPercentagesOnly() throws Exception {
        JsonNode plain = query("chart=test.gaps&after=-10&points=10&options=jsonwrap");
        assertEquals("[\"a\",\"zero\"]", plain.get("dimension_names").toString());
        JsonNode named = query("chart=test.gaps&dimensions=hid&after=-10&points=10&options=jsonwrap");
        assertEquals("[\"hid\"]", named.get("dimension_names").toString(), "a pattern naming it shows it");
        JsonNode pct = query("chart=test.gaps&dimensions=a&after=-10&points=10&options=jsonwrap|percentage");
        for (JsonNode row : pct.get("result").get("data")) {
            long t = row.get(0).asLong();
            double a = gapsValue(t);
            if (Double.isNaN(a)) {
                assertTrue(row.get(1).isNull());
            } else {
                // the total holds the hidden 30 and the unselected zero
                assertEquals(a * 100 / (a + 30), row.get(1).asDouble(), 1e-6, "at " + t);
            }
        }
        assertTrue(pct.get("max").asDouble() <= 100);
    }

    @Test
    void nonzeroDropsAllZeroDimensionsUnlessAllAreZero() throws Exception {
        JsonNode r = query("chart=test.gaps&after=-10&points=10&options=jsonwrap|nonzero");
        assertEquals("[\"a\"]", r.get("dimension_names").toString());
        JsonNode onlyZero = query("chart=test.gaps&dimensions=zero&after=-10&points=10&options=jsonwrap|nonzero");
        assertEquals("[\"zero\"]", onlyZero.get("dimension_names").toString());
    }

    @Test
    void contextsQueryEveryChartOfTheContext() throws Exception {
        JsonNode r = query("context=ctx.pair&after=-10&points=5&options=jsonwrap");
        assertEquals("[\"test.pair1\",\"test.pair2\"]", r.get("chart_ids").toString());
        assertEquals("[\"x\",\"x\"]", r.get("dimension_ids").toString());
        JsonNode row = r.get("result").get("data").get(0);
        assertEquals(1, row.get(1).asDouble(), 0);
        assertEquals(2, row.get(2).asDouble(), 0);
        JsonNode one = query("context=ctx.pair&chart=test.pair2&after=-10&points=5&options=jsonwrap");
        assertEquals("[\"test.pair2\"]", one.get("chart_ids").toString());
        JsonNode arr = query("context=ctx.pair&after=-10&points=5&format=array");
        assertEquals(3, arr.get(0).asDouble(), 0, "array sums the row");
    }

    @Test
    void everyGroupingAnswersEveryFormat() throws Exception {
        for (String g : new String[] {"average", "min", "max", "sum", "incremental-sum", "median", "stddev", "cv",
                "ses", "des", "countif", "percentile", "trimmed-mean", "trimmed-median"}) {
            for (String f : new String[] {"json", "array", "datatable", "csv", "ssv"}) {
                JsonNode r = query("chart=test.gaps&after=-600&points=7&group=" + g + "&format=" + f
                        + "&options=jsonwrap");
                assertEquals(7, r.get("points").asInt(), g + "/" + f);
                // Netdata names a method by the first name its table has for it
                String named = switch (g) {
                    case "incremental-sum" -> "incremental_sum";
                    case "percentile" -> "percentile95";
                    case "trimmed-mean" -> "trimmed-mean5";
                    case "trimmed-median" -> "trimmed-median5";
                    default -> g;
                };
                assertEquals(named, r.get("group").asText());
            }
        }
    }

    @Test
    void nothingMatchedAndNothingAsked() {
        ApiError e = assertThrows(ApiError.class, () -> query("chart=test.gaps&dimensions=nope"));
        assertEquals(404, e.status().code());
        e = assertThrows(ApiError.class, () -> query("chart=test.gaps&after=" + (T0 - 86400) + "&before=" + (T0 - 3600)));
        assertEquals(404, e.status().code());
        e = assertThrows(ApiError.class, () -> query("after=-10"));
        assertEquals(400, e.status().code());
        e = assertThrows(ApiError.class, () -> query("chart=null"));
        assertEquals(400, e.status().code());
    }

    @Test
    void theLargestAnswerNetdataGives() throws Exception {
        JsonNode r = query("context=*&after=" + (T0 - 86400 * 2) + "&before=" + (T0 + N) + "&points=200000&options=jsonwrap");
        // Netdata caps the count at 86400 before it widens the rows to cover the window: 176401 s at 2 s a row
        assertEquals(88201, r.get("points").asInt());
        assertEquals(r.get("points").asInt(), r.get("result").get("data").size());
    }

    /**
     * A hostile query: {@code after} beyond the largest number, {@code before} unreadable, virtual
     * points and no {@code points}: a day of one-second rows over every dimension of the contexts,
     * with no stored point in it, so the engine reads nothing and all the work is building and
     * printing rows.
     */
    static final String ROWS_WITHOUT_READS = "context=ctx.*&after=99999999999999999999999&before=zz";

    /** A query budget of {@code timeout=200} watched on {@code clock[0]}, which starts at 0. */
    static QueryBudget budgetOn(long[] clock) {
        return QueryBudget.start(new QueryBudget.Limits(5_000, 1_000_000), 200, 0, () -> clock[0]);
    }

    @Test
    void aDeadlinePassedWhenRowBuildingStartsStopsItWith504() throws Exception {
        DataRequest req = DataRequest.parse(QueryString.parse(ROWS_WITHOUT_READS + "&options=virtual-points"));
        DataResult planned = DataQuery.execute(engine, host, req, T0 + N + 1);
        assertEquals(QueryWindow.MAX_POINTS, planned.rows());
        assertEquals(0, planned.pointsPerTier()[0]);
        // the same rows built again, the deadline already passed
        long[] clock = {0};
        QueryBudget late = budgetOn(clock);
        clock[0] = 201_000_000L;
        QueryWindow w = planned.window();
        DataResult rebuilt = new DataResult(req, host, w, planned.columns(), planned.dbFirst, planned.dbLast,
                planned.updateEvery, planned.options, planned.pointsPerTier.length, planned.wallClock);
        rebuilt.budget = late;
        PointLoop loop = new PointLoop(rebuilt, req.group.create(req.groupOptions, w.group(), w.points(),
                w.resamplingGroup() != 1 ? w.resamplingDivisor() : 0), PointLoop.fetchFor(req.group));
        loop.start(0, 1);
        ApiError e = assertThrows(ApiError.class, loop::finish);
        assertEquals(504, e.status().code());
        assertEquals("The query timed out after 200 ms (timeout=200).", e.getMessage());
    }

    @Test
    void aDeadlinePassedWhenPrintingStartsStopsItWith504() throws Exception {
        for (String format : new String[]{"json", "csv&options=virtual-points|jsonwrap", "ssv", "datatable",
            "csvjsonarray"}) {
            long[] clock = {0};
            DataRequest req = DataRequest.parse(QueryString.parse(ROWS_WITHOUT_READS + "&format="
                    + (format.contains("&") ? format : format + "&options=virtual-points")));
            // within the deadline while the engine reads and the rows are built
            DataResult r = DataQuery.execute(engine, host, req, T0 + N + 1, budgetOn(clock));
            assertEquals(QueryWindow.MAX_POINTS, r.rows(), format);
            clock[0] = 201_000_000L;
            ApiError e = assertThrows(ApiError.class, () -> DataFormatter.write(r, new Out(), ZoneOffset.UTC), format);
            assertEquals(504, e.status().code(), format);
            assertEquals("The query timed out after 200 ms (timeout=200).", e.getMessage(), format);
        }
    }
}
