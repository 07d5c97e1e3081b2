package io.strata.query.data;

import io.strata.engine.netdata.SimplePattern;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.query.catalog.Catalog;
import io.strata.query.catalog.HostView;
import io.strata.query.http.ApiError;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Metric correlations: the KS2 statistic against Netdata's own unit expectations (which are
 * scipy's), the KS distribution against known values, Netdata's windows (checked against the
 * recorded answers' windows), the spreading of scores, and volume/ks2/anomaly-rate over an engine
 * whose contents are known.
 */
class WeightsTest {

    static final UUID HOST = UUID.fromString("00000000-0000-4000-8000-0000000000bb");
    static final long T0 = 1_700_000_000L;
    /** Seconds stored: T0+1 .. T0+N; the last {@link #HIGHLIGHT} seconds are the "incident". */
    static final long N = 2400;
    static final long HIGHLIGHT = 120;

    @TempDir
    static Path dir;
    static StorageEngine engine;
    static HostView host;

    @BeforeAll
    static void fill() throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir));
        engine.metadata().upsertHost(new HostInfo(HOST, "h", "linux", "UTC", 1, Map.of()));
        chart("app.requests", "app.requests");
        chart("app.flat", "app.flat");
        chart("app.zero", "app.zero");
        int jumps = dim("app.requests", "ok", 0);
        int steady = dim("app.requests", "steady", 0);
        int flat = dim("app.flat", "v", 0);
        int zero = dim("app.zero", "z", 0);
        int hidden = dim("app.flat", "hid", DimensionInfo.FLAG_HIDDEN);
        for (long t = T0 + 1; t <= T0 + N; t++) {
            boolean incident = t > T0 + N - HIGHLIGHT;
            // ok: a saw-tooth of period 10 that becomes ten times steeper in the incident
            double saw = Math.floorMod(t, 10);
            store(jumps, t, incident ? 100 + saw * 10 : 100 + saw);
            // steady: the same saw-tooth throughout
            store(steady, t, 50 + saw);
            store(flat, t, 7);
            store(zero, t, 0);
            store(hidden, t, saw);
        }
        host = Catalog.build(engine.metadata(), HOST, "h").local();
    }

    static void chart(String id, String context) {
        engine.metadata().upsertChart(new ChartInfo(HOST, id, id, id, "u", "f", context, "line", 1, 1, "p", "m",
                Map.of()));
    }

    static int dim(String chart, String id, int flags) {
        return engine.metadata().upsertDimension(new DimensionInfo(HOST, chart, id, id, "absolute", 1, 1, flags));
    }

    static void store(int metric, long t, double v) {
        assertTrue(engine.store(metric, t, 1, v, StorageNumber.SN_DEFAULT_FLAGS));
    }

    @AfterAll
    static void close() throws Exception {
        engine.close();
    }

    // ---- the statistic ----------------------------------------------------------------------------

    @Test
    void ks2MatchesNetdatasOwnUnitExpectations() {
        // Netdata's mc_unittest cases (expected values computed by Netdata's authors with scipy)
        assertEquals("0.222222", six(Weights.ks2samp(new long[]{1, 2, 3}, new long[]{3, 4, 6}, 0)));
        assertEquals("0.500000", six(Weights.ks2samp(new long[]{1, 2, 3, 10, 10, 15}, new long[]{3, 4, 6}, 1)));
        assertEquals("0.347222", six(Weights.ks2samp(
                new long[]{1, 2, 3, 10, 10, 15, 111, 19999, 8, 55, -1, -73}, new long[]{3, 4, 6}, 2)));
        assertEquals("0.777778", six(Weights.ks2samp(
                new long[]{1111, -2222, 33, 100, 100, 15555, -1, 19999, 888, 755, -1, -730},
                new long[]{365, -123, 0}, 2)));
    }

    static String six(double v) {
        return String.format(java.util.Locale.ROOT, "%.6f", v);
    }

    @Test
    void kolmogorovSmirnovDistributionAgreesWithKnownValues() {
        // Ruben-Gambino near 0: P(D_n < x) = n! (2x - 1/n)^n for x <= 1/n
        assertEquals(1 - 2 * 0.5 * 0.5, KolmogorovSmirnov.fbar(2, 0.5), 1e-15);
        assertEquals(1.0, KolmogorovSmirnov.fbar(10, 0.05), 0);
        assertEquals(0.0, KolmogorovSmirnov.fbar(10, 1.0), 0);
        // closed forms at the ends: n=1, and x >= 1 - 1/n
        assertEquals(2.0 - 2.0 * 0.7, KolmogorovSmirnov.fbar(1, 0.7), 1e-15);
        assertEquals(2.0 * Math.pow(0.05, 10), KolmogorovSmirnov.fbar(10, 0.95), 1e-20);
        // the exact algorithms and the asymptotic ones meet: sf is decreasing and continuous in x
        for (int n : new int[]{5, 40, 333, 800, 5000}) {
            double previous = 1.0;
            for (double x = 0.001; x < 1; x += 0.001) {
                double p = KolmogorovSmirnov.fbar(n, x);
                assertTrue(p >= 0 && p <= 1, n + " " + x + " " + p);
                assertTrue(p <= previous + 1e-9, "not decreasing at n=" + n + " x=" + x + ": " + p + " > " + previous);
                previous = p;
            }
        }
        // Kolmogorov's limit: sqrt(n) D_n -> K, P(K >= 1.3581) = 0.05
        assertEquals(0.05, KolmogorovSmirnov.fbar(5000, 1.3581 / Math.sqrt(5000)), 0.002);
        assertEquals(0.05, KolmogorovSmirnov.fbar(200_000, 1.3581 / Math.sqrt(200_000)), 0.001);
    }

    @Test
    void pairDiffsAreNewestFirstAndScaledToIntegers() {
        long[] d = Weights.pairDiffs(new double[]{1.0, 1.5, 1.25, 2.0});
        assertEquals(List.of(-75000L, 25000L, -50000L), List.of(d[0], d[1], d[2]));
    }

    // ---- windows ----------------------------------------------------------------------------------

    @Test
    void windowsAsInTheRecordedAnswers() {
        long now = 1795263117L;
        // metric_correlations?after=-60&before=0&baseline_after=-180&baseline_before=-60&points=30
        Weights.Window w = Weights.window(Weights.Method.KS2, -180, -60, -60, 0, 30, now);
        assertEquals(1795263058L, w.after());
        assertEquals(1795263117L, w.before());
        assertEquals(1795262762L, w.baselineAfter());
        assertEquals(1795262998L, w.baselineBefore());
        assertEquals(30, w.points());
        assertEquals(2, w.shifts());
        // weights?method=volume&after=-60&before=0: baseline the 600 s before the highlight, 16 times as long
        Weights.Window v = Weights.window(Weights.Method.VOLUME, 0, 0, -60, 0, 0, now);
        assertEquals(1795262114L, v.baselineAfter());
        assertEquals(1795263058L, v.baselineBefore());
        assertEquals(500, v.points());
        assertEquals(4, v.shifts());
        // 500 << 5 passes the 10000 points cap: fewer shifts
        Weights.Window capped = Weights.window(Weights.Method.KS2, -60 * 64, -60, -60, 0, 500, now);
        assertEquals(4, capped.shifts());
        // no shift fits 20000 points: none, and the points halved until they fit
        Weights.Window fewer = Weights.window(Weights.Method.KS2, 0, 0, -60, 0, 20000, now);
        assertEquals(0, fewer.shifts());
        assertEquals(10000, fewer.points());
    }

    @Test
    void badWindowsAreRefusedWithNetdatasTexts() {
        long now = 1795263117L;
        ApiError e = assertThrows(ApiError.class,
                () -> Weights.window(Weights.Method.KS2, 0, 0, 1795263000L, 1795263000L, 0, now));
        assertEquals("Invalid selected time-range.", e.getMessage());
        e = assertThrows(ApiError.class, () -> Weights.window(Weights.Method.KS2, 0, 0, -60, 0, 14, now));
        assertEquals("Too few points available, at least 15 are needed.", e.getMessage());
        e = assertThrows(ApiError.class,
                () -> Weights.window(Weights.Method.VOLUME, 1795262000L, 1795262000L, -60, 0, 0, now));
        assertEquals("Invalid baseline time-range.", e.getMessage());
        // anomaly-rate has no baseline and no points rule
        Weights.Window a = Weights.window(Weights.Method.ANOMALY_RATE, 0, 0, -60, 0, 3, now);
        assertEquals(3, a.points());
    }

    // ---- spreading --------------------------------------------------------------------------------

    @Test
    void scoresAreSpreadOverDistinctValues() {
        Weights.Stats stats = new Weights.Stats(1);
        stats.maxBaseHighRatio = 4;
        List<Weights.Result> in = new ArrayList<>();
        for (double v : new double[]{0.5, 2, 2, 4, 0.25}) {
            in.add(new Weights.Result("c", null, 0, v));
        }
        // the last one is a percentage of time: scaled by the largest ratio to 1.0
        List<Integer> flags = List.of(1, 1, 1, 1, 2);
        List<Weights.Result> out = Weights.spreadEvenly(in, flags, stats);
        // distinct values 0.5, 1, 2, 4: each a quarter; a score is 1 - (the share at or below it)
        assertEquals(0.75, out.get(0).value(), 1e-12);
        assertEquals(0.25, out.get(1).value(), 1e-12);
        assertEquals(0.25, out.get(2).value(), 1e-12);
        assertEquals(0.0, out.get(3).value(), 1e-12);
        assertEquals(0.5, out.get(4).value(), 1e-12);
    }

    // ---- the methods over known data --------------------------------------------------------------

    static Weights.Outcome run(Weights.Method method, long options, String contexts) throws Exception {
        long now = T0 + N;
        // a baseline 16 times the highlight, inside the stored data
        Weights.Window w = Weights.window(method, -16 * HIGHLIGHT, -HIGHLIGHT, -HIGHLIGHT, 0, 0, now);
        if (method != Weights.Method.ANOMALY_RATE) {
            assertEquals(4, w.shifts());
            assertTrue(w.baselineAfter() > T0);
        }
        return Weights.run(engine, host, method, w, GroupingMethod.AVERAGE, options,
                contexts == null ? null : SimplePattern.parse(contexts, SimplePattern.API_SEPARATORS), -1, now + 1, QueryBudget.UNLIMITED);
    }

    static Map<String, Double> scores(Weights.Outcome o) {
        Map<String, Double> m = new java.util.LinkedHashMap<>();
        for (Weights.Result r : o.results()) {
            m.put(r.chart().id() + "/" + r.chart().dimensionId(r.dimension()), r.value());
        }
        return m;
    }

    static final long DEFAULTS = DataOptions.NOT_ALIGNED | DataOptions.NONZERO | DataOptions.NULL2ZERO;

    @Test
    void ks2FindsTheMetricWhoseChangesChanged() throws Exception {
        long keepZero = DataOptions.NOT_ALIGNED | DataOptions.NULL2ZERO;
        Map<String, Double> raw = scores(run(Weights.Method.KS2, keepZero | DataOptions.RAW, null));
        // 1 - p: the steeper saw-tooth's differences are another distribution (p ~ 0); the steady
        // one's are the same distribution in both windows (whole periods: p = 1, score 0), so are the
        // flat one's (all 0); the zero one has no non-zero point, the hidden one is not queried
        assertEquals(List.of("app.requests/ok", "app.requests/steady", "app.flat/v"), List.copyOf(raw.keySet()),
                raw.toString());
        assertTrue(raw.get("app.requests/ok") > 0.999, raw.toString());
        assertEquals(0.0, raw.get("app.requests/steady"), 0);
        // spread evenly: Netdata maps the largest score to 0 and the smallest to 1 - 1/distinct
        Map<String, Double> spread = scores(run(Weights.Method.KS2, keepZero, null));
        assertEquals(0.0, spread.get("app.requests/ok"), 0);
        assertEquals(0.5, spread.get("app.requests/steady"), 0);
        assertEquals(0.5, spread.get("app.flat/v"), 0);
        // nonzero (the default) leaves out the zero scores before spreading
        Weights.Outcome o = run(Weights.Method.KS2, DEFAULTS, null);
        assertEquals(List.of("app.requests/ok"), List.copyOf(scores(o).keySet()));
        // every dimension with retention is examined, the hidden one too
        assertEquals(5, o.examined());
        assertEquals(DEFAULTS, o.options());
    }

    @Test
    void volumeScoresTheChangeOfTheAverage() throws Exception {
        Weights.Outcome raw = run(Weights.Method.VOLUME, DEFAULTS | DataOptions.RAW, "app.req*|nothing");
        Map<String, Double> s = scores(raw);
        // ok: baseline average 104.5, highlight 145, above it 100 % of the time... except the seconds at 100..140
        double base = 104.5;
        double high = 145;
        // seconds of the incident above 104.5: saw >= 1 (9 of every 10)
        double expected = (high - base) / base * 0.9;
        // the windows cut the saw-tooth's periods by a second or so: the averages are 104.5 and 145 within 0.01 %
        assertEquals(expected, s.get("app.requests/ok"), 2e-4);
        // equal averages are not scored (the steady saw-tooth's differ only by rounding of the sums)
        assertTrue(s.get("app.requests/steady") == null || s.get("app.requests/steady") < 1e-12, s.toString());
        assertNull(s.get("app.flat/v"));
        // the contexts pattern selects what is examined
        assertEquals(2, raw.examined());
    }

    @Test
    void anomalyRateIsTheShareOfPointsFlaggedAnomalous() throws Exception {
        Weights.Outcome o = run(Weights.Method.ANOMALY_RATE, DataOptions.NOT_ALIGNED | DataOptions.NULL2ZERO, null);
        Map<String, Double> s = scores(o);
        // every point was stored "not anomalous": every metric with points scores 0, but the hidden one
        assertEquals(4, s.size(), s.toString());
        assertNull(s.get("app.flat/hid"));
        // Netdata prints the option it added to examine the metrics
        assertTrue((o.options() & DataOptions.ANOMALY_BIT) != 0);
        for (double v : s.values()) {
            assertEquals(0.0, v, 0);
        }
        // with the default nonzero, nothing remains (Netdata answers "no results produced.")
        assertTrue(run(Weights.Method.ANOMALY_RATE, DEFAULTS, null).results().isEmpty());
    }
}
