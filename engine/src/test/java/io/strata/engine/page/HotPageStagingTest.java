package io.strata.engine.page;

import io.strata.engine.DiskFormat;
import io.strata.engine.registry.MetricRegistry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A metric's last points are staged beside its state and reach its hot page {@link
 * HotPageTable#STAGE} at a time: whatever the pattern of stores (missed collections within a
 * group, across groups, past the page; changes of update_every; points in the past), every
 * stored point is found exactly once — in a sealed page, in the late aggregator's input, or in a
 * snapshot of the hot page — and a reader that snapshots while the writer stores never sees a
 * point that was not stored at that slot.
 */
class HotPageStagingTest {

    private static final long T0 = 1_700_000_000L;

    private static MetricRegistry registry(int metrics) {
        MetricRegistry registry = new MetricRegistry(1);
        for (int m = 0; m < metrics; m++) {
            registry.register(new UUID(9, m), m / 3);
        }
        return registry;
    }

    @Test
    void everyStoredPointIsInExactlyOnePageSlotWhateverTheGaps() {
        int metrics = 6;
        MetricRegistry registry = registry(metrics);
        List<DirtyPage> sealed = new ArrayList<>();
        PageMemory memory = PageMemory.forPages(DiskFormat.pageBytes(0));
        HotPageTable hot = new HotPageTable(registry, sealed::add, memory, 5, () -> 0L);
        // the aggregator reads the page itself: it must see every point once, in order
        List<Map<Long, Integer>> aggregated = new ArrayList<>();
        for (int m = 0; m < metrics; m++) {
            aggregated.add(new HashMap<>());
        }
        SplittableRandom horizons = new SplittableRandom(3);
        hot.setLateAggregator((metric, page, start, ue, from, to) -> {
            for (int i = from; i < to; i++) {
                Integer before = aggregated.get(metric).put(start + (long) i * ue, PageMemory.readInt(page + 4L * i));
                assertEquals(null, before, "slot " + i + " of metric " + metric + " aggregated twice");
            }
            long last = start + (long) (to - 1) * ue;
            return last + horizons.nextInt(40);
        });
        SplittableRandom r = new SplittableRandom(17);
        List<Map<Long, Integer>> stored = new ArrayList<>();
        long[] t = new long[metrics];
        int[] ue = new int[metrics];
        for (int m = 0; m < metrics; m++) {
            stored.add(new HashMap<>());
            t[m] = T0 + m;
            ue[m] = 1;
        }
        int[] snap = new int[DiskFormat.pagePoints(0)];
        HotPageTable.HotSnapshot hs = new HotPageTable.HotSnapshot();
        int rejected = 0;
        for (int step = 0; step < 60_000; step++) {
            int m = r.nextInt(metrics);
            int kind = r.nextInt(1000);
            if (kind < 4) {
                ue[m] = 1 + r.nextInt(3); // a change of update_every seals the page
            }
            long next;
            if (kind >= 4 && kind < 8) {
                next = t[m] + (long) ue[m] * (1 + r.nextInt(3 * DiskFormat.pagePoints(0))); // past the page, often
            } else if (kind < 80) {
                next = t[m] + (long) ue[m] * (2 + r.nextInt(24)); // missed points within and across groups
            } else if (kind < 90 && !stored.get(m).isEmpty()) {
                // in the past (or at the last point): refused, and nothing changes
                long past = t[m] - (long) ue[m] * r.nextInt(30);
                int before = snapshotEntries(hot, m, snap, hs);
                assertEquals(HotPageTable.REJECTED_PAST, hot.store(m, past - ue[m], ue[m], 1));
                assertEquals(before, snapshotEntries(hot, m, snap, hs));
                rejected++;
                continue;
            } else {
                next = t[m] + ue[m];
            }
            int sn = StorageNumber.pack(m * 1000 + r.nextInt(100_000) / 100.0, StorageNumber.SN_DEFAULT_FLAGS);
            if (r.nextInt(20) == 0) {
                sn = StorageNumber.SN_EMPTY_SLOT; // a stored gap is a point like any other
            }
            assertEquals(HotPageTable.STORED, hot.store(m, next, ue[m], sn), "metric " + m + " at " + next);
            stored.get(m).put(next, sn);
            t[m] = next;
            if (hot.snapshot(m, snap, hs)) {
                // the point just stored is the hot page's last one
                assertEquals(next, hs.startTime + (long) (hs.entries - 1) * hs.updateEvery);
                assertEquals(sn, snap[hs.entries - 1]);
            }
        }
        assertTrue(rejected > 100, "points in the past tried: " + rejected);
        // the hot pages as they are now, then sealed like the others
        List<long[]> hotNow = new ArrayList<>();
        List<int[]> hotPoints = new ArrayList<>();
        for (int m = 0; m < metrics; m++) {
            if (hot.snapshot(m, snap, hs)) {
                hotNow.add(new long[]{m, hs.startTime, hs.updateEvery, hs.entries});
                hotPoints.add(java.util.Arrays.copyOf(snap, hs.entries));
            }
        }
        int sealedBefore = sealed.size();
        hot.sealAll();
        assertEquals(sealedBefore + hotNow.size(), sealed.size());
        for (int i = 0; i < hotNow.size(); i++) {
            DirtyPage p = sealed.get(sealedBefore + i);
            int[] pts = new int[p.entries];
            p.points(pts);
            assertEquals(hotNow.get(i)[3], p.entries, "the sealed page holds what the snapshot read");
            assertTrue(java.util.Arrays.equals(hotPoints.get(i), pts), "metric " + hotNow.get(i)[0]);
        }
        // every slot of every page is a stored point or a missed one; every stored point is in one slot
        List<Map<Long, Integer>> found = new ArrayList<>();
        List<Map<Long, Integer>> slots = new ArrayList<>();
        for (int m = 0; m < metrics; m++) {
            found.add(new HashMap<>());
            slots.add(new HashMap<>());
        }
        int[] pts = new int[DiskFormat.pagePoints(0)];
        for (DirtyPage p : sealed) {
            p.points(pts);
            for (int i = 0; i < p.entries; i++) {
                long time = p.startTime + (long) i * p.updateEvery;
                slots.get(p.metricId).put(time, pts[i]);
                Integer want = stored.get(p.metricId).get(time);
                if (want == null) {
                    assertEquals(StorageNumber.SN_EMPTY_SLOT, pts[i], "a missed point of metric " + p.metricId + " at " + time);
                    continue;
                }
                assertEquals((int) want, pts[i], "metric " + p.metricId + " at " + time);
                assertEquals(null, found.get(p.metricId).put(time, pts[i]), "stored twice");
            }
            assertTrue(p.entries > 0 && stored.get(p.metricId).containsKey(p.startTime + (long) (p.entries - 1) * p.updateEvery),
                    "a page ends with a stored point");
        }
        for (int m = 0; m < metrics; m++) {
            assertSame(stored.get(m), found.get(m), "metric " + m + ": every stored point is in a page");
            // the aggregator gets every slot of every page, missed points (gaps) too, once
            assertSame(slots.get(m), aggregated.get(m), "metric " + m + ": the aggregator's slots");
        }
        for (DirtyPage p : sealed) {
            p.releaseRaw(memory);
        }
        hot.freeAll();
        memory.freePooled();
    }

