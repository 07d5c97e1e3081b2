package io.strata.engine;

import io.strata.engine.page.StorageNumber;
import io.strata.engine.query.QueryResult;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tiers 1..N: real-time aggregation, queries at each resolution, backfill at start. */
class TiersTest {

    static final long T0 = 1_700_000_000L;

    static EngineConfig cfg(Path dir, int tiers) {
        return EngineConfig.defaults(dir).withTiers(tiers).withDatafileMaxBytes(256 * 1024).withFlushMaxAgeMillis(10);
    }

    record Out(long time, double sum, double min, double max, long count, long anomalies) {
    }

    static List<Out> query(StorageEngine e, int metric, long after, long before, int points, QueryResult[] res)
            throws Exception {
        List<Out> out = new ArrayList<>();
        QueryResult r = e.query(metric, 1, after, before, points, (t, s, mn, mx, c, a) -> out.add(new Out(t, s, mn, mx, c, a)));
        if (res != null) {
            res[0] = r;
        }
        return out;
    }

    /** What a tier point ending at {@code end} of {@code step} seconds must hold, from the generator. */
    static Out expected(int m, long end, long step, long first, long last, LongPredicate stored) {
        double sum = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        long count = 0;
        for (long t = Math.max(first, end - step + 1); t <= Math.min(end, last); t++) {
            if (!stored.test(t)) {
                continue;
            }
            double v = StorageNumber.unpack(EngineTestSupport.sn(m, t));
            sum += v;
            min = Math.min(min, v);
            max = Math.max(max, v);
            count++;
        }
        if (count == 0) {
            return new Out(end, 0, 0, 0, 0, 0);
        }
        if (step == 1) {
            return new Out(end, sum, min, max, count, 0);
        }
        return new Out(end, (float) sum, (float) min, (float) max, count, 0);
    }

