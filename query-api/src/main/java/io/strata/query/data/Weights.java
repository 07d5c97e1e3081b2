package io.strata.query.data;

import io.strata.engine.StorageEngine;
import io.strata.engine.netdata.SimplePattern;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;
import io.strata.query.catalog.ChartView;
import io.strata.query.catalog.HostView;
import io.strata.query.http.ApiError;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Netdata 1.37.1's metric correlations and weights ({@code web/api/queries/weights.c}): every
 * metric of the host (of the contexts asked for) scored by how much its highlighted window
 * differs from a baseline window, then the scores spread evenly over [0, 1].
 * <ul>
 *   <li>{@code ks2}: the two-sample Kolmogorov-Smirnov test between the distributions of the
 *   successive differences of the two windows' points (the baseline has 2^shifts times the
 *   points of the highlight), scored {@code 1 − p};</li>
 *   <li>{@code volume}: the relative change of the windows' averages (absolute values) weighted
 *   by the fraction of the highlighted time above (or below) the baseline average;</li>
 *   <li>{@code anomaly-rate}: the share of the highlighted points flagged anomalous.</li>
 * </ul>
 * Each metric is queried through {@link DataQuery} as Netdata queries it through {@code rrd2rrdr}, so the
 * windows, tiers and groupings are the data API's. The work is bounded by one {@link QueryBudget}.
 */
public final class Weights {

    /** Netdata's cap on the points of a KS2 baseline. */
    static final int MAX_POINTS = 10_000;
    /** Netdata's multiplier turning KS2 differences into integers. */
    private static final double DIFF_MULTIPLIER = 100_000;

    public enum Method {
        KS2("ks2"), VOLUME("volume"), ANOMALY_RATE("anomaly-rate");

        private final String id;

        Method(String id) {
            this.id = id;
        }

        public String id() {
            return id;
        }

        /** Netdata's {@code weights_string_to_method}: an unknown name is {@code def}. */
        public static Method parse(String s, Method def) {
            for (Method m : values()) {
                if (m.id.equals(s)) {
                    return m;
                }
            }
            return def;
        }
    }

    /** A request after Netdata's window rules; {@code points} and {@code shifts} only for ks2 and volume. */
    public record Window(long after, long before, long baselineAfter, long baselineBefore, long points, int shifts,
                         boolean relative) {
    }

    /** One scored metric, in the order Netdata lists it (its contexts', charts' and dimensions' order). */
    public record Result(String context, ChartView chart, int dimension, double value) {
    }

    /** Counters Netdata reports under {@code statistics}. */
    public static final class Stats {
        long dbQueries;
        long resultPoints;
        long dbPoints;
        long binarySearches;
        final long[] pointsPerTier;
        double maxBaseHighRatio;

        Stats(int tiers) {
            pointsPerTier = new long[tiers];
        }

        public long dbQueries() {
            return dbQueries;
        }

        public long resultPoints() {
            return resultPoints;
        }

        public long dbPoints() {
            return dbPoints;
        }

        public long binarySearches() {
            return binarySearches;
        }

        public long[] pointsPerTier() {
            return pointsPerTier.clone();
        }

        void merge(DataResult r) {
            dbQueries++;
            resultPoints += (long) r.rows * r.columns;
            long sum = 0;
            for (int t = 0; t < pointsPerTier.length && t < r.pointsPerTier.length; t++) {
                pointsPerTier[t] += r.pointsPerTier[t];
                sum += r.pointsPerTier[t];
            }
            dbPoints += sum;
        }
    }

    /** What a run produced. */
    public record Outcome(List<Result> results, long examined, Stats stats, long options) {
    }

    private static final int BASE_HIGH_RATIO = 1;
    private static final int PERCENTAGE_OF_TIME = 2;

    private Weights() {
    }

