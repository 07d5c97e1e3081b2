package io.strata.jmh.engine;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The whole tier-0 write path: {@link StorageEngine#store} of real values (pack, hot page,
 * sealing and encoding a full page on the collecting thread) with the engine's flusher thread
 * building extents and writing them, its journal and its metadata to a real temporary directory
 * ({@link EngineConfig#defaults}: fsync per datafile) at the same time, with {@code tiers} tiers
 * (default 3, Netdata's; {@code -p tiers=1,3,5} compares): the tiers above 0 are aggregated from
 * the tier-0 hot pages on the collecting thread, so their cost is in the score.
 *
 * <p>The engine holds {@value #METRICS} metrics, {@value #PER_CHART} to a chart, like
 * {@code ./strata bench engine}. Each invocation stores the next second for the writer's metrics;
 * values are the real dataset's ({@value BenchData#NETDATA_RESOURCE}: metric {@code m} takes
 * column {@code m mod 1105}, second {@code t} row {@code t mod 3580}; empty cells store gaps).
 * Time runs as fast as the writers go, from one invocation to the next, over warmup and
 * measurement alike (a 16 s run stores a few thousand seconds, so every metric seals several
 * pages and the flusher writes continuously).
 *
 * <ul>
 * <li>{@link #storeOneSecond}: one collecting thread owns all {@value #METRICS} metrics.</li>
 * <li>{@link #storeOneSecondTwoWriters}: two threads, each owning one half (whole charts): the
 *     engine's contract is one writer per metric. JMH sums the threads' rates.</li>
 * </ul>
 *
 * <p>Score: points stored per second by the collecting threads. The flusher runs concurrently
 * and is not waited for inside an iteration (collectors never wait for it either); after each
 * iteration the pages still queued for it are printed, so a backlog that grows from one iteration
 * to the next means the disk side did not keep up with the score. On a 2-core machine the
 * flusher and the writers share the cores, which caps the two-writer figure.
 */
public class EngineWriteBenchmark extends EngineBenchmarkBase {

    static final int METRICS = 10_000;
    static final int PER_CHART = 10;
    static final long T0 = 1_700_000_000L;

    /** The engine, shared by the writing threads of one run. */
    @State(Scope.Benchmark)
    public static class Engine {
        Path dir;
        StorageEngine engine;
        int[] ids;
        /** The dataset by row: {@code [second mod rows][column]}. */
        double[][] rows;
        int columns;
        final AtomicInteger writers = new AtomicInteger();
        /** Storage tiers: tier 0 and the aggregated tiers above it (1..5). */
        @Param({"3"})
        public int tiers;

        @Setup(Level.Trial)
        public void open() throws IOException {
            rows = BenchData.netdataRows();
            columns = rows[0].length;
            dir = Files.createTempDirectory("strata-jmh-write-");
            engine = StorageEngine.open(EngineConfig.defaults(dir).withTiers(tiers));
            ids = BenchData.define(engine, METRICS, PER_CHART);
        }

        @TearDown(Level.Iteration)
        public void report() {
            System.out.printf("  [so far, warmup included: %d points stored, %d pages flushed, %d pages queued for the"
                    + " flusher]%n", engine.pointsStored(), engine.pagesFlushed(), engine.pendingPages());
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            try {
                if (engine != null) {
                    long t = System.nanoTime();
                    long stored = engine.pointsStored();
                    engine.close();
                    double closeMillis = (System.nanoTime() - t) / 1e6;
                    long bytes = BenchData.bytesUnder(dir);
                    System.out.printf("%nEngineWriteBenchmark: %d points stored, %d rejected; closing flushed the"
                                    + " rest in %.0f ms; %d bytes on disk = %.4f bytes/point%n",
                            stored, engine.pointsRejected(), closeMillis, bytes, (double) bytes / Math.max(1, stored));
                }
            } finally {
                BenchData.deleteTree(dir);
            }
        }
    }

    /** One collecting thread: its share of the metrics and its clock. */
    @State(Scope.Thread)
    public static class Writer {
        int from;
        int to;
        long second;

        @Setup(Level.Trial)
        public void pick(Engine e, BenchmarkParams params) {
            int threads = params.getThreads();
            int w = e.writers.getAndIncrement();
            if (w >= threads) {
                throw new IllegalStateException("writer " + w + " of " + threads);
            }
            // whole charts per writer, as in ./strata bench engine
            int charts = METRICS / PER_CHART;
            from = charts * w / threads * PER_CHART;
            to = charts * (w + 1) / threads * PER_CHART;
            second = 0;
        }

        /** Stores second {@code second} for metrics {@code [from, to)}; returns how many were stored. */
        int storeNextSecond(Engine e) {
            StorageEngine engine = e.engine;
            int[] ids = e.ids;
            double[] row = e.rows[(int) (second % e.rows.length)];
            int columns = e.columns;
            long t = T0 + second++;
            int c = from % columns;
            int stored = 0;
            for (int m = from; m < to; m++) {
                if (engine.store(ids[m], t, 1, row[c], StorageNumber.SN_DEFAULT_FLAGS)) {
                    stored++;
                }
                if (++c == columns) {
                    c = 0;
                }
            }
            return stored;
        }
    }

    /** One writer stores one second for all 10 000 metrics; the score is points stored per second. */
    @Benchmark
    @OperationsPerInvocation(METRICS)
    public int storeOneSecond(Engine e, Writer w) {
        return w.storeNextSecond(e);
    }

    /**
     * Two writers, each storing one second for its 5 000 metrics per invocation; the score (the
     * sum over both threads) is points stored per second.
     */
    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(METRICS / 2)
    public int storeOneSecondTwoWriters(Engine e, Writer w) {
        return w.storeNextSecond(e);
    }
}
