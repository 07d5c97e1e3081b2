package io.strata.engine.bench;

import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.strata.engine.query.QueryResult;
import io.strata.engine.thread.StrataThreads;

/**
 * The readers of the engine benchmark, in the shape of Netdata's {@code -W stresstest}: threads
 * that query random metrics over random ranges of what the writers have already stored, at full
 * resolution, while the writers and the flusher run, and check every value they get against the
 * dataset that produced it. A value that differs — or a point missing where one was stored — is
 * a read error; the benchmark reports their count, which must be 0.
 */
final class Readers {

    private static final Logger log = LoggerFactory.getLogger(Readers.class);
    /** Longest range of one query, in seconds. */
    private static final int MAX_RANGE = 3600;

    private final StorageEngine engine;
    private final Dataset dataset;
    private final int[] ids;
    private final int[][] ranges;
    private final AtomicIntegerArray progress;
    private final Thread[] threads;
    private final LongAdder points = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder queries = new LongAdder();
    private final LongAdder busyNanos = new LongAdder();
    private final LongAdder rotatedAway = new LongAdder();
    private volatile boolean running = true;

    Readers(StorageEngine engine, Dataset dataset, int[] ids, int[][] ranges, AtomicIntegerArray progress, int n) {
        this.engine = engine;
        this.dataset = dataset;
        this.ids = ids;
        this.ranges = ranges;
        this.progress = progress;
        this.threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            long seed = 0xC0FFEE + i;
            threads[i] = StrataThreads.newThread(() -> loop(seed), "bench-reader-" + i);
            threads[i].setDaemon(true);
        }
    }

    void start() {
        for (Thread t : threads) {
            t.start();
        }
    }

    void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(60_000);
        }
    }

    private void loop(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] one = new double[1];
        long[] mismatches = new long[1];
        long[] expectedTime = new long[1];
        long[] firstBad = new long[2];
        double[] firstBadValue = new double[2];
        while (running) {
            int w = r.nextInt(ranges.length);
            int from = ranges[w][0];
            int to = ranges[w][1];
            // seconds 0 .. done-1 are stored for every metric of this writer
            int done = progress.get(w);
            if (to <= from || done < 2) {
                Thread.onSpinWait();
                continue;
            }
            int m = from + r.nextInt(to - from);
            int metric = ids[m];
            long first = engine.registry().firstTime(metric, 0);
            long lo = Math.max(first, EngineBench.T0);
            long hi = EngineBench.T0 + done - 1;
            if (first == MetricRegistry.NO_TIME || hi <= lo) {
                continue;
            }
            int len = (int) Math.min(hi - lo, 1 + r.nextInt(MAX_RANGE));
            long after = lo + r.nextLong(hi - lo - len + 1) - 1;
            long before = after + len;
            mismatches[0] = 0;
            expectedTime[0] = after + 1;
            long t0 = System.nanoTime();
            QueryResult qr;
            try {
                qr = engine.query(metric, 1, after, before, len, (time, sum, min, max, count, anomalies) -> {
                    if (time != expectedTime[0]) {
                        mismatches[0]++;
                    }
                    expectedTime[0] = time + 1;
                    dataset.fill(time - EngineBench.T0, m, m + 1, one);
                    double v = one[0];
                    if (v != v) {
                        if (count != 0) {
                            mismatches[0]++;
                        }
                        return;
                    }
                    double want = StorageNumber.unpack(StorageNumber.pack(v, StorageNumber.SN_DEFAULT_FLAGS));
                    if (count != 1 || sum != want) {
                        if (mismatches[0]++ == 0) {
                            firstBad[0] = time;
                            firstBad[1] = count;
                            firstBadValue[0] = sum;
                            firstBadValue[1] = want;
                        }
                    }
                });
            } catch (Exception e) {
                errors.increment();
                log.warn("reader query failed: {}", e.toString());
                continue;
            }
            if (expectedTime[0] != before + 1) {
                mismatches[0]++;
            }
            busyNanos.add(System.nanoTime() - t0);
            queries.increment();
            points.add(len);
            if (mismatches[0] > 0 && engine.registry().firstTime(metric, 0) > after + 1) {
                // Rotation deleted the start of the range while the query ran: not a wrong value.
                rotatedAway.increment();
                continue;
            }
            if (mismatches[0] > 0) {
                errors.add(mismatches[0]);
                log.warn("reader: metric {} ({}, {}]: {} value(s) differ from what was stored, the first at {}: count {}, "
                        + "value {}, stored {} (plan {})", metric, after, before, mismatches[0], firstBad[0], firstBad[1],
                        firstBadValue[0], firstBadValue[1], qr.segments());
            }
        }
    }

    long points() {
        return points.sum();
    }

    long errors() {
        return errors.sum();
    }

    /** Queries whose range rotation deleted while they ran (not checked). */
    long rotatedAway() {
        return rotatedAway.sum();
    }

    long queries() {
        return queries.sum();
    }

    /** Points checked per second of reader thread time, summed over readers. */
    double pointsPerSecond() {
        long ns = busyNanos.sum();
        return ns == 0 ? 0 : points.sum() * 1e9 / ns * threads.length;
    }
}
