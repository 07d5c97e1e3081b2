package io.strata.jmh.engine;

import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.engine.cache.PageCache;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.query.AggregateSink;
import io.strata.engine.query.QueryResult;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * {@link StorageEngine#query} (planner, tier reader, aggregation into output points) of data that
 * is on disk but whose pages are all in the engine's clean-page cache: the figure "queries served
 * from cache, points aggregated per second per core". No file is read while measuring; the
 * set-up proves it (see below) and every iteration prints the cache counters.
 *
 * <p>Set-up (per benchmark method): an engine with 3 tiers (tier 1 = 60 s, tier 2 = 1 h) in a
 * temporary directory, {@value #CHARTS} charts x {@value #DIMS} dimensions, {@value #SECONDS}
 * seconds (4 hours at 1 s) of the real dataset stored for each ({@value BenchData#NETDATA_RESOURCE}:
 * metric {@code m} takes column {@code m mod 1105}, second {@code s} row {@code s mod 3580}),
 * then {@link StorageEngine#flush}ed so that every point is in an extent on disk and no hot or
 * dirty page holds any. The caches are set to {@value #CACHE_MIB} MiB so that the measured working
 * set fits with room to spare: the second hour of every metric is 4 990 decoded tier-0 pages
 * (20.8 MB as the cache counts them) or 1 800 tier-1 pages (3.3 MB); the default 32 MiB (24 MiB of
 * it for pages) would hold either, but only just, and an LRU scanned cyclically by a working set
 * larger than itself hits nothing. Every measured query is
 * then run once over the whole rotation (warming the caches and checking the plan and the points
 * read against the constants below), and once more while the cache counters are watched: the
 * set-up throws unless that second pass had page hits and not a single page or extent miss.
 *
 * <p>Each invocation queries the next metric (or chart), cycling over all of them, so that it
 * reads pages the last few invocations did not touch (the whole rotation of tier-0 pages, 21 MB,
 * is far beyond L2, though a large L3 may hold much of it: a hot dashboard's case). The output is
 * folded into a sink (count and XOR of the sums' bits) that JMH consumes.
 *
 * <p>Score: stored points read (and aggregated) per second, single thread: one op = one point
 * counted by {@link QueryResult#pointsRead()}, gaps included. A tier-1 point is one stored point
 * (one aggregate of 60 collected values).
 */
@State(Scope.Benchmark)
public class QueryFromCacheBenchmark extends EngineBenchmarkBase {

    static final int CHARTS = 100;
    static final int DIMS = 10;
    static final int METRICS = CHARTS * DIMS;
    static final int SECONDS = 4 * 3600;
    static final long CACHE_MIB = 128;
    /** A multiple of 3600, so that tier-1 and tier-2 points fall on whole minutes and hours. */
    static final long T0 = 1_699_999_200L;
    /** The measured hour: the second one stored, {@code (HOUR_AFTER, HOUR_AFTER + 3600]}. */
    static final long HOUR_AFTER = T0 + 3600;

    /** Points read by {@link #tier0FullResolution}: one metric, one hour at 1 s. */
    static final int TIER0_HOUR = 3600;
    /** Points read by {@link #tier1TenMinutesTo10Points}: ten tier-1 points. */
    static final int TIER1_TEN_MINUTES = 10;
    /** Points read by {@link #chart10Dims1hTo60Points}: 60 tier-1 points per dimension. */
    static final int CHART_HOUR_TIER1 = DIMS * 60;
    /** Points read by {@link #tier0ChartHour}: 3600 tier-0 points per dimension. */
    static final int CHART_HOUR_TIER0 = DIMS * 3600;

    private Path dir;
    private StorageEngine engine;
    private int[] ids;
    private int nextMetric;
    private int nextChart;
    private final Sink sink = new Sink();
    private long hitsAtStart;
    private long missesAtStart;
    private long extentMissesAtStart;

    /** Folds every output point into two longs so that nothing delivered can be optimised away. */
    static final class Sink implements AggregateSink {
        long count;
        long bits;
        long points;

        @Override
        public void point(long time, double sum, double min, double max, long c, long anomalies) {
            count += c;
            bits ^= Double.doubleToRawLongBits(sum) + time;
            points++;
        }
    }

    /** One measured query shape: what it asks and what the set-up expects it to read. */
    private enum Shape {
        TIER0_FULL_RESOLUTION(1, 3600, 3600, 0, TIER0_HOUR),
        TIER1_TEN_MINUTES_TO_10(1, 600, 10, 1, TIER1_TEN_MINUTES),
        CHART_HOUR_TO_60(DIMS, 3600, 60, 1, CHART_HOUR_TIER1),
        CHART_HOUR_FULL(DIMS, 3600, 3600, 0, CHART_HOUR_TIER0);

        final int metrics;
        final long span;
        final int points;
        final int tier;
        final long pointsRead;

        Shape(int metrics, long span, int points, int tier, long pointsRead) {
            this.metrics = metrics;
            this.span = span;
            this.points = points;
            this.tier = tier;
            this.pointsRead = pointsRead;
        }

        static Shape of(String benchmark) {
            String m = benchmark.substring(benchmark.lastIndexOf('.') + 1);
            switch (m) {
                case "tier0FullResolution":
                    return TIER0_FULL_RESOLUTION;
                case "tier1TenMinutesTo10Points":
                    return TIER1_TEN_MINUTES_TO_10;
                case "chart10Dims1hTo60Points":
                    return CHART_HOUR_TO_60;
                case "tier0ChartHour":
                    return CHART_HOUR_FULL;
                default:
                    throw new IllegalStateException("no query shape for " + benchmark);
            }
        }
    }

    @Setup(Level.Trial)
    public void setup(BenchmarkParams params) throws IOException {
        Shape shape = Shape.of(params.getBenchmark());
        double[][] rows = BenchData.netdataRows();
        int columns = rows[0].length;
        dir = Files.createTempDirectory("strata-jmh-query-cache-");
        engine = StorageEngine.open(EngineConfig.defaults(dir).withTiers(3).withFsync(FsyncPolicy.NEVER)
                .withCacheBytes(CACHE_MIB << 20));
        ids = BenchData.define(engine, METRICS, DIMS);
        long t = System.nanoTime();
        for (int s = 1; s <= SECONDS; s++) {
            double[] row = rows[s % rows.length];
            for (int m = 0; m < METRICS; m++) {
                engine.store(ids[m], T0 + s, 1, row[m % columns], StorageNumber.SN_DEFAULT_FLAGS);
            }
        }
        engine.flush();
        if (engine.pendingPages() != 0) {
            throw new IllegalStateException(engine.pendingPages() + " pages not flushed");
        }
        double storeSeconds = (System.nanoTime() - t) / 1e9;

        // Pass 1 over the whole rotation: warms the caches and checks plan and points read.
        PageCache cache = engine.cache();
        long m0 = cache.pageMisses();
        long e0 = cache.extentMisses();
        for (int i = 0; i < rotation(shape); i++) {
            long read = 0;
            for (int d = 0; d < shape.metrics; d++) {
                int metric = ids[i * shape.metrics + d];
                QueryResult r = engine.query(metric, 1, HOUR_AFTER, HOUR_AFTER + shape.span, shape.points, sink);
                for (QueryResult.Segment seg : r.segments()) {
                    if (seg.tier() != shape.tier) {
                        throw new IllegalStateException(shape + " metric " + metric + ": plan " + r.segments()
                                + " leaves tier " + shape.tier);
                    }
                }
                if (r.points() != shape.points) {
                    throw new IllegalStateException(shape + " metric " + metric + ": " + r.points()
                            + " output points, expected " + shape.points);
                }
                if (r.pointsRead()[shape.tier] != r.totalPointsRead()) {
                    throw new IllegalStateException(shape + ": points read outside tier " + shape.tier);
                }
                read += r.totalPointsRead();
            }
            if (read != shape.pointsRead) {
                throw new IllegalStateException(shape + " query " + i + ": " + read + " points read, expected "
                        + shape.pointsRead);
            }
        }
        long warmMisses = cache.pageMisses() - m0;
        long warmExtentMisses = cache.extentMisses() - e0;

        // Pass 2: what the measurement will do must be served from the page cache alone.
        long h1 = cache.pageHits();
        long m1 = cache.pageMisses();
        long e1 = cache.extentMisses();
        long eh1 = cache.extentHits();
        for (int i = 0; i < rotation(shape); i++) {
            run(shape, i);
        }
        long hits = cache.pageHits() - h1;
        long misses = cache.pageMisses() - m1;
        long extentMisses = cache.extentMisses() - e1;
        long extentHits = cache.extentHits() - eh1;
        System.out.printf("%nQueryFromCacheBenchmark[%s]: %d metrics x %d s stored and flushed in %.1f s (%d pages);"
                        + " cache %d MiB holds %d bytes of pages, %d of extents; warm-up pass: %d page misses, %d"
                        + " extent misses; check pass: %d page hits, %d page misses, %d extent hits, %d extent misses%n",
                shape, METRICS, SECONDS, storeSeconds, engine.pagesFlushed(), CACHE_MIB, cache.pageBytes(),
                cache.extentBytes(), warmMisses, warmExtentMisses, hits, misses, extentHits, extentMisses);
        if (hits == 0 || misses != 0 || extentMisses != 0) {
            throw new IllegalStateException(shape + ": the measured queries are not served from the page cache ("
                    + hits + " page hits, " + misses + " page misses, " + extentMisses + " extent misses)");
        }
        hitsAtStart = cache.pageHits();
        missesAtStart = cache.pageMisses();
        extentMissesAtStart = cache.extentMisses();
        nextMetric = 0;
        nextChart = 0;
    }

    private static int rotation(Shape shape) {
        return METRICS / shape.metrics;
    }

    /** Runs query {@code i} of the rotation of {@code shape}; returns the points it read. */
    private long run(Shape shape, int i) throws IOException {
        long read = 0;
        for (int d = 0; d < shape.metrics; d++) {
            read += engine.query(ids[i * shape.metrics + d], 1, HOUR_AFTER, HOUR_AFTER + shape.span, shape.points,
                    sink).totalPointsRead();
        }
        return read;
    }

    @TearDown(Level.Iteration)
    public void report() {
        PageCache cache = engine.cache();
        System.out.printf("  [since set-up: %d page hits, %d page misses, %d extent misses]%n",
                cache.pageHits() - hitsAtStart, cache.pageMisses() - missesAtStart,
                cache.extentMisses() - extentMissesAtStart);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try {
            if (engine != null) {
                engine.close();
            }
        } finally {
            BenchData.deleteTree(dir);
        }
    }

    private int nextMetric() {
        int m = nextMetric;
        nextMetric = m + 1 == METRICS ? 0 : m + 1;
        return ids[m];
    }

    private int nextChartBase() {
        int c = nextChart;
        nextChart = c + 1 == CHARTS ? 0 : c + 1;
        return c * DIMS;
    }

    /** (a) One metric, one hour at 1 s into 3600 points: tier 0, 3600 points read. */
    @Benchmark
    @OperationsPerInvocation(TIER0_HOUR)
    public long tier0FullResolution() throws IOException {
        QueryResult r = engine.query(nextMetric(), 1, HOUR_AFTER, HOUR_AFTER + 3600, 3600, sink);
        return r.totalPointsRead() + sink.bits;
    }

    /** (b) One metric, ten minutes into 10 points: step 60, so tier 1 answers, 10 points read. */
    @Benchmark
    @OperationsPerInvocation(TIER1_TEN_MINUTES)
    public long tier1TenMinutesTo10Points() throws IOException {
        QueryResult r = engine.query(nextMetric(), 1, HOUR_AFTER, HOUR_AFTER + 600, 10, sink);
        return r.totalPointsRead() + sink.bits;
    }

    /** (c) The 10 dimensions of one chart, one hour into 60 points: tier 1, 600 points read. */
    @Benchmark
    @OperationsPerInvocation(CHART_HOUR_TIER1)
    public long chart10Dims1hTo60Points() throws IOException {
        int base = nextChartBase();
        long read = 0;
        for (int d = 0; d < DIMS; d++) {
            read += engine.query(ids[base + d], 1, HOUR_AFTER, HOUR_AFTER + 3600, 60, sink).totalPointsRead();
        }
        return read + sink.bits;
    }

    /** (d) The 10 dimensions of one chart, one hour at full resolution: tier 0, 36 000 points read. */
    @Benchmark
    @OperationsPerInvocation(CHART_HOUR_TIER0)
    public long tier0ChartHour() throws IOException {
        int base = nextChartBase();
        long read = 0;
        for (int d = 0; d < DIMS; d++) {
            read += engine.query(ids[base + d], 1, HOUR_AFTER, HOUR_AFTER + 3600, 3600, sink).totalPointsRead();
        }
        return read + sink.bits;
    }
}