    /**
     * Netdata's window rules for weights: the highlighted window relative or absolute as the data
     * API's; for ks2 and volume {@code points} defaults to 500, a relative {@code baseline_before}
     * counts from the highlight's start, and the baseline is made 2^shifts times the highlight's
     * duration (the power of two nearest above their ratio, lowered while the baseline would hold
     * more than {@value #MAX_POINTS} points).
     *
     * @throws ApiError 400 with Netdata's texts when a window is empty or too few points remain
     */
    public static Window window(Method method, long baselineAfter, long baselineBefore, long after, long before,
                                long points, long now) {
        boolean relative = Math.abs(before) <= QueryWindow.RELATIVE_TIME_MAX
                || Math.abs(after) <= QueryWindow.RELATIVE_TIME_MAX;
        long[] w = QueryWindow.toAbsolute(after, before, now);
        after = w[0];
        before = w[1];
        if (before <= after) {
            throw ApiError.badRequest("Invalid selected time-range.");
        }
        int shifts = 0;
        if (method == Method.KS2 || method == Method.VOLUME) {
            if (points == 0) {
                points = 500;
            }
            if (baselineBefore <= QueryWindow.RELATIVE_TIME_MAX) {
                baselineBefore += after;
            }
            long[] b = QueryWindow.toAbsolute(baselineAfter, baselineBefore, now);
            baselineAfter = b[0];
            baselineBefore = b[1];
            if (baselineBefore <= baselineAfter) {
                throw ApiError.badRequest("Invalid baseline time-range.");
            }
            long baseDelta = baselineBefore - baselineAfter;
            long highDelta = before - after;
            // Netdata keeps the ratio in a uint32_t
            long multiplier = Math.round((double) baseDelta / (double) highDelta) & 0xffffffffL;
            if ((multiplier & (multiplier - 1)) != 0) {
                multiplier = Long.highestOneBit(multiplier - 1) << 1;
            }
            while (multiplier > 1) {
                shifts++;
                multiplier >>= 1;
            }
            while (shifts > 0 && (points << shifts) > MAX_POINTS) {
                shifts--;
            }
            while ((points << shifts) > MAX_POINTS) {
                points >>= 1;
            }
            if (points < 15) {
                throw ApiError.badRequest("Too few points available, at least 15 are needed.");
            }
            baselineAfter = baselineBefore - (highDelta << shifts);
        }
        return new Window(after, before, baselineAfter, baselineBefore, points, shifts, relative);
    }

    /**
     * Scores every metric of {@code host} whose context matches {@code contexts} (null: all).
     *
     * @param options the request's options; {@code nonzero} means "leave out zero scores" here
     * @param tier    {@code tier=}, or -1
     */
    public static Outcome run(StorageEngine engine, HostView host, Method method, Window w, GroupingMethod group,
                              long options, SimplePattern contexts, int tier, long wallClockSeconds,
                              QueryBudget budget) throws IOException {
        MetricRegistry registry = engine.registry();
        Stats stats = new Stats(registry.tiers());
        boolean registerZero = (options & DataOptions.NONZERO) == 0;
        options &= ~DataOptions.NONZERO;
        List<Result> results = new ArrayList<>();
        List<Integer> flags = new ArrayList<>();
        long examined = 0;
        Context ctx = new Context(engine, host, group, tier, wallClockSeconds, budget, stats);
        for (List<ChartView> charts : byContext(host)) {
            String context = charts.get(0).info().context();
            if (contexts != null && !contexts.matches(context)) {
                continue;
            }
            for (ChartView chart : charts) {
                for (int d = 0; d < chart.dimensions(); d++) {
                    int metric = chart.metric(d);
                    if (registry.firstTime(metric, 0) == MetricRegistry.NO_TIME && !anyTier(registry, metric)) {
                        // no retention: Netdata's context store has deleted it
                        continue;
                    }
                    budget.checkDeadline();
                    examined++;
                    double[] scored = switch (method) {
                        case KS2 -> ks2(ctx, chart, d, w, options);
                        case VOLUME -> volume(ctx, chart, d, w, options);
                        case ANOMALY_RATE -> anomalyRate(ctx, chart, d, w);
                    };
                    if (scored == null || !isNumber(scored[0])) {
                        continue;
                    }
                    double v = Math.abs(scored[0]);
                    if (v == 0 && !registerZero) {
                        continue;
                    }
                    int f = (int) scored[1];
                    if ((f & BASE_HIGH_RATIO) != 0 && v > stats.maxBaseHighRatio) {
                        stats.maxBaseHighRatio = v;
                    }
                    results.add(new Result(context, chart, d, v));
                    flags.add(f);
                }
            }
        }
        if (method == Method.ANOMALY_RATE && examined > 0) {
            // Netdata adds the option to its request while examining the metrics, and prints it
            options |= DataOptions.ANOMALY_BIT;
        }
        if (!registerZero) {
            options |= DataOptions.NONZERO;
        }
        List<Result> out = (options & DataOptions.RAW) != 0 ? results : spreadEvenly(results, flags, stats);
        return new Outcome(out, examined, stats, options);
    }

