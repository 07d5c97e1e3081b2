package io.strata.engine.page;

import io.strata.engine.DiskFormat;
import io.strata.engine.registry.MetricRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tiers above 0 fed late from the hot page ({@link HotPageTable.LateAggregator},
 * {@link HotAggregateTable#addSlots}) give exactly what feeding them point by point gives: the
 * same tier-1 pages byte for byte, tier-2 pages with the same counts, minima and maxima and
 * sums equal to float precision (tier 2 is fed tier 1's window sums), and the same open window of
 * every tier at every moment (so
 * readers see the same points), through missed collections, stored gaps, long holes, changes of
 * update_every and page seals.
 */
class LateAggregationTest {

    private static final int METRICS = 6;
    private static final long T0 = 1_700_000_000L;

    /** One engine's worth of tables: tier 0 and tiers 1, 2, each with its sealed pages. */
    private static final class Tables {
        final MetricRegistry registry = new MetricRegistry(3);
        final List<DirtyPage> sealed = new ArrayList<>();
        final HotPageTable hot0;
        final HotAggregateTable[] hotN = new HotAggregateTable[3];
        final PageMemory[] memories = new PageMemory[3];

        Tables(boolean late) {
            for (int m = 0; m < METRICS; m++) {
                registry.register(new UUID(42, m), m / 3);
            }
            memories[0] = PageMemory.forPages(DiskFormat.pageBytes(0));
            hot0 = new HotPageTable(registry, sealed::add, memories[0], 7, () -> 0L);
            for (int t = 1; t < 3; t++) {
                int pb = DiskFormat.pageBytes(t);
                memories[t] = PageMemory.forPages(pb);
                hotN[t] = new HotAggregateTable(t, 60, registry, sealed::add, memories[t], 7, () -> 0L);
            }
            if (late) {
                hotN[1].setUpper(hotN[2]);
                hot0.setLateAggregator((m, page, start, ue, from, to) -> HotAggregateTable.addSlots(hotN, m, page, start, ue, from, to));
            }
        }

        void store(int m, long t, int ue, int sn, boolean late) {
            if (hot0.store(m, t, ue, sn) == HotPageTable.STORED && !late) {
                for (int k = 1; k < 3; k++) {
                    hotN[k].add(m, t, ue, sn);
                }
            }
        }

        /** Gives every block back: hot pages, sealed pages still raw, and the pools. */
        void free() {
            hot0.freeAll();
            hotN[1].freeAll();
            hotN[2].freeAll();
            for (DirtyPage p : sealed) {
                p.releaseRaw(memories[p.tier]);
            }
            for (PageMemory m : memories) {
                m.freePooled();
            }
        }

        void sealAll() {
            hot0.sealAll();
            hotN[1].sealAll();
            hotN[2].sealAll();
        }
    }

    @Test
    void lateAggregationEqualsPointByPoint() {
        Tables pointByPoint = new Tables(false);
        Tables late = new Tables(true);
        SplittableRandom r = new SplittableRandom(2026);
        long[] next = new long[METRICS];
        int[] ue = new int[METRICS];
        for (int m = 0; m < METRICS; m++) {
            next[m] = T0 + m;
            ue[m] = 1;
        }
        long closes = 0;
        for (int step = 0; step < 80_000; step++) {
            int m = step % METRICS;
            long t = next[m];
            int sn;
            int kind = r.nextInt(1000);
            if (kind < 20) {
                sn = StorageNumber.SN_EMPTY_SLOT;                        // a stored gap
            } else {
                double v = r.nextInt(100_000) / 10.0;
                sn = StorageNumber.pack(v, r.nextInt(10) == 0 ? StorageNumber.SN_DEFAULT_FLAGS & ~StorageNumber.SN_FLAG_NOT_ANOMALOUS
                        : StorageNumber.SN_DEFAULT_FLAGS);
            }
            long before = pointByPoint.hotN[1].openWindowEnd(m);
            pointByPoint.store(m, t, ue[m], sn, false);
            late.store(m, t, ue[m], sn, true);
            if (pointByPoint.hotN[1].openWindowEnd(m) != before) {
                closes++;
            }
            for (int k = 1; k < 3; k++) {
                assertEquals(pointByPoint.hotN[k].openWindowEnd(m), late.hotN[k].openWindowEnd(m),
                        "tier " + k + " window of metric " + m + " after the point at " + t);
            }
            // the next collection: mostly on time, sometimes missed, now and then a long hole or
            // a change of update_every
            int jump = r.nextInt(1000);
            if (jump < 5) {
                ue[m] = ue[m] == 1 ? 2 : 1;
            }
            long gap = jump < 950 ? 1 : jump < 995 ? 1 + r.nextInt(5) : 100 + r.nextInt(5000);
            next[m] = t + gap * ue[m];
        }
        assertTrue(closes > 1000, "windows closed along the way: " + closes);
        pointByPoint.sealAll();
        late.sealAll();
        List<DirtyPage> a = pointByPoint.sealed;
        List<DirtyPage> b = late.sealed;
        assertEquals(a.stream().filter(p -> p.tier == 2).count(), b.stream().filter(p -> p.tier == 2).count());
        assertTrue(a.stream().anyMatch(p -> p.tier == 2 && p.entries > 1), "tier 2 made pages of several points");
        List<DirtyPage> a12 = a.stream().filter(p -> p.tier > 0).sorted(LateAggregationTest::order).toList();
        List<DirtyPage> b12 = b.stream().filter(p -> p.tier > 0).sorted(LateAggregationTest::order).toList();
        assertEquals(a12.size(), b12.size(), "pages of tiers 1 and 2");
        for (int i = 0; i < a12.size(); i++) {
            DirtyPage x = a12.get(i);
            DirtyPage y = b12.get(i);
            String what = "tier " + x.tier + " metric " + x.metricId + " page at " + x.startTime;
            assertEquals(x.startTime, y.startTime, what);
            assertEquals(x.updateEvery, y.updateEvery, what);
            assertEquals(x.entries, y.entries, what);
            if (x.tier == 1) {
                assertArrayEquals(x.encoded, y.encoded, what);
            } else {
                // tier 2 adds tier 1's window sums (double) instead of the values: the same
                // counts, minima and maxima, the sum to float precision
                int[] px = new int[4 * x.entries];
                int[] py = new int[4 * y.entries];
                PageCodecTier1.decode(x.encoded, 0, x.encoded.length, px, x.entries);
                PageCodecTier1.decode(y.encoded, 0, y.encoded.length, py, y.entries);
                for (int k = 0; k < x.entries; k++) {
                    String at = what + ", point " + k;
                    assertEquals(px[4 * k + 1], py[4 * k + 1], at + " min");
                    assertEquals(px[4 * k + 2], py[4 * k + 2], at + " max");
                    assertEquals(px[4 * k + 3], py[4 * k + 3], at + " count and anomalies");
                    float sx = Float.intBitsToFloat(px[4 * k]);
                    float sy = Float.intBitsToFloat(py[4 * k]);
                    assertTrue(Math.abs(sx - sy) <= Math.ulp(sx), at + " sum " + sx + " vs " + sy);
                }
            }
        }
        for (int m = 0; m < METRICS; m++) {
            for (int k = 0; k < 3; k++) {
                assertEquals(pointByPoint.registry.lastTime(m, k), late.registry.lastTime(m, k), "last time, tier " + k);
                assertEquals(pointByPoint.registry.firstTime(m, k), late.registry.firstTime(m, k), "first time, tier " + k);
            }
        }
        pointByPoint.free();
        late.free();
    }

    private static int order(DirtyPage x, DirtyPage y) {
        int c = Integer.compare(x.tier, y.tier);
        if (c == 0) {
            c = Integer.compare(x.metricId, y.metricId);
        }
        return c != 0 ? c : Long.compare(x.startTime, y.startTime);
    }
}
