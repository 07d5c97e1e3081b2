package io.strata.query.data;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.query.AggregateSink;
import io.strata.engine.query.QueryResult;
import io.strata.engine.registry.MetricRegistry;
import io.strata.query.catalog.ChartView;
import io.strata.query.catalog.HostView;
import io.strata.query.catalog.Retention;
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
    /** Bound on the engine points one dimension may be read as when rows and tiers do not align. */
    private static final long MAX_ENGINE_POINTS = 10_000_000L;

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
        if (!req.hasTarget()) {
            throw ApiError.badRequest("No chart or context is given.");
        }
        long now = wallClockSeconds - 1;
        MetricRegistry registry = engine.registry();
        EngineConfig cfg = engine.config();
        int tiers = registry.tiers();
        long options = req.options;

        List<ChartView> charts = targetCharts(host, req);
        SimplePattern dims = SimplePattern.parse(req.dimensions);
        if (dims != null && dims.matchesEverything()) {
            dims = null;
        }
        boolean matchIds = (options & DataOptions.MATCH_IDS) != 0;
        boolean matchNames = (options & DataOptions.MATCH_NAMES) != 0;
        if (!matchIds && !matchNames) {
            matchIds = true;
            matchNames = true;
        }
        boolean percentage = (options & DataOptions.PERCENTAGE) != 0;

        // The window as requested, only to leave out metrics with no data in it (Netdata's query target does the same).
        long[] requested = QueryWindow.toAbsolute(req.after == 0 ? -1 : req.after, req.before, now);
        if (req.after == 0) {
            requested[0] = 0;
        }

        List<Column> columns = new ArrayList<>();
        boolean anyVisible = false;
        for (ChartView c : charts) {
            for (int d = 0; d < c.dimensions(); d++) {
                int m = c.metric(d);
                long first = Retention.first(registry, m);
                long last = Retention.last(registry, m);
                if (first == 0 || first > requested[1] || last < requested[0]) {
                    continue;
                }
                boolean matched = dims == null
                        || (matchIds && dims.matches(c.dimensionId(d)))
                        || (matchNames && dims.matches(c.dimensionName(d)));
                // a hidden dimension shows only when a pattern names it; percentages total them all
                boolean hidden = !matched || (dims == null && c.hidden(d));
                if (hidden && !percentage) {
                    continue;
                }
                anyVisible |= !hidden;
                columns.add(new Column(c, d, m, hidden));
            }
        }
        if (!anyVisible) {
            throw ApiError.notFound(NO_METRICS);
        }

        long dbFirst = Long.MAX_VALUE;
        long dbLast = 0;
        long updateEvery = Long.MAX_VALUE;
        for (Column col : columns) {
            dbFirst = Math.min(dbFirst, Retention.first(registry, col.metric));
            dbLast = Math.max(dbLast, Retention.last(registry, col.metric));
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
        TimeGrouping grouping = req.group.create(req.groupOptions, window.group(), window.points(),
                window.resamplingGroup() != 1 ? window.resamplingDivisor() : 0);
        ColumnFiller filler = new ColumnFiller(result, grouping);
        for (int i = 0; i < columns.size(); i++) {
            Column col = columns.get(i);
            ChartView c = col.chart;
            result.ids[i] = c.dimensionId(col.dimension);
            result.names[i] = c.dimensionName(col.dimension);
            result.chartIds[i] = c.id();
            result.hidden[i] = col.hidden;
            filler.start(i);
            readColumn(engine, registry, cfg, req.group, col.metric, c.info().updateEvery(), window,
                    forcedTier, filler, result.pointsPerTier);
            filler.finish();
            result.latest[i] = col.hidden ? Double.NaN : latestValue(engine, registry, col.metric);
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
        if (DataRequest.given(req.context)) {
            SimplePattern contexts = SimplePattern.parse(req.context);
            SimplePattern instances = DataRequest.given(req.chart) ? SimplePattern.parse(req.chart) : null;
            if (contexts != null) {
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
     * Reads one dimension over the window into {@code filler}. The engine is asked for points of
     * a step that divides the rows, so that its buckets nest in them: the rows' own step when they
     * align (the planner then picks the coarsest tier that still serves it), the selected tier's
     * step with {@code selected-tier}, the collection interval for methods that need every value.
     *
     * @param selectedTier the tier {@code selected-tier} asks for, or -1
     */
    private static void readColumn(StorageEngine engine, MetricRegistry registry, EngineConfig cfg,
                                   GroupingMethod method, int metric, int chartUpdateEvery, QueryWindow w,
                                   int selectedTier, ColumnFiller filler, long[] pointsPerTier) throws IOException {
        long vue = w.viewUpdateEvery();
        long before = w.before();
        long afterExclusive = before - w.points() * vue;
        if (before <= 0) {
            return;
        }
        long from = Math.max(0, afterExclusive);
        long t0first = registry.firstTime(metric, 0);
        if (selectedTier == 0 && t0first != MetricRegistry.NO_TIME) {
            pointsPerTier[0] += engine.queryTier0(metric, from + 1, before, filler);
            return;
        }
        if (method.needsValues() && selectedTier < 0) {
            if (t0first != MetricRegistry.NO_TIME
                    && (t0first <= from + 1 || t0first <= Retention.first(registry, metric))) {
                // tier 0 holds all there is of the window: read the stored values themselves
                pointsPerTier[0] += engine.queryTier0(metric, from + 1, before, filler);
                return;
            }
        }
        long ue = Math.max(1, chartUpdateEvery);
        long step;
        if (selectedTier > 0) {
            step = cfg.tierStep(selectedTier, chartUpdateEvery);
        } else if (method.needsValues()) {
            step = ue;
        } else {
            step = gcd(vue, Math.floorMod(before, vue) == 0 ? vue : Math.floorMod(before, vue));
            if (step % ue != 0) {
                step = ue;
            }
        }
        if ((before - from) / step > MAX_ENGINE_POINTS) {
            step = Math.max(ue, vue / ue * ue);
        }
        long points = Math.max(1, (before - from) / step);
        QueryResult r = engine.query(metric, chartUpdateEvery, from, before, (int) Math.min(Integer.MAX_VALUE, points),
                filler);
        long[] read = r.pointsRead();
        for (int t = 0; t < read.length && t < pointsPerTier.length; t++) {
            pointsPerTier[t] += read[t];
        }
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return Math.max(1, a);
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

    /**
     * Receives one dimension's points in time order and fills its column: each point goes to the
     * row whose interval holds its time, each row is flushed through the grouping method once
     * the points move past it.
     */
    static final class ColumnFiller implements AggregateSink, StorageEngine.Tier0Consumer {
        private final DataResult result;
        private final TimeGrouping grouping;
        private final long vue;
        private final long firstRowEnd;
        private final long before;
        private int column;
        private int row;
        private boolean first = true;

        ColumnFiller(DataResult result, TimeGrouping grouping) {
            this.result = result;
            this.grouping = grouping;
            this.vue = result.window.viewUpdateEvery();
            this.before = result.window.before();
            this.firstRowEnd = before - (result.rows - 1) * vue;
        }

        void start(int c) {
            column = c;
            row = 0;
            grouping.reset();
        }

        private boolean moveTo(long time) {
            if (time > before || time <= firstRowEnd - vue) {
                return false;
            }
            int r = (int) ((time - firstRowEnd + vue - 1) / vue);
            while (row < r) {
                flushRow();
            }
            return true;
        }

        @Override
        public void point(long time, int sn) {
            if (!StorageNumber.exists(sn) || !moveTo(time)) {
                return;
            }
            double v = StorageNumber.unpack(sn);
            if (Double.isNaN(v)) {
                return;
            }
            if (v != 0) {
                result.nonZero[column] = true;
            }
            grouping.add(v);
        }

        @Override
        public void point(long time, double sum, double min, double max, long count, long anomalies) {
            if (count == 0 || !moveTo(time)) {
                return;
            }
            if (sum != 0 || min != 0 || max != 0) {
                result.nonZero[column] = true;
            }
            grouping.addAggregate(sum, min, max, count);
        }

        private void flushRow() {
            double v = grouping.flush();
            result.values[row * result.columns + column] = v;
            double forRange = Double.isNaN(v) ? 0 : v;
            if (first) {
                result.min = forRange;
                result.max = forRange;
                first = false;
            } else {
                result.min = Math.min(result.min, forRange);
                result.max = Math.max(result.max, forRange);
            }
            row++;
        }

        void finish() {
            while (row < result.rows) {
                flushRow();
            }
        }
    }
}
