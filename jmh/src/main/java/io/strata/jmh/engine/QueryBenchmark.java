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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link StorageEngine#queryTier0} of one hour of one metric, all of it on disk: page lookup in
 * the tier's index, reading each extent the pages are in from the datafile (the OS page cache
 * holds it after the first pass), checking its CRC, LZ4 decompression, page decoding and the
 * delivery of every point to a consumer.
 *
 * <p>Set-up: an engine in a temporary directory ({@link EngineConfig#defaults}) with
 * {@value #METRICS} metrics ({@value EngineWriteBenchmark#PER_CHART} to a chart) and
 * {@value #SECONDS} seconds (one hour at 1 s) of the real dataset stored for each, then
 * {@link StorageEngine#flush}ed, so that no point is left in memory and every extent holds the
 * pages of a whole chart's dimensions, as in production (a query for one metric must decompress
 * extents shared with its neighbours). Each invocation queries the next metric's whole hour.
 *
 * <p>Score: points delivered per second (one op = one point, {@value #SECONDS} per query; the
 * set-up checks that every query delivers exactly that many, gaps included).
 */
@State(Scope.Benchmark)
public class QueryBenchmark extends EngineBenchmarkBase {

    static final int METRICS = 1000;
    static final int SECONDS = 3600;
    static final long T0 = 1_700_000_000L;

    private Path dir;
    private StorageEngine engine;
    private int[] ids;
    private int next;
    private final Sink sink = new Sink();

    /** Accumulates what it receives so that nothing delivered can be optimised away. */
    static final class Sink implements StorageEngine.Tier0Consumer {
        long acc;

        @Override
        public void point(long time, int sn) {
            acc = acc * 31 + (time ^ sn);
        }
    }

    @Setup(Level.Trial)
    public void setup() throws IOException {
        double[][] rows = BenchData.netdataRows();
        int columns = rows[0].length;
        dir = Files.createTempDirectory("strata-jmh-query-");
        engine = StorageEngine.open(EngineConfig.defaults(dir));
        ids = BenchData.define(engine, METRICS, EngineWriteBenchmark.PER_CHART);
        for (int s = 0; s < SECONDS; s++) {
            double[] row = rows[s % rows.length];
            for (int m = 0; m < METRICS; m++) {
                engine.store(ids[m], T0 + s, 1, row[m % columns], StorageNumber.SN_DEFAULT_FLAGS);
            }
        }
        engine.flush();
        if (engine.pendingPages() != 0) {
            throw new IllegalStateException(engine.pendingPages() + " pages not flushed");
        }
        for (int m = 0; m < METRICS; m++) {
            long n = engine.queryTier0(ids[m], T0, T0 + SECONDS - 1, sink);
            if (n != SECONDS) {
                throw new IllegalStateException("metric " + m + ": " + n + " points delivered, expected " + SECONDS);
            }
        }
        long bytes = BenchData.bytesUnder(dir);
        System.out.printf("%nQueryBenchmark: %d metrics x %d s on disk, %d pages flushed, %d bytes under %s%n",
                METRICS, SECONDS, engine.pagesFlushed(), bytes, dir);
        next = 0;
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

    /** Queries the next metric's hour; the score is points delivered per second. */
    @Benchmark
    @OperationsPerInvocation(SECONDS)
    public long queryOneHour() throws IOException {
        int m = next;
        next = m + 1 == ids.length ? 0 : m + 1;
        long n = engine.queryTier0(ids[m], T0, T0 + SECONDS - 1, sink);
        return n + sink.acc;
    }
}
