package io.strata.engine.query;

import io.strata.engine.EngineConfig;
import io.strata.engine.EngineTestSupport;
import io.strata.engine.StorageEngine;
import io.strata.engine.cache.PageCache;
import io.strata.engine.page.StorageNumber;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Queries from several threads through a cache far smaller than the data, so that extents and
 * pages are evicted and their buffers and arrays reused all the time: every point must still be
 * the one stored, and the cache must stay within its bound.
 */
class QueriesThroughASmallCacheTest {

    private static final long T0 = 1_700_000_000L;
    private static final int SECONDS = 12_000;
    private static final long BOUND = 256 * 1024;

    @TempDir
    Path dir;

    @Test
    void everyPointIsTheStoredOneWhileBuffersAreReused() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir).withCacheBytes(BOUND))) {
            int[] metrics = EngineTestSupport.define(engine, 4, 6);
            for (long t = T0; t < T0 + SECONDS; t++) {
                for (int m : metrics) {
                    engine.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            engine.flush();
            AtomicLong points = new AtomicLong();
            AtomicReference<String> wrong = new AtomicReference<>();
            Thread[] threads = new Thread[3];
            for (int i = 0; i < threads.length; i++) {
                long seed = 100 + i;
                threads[i] = new Thread(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    try {
                        for (int q = 0; q < 300 && wrong.get() == null; q++) {
                            int m = metrics[rnd.nextInt(metrics.length)];
                            long after = T0 + rnd.nextInt(SECONDS - 3000);
                            long before = after + 1 + rnd.nextInt(3000);
                            long[] expected = {after};
                            long n = engine.queryTier0(m, after, before, (time, sn) -> {
                                if (time != expected[0] || sn != EngineTestSupport.sn(m, time)) {
                                    wrong.compareAndSet(null, "metric " + m + " at " + time + ": sn " + sn
                                            + ", expected " + EngineTestSupport.sn(m, time) + " at " + expected[0]);
                                }
                                expected[0] = time + 1;
                            });
                            if (n != before - after + 1) {
                                wrong.compareAndSet(null, "metric " + m + " [" + after + ", " + before + "]: "
                                        + n + " points");
                            }
                            points.addAndGet(n);
                        }
                    } catch (Exception e) {
                        wrong.compareAndSet(null, e.toString());
                    }
                }, "query-" + i);
                threads[i].start();
            }
            for (Thread t : threads) {
                t.join();
            }
            assertNull(wrong.get());
            assertTrue(points.get() > 100_000, "points checked: " + points.get());
            PageCache cache = engine.cache();
            assertTrue(cache.extentMisses() > 100, "extents read again after eviction: " + cache.extentMisses());
            assertTrue(cache.pageHits() > 0, "pages found in the cache");
            assertTrue(cache.pageBytes() + cache.extentBytes() <= BOUND,
                    "clean caches within the bound: " + cache.pageBytes() + " + " + cache.extentBytes());
            assertEquals(0, engine.readErrors());
        }
    }
}