    private static boolean anyTier(MetricRegistry registry, int metric) {
        for (int t = 1; t < registry.tiers(); t++) {
            if (registry.firstTime(metric, t) != MetricRegistry.NO_TIME) {
                return true;
            }
        }
        return false;
    }

    private static List<List<ChartView>> byContext(HostView host) {
        Map<String, List<ChartView>> m = new LinkedHashMap<>();
        for (ChartView c : host.charts()) {
            m.computeIfAbsent(c.info().context(), k -> new ArrayList<>(1)).add(c);
        }
        return new ArrayList<>(m.values());
    }

    private record Context(StorageEngine engine, HostView host, GroupingMethod group, int tier, long wallClock,
                           QueryBudget budget, Stats stats) {
    }

    /** One query of one metric; null when Netdata's query would have had no dimension. */
    private static DataResult query(Context ctx, ChartView chart, int d, long after, long before, long points,
                                    GroupingMethod group, String groupOptions, long options) throws IOException {
        DataRequest req = DataRequest.ofMetric(chart, d, after, before, points, group, groupOptions, options, ctx.tier);
        try {
            DataResult r = DataQuery.execute(ctx.engine, ctx.host, req, ctx.wallClock, ctx.budget);
            ctx.stats.merge(r);
            return r;
        } catch (ApiError e) {
            if (e.status().code() == 404) {
                return null;
            }
            throw e;
        }
    }

    /** Netdata's {@code rrdmetric2value}: one point over the window; NaN without one. */
    private static double value(Context ctx, ChartView chart, int d, long after, long before, GroupingMethod group,
                                String groupOptions, long options) throws IOException {
        DataResult r = query(ctx, chart, d, after, before, 1, group, groupOptions, options);
        if (r == null || r.rows == 0) {
            return Double.NaN;
        }
        return QueryValues.rowValue(r, QueryValues.valueRow(r, options), options);
    }

    // ---- ks2 --------------------------------------------------------------------------------------

    private static double[] ks2Points(Context ctx, ChartView chart, int d, long after, long before, long points,
                                      long options) throws IOException {
        DataResult r = query(ctx, chart, d, after, before, points, ctx.group, null, options);
        if (r == null || r.columns != 1 || r.hidden[0] || !r.nonZero[0] || r.rows < 2) {
            return null;
        }
        double[] v = new double[r.rows];
        for (int i = 0; i < r.rows; i++) {
            double x = r.values[i];
            // an empty row is 0, as in Netdata's result
            v[i] = Double.isNaN(x) ? 0 : x;
        }
        return v;
    }

    private static double[] ks2(Context ctx, ChartView chart, int d, Window w, long options) throws IOException {
        options |= DataOptions.NATURAL_POINTS;
        double[] highlight = ks2Points(ctx, chart, d, w.after(), w.before(), w.points(), options);
        if (highlight == null) {
            return null;
        }
        double[] baseline = ks2Points(ctx, chart, d, w.baselineAfter(), w.baselineBefore(),
                (long) highlight.length << w.shifts(), options);
        if (baseline == null) {
            return null;
        }
        ctx.stats.binarySearches += 2L * (baseline.length - 1) + 2L * (highlight.length - 1);
        double prob = kstwo(baseline, highlight, w.shifts());
        if (!isNumber(prob)) {
            return null;
        }
        prob = Math.min(1.0, Math.abs(prob));
        // 0 the least, 1 the most correlated
        return new double[] {1.0 - prob, BASE_HIGH_RATIO};
    }