    static void store(StorageEngine e, int[] ids, long from, long to, LongPredicate stored) {
        for (long t = from; t < to; t++) {
            for (int m : ids) {
                if (stored.test(t)) {
                    assertTrue(e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS));
                } else {
                    e.storeGap(m, t, 1);
                }
            }
        }
    }

    static void checkTier(StorageEngine e, int m, long first, long last, long step, LongPredicate stored, int expectTier)
            throws Exception {
        // Whole windows only: the first and last windows are partial by construction.
        long after = (first / step + 2) * step;
        long before = (last / step - 1) * step;
        QueryResult[] r = new QueryResult[1];
        List<Out> got = query(e, m, after, before, (int) ((before - after) / step), r);
        assertEquals(step, r[0].step());
        assertEquals(expectTier, r[0].segments().get(0).tier(), () -> "plan " + r[0].segments());
        assertEquals((before - after) / step, got.size());
        for (Out o : got) {
            Out want = expected(m, o.time(), step, first, last, stored);
            assertEquals(want.count(), o.count(), () -> "count at " + o.time() + " plan " + r[0].segments());
            if (want.count() > 0) {
                assertEquals(want.sum(), o.sum(), Math.abs(want.sum()) * 1e-6, "sum at " + o.time());
                assertEquals(want.min(), o.min(), 0.0, "min at " + o.time());
                assertEquals(want.max(), o.max(), 0.0, "max at " + o.time());
            }
        }
    }

    @Test
    void higherTiersAggregateWhatTier0Holds(@TempDir Path dir) throws Exception {
        long end = T0 + 5 * 3600 + 1234;
        LongPredicate all = t -> true;
        int[] ids;
        try (StorageEngine e = StorageEngine.open(cfg(dir, 3))) {
            ids = define(e, 2, 3);
            store(e, ids, T0, end, all);
            // live: disk, dirty and hot pages of every tier
            checkTier(e, ids[1], T0, end - 1, 60, all, 1);
            checkTier(e, ids[1], T0, end - 1, 3600, all, 2);
        }
        try (StorageEngine e = StorageEngine.open(cfg(dir, 3))) {
            assertTrue(e.recoveryReport().intact(), () -> e.recoveryReport().findings().toString());
            for (int m : ids) {
                checkTier(e, m, T0, end - 1, 60, all, 1);
                checkTier(e, m, T0, end - 1, 3600, all, 2);
                checkTier(e, m, T0, end - 1, 1, all, 0);
            }
            assertTrue(e.tier(1).bytesOnDisk() > 0);
            assertTrue(e.tier(2).bytesOnDisk() > 0);
            // a scan in file order meets every stored point once, with the stored values
            long[] seen = new long[2];
            var st = e.scanTier(0, (msb, lsb, start, step, entries, pts) -> {
                int m = e.registry().lookup(msb, lsb);
                for (int i = 0; i < entries; i++) {
                    seen[0]++;
                    if (pts[i] != EngineTestSupport.sn(m, start + (long) i * step)) {
                        seen[1]++;
                    }
                }
            });
            assertEquals((end - T0) * ids.length, seen[0]);
            assertEquals(0, seen[1], "points that differ from what was stored");
            assertEquals(seen[0], st.points());
            assertEquals(0, st.damagedExtents());
            long[] tier1 = new long[1];
            e.scanTier(1, (msb, lsb, start, step, entries, pts) -> {
                assertEquals(60, step);
                for (int i = 0; i < entries; i++) {
                    tier1[0] += pts[4 * i + 3] & 0xFFFF;
                }
            });
            assertTrue(tier1[0] > (end - T0 - 3600) * ids.length && tier1[0] <= (end - T0) * ids.length,
                    "tier-1 points account for the tier-0 points aggregated: " + tier1[0]);
        }
    }

    @Test
    void gapsStayGapsInEveryTier(@TempDir Path dir) throws Exception {
        long end = T0 + 2 * 3600;
        // a gap of 10 minutes, and every 7th second missing elsewhere
        LongPredicate stored = t -> !(t >= T0 + 1800 && t < T0 + 2400) && t % 7 != 0;
        try (StorageEngine e = StorageEngine.open(cfg(dir, 3))) {
            int[] ids = define(e, 1, 2);
            store(e, ids, T0, end, stored);
            e.flush();
            checkTier(e, ids[0], T0, end - 1, 60, stored, 1);
            checkTier(e, ids[0], T0, end - 1, 1, stored, 0);
            List<Out> minutes = query(e, ids[0], T0 + 1860, T0 + 2340, 0, null);
            long zero = minutes.stream().filter(o -> o.count() == 0).count();
            assertEquals(minutes.size(), zero, "every second of the gap is a gap at tier 0");
            List<Out> perMinute = query(e, ids[0], T0 + 1860, T0 + 2340, 8, null);
            assertTrue(perMinute.stream().allMatch(o -> o.count() == 0 || o.time() <= T0 + 1860 || o.time() >= T0 + 2400),
                    perMinute.toString());
        }
    }

    @Test
    void backfillComputesMissingTiersAtStart(@TempDir Path dir) throws Exception {
        long mid = T0 + 4 * 3600 + 1777;
        long end = mid + 3600 + 500;
        LongPredicate all = t -> true;
        int[] ids;
        try (StorageEngine e = StorageEngine.open(cfg(dir, 1))) {
            ids = define(e, 1, 3);
            store(e, ids, T0, mid, all);
        }
        // Tiers 1 and 2 are added: their past is computed from tier 0, and the windows open at
        // the restart continue with live data.
        try (StorageEngine e = StorageEngine.open(cfg(dir, 3))) {
            checkTier(e, ids[2], T0, mid - 1, 60, all, 1);
            checkTier(e, ids[2], T0, mid - 1, 3600, all, 2);
            store(e, ids, mid, end, all);
            checkTier(e, ids[2], T0, end - 1, 60, all, 1);
            checkTier(e, ids[2], T0, end - 1, 3600, all, 2);
        }
        // A restart in the middle of windows of both tiers: nothing of those windows is lost.
        long end2 = end + 4 * 3600 + 99;
        try (StorageEngine e = StorageEngine.open(cfg(dir, 3))) {
            store(e, ids, end, end2, all);
        }
        try (StorageEngine e = StorageEngine.open(cfg(dir, 3))) {
            for (int m : ids) {
                checkTier(e, m, T0, end2 - 1, 60, all, 1);
                checkTier(e, m, T0, end2 - 1, 3600, all, 2);
            }
        }
    }

    @Test
    void aCoarseQueryReadsFewPointsAndAFineOneReadsTier0(@TempDir Path dir) throws Exception {
        long end = T0 + 6 * 3600;
        try (StorageEngine e = StorageEngine.open(cfg(dir, 3))) {
            int[] ids = define(e, 1, 1);
            store(e, ids, T0, end, t -> true);
            QueryResult[] r = new QueryResult[1];
            long h = (T0 / 3600 + 1) * 3600;
            List<Out> day = query(e, ids[0], h, h + 4 * 3600, 4, r);
            assertEquals(4, day.size());
            assertEquals(3600, r[0].step());
            assertEquals(2, r[0].segments().get(0).tier());
            assertTrue(r[0].totalPointsRead() <= 8, "read " + r[0].totalPointsRead());
            List<Out> fine = query(e, ids[0], end - 601, end - 1, 600, r);
            assertEquals(0, r[0].segments().get(0).tier());
            assertEquals(600, fine.size());
            // the newest minutes: the coarse tiers have not aggregated them yet; tier 0 fills in
            query(e, ids[0], end - 7200, end - 1, 120, r);
            QueryResult.Segment lastSeg = r[0].segments().get(r[0].segments().size() - 1);
            assertEquals(0, lastSeg.tier(), () -> "plan " + r[0].segments());
        }
    }
}
