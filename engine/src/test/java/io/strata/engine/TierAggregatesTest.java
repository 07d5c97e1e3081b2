package io.strata.engine;

import io.strata.engine.page.HotAggregateTable;
import io.strata.engine.page.HotPageTable;
import io.strata.engine.page.PageMemory;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;
import io.strata.engine.query.QueryResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Aggregates of tiers 1+: averages of windows of more than 65 535 points, steps past an int, concurrent snapshots. */
class TierAggregatesTest {

    static final long T0 = 1_700_000_000L;

    @Test
    void tier3AtOneSecondGivesExactAverages(@TempDir Path dir) throws Exception {
        long step3 = 60L * 60 * 60;
        long first = (T0 / step3 + 1) * step3; // the start of a tier-3 window
        long end = first + 3 * step3;
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(4).withFsync(FsyncPolicy.NEVER)
                .withClockSeconds(() -> end).withFlushMaxAgeMillis(50))) {
            int[] ids = EngineTestSupport.define(e, 1, 1);
            int m = ids[0];
            double[] sums = new double[3];
            long[] anomalous = new long[3];
            for (long t = first + 1; t <= end + 1; t++) {
                double v = EngineTestSupport.value(m, t);
                int flags = t % 7 == 0 ? 0 : StorageNumber.SN_DEFAULT_FLAGS; // every 7th anomalous
                assertTrue(e.store(m, t, 1, v, flags));
                int w = (int) ((t - first - 1) / step3);
                if (w < 3) {
                    sums[w] += StorageNumber.unpack(StorageNumber.pack(v, flags));
                    if ((flags & StorageNumber.SN_FLAG_NOT_ANOMALOUS) == 0) {
                        anomalous[w]++;
                    }
                }
            }
            e.flush();
            List<double[]> got = new ArrayList<>();
            QueryResult r = e.query(m, 1, first, end, 3, (time, sum, min, max, count, anomalies) -> {
                if (count > 0) {
                    got.add(new double[] {time, sum / count, (double) anomalies / count, count});
                }
            });
            assertEquals(step3, r.step(), "one output point per tier-3 window: " + r);
            assertTrue(r.segments().stream().allMatch(sg -> sg.tier() == 3), "answered by tier 3: " + r.segments());
            assertEquals(3, got.size());
            for (int w = 0; w < 3; w++) {
                double mean = sums[w] / step3;
                double[] p = got.get(w);
                assertEquals(first + (w + 1) * step3, (long) p[0]);
                // the sum is stored as a float: the mean to float precision, not wrong by 216000 / 65535
                assertEquals(mean, p[1], Math.abs(mean) * 1e-6, "mean of tier-3 window " + w);
                assertEquals((double) anomalous[w] / step3, p[2], 1e-4, "anomaly rate of window " + w);
            }
        }
    }

    @Test
    void stepsPastAnIntAreRefusedAtStartOrKeptOutOfTheTier(@TempDir Path dir) throws Exception {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> EngineConfig.defaults(dir).withTiers(5).withTierGrouping(255));
        assertTrue(refused.getMessage().startsWith("tier 4 would aggregate 255^4 collections per point"),
                refused.getMessage());
        assertNull(EngineConfig.tierStepProblem(5, 60));

        // grouping 60, 5 tiers: update_every 166+ makes tier 4's step (200 x 60^4 s) pass 2^31; its
        // first window would end in 2052, so the points run until then
        long ue = 200;
        long from = 1_600_000_000L / ue * ue;
        long end = 2_600_000_000L;
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(5).withFsync(FsyncPolicy.NEVER)
                .withClockSeconds(() -> end))) {
            e.metadata().upsertHost(new io.strata.engine.meta.HostInfo(EngineTestSupport.HOST, "h", "linux", "UTC",
                    (int) ue, java.util.Map.of()));
            e.metadata().upsertChart(io.strata.engine.meta.ChartInfo.of(EngineTestSupport.HOST, "slow", (int) ue));
            int m = e.metadata().upsertDimension(io.strata.engine.meta.DimensionInfo.of(EngineTestSupport.HOST, "slow",
                    "d"));
            for (long t = from; t < end; t += ue) {
                assertTrue(e.store(m, t, (int) ue, 1.5, StorageNumber.SN_DEFAULT_FLAGS));
            }
            e.flush();
            for (int tier = 0; tier < 4; tier++) {
                assertTrue(e.registry().lastTime(m, tier) != MetricRegistry.NO_TIME, "tier " + tier + " holds it");
            }
            assertEquals(MetricRegistry.NO_TIME, e.registry().lastTime(m, 4), "tier 4 cannot hold it");
        }
    }

    /**
     * Readers snapshot tier-1 hot pages while a collector fills them: every point a snapshot
     * copies is whole (the aggregate of its window), whatever the moment.
     */
    @Test
    void concurrentSnapshotsSeeWholePoints() throws Exception {
        MetricRegistry registry = new MetricRegistry(2);
        int metrics = 64;
        int[] ids = new int[metrics];
        for (int i = 0; i < metrics; i++) {
            ids[i] = registry.register(1, i + 1, 0);
        }
        PageMemory mem0 = PageMemory.forPages(DiskFormat.pageBytes(0));
        PageMemory mem1 = PageMemory.forPages(DiskFormat.pageBytes(1));
        java.util.concurrent.ConcurrentLinkedQueue<io.strata.engine.page.DirtyPage> sealed =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        int grouping = 2;
        HotAggregateTable tier1 = new HotAggregateTable(1, grouping, registry, sealed::add, mem1, 1, System::nanoTime);
        java.util.concurrent.ConcurrentLinkedQueue<io.strata.engine.page.DirtyPage> sealed0 =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        HotPageTable hot0 = new HotPageTable(registry, sealed0::add, mem0, 1, System::nanoTime);
        HotAggregateTable[] tiers = {null, tier1};
        hot0.setLateAggregator((metric, page, start, ue, from, to) ->
                HotAggregateTable.addSlots(tiers, metric, page, start, ue, from, to));
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> bad = new AtomicReference<>();
        long base = 1_700_000_000L;
        // value at t: t mod 1000; a window (t-2, t] of grouping 2 holds t-1 and t: sum 2t-1 (mod)
        Thread reader = new Thread(() -> {
            int[] dst = new int[4 * DiskFormat.pagePoints(1)];
            HotPageTable.HotSnapshot hs = new HotPageTable.HotSnapshot();
            long snaps = 0;
            while (!done.get() && bad.get() == null) {
                for (int m : ids) {
                    if (!tier1.snapshot(m, dst, hs)) {
                        continue;
                    }
                    snaps++;
                    for (int i = 0; i < hs.entries; i++) {
                        long t = hs.startTime + (long) i * hs.updateEvery;
                        int count = dst[4 * i + 3] & 0xFFFF;
                        float min = Float.intBitsToFloat(dst[4 * i + 1]);
                        float max = Float.intBitsToFloat(dst[4 * i + 2]);
                        float sum = Float.intBitsToFloat(dst[4 * i]);
                        boolean whole = count == grouping && sum == min + max
                                && (max - min == 1 || (min == 0 && max == 999));
                        if (!whole) {
                            bad.compareAndSet(null, "metric " + m + " point " + i + " at " + t + ": count " + count
                                    + " sum " + sum + " min " + min + " max " + max + " (snapshot " + snaps + ")");
                        }
                    }
                }
            }
        });
        reader.start();
        try {
            for (long t = base + 1; t < base + 60_000 && bad.get() == null; t++) {
                for (int m : ids) {
                    hot0.store(m, t, 1, StorageNumber.pack((t - base) % 1000, StorageNumber.SN_DEFAULT_FLAGS));
                }
            }
        } finally {
            done.set(true);
            reader.join(10_000);
            // sealed pages were set aside while the reader ran (nothing is recycled under a reader)
            hot0.freeAll();
            tier1.freeAll();
            for (io.strata.engine.page.DirtyPage p : sealed0) {
                p.releaseRaw(mem0);
            }
            for (io.strata.engine.page.DirtyPage p : sealed) {
                p.releaseRaw(mem1);
            }
            mem0.recycleRetired(0);
            mem1.recycleRetired(0);
            mem0.freePooled();
            mem1.freePooled();
        }
        assertNull(bad.get());
    }
}
