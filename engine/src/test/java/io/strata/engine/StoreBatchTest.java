package io.strata.engine;

import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link StorageEngine#storeBatch} is {@link StorageEngine#store} for each value in turn: the
 * same pages in every tier — the same boundaries and points — whatever the batch sizes,
 * with gaps (NaN) and values refused because their time is not after the metric's last point.
 */
class StoreBatchTest {

    private static final long T0 = 1_700_000_000L;
    private static final int CHARTS = 8;
    private static final int DIMS = 7;
    private static final int SECONDS = 5_000;

    @Test
    void aBatchWritesTheSamePagesAsSingleStores(@TempDir Path dir) throws IOException {
        TreeMap<String, String> single = new TreeMap<>();
        TreeMap<String, String> batched = new TreeMap<>();
        long[] refusedSingle = {0};
        long[] refusedBatch = {0};
        // what the second offer at the same time got in the single run, in order: always refused,
        // also where the first value filled and sealed the page (no page starts in the past)
        java.util.BitSet secondStored = new java.util.BitSet();
        int[] offers = {0};
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir.resolve("single")).withTiers(3))) {
            int[] ids = define(e, CHARTS, DIMS);
            for (long t = T0; t < T0 + SECONDS; t++) {
                for (int i = 0; i < ids.length; i++) {
                    if (!e.store(ids[i], t, 1, valueAt(i, t), StorageNumber.SN_DEFAULT_FLAGS)) {
                        refusedSingle[0]++;
                    }
                    if (refusedHere(i, t)) {
                        boolean ok = e.store(ids[i], t, 1, 1.0, StorageNumber.SN_DEFAULT_FLAGS);
                        secondStored.set(offers[0]++, ok);
                        if (!ok) {
                            refusedSingle[0]++;
                        }
                    }
                }
            }
            e.flush();
            collect(e, single);
        }
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir.resolve("batch")).withTiers(3))) {
            int[] ids = define(e, CHARTS, DIMS);
            SplittableRandom r = new SplittableRandom(5);
            double[] row = new double[ids.length + 3];
            int offer = 0;
            for (long t = T0; t < T0 + SECONDS; t++) {
                // the row sits at an offset in its array, the batches are of every size from 1 to
                // past the touch-ahead distance
                for (int i = 0; i < ids.length; i++) {
                    row[3 + i] = valueAt(i, t);
                }
                int i = 0;
                while (i < ids.length) {
                    int n = Math.min(ids.length - i, 1 + r.nextInt(30));
                    int stored = e.storeBatch(ids, i, row, 3 + i, n, t, 1, StorageNumber.SN_DEFAULT_FLAGS);
                    assertEquals(n, stored, "every value is after its metric's last point");
                    for (int k = i; k < i + n; k++) {
                        if (refusedHere(k, t)) {
                            double[] one = {1.0};
                            int got = e.storeBatch(ids, k, one, 0, 1, t, 1, StorageNumber.SN_DEFAULT_FLAGS);
                            assertEquals(secondStored.get(offer++) ? 1 : 0, got, "second value of " + k + " at " + t);
                            if (got == 0) {
                                refusedBatch[0]++;
                            }
                        }
                    }
                    i += n;
                }
            }
            assertEquals(refusedBatch[0], e.pointsRejected());
            e.flush();
            collect(e, batched);
        }
        assertTrue(refusedSingle[0] > 100, "values refused: " + refusedSingle[0]);
        assertEquals(-1, secondStored.nextSetBit(0), "a second value at the same time was stored");
        assertEquals(refusedSingle[0], refusedBatch[0]);
        assertTrue(single.keySet().stream().filter(k -> k.startsWith("2/")).count() > 10, "tier-2 pages made");
        assertEquals(single.keySet(), batched.keySet(), "the same pages");
        for (String k : single.keySet()) {
            assertEquals(single.get(k), batched.get(k), "page " + k);
        }
    }

    @Test
    void aBatchThatDoesNotFitItsArraysIsRefusedWithWhy(@TempDir Path dir) throws IOException {
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(1))) {
            int[] ids = define(e, 1, 4);
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                    () -> e.storeBatch(ids, 2, new double[4], 0, 3, T0, 1, StorageNumber.SN_DEFAULT_FLAGS));
            assertTrue(x.getMessage().contains("does not fit"), x.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> e.storeBatch(ids, 0, new double[4], 0, 4, T0, 0, StorageNumber.SN_DEFAULT_FLAGS));
            assertEquals(0, e.storeBatch(ids, 0, new double[0], 0, 0, T0, 1, StorageNumber.SN_DEFAULT_FLAGS));
        }
    }

    /** The collected values, with missed collections (NaN: gap points) now and then. */
    private static double valueAt(int i, long t) {
        return (t * 31 + i * 17) % 97 == 0 ? Double.NaN : value(i, t);
    }

    /** Where a second value at the same time is offered (and refused). */
    private static boolean refusedHere(int i, long t) {
        return (t * 7 + i) % 211 == 0;
    }

    private static void collect(StorageEngine e, TreeMap<String, String> out) throws IOException {
        for (int tier = 0; tier < 3; tier++) {
            int tr = tier;
            e.scanTier(tier, (msb, lsb, start, step, entries, points) -> {
                int width = tr == 0 ? entries : 4 * entries;
                String key = tr + "/" + Long.toHexString(msb) + Long.toHexString(lsb) + "/" + start;
                String was = out.put(key, step + " " + entries + " " + Arrays.toString(Arrays.copyOf(points, width)));
                if (was != null) {
                    throw new AssertionError("page " + key + " twice");
                }
            });
        }
    }
}
