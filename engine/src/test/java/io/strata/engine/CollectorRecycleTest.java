package io.strata.engine;

import io.strata.engine.page.StorageNumber;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A collector that stores faster than the flusher turns recycles the hot-page blocks it retired
 * itself (when no reader copies page memory), so that they do not pile up between two turns;
 * a reader querying meanwhile still gets every value as stored.
 */
class CollectorRecycleTest {

    private static final long T0 = 1_700_000_000L;
    private static final int SECONDS = 3_000;

    @Test
    void collectorsRecycleRetiredBlocksAndReadersStillReadEveryValue(@TempDir Path dir) throws Exception {
        // the flusher waits a minute before writing a batch: recycling is left to the collector
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(2).withFlushMaxAgeMillis(60_000);
        try (StorageEngine e = StorageEngine.open(cfg)) {
            int[] ids = define(e, 200, 10);
            AtomicLong done = new AtomicLong(-1);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<String> wrong = new AtomicReference<>();
            AtomicLong checked = new AtomicLong();
            Thread reader = new Thread(() -> {
                java.util.SplittableRandom r = new java.util.SplittableRandom(5);
                while (!stop.get() && wrong.get() == null) {
                    long last = done.get();
                    if (last < 1) {
                        Thread.onSpinWait();
                        continue;
                    }
                    int m = ids[r.nextInt(ids.length)];
                    long after = T0 + r.nextLong(last) - 1;
                    long[] expect = {after + 1};
                    try {
                        e.queryTier0(m, after + 1, T0 + last, (t, sn) -> {
                            if (t != expect[0] || sn != StorageNumber.pack(value(m, t), StorageNumber.SN_DEFAULT_FLAGS)) {
                                wrong.compareAndSet(null, "metric " + m + " at " + t + " (expected time " + expect[0] + ")");
                            }
                            expect[0] = t + 1;
                            checked.incrementAndGet();
                        });
                    } catch (java.io.IOException ex) {
                        wrong.compareAndSet(null, ex.toString());
                    }
                    // a collector recycles only while no reader holds page memory (a tryLock):
                    // a reader querying back to back held it nearly always on a loaded 2-core
                    // CI machine, and no collector ever got it (a failed CI run)
                    java.util.concurrent.locks.LockSupport.parkNanos(50_000);
                }
            }, "recycle-test-reader");
            reader.start();
            double[] row = new double[ids.length];
            try {
                for (long t = T0; t < T0 + SECONDS; t++) {
                    for (int i = 0; i < ids.length; i++) {
                        row[i] = value(ids[i], t);
                    }
                    if ((t & 1) == 0) {
                        e.storeBatch(ids, 0, row, 0, ids.length, t, 1, StorageNumber.SN_DEFAULT_FLAGS);
                    } else {
                        for (int i = 0; i < ids.length; i++) {
                            e.store(ids[i], t, 1, row[i], StorageNumber.SN_DEFAULT_FLAGS);
                        }
                    }
                    done.set(t - T0);
                }
            } finally {
                stop.set(true);
                reader.join(30_000);
            }
            assertNull(wrong.get(), "a reader got a value that was not stored");
            assertTrue(checked.get() > 0, "the reader checked values");
            // 2 000 metrics grow their tier-0 blocks ~47 times each in 3 000 s: ~94 000 blocks retired
            assertTrue(e.collectorRecycles() > 0, "collectors recycled");
            for (int i = 0; i < ids.length; i += 97) {
                long[] n = {0};
                e.queryTier0(ids[i], T0, T0 + SECONDS - 1, (t, sn) -> n[0]++);
                assertEquals(SECONDS, n[0], "every point of metric " + ids[i]);
            }
        }
    }
}
