package io.strata.query.data;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.netdata.SimplePattern;
import io.strata.engine.query.AggregateSink;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.query.QueryResult;
import io.strata.engine.registry.MetricRegistry;
import io.strata.query.catalog.ChartView;
import io.strata.query.catalog.HostView;
import io.strata.query.catalog.RetentionSpan;
import io.strata.query.http.ApiError;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Arrays;

/**
 * Runs {@code /api/v1/data} against the engine: picks the dimensions, computes Netdata's window,
 * queries each dimension through the engine's tier planner ({@link StorageEngine#query}) or, for
 * grouping methods that need every value, through the tier-0 reader, and folds the points into
 * rows. Points travel from the engine to the result array through primitive callbacks only.
 */
public final class DataQuery {

    /** Netdata's answer when nothing matched: no chart, no dimension, or no data in the window (sic). */
    public static final String NO_METRICS = "No metrics where matched to query.";
    /** Bound on rows × dimensions of one answer (64 MiB of values). */
    static final long MAX_CELLS = 1L << 23;

    private DataQuery() {
    }

    private record Column(ChartView chart, int dimension, int metric, boolean hidden) {
    }

    /**
     * @param wallClockSeconds the current unix time; Netdata takes "now" as one second before it
     * @throws ApiError 400 without chart or context, 404 when nothing matched
     */
    public static DataResult execute(StorageEngine engine, HostView host, DataRequest req, long wallClockSeconds)
            throws IOException {
        return execute(engine, host, req, wallClockSeconds, QueryBudget.UNLIMITED);
    }

