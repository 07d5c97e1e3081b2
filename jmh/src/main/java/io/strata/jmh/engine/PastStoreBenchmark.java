package io.strata.jmh.engine;

import io.strata.engine.EngineConfig;
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
 * The cost of storing points behind a metric's newest one ({@link StorageEngine#storePast}: a hole
 * filled later) against the normal append path ({@link StorageEngine#store}) in the same engine and
 * run: both store runs of 1024 consecutive seconds of one metric (a page), the metrics taken in
 * turn, the values a page of the real dataset ({@value BenchData#NETDATA_RESOURCE}); the flusher
 * writes to a real temporary directory meanwhile, {@code tiers} tiers (default 3).
 *
 * <ul>
 * <li>{@link #append}: 1024 {@code storeStorageNumber} calls after the metric's newest point (half of the
 *     metrics); the tiers above 0 are aggregated live.</li>
 * <li>{@link #past}: one {@code storePast} of 1024 points into a hole of 10^8 s behind the metric's
 *     newest point (the other half): a read of the range (what the metric holds there), the
 *     page's encoding, and the rebuild of the tier-1 windows (17) and tier-2 window(s) over it,
 *     read back from the tier below.</li>
 * </ul>
 *
 * <p>Score: points stored per second (1024 per invocation). Append runs of one metric keep its
 * state in the caches: it is the append path's fast case, so the ratio is the past path's cost
 * against the best the append path does.
 */
public class PastStoreBenchmark extends EngineBenchmarkBase {

    static final int METRICS = 1000;
    static final int PER_CHART = 10;
    static final int RUN = 1024;
    /** A multiple of 3600, in the past of any clock: tier windows start here. */
    static final long T0 = 1_500_001_200L;
    static final long HOLE = 100_000_000L;

    @State(Scope.Benchmark)
    public static class Engine {
        Path dir;
        StorageEngine engine;
        int[] ids;
        /** A page of the dataset, as storage numbers (both paths store the same points). */
        int[] sns;
        long[] next;
        int turn;
        @Param({"3"})
        public int tiers;

        @Setup(Level.Trial)
        public void open() throws IOException {
            int[][] pages = BenchData.netdataPages();
            sns = pages[pages.length / 2];
            dir = Files.createTempDirectory("strata-jmh-past-");
            engine = StorageEngine.open(EngineConfig.defaults(dir).withTiers(tiers));
            ids = BenchData.define(engine, METRICS, PER_CHART);
            next = new long[METRICS];
            for (int m = 0; m < METRICS; m++) {
                engine.store(ids[m], T0, 1, 1.0, StorageNumber.SN_DEFAULT_FLAGS);
                if (m % 2 == 1) {
                    // the past half: the newest point far ahead, the hole behind it
                    engine.store(ids[m], T0 + HOLE, 1, 1.0, StorageNumber.SN_DEFAULT_FLAGS);
                }
                next[m] = T0 + 1;
            }
        }

        @TearDown(Level.Iteration)
        public void report() {
            System.out.printf("  [so far: %d points sealed, %d stored behind, %d tier windows rebuilt, %d queued;"
                    + " %d pages queued for the flusher]%n", engine.pointsStored(), engine.pastPointsStored(),
                    engine.tierWindowsRebuilt(), engine.pendingTierRebuilds(), engine.pendingPages());
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            try {
                if (engine != null) {
                    engine.close();
                }
            } finally {
                BenchData.deleteTree(dir);
            }
        }

        /** The next metric of the half {@code parity} (0: append, 1: past). */
        int nextMetric(int parity) {
            int m = 2 * (turn++ % (METRICS / 2)) + parity;
            return m;
        }
    }

    @Benchmark
    @OperationsPerInvocation(RUN)
    public int append(Engine e) {
        int m = e.nextMetric(0);
        long t = e.next[m];
        e.next[m] = t + RUN;
        int id = e.ids[m];
        int[] sns = e.sns;
        int stored = 0;
        for (int i = 0; i < RUN; i++) {
            if (e.engine.storeStorageNumber(id, t + i, 1, sns[i])) {
                stored++;
            }
        }
        return stored;
    }

    @Benchmark
    @OperationsPerInvocation(RUN)
    public int past(Engine e) throws IOException {
        int m = e.nextMetric(1);
        long t = e.next[m];
        e.next[m] = t + RUN;
        return e.engine.storePast(e.ids[m], t, 1, e.sns, 0, RUN);
    }
}
