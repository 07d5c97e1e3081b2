package io.strata.jmh.engine;

import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Query cost against the number of datafiles of a tier: the same data (the same pages and
 * extents) split into {@code datafiles} datafiles, and the same hour of one metric asked for. A
 * query prunes datafiles by their time range before it searches their index, so its cost should
 * not grow with their number (before, a 100 GiB tier made of 20 MiB datafiles had 5 000 journals
 * v2 to search per query).
 *
 * <p>Set-up: {@value #METRICS} metrics ({@value EngineWriteBenchmark#PER_CHART} to a chart) of
 * the real dataset, {@value #SLICES} slices of {@value #SLICE_SECONDS} s each (about 12 days at
 * 1 s), each slice flushed; a datafile rolls over every {@code SLICES / datafiles} slices. Each
 * invocation queries the next metric's newest hour ({@link #newestHour}), an hour in the middle
 * of the history ({@link #middleHour}: 4 or 5 small datafiles, or 1 large one), or ten minutes
 * that lie in one datafile in both layouts ({@link #middleTenMinutes}: the cost of the datafiles
 * a query does not need, alone); after the first pass the pages come from the page cache, so
 * what is left is the planning, the index searches and the delivery.
 *
 * <p>Score: points delivered per second (one op = one point, 3 600 or 600 per query).
 */
@State(Scope.Benchmark)
public class QueryDatafilesBenchmark extends EngineBenchmarkBase {

    static final int METRICS = 20;
    static final int SLICES = 1000;
    static final int SLICE_SECONDS = 1024;
    static final int HOUR = 3600;
    static final int TEN_MINUTES = 600;
    static final long T0 = 1_700_000_000L;
    static final long END = T0 + (long) SLICES * SLICE_SECONDS;

    @Param({"10", "1000"})
    public int datafiles;

    private Path dir;
    private StorageEngine engine;
    private int[] ids;
    private int next;
    private final QueryBenchmark.Sink sink = new QueryBenchmark.Sink();

    @Setup(Level.Trial)
    public void setup() throws IOException {
        double[][] rows = BenchData.netdataRows();
        int columns = rows[0].length;
        dir = Files.createTempDirectory("strata-jmh-datafiles-");
        engine = StorageEngine.open(EngineConfig.defaults(dir).withTiers(1).withFsync(FsyncPolicy.NEVER)
                .withFutureMarginSeconds(0));
        ids = BenchData.define(engine, METRICS, EngineWriteBenchmark.PER_CHART);
        int every = SLICES / datafiles;
        for (int slice = 0; slice < SLICES; slice++) {
            for (int s = 0; s < SLICE_SECONDS; s++) {
                long t = T0 + (long) slice * SLICE_SECONDS + s;
                double[] row = rows[(int) ((t - T0) % rows.length)];
                for (int m = 0; m < METRICS; m++) {
                    engine.store(ids[m], t, 1, row[m % columns], StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            engine.flush();
            if ((slice + 1) % every == 0 && slice + 1 < SLICES) {
                engine.tier(0).rollover();
            }
        }
        engine.flush();
        int files = engine.tier(0).datafiles().size();
        for (int m = 0; m < METRICS; m++) {
            check(engine.queryTier0(ids[m], END - HOUR, END - 1, sink));
            check(engine.queryTier0(ids[m], middle(), middle() + HOUR - 1, sink));
            if (engine.queryTier0(ids[m], tenMinutes(), tenMinutes() + TEN_MINUTES - 1, sink) != TEN_MINUTES) {
                throw new IllegalStateException("ten minutes: wrong count");
            }
        }
        System.out.printf("%nQueryDatafilesBenchmark: %d datafiles (wanted %d), %d metrics x %d s, %d bytes under %s%n",
                files, datafiles, METRICS, (long) SLICES * SLICE_SECONDS, BenchData.bytesUnder(dir), dir);
        next = 0;
    }

    /** 200 s into the slice in the middle of the history: 600 s that lie in one datafile in both layouts. */
    private static long tenMinutes() {
        return T0 + (long) (SLICES / 2) * SLICE_SECONDS + 200;
    }

    private static long middle() {
        return T0 + (END - T0) / 2;
    }

    private static void check(long n) {
        if (n != HOUR) {
            throw new IllegalStateException(n + " points delivered, expected " + HOUR);
        }
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

    /** The newest hour of the next metric. */
    @Benchmark
    @OperationsPerInvocation(HOUR)
    public long newestHour() throws IOException {
        int m = next;
        next = m + 1 == ids.length ? 0 : m + 1;
        return engine.queryTier0(ids[m], END - HOUR, END - 1, sink) + sink.acc;
    }

    /** Ten minutes inside one slice (one datafile in both layouts) in the middle of the history. */
    @Benchmark
    @OperationsPerInvocation(TEN_MINUTES)
    public long middleTenMinutes() throws IOException {
        int m = next;
        next = m + 1 == ids.length ? 0 : m + 1;
        return engine.queryTier0(ids[m], tenMinutes(), tenMinutes() + TEN_MINUTES - 1, sink) + sink.acc;
    }

    /** An hour in the middle of the history of the next metric (4 or 5 datafiles of 1 000, 1 of 10). */
    @Benchmark
    @OperationsPerInvocation(HOUR)
    public long middleHour() throws IOException {
        int m = next;
        next = m + 1 == ids.length ? 0 : m + 1;
        return engine.queryTier0(ids[m], middle(), middle() + HOUR - 1, sink) + sink.acc;
    }
}