    /**
     * As {@link #execute(StorageEngine, HostView, DataRequest, long)}, every point read counted against
     * {@code budget} (its deadline and point cap stop the engine read with their {@link ApiError}).
     */
    public static DataResult execute(StorageEngine engine, HostView host, DataRequest req, long wallClockSeconds,
                                     QueryBudget budget) throws IOException {
        if (!req.hasTarget()) {
            throw ApiError.badRequest("No chart or context is given.");
        }
        long now = wallClockSeconds - 1;
        MetricRegistry registry = engine.registry();
        EngineConfig cfg = engine.config();
        int tiers = registry.tiers();
        req.applyTiers(tiers);
        long options = req.options;

        List<ChartView> charts = targetCharts(host, req);
        // Netdata 1.37.1 (is_valid_sp) has no pattern only for a bare "*"; the API's "|*" is one: it
        // selects every dimension, hidden ones too, and marks them non-zero
        SimplePattern dims = "*".equals(req.dimensions) ? null
                : SimplePattern.parse(req.dimensions, SimplePattern.API_SEPARATORS);
        if (dims != null && dims.isEmpty()) {
            dims = null;
        }
        boolean matchIds = (options & DataOptions.MATCH_IDS) != 0;
        boolean matchNames = (options & DataOptions.MATCH_NAMES) != 0;
        if (!matchIds && !matchNames) {
            matchIds = true;
            matchNames = true;
        }
        boolean percentage = (options & DataOptions.PERCENTAGE) != 0;

        // The window as requested, only to leave out metrics with no data near it (Netdata's query target does the same).
        long[] requested = QueryWindow.toAbsolute(req.after == 0 ? -1 : req.after, req.before, now);
        if (req.after == 0) {
            requested[0] = 0;
        }

        List<Column> columns = new ArrayList<>();
        // what the query target holds before the dimensions pattern: all-dimensions lists it
        List<String[]> inWindow = new ArrayList<>();
        List<ChartView> inWindowCharts = new ArrayList<>();
        for (ChartView c : charts) {
            for (int d = 0; d < c.dimensions(); d++) {
                if (req.onlyDimension >= 0 && d != req.onlyDimension) {
                    continue;
                }
                int m = c.metric(d);
                long first = RetentionSpan.first(registry, m);
                long last = RetentionSpan.last(registry, m);
                // Netdata's query target keeps a metric within two update intervals of the window
                // (query_target_add_metric: first - 2 ue <= before, last + 2 ue >= after)
                long margin = 2L * Math.max(1, c.info().updateEvery());
                if (first == 0 || first - margin > requested[1] || last + margin < requested[0]) {
                    continue;
                }
                inWindow.add(new String[]{c.dimensionId(d), c.dimensionName(d)});
                if (inWindowCharts.isEmpty() || inWindowCharts.get(inWindowCharts.size() - 1) != c) {
                    inWindowCharts.add(c);
                }
                boolean matched = dims == null
                        || (matchIds && dims.matches(c.dimensionId(d)))
                        || (matchNames && dims.matches(c.dimensionName(d)));
                // a hidden dimension shows only when a pattern names it; percentages total them all
                boolean hidden = !matched || (dims == null && c.hidden(d));
                if (hidden && !percentage) {
                    continue;
                }
                columns.add(new Column(c, d, m, hidden));
            }
        }
        if (columns.isEmpty()) {
            // with percentage, dimensions the pattern leaves out are still queried (hidden): Netdata
            // then answers "no data" rather than 404
            throw ApiError.notFound(NO_METRICS);
        }

        long dbFirst = Long.MAX_VALUE;
        long dbLast = 0;
        long updateEvery = Long.MAX_VALUE;
        for (Column col : columns) {
            dbFirst = Math.min(dbFirst, RetentionSpan.first(registry, col.metric));
            dbLast = Math.max(dbLast, RetentionSpan.last(registry, col.metric));
            updateEvery = Math.min(updateEvery, col.chart.info().updateEvery());
        }

        int tier = 0;
        long tierStep = 0;
        boolean readTier = false;
        if ((options & DataOptions.SELECTED_TIER) != 0) {
            tier = req.tier < tiers ? req.tier : 0;
            if (tier > 0) {
                tierStep = cfg.tierStep(tier, (int) updateEvery);
                for (Column col : columns) {
                    readTier |= registry.firstTime(col.metric, tier) != MetricRegistry.NO_TIME;
                }
                if (!readTier) {
                    // Netdata drops the option when the tier holds nothing, keeping its granularity
                    options &= ~DataOptions.SELECTED_TIER;
                }
            }
        }

        // with selected-tier, tier 0 is read as stored; a higher tier only where it holds something
        int forcedTier = (options & DataOptions.SELECTED_TIER) == 0 ? -1 : tier;

        QueryWindow window = QueryWindow.compute(req.after, req.before, req.points, options, req.gtime, tierStep,
                dbFirst, dbLast, updateEvery, now);
        if (window.points() * columns.size() > MAX_CELLS) {
            throw ApiError.badRequest("The query would return " + window.points() + " points of " + columns.size()
                    + " dimensions, more than " + MAX_CELLS + " values; ask for fewer points or dimensions.");
        }

        DataResult result = new DataResult(req, host, window, columns.size(), dbFirst, dbLast, updateEvery,
                window.options(), tiers, wallClockSeconds);
        result.budget = budget;
        TimeGrouping grouping = req.group.create(req.groupOptions, window.group(), window.points(),
                window.resamplingGroup() != 1 ? window.resamplingDivisor() : 0);
        result.allDimensions = inWindow;
        result.chartName = DataRequest.given(req.context) ? null : charts.get(0).name();
        result.allCharts = inWindowCharts;
        PointLoop loop = new PointLoop(result, grouping, PointLoop.fetchFor(req.group));
        for (int i = 0; i < columns.size(); i++) {
            Column col = columns.get(i);
            ChartView c = col.chart;
            result.ids[i] = c.dimensionId(col.dimension);
            result.names[i] = c.dimensionName(col.dimension);
            result.chartIds[i] = c.id();
            result.hidden[i] = col.hidden;
            loop.start(i, c.info().updateEvery());
            readColumn(engine, registry, cfg, col.metric, c.info().updateEvery(), window, forcedTier, loop,
                    result.pointsPerTier, budget);
            loop.finish();
            result.latest[i] = col.hidden ? Double.NaN : latestValue(engine, registry, col.metric);
        }
        if (dims != null) {
            // Netdata marks the dimensions a pattern selects as non-zero before the query runs
            // (none is yet, so it "avoids returning an empty chart"): nonzero drops none of them
            for (int i = 0; i < result.columns; i++) {
                result.nonZero[i] |= !result.hidden[i];
            }
        }
        if ((options & DataOptions.NONZERO) != 0) {
            boolean any = false;
            for (int i = 0; i < result.columns; i++) {
                any |= !result.hidden[i] && result.nonZero[i];
            }
            if (!any) {
                // all zero: Netdata shows them all rather than nothing
                Arrays.fill(result.nonZero, true);
            }
        }
        return result;
    }