    /** The differences of successive points, newest first, as integers (Netdata's {@code calculate_pairs_diff}). */
    static long[] pairDiffs(double[] v) {
        long[] diffs = new long[v.length - 1];
        int k = 0;
        for (int i = v.length - 1; i > 0; i--) {
            diffs[k++] = (long) ((v[i - 1] - v[i]) * DIFF_MULTIPLIER);
        }
        return diffs;
    }

    static double kstwo(double[] baseline, double[] highlight, int shifts) {
        if (baseline.length < 2 || highlight.length < 2) {
            return Double.NaN;
        }
        return ks2samp(pairDiffs(baseline), pairDiffs(highlight), shifts);
    }

    /** The first index in [left, size) whose value is greater than k. */
    private static int firstGreater(long[] a, int left, long k) {
        int right = a.length;
        while (left < right) {
            int middle = (left + right) >>> 1;
            if (a[middle] > k) {
                right = middle;
            } else {
                left = middle + 1;
            }
        }
        return left;
    }

    /**
     * The two-sample KS p-value as Netdata computes it: the extreme differences of the two
     * empirical distributions over every value of either sample, compared on indexes (the
     * baseline's scaled down by 2^shifts) and turned into fractions at the extremes found, then
     * {@code P(D_en >= d)} with {@code en} the rounded effective sample size.
     */
    static double ks2samp(long[] base, long[] high, int shifts) {
        Arrays.sort(base);
        Arrays.sort(high);
        int baseSize = base.length;
        int highSize = high.length;
        long k = base[0];
        int baseIdx = firstGreater(base, 1, k);
        int highIdx = firstGreater(high, 0, k);
        int delta = baseIdx - (highIdx << shifts);
        int min = delta;
        int max = delta;
        int baseMinIdx = baseIdx;
        int baseMaxIdx = baseIdx;
        int highMinIdx = highIdx;
        int highMaxIdx = highIdx;
        for (int i = 1; i < baseSize; i++) {
            k = base[i];
            baseIdx = firstGreater(base, i + 1, k);
            highIdx = firstGreater(high, 0, k);
            delta = baseIdx - (highIdx << shifts);
            if (delta < min) {
                min = delta;
                baseMinIdx = baseIdx;
                highMinIdx = highIdx;
            } else if (delta > max) {
                max = delta;
                baseMaxIdx = baseIdx;
                highMaxIdx = highIdx;
            }
        }
        for (int i = 0; i < highSize; i++) {
            k = high[i];
            baseIdx = firstGreater(base, 0, k);
            highIdx = firstGreater(high, i + 1, k);
            delta = baseIdx - (highIdx << shifts);
            if (delta < min) {
                min = delta;
                baseMinIdx = baseIdx;
                highMinIdx = highIdx;
            } else if (delta > max) {
                max = delta;
                baseMaxIdx = baseIdx;
                highMaxIdx = highIdx;
            }
        }
        double dbase = baseSize;
        double dhigh = highSize;
        double dmin = (baseMinIdx / dbase) - (highMinIdx / dhigh);
        double dmax = (baseMaxIdx / dbase) - (highMaxIdx / dhigh);
        dmin = -dmin;
        if (dmin <= 0.0) {
            dmin = 0.0;
        } else if (dmin >= 1.0) {
            dmin = 1.0;
        }
        double d = dmin >= dmax ? dmin : dmax;
        double en = Math.rint(dbase * dhigh / (dbase + dhigh));
        if (!Double.isFinite(en) || en == 0.0 || !Double.isFinite(d)) {
            return Double.NaN;
        }
        return KolmogorovSmirnov.fbar((int) en, d);
    }

    // ---- volume -----------------------------------------------------------------------------------