    /** Equal maps, or a failure that names the first difference (not both maps). */
    private static void assertSame(Map<Long, Integer> want, Map<Long, Integer> got, String what) {
        for (Map.Entry<Long, Integer> e : want.entrySet()) {
            assertEquals(e.getValue(), got.get(e.getKey()), what + " at " + e.getKey());
        }
        assertEquals(want.size(), got.size(), what + ": slots");
    }

    private static int snapshotEntries(HotPageTable hot, int m, int[] snap, HotPageTable.HotSnapshot hs) {
        return hot.snapshot(m, snap, hs) ? hs.entries : -1;
    }

    /** Missed collections of metric {@code m}: single seconds, and runs that cross groups. */
    private static boolean collected(int m, long t) {
        long h = (t * 0x9E3779B97F4A7C15L) ^ (m * 0xC2B2AE3D27D4EB4FL);
        h ^= h >>> 29;
        if ((h & 15) == 0) {
            return false;
        }
        return ((t - T0) / 13 + m) % 11 != 0;
    }

    private static int value(int m, long t) {
        return StorageNumber.pack(m * 100_000 + (t - T0) % 100_000, StorageNumber.SN_DEFAULT_FLAGS);
    }

    @Test
    void readersNeverSeeAPointThatWasNotStoredThere() throws Exception {
        int metrics = 64;
        MetricRegistry registry = registry(metrics);
        PageMemory memory = PageMemory.forPages(DiskFormat.pageBytes(0));
        // sealed pages are set aside (their blocks stay retired: nothing is recycled under a reader)
        List<DirtyPage> sealed = new ArrayList<>();
        HotPageTable hot = new HotPageTable(registry, sealed::add, memory, 7, () -> 0L);
        int seconds = 40_000;
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong checked = new AtomicLong();
        AtomicLong wrong = new AtomicLong();
        String[] firstWrong = new String[1];
        Thread reader = new Thread(() -> {
            SplittableRandom r = new SplittableRandom(5);
            int[] snap = new int[DiskFormat.pagePoints(0)];
            HotPageTable.HotSnapshot hs = new HotPageTable.HotSnapshot();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!done.get() && System.nanoTime() < deadline) {
                int m = r.nextInt(metrics);
                if (!hot.snapshot(m, snap, hs)) {
                    continue;
                }
                for (int i = 0; i < hs.entries; i++) {
                    long time = hs.startTime + (long) i * hs.updateEvery;
                    int want = collected(m, time) ? value(m, time) : StorageNumber.SN_EMPTY_SLOT;
                    if (snap[i] != want) {
                        if (wrong.getAndIncrement() == 0) {
                            firstWrong[0] = "metric " + m + " slot " + i + " of " + hs.entries + " at " + time + ": "
                                    + Integer.toHexString(snap[i]) + ", stored " + Integer.toHexString(want);
                        }
                    }
                }
                checked.addAndGet(hs.entries);
            }
        }, "staging-reader");
        reader.start();
        long stored = 0;
        try {
            for (long t = T0; t < T0 + seconds; t++) {
                for (int m = 0; m < metrics; m++) {
                    if (collected(m, t)) {
                        assertEquals(HotPageTable.STORED, hot.store(m, t, 1, value(m, t)));
                        stored++;
                    }
                }
            }
        } finally {
            done.set(true);
            reader.join(TimeUnit.SECONDS.toMillis(70));
        }
        assertFalse(reader.isAlive());
        assertEquals(0, wrong.get(), firstWrong[0]);
        assertTrue(stored > seconds * metrics / 2, "stored " + stored);
        assertTrue(checked.get() > 100_000, "points checked by the reader: " + checked.get());
        for (DirtyPage p : sealed) {
            p.releaseRaw(memory);
        }
        hot.freeAll();
        memory.freePooled();
    }
}