    private static List<ChartView> targetCharts(HostView host, DataRequest req) {
        List<ChartView> out = new ArrayList<>();
        if (req.onlyChart != null) {
            out.add(req.onlyChart);
        } else if (DataRequest.given(req.context)) {
            SimplePattern contexts = SimplePattern.parse(req.context, SimplePattern.API_SEPARATORS);
            SimplePattern instances = DataRequest.given(req.chart)
                    ? SimplePattern.parse(req.chart, SimplePattern.API_SEPARATORS) : null;
            if (instances != null && instances.isEmpty()) {
                instances = null;
            }
            if (!contexts.isEmpty()) {
                for (ChartView c : host.charts()) {
                    if (contexts.matches(c.info().context())
                            && (instances == null || instances.matches(c.id()) || instances.matches(c.name()))) {
                        out.add(c);
                    }
                }
            }
        } else {
            ChartView c = host.chart(req.chart);
            if (c != null) {
                out.add(c);
            }
        }
        if (out.isEmpty()) {
            throw ApiError.notFound(NO_METRICS);
        }
        return out;
    }

    /**
     * Reads one dimension over the window into {@code loop} as Netdata 1.37.1 plans it
     * ({@code query_plan}): the tier {@code selected-tier} names when it holds the metric, else
     * the tier whose points best cover the window at the wanted resolution (the coarsest among
     * equals), helped by coarser tiers where it starts too late and by finer tiers where it ends
     * too early. Each part is read at its tier's own resolution (tier 0 as stored), including the
     * point just before the window and the one just after it, which interpolation needs.
     *
     * @param selectedTier the tier {@code selected-tier} asks for, or -1
     */
    private static void readColumn(StorageEngine engine, MetricRegistry registry, EngineConfig cfg, int metric,
                                   int chartUpdateEvery, QueryWindow w, int selectedTier, PointLoop loop,
                                   long[] pointsPerTier, QueryBudget budget) throws IOException {
        budget.checkDeadline();
        StorageEngine.Tier0Consumer values = budget.counting(loop);
        AggregateSink aggregates = budget.watching(loop);
        int tiers = registry.tiers();
        long[] first = new long[tiers];
        long[] last = new long[tiers];
        long[] step = new long[tiers];
        for (int t = 0; t < tiers; t++) {
            long f = registry.firstTime(metric, t);
            first[t] = f == MetricRegistry.NO_TIME ? 0 : f;
            last[t] = f == MetricRegistry.NO_TIME ? 0 : registry.lastTime(metric, t);
            step[t] = cfg.tierStep(t, Math.max(1, chartUpdateEvery));
        }
        long afterWanted = w.after();
        long beforeWanted = w.before();
        long[][] plan = TierPlan.plan(first, last, step, afterWanted, beforeWanted, w.points(), selectedTier,
                w.before() - (w.points() - 1) * w.viewUpdateEvery(), w.viewUpdateEvery());
        if (plan.length == 0) {
            return;
        }
        for (int i = 0; i < plan.length && !loop.done(); i++) {
            int tier = (int) plan[i][0];
            long from = plan[i][1];
            long to = plan[i][2];
            long width = step[tier];
            if (first[tier] > to || last[tier] < from) {
                // the storage query of a part finds no page overlapping it (a tier's first point
                // after the part's end, as when every weight is -LONG_MAX): it gives no point at all
                continue;
            }
            loop.pointWidth(width);
            // the point at or before the start (Netdata's page position rounds down), through the first point at or after the end
            long readFrom = Math.max(1, from - width + 1);
            long readTo = to + width - 1;
            if (tier == 0) {
                pointsPerTier[0] += engine.queryTier0(metric, readFrom, readTo, values);
            } else {
                // whole tier points only, and only where this tier holds them: the engine would stitch other tiers
                long a = Math.max(Math.floorDiv(readFrom - 1, width) * width, first[tier] - width);
                long b = Math.min(Math.floorDiv(readTo + width - 1, width) * width, last[tier]);
                if (b <= a) {
                    continue;
                }
                long points = Math.max(1, (b - a) / width);
                QueryResult r = engine.query(metric, chartUpdateEvery, a, b, (int) Math.min(Integer.MAX_VALUE, points),
                        aggregates);
                long[] read = r.pointsRead();
                for (int t = 0; t < read.length && t < pointsPerTier.length; t++) {
                    pointsPerTier[t] += read[t];
                    budget.read(read[t]);
                }
            }
        }
    }

    /** The newest stored value of a metric (Netdata's {@code latest_values}), NaN when there is none. */
    private static double latestValue(StorageEngine engine, MetricRegistry registry, int metric) throws IOException {
        if (registry.firstTime(metric, 0) == MetricRegistry.NO_TIME) {
            return Double.NaN;
        }
        long last = registry.lastTime(metric, 0);
        double[] v = {Double.NaN};
        engine.queryTier0(metric, last, last, (t, sn) -> {
            if (StorageNumber.exists(sn)) {
                v[0] = StorageNumber.unpack(sn);
            }
        });
        return v[0];
    }
}