    private static double[] volume(Context ctx, ChartView chart, int d, Window w, long options) throws IOException {
        options |= DataOptions.MATCH_IDS | DataOptions.ABSOLUTE | DataOptions.NATURAL_POINTS;
        double base = value(ctx, chart, d, w.baselineAfter(), w.baselineBefore(), ctx.group, null, options);
        if (!isNumber(base)) {
            // no data in the baseline, maybe some in the highlight: take the baseline as zero
            base = 0.0;
        }
        double high = value(ctx, chart, d, w.after(), w.before(), ctx.group, null, options);
        if (!isNumber(high) || base == high) {
            return null;
        }
        String countifOptions = (high < base ? "<" : ">") + String.format(Locale.ROOT, "%.7f", base);
        double countif = value(ctx, chart, d, w.after(), w.before(), GroupingMethod.parse("countif"),
                countifOptions, options);
        if (!isNumber(countif)) {
            return null;
        }
        // the fraction of the highlighted time above (or below) the baseline's average
        countif = countif / 100.0;
        if (base > 0.0 || base < 0.0) {
            return new double[] {(high - base) / base * countif, BASE_HIGH_RATIO};
        }
        return new double[] {countif, PERCENTAGE_OF_TIME};
    }

    // ---- anomaly rate -----------------------------------------------------------------------------

    /**
     * The percentage of the highlighted window's stored points flagged anomalous. Strata keeps the
     * anomaly bit children send with each point; without machine learning anywhere on the way
     * every point is "not anomalous" and the rate is 0, as a Netdata built without ML answers.
     */
    private static double[] anomalyRate(Context ctx, ChartView chart, int d, Window w) throws IOException {
        if (chart.hidden(d)) {
            // Netdata's single value of a hidden dimension is null: not scored
            return null;
        }
        int metric = chart.metric(d);
        long[] counts = new long[2];
        StorageEngine.Tier0Consumer consumer = ctx.budget.counting((time, sn) -> {
            if (StorageNumber.exists(sn)) {
                counts[0]++;
                if ((sn & StorageNumber.SN_FLAG_NOT_ANOMALOUS) == 0) {
                    counts[1]++;
                }
            }
        });
        long read = ctx.engine.queryTier0(metric, w.after(), w.before(), consumer);
        ctx.stats.dbQueries++;
        ctx.stats.dbPoints += read;
        ctx.stats.pointsPerTier[0] += read;
        if (counts[0] == 0) {
            return null;
        }
        ctx.stats.resultPoints++;
        return new double[] {counts[1] * 100.0 / counts[0], 0};
    }

    // ---- spreading --------------------------------------------------------------------------------

    /**
     * Netdata's {@code spread_results_evenly}: percentage-of-time scores are scaled to the largest
     * ratio, every distinct score gets an equal slot of [0, 1], and a score becomes 1 − (the
     * fraction of distinct scores at or below it).
     */
    static List<Result> spreadEvenly(List<Result> results, List<Integer> flags, Stats stats) {
        int n = results.size();
        if (n == 0) {
            return results;
        }
        double maxRatio = stats.maxBaseHighRatio == 0.0 ? 1.0 : stats.maxBaseHighRatio;
        double[] values = new double[n];
        for (int i = 0; i < n; i++) {
            double v = results.get(i).value();
            if ((flags.get(i) & PERCENTAGE_OF_TIME) != 0) {
                v = v * maxRatio;
            }
            values[i] = v;
        }
        double[] slots = values.clone();
        Arrays.sort(slots);
        int unique = 0;
        double last = Double.NaN;
        for (int i = 0; i < n; i++) {
            if (slots[i] != last) {
                slots[unique++] = slots[i];
                last = slots[i];
            }
        }
        if (unique == 0) {
            unique = n;
        }
        double slotWeight = 1.0 / unique;
        List<Result> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int slot = firstGreater(slots, unique, values[i]);
            double v = slot * slotWeight;
            if (v > 1.0) {
                v = 1.0;
            }
            Result r = results.get(i);
            out.add(new Result(r.context(), r.chart(), r.dimension(), 1.0 - v));
        }
        return out;
    }

    private static int firstGreater(double[] a, int size, double k) {
        int left = 0;
        int right = size;
        while (left < right) {
            int middle = (left + right) >>> 1;
            if (a[middle] > k) {
                right = middle;
            } else {
                left = middle + 1;
            }
        }
        return left;
    }

    private static boolean isNumber(double v) {
        return !Double.isNaN(v) && !Double.isInfinite(v);
    }
}
