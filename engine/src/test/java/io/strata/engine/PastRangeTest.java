package io.strata.engine;

import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static io.strata.engine.EngineTestSupport.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A range of points stored behind a metric's newer points ({@link StorageEngine#storePast}): it
 * fills only what the metric does not hold, reads merged with the newer points, survives a
 * restart and a crash like every page, rebuilds the windows of tiers 1 and 2 over it, and leaves
 * rotation and the metric's first time right.
 */
class PastRangeTest {

    /** A multiple of 3600, so that tier-1 and tier-2 windows start at T0. */
    private static final long T0 = 1_700_002_800L;

    private static int[] sns(int metric, long from, int count) {
        int[] s = new int[count];
        for (int i = 0; i < count; i++) {
            s[i] = sn(metric, from + i);
        }
        return s;
    }

    private static void storeRange(StorageEngine e, int metric, long from, long to) {
        for (long t = from; t <= to; t++) {
            assertTrue(e.store(metric, t, 1, value(metric, t), StorageNumber.SN_DEFAULT_FLAGS), "stored " + t);
        }
    }

    /** Tier-0 points of {@code m} in [from, to] as "time=value|gap", in the order delivered. */
    private static List<String> tier0(StorageEngine e, int m, long from, long to) throws IOException {
        List<String> out = new ArrayList<>();
        e.queryTier0(m, from, to, (t, sn) -> out.add(t + "=" + (StorageNumber.isEmpty(sn) ? "gap"
                : String.valueOf(StorageNumber.unpack(sn)))));
        return out;
    }

    private static List<String> expected(int m, long from, long to) {
        List<String> out = new ArrayList<>();
        for (long t = from; t <= to; t++) {
            out.add(t + "=" + StorageNumber.unpack(sn(m, t)));
        }
        return out;
    }

    @Test
    void aHoleBehindNewerPointsIsFilledAndReadMergedBeforeAndAfterARestartAndACrash(@TempDir Path dir,
                                                                                    @TempDir Path crashed)
            throws IOException {
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1);
        int m;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            m = define(e, 1, 1)[0];
            storeRange(e, m, T0, T0 + 99);
            e.flush(); // the page ends at T0 + 99: what follows starts a page of its own
            storeRange(e, m, T0 + 300, T0 + 399);
            assertFalse(e.store(m, T0 + 150, 1, 1.0, StorageNumber.SN_DEFAULT_FLAGS), "the append path refuses the hole");
            assertEquals(200, e.storePast(m, T0 + 100, 1, sns(m, T0 + 100, 200), 0, 200));
            assertEquals(200, e.pastPointsStored());
            // read from the dirty pages and the hot page
            assertEquals(expected(m, T0, T0 + 399), tier0(e, m, T0, T0 + 399));
            e.flush();
            assertEquals(expected(m, T0, T0 + 399), tier0(e, m, T0, T0 + 399), "from disk");
            assertEquals(T0, e.registry().firstTime(m, 0));
            assertEquals(T0 + 399, e.registry().lastTime(m, 0));
            // what kill -9 leaves after the flush: no journal v2 of the open datafile
            copyTree(dir, crashed);
        }
        try (StorageEngine e = StorageEngine.open(cfg)) {
            assertEquals(expected(m, T0, T0 + 399), tier0(e, m, T0, T0 + 399), "after a restart (journal v2)");
        }
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(crashed).withTiers(1))) {
            assertTrue(e.recoveryReport().lostRanges().isEmpty(), e.recoveryReport().findings()::toString);
            assertEquals(expected(m, T0, T0 + 399), tier0(e, m, T0, T0 + 399), "after a crash (journal v1)");
            assertEquals(T0, e.registry().firstTime(m, 0));
            assertEquals(T0 + 399, e.registry().lastTime(m, 0));
        }
    }

    @Test
    void aSubmittedRunIsStoredOnThePastWriterThreadAndFlushWaitsForIt(@TempDir Path dir) throws IOException {
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(1))) {
            int m = define(e, 1, 1)[0];
            storeRange(e, m, T0, T0 + 9);
            e.flush();
            storeRange(e, m, T0 + 100, T0 + 109);
            int[] run = sns(m, T0 + 10, 90);
            assertTrue(e.submitPast(m, T0 + 10, 1, run, 0, 90));
            run[0] = 0; // the run was copied
            e.flush();
            assertEquals(expected(m, T0, T0 + 109), tier0(e, m, T0, T0 + 109));
            assertEquals(90, e.pastPointsStored());
            // the newest second (a replication answer repeats it) is left out without a read
            assertTrue(e.submitPast(m, T0 + 109, 1, sns(m, T0 + 109, 1), 0, 1));
            e.flush();
            assertEquals(0, e.pastPointsHeld());
            assertEquals(0, e.pastRunsRefused());
            assertEquals(0, e.pastRunsFailed());
        }
    }

    /**
     * More than a journal v2 block (64 pages) of past pages inside one long page: a lookup of a
     * range after them still finds the long page (the block starts after the pages before it).
     */
    @Test
    void pastPagesInsideALongPageSpanningJournalV2BlocksAreFoundAfterARestart(@TempDir Path dir)
            throws IOException {
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1);
        int m;
        long a = T0 + 10;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            m = define(e, 1, 1)[0];
            storeRange(e, m, T0, T0);
            e.flush(); // the first page (of random capacity) is sealed: the next ones hold 1024 points
            storeRange(e, m, a, a);
            storeRange(e, m, a + 1023, a + 1023); // a page from a to a+1023, gaps between
            e.flush();
            storeRange(e, m, a + 1024, a + 1030);
            for (int i = 0; i < 100; i++) {
                long t = a + 1 + 2L * i;
                assertEquals(1, e.storePast(m, t, 1, sns(m, t, 1), 0, 1), "past page " + i);
            }
            e.flush();
        }
        try (StorageEngine e = StorageEngine.open(cfg)) {
            List<String> got = tier0(e, m, a + 1000, a + 1030);
            assertEquals(31, got.size(), got::toString);
            assertEquals((a + 1023) + "=" + StorageNumber.unpack(sn(m, a + 1023)), got.get(23));
            List<String> early = tier0(e, m, a, a + 4);
            assertEquals(List.of(a + "=" + StorageNumber.unpack(sn(m, a)),
                    (a + 1) + "=" + StorageNumber.unpack(sn(m, a + 1)), (a + 2) + "=gap",
                    (a + 3) + "=" + StorageNumber.unpack(sn(m, a + 3)), (a + 4) + "=gap"), early);
        }
    }

    @Test
    void storedValuesWinStoredGapsAreFilledAndTheRuleHoldsOnDisk(@TempDir Path dir) throws IOException {
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1);
        int m;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            m = define(e, 1, 1)[0];
            storeRange(e, m, T0, T0 + 9);
            // T0+10..T0+19 missed: gap points in the same page
            storeRange(e, m, T0 + 20, T0 + 29);
            e.flush();
            // a run over all of it, with other values: only the gaps take them
            int[] other = new int[30];
            for (int i = 0; i < 30; i++) {
                other[i] = StorageNumber.pack(-1 - i, StorageNumber.SN_DEFAULT_FLAGS);
            }
            assertEquals(10, e.storePast(m, T0, 1, other, 0, 30));
            assertEquals(20, e.pastPointsHeld());
            assertEquals(0, e.storePast(m, T0, 1, other, 0, 30), "now everything is held");
            List<String> want = new ArrayList<>();
            for (long t = T0; t < T0 + 30; t++) {
                double v = t >= T0 + 10 && t < T0 + 20 ? -1 - (t - T0) : StorageNumber.unpack(sn(m, t));
                want.add(t + "=" + v);
            }
            assertEquals(want, tier0(e, m, T0, T0 + 29));
            // a point after the newest one is not a past point
            assertEquals(0, e.storePast(m, T0 + 30, 1, other, 0, 1));
            e.flush();
            assertEquals(want, tier0(e, m, T0, T0 + 29), "from disk");
            // a page of its own and a gap point of the old page at each time: one point a second
            assertEquals(30, tier0(e, m, T0, T0 + 29).size());
            e.close();
            try (StorageEngine r = StorageEngine.open(cfg)) {
                assertEquals(want, tier0(r, m, T0, T0 + 29), "after a restart");
            }
        }
    }

    /** One tier point as "time:count:sum" (sum rounded to float, as stored). */
    private static List<String> tier(StorageEngine e, int tier, int m, long from, long to) throws IOException {
        List<String> out = new ArrayList<>();
        e.readTier(tier, m, from, to, (t, step, sum, min, max, count, an) -> out.add(t + ":" + count
                + (count == 0 ? "" : ":" + (float) sum + ":" + (float) min + ":" + (float) max)));
        return out;
    }

    /** The tier-1 (60 s) or tier-2 (3600 s) point of window ending at {@code end}, from the tier-0 values in it. */
    private static String window(int m, long end, long step, long holeFrom, long holeTo, boolean filled) {
        double sum = 0;
        float min = Float.MAX_VALUE;
        float max = -Float.MAX_VALUE;
        int n = 0;
        for (long t = end - step + 1; t <= end; t++) {
            if (t < T0 + 1 || t > T0 + 7300 || (!filled && t >= holeFrom && t <= holeTo)) {
                continue;
            }
            double v = StorageNumber.unpack(sn(m, t));
            sum += v;
            min = Math.min(min, (float) v);
            max = Math.max(max, (float) v);
            n++;
        }
        return end + ":" + n + (n == 0 ? "" : ":" + (float) sum + ":" + min + ":" + max);
    }

    @Test
    void theWindowsOfTiers1And2OverTheFilledRangeAreRebuiltAndWinOverTheOldPoints(@TempDir Path dir)
            throws IOException {
        EngineConfig cfg = EngineConfig.defaults(dir);
        long holeFrom = T0 + 1201;
        long holeTo = T0 + 3000;
        int m;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            m = define(e, 1, 1)[0];
            storeRange(e, m, T0 + 1, T0 + 1200);
            e.flush();
            storeRange(e, m, T0 + 3001, T0 + 7300);
            // before the fill: the hole's tier-1 windows are gaps, the tier-2 window T0+3600 partial
            List<String> t1 = tier(e, 1, m, T0 + 1260, T0 + 3000);
            assertEquals(30, t1.size());
            assertEquals(window(m, T0 + 1260, 60, holeFrom, holeTo, false), t1.get(0));
            assertEquals(window(m, T0 + 3600, 3600, holeFrom, holeTo, false), tier(e, 2, m, T0 + 3600, T0 + 3600).get(0));

            assertEquals(1800, e.storePast(m, holeFrom, 1, sns(m, holeFrom, 1800), 0, 1800));
            assertEquals(0, e.pendingTierRebuilds(), "every window over the hole was written already");
            assertTrue(e.tierWindowsRebuilt() >= 30 + 1);
            checkTiers(e, m, holeFrom, holeTo);
            e.flush();
            checkTiers(e, m, holeFrom, holeTo);
        }
        try (StorageEngine e = StorageEngine.open(cfg)) {
            checkTiers(e, m, holeFrom, holeTo);
        }
    }

    private static void checkTiers(StorageEngine e, int m, long holeFrom, long holeTo) throws IOException {
        List<String> want1 = new ArrayList<>();
        for (long end = T0 + 60; end <= T0 + 7260; end += 60) {
            want1.add(window(m, end, 60, holeFrom, holeTo, true));
        }
        assertEquals(want1, tier(e, 1, m, T0 + 60, T0 + 7260));
        assertEquals(List.of(window(m, T0 + 3600, 3600, holeFrom, holeTo, true),
                window(m, T0 + 7200, 3600, holeFrom, holeTo, true)), tier(e, 2, m, T0 + 3600, T0 + 7200));
    }

    @Test
    void aWindowStillOpenAtTheFillIsRebuiltOnceWritten(@TempDir Path dir) throws IOException {
        EngineConfig cfg = EngineConfig.defaults(dir);
        try (StorageEngine e = StorageEngine.open(cfg)) {
            int m = define(e, 1, 1)[0];
            storeRange(e, m, T0 + 1, T0 + 1200);
            e.flush();
            storeRange(e, m, T0 + 1231, T0 + 1250);
            // T0+1201..1230 is in the open tier-1 window T0+1260 and the open tier-2 window T0+3600
            assertEquals(30, e.storePast(m, T0 + 1201, 1, sns(m, T0 + 1201, 30), 0, 30));
            assertTrue(e.pendingTierRebuilds() > 0);
            storeRange(e, m, T0 + 1251, T0 + 3700);
            e.flush(); // drains what the tiers wrote since
            assertEquals(window(m, T0 + 1260, 60, 0, 0, true), tier(e, 1, m, T0 + 1260, T0 + 1260).get(0));
            assertTrue(tier(e, 1, m, T0 + 1260, T0 + 1260).get(0).startsWith((T0 + 1260) + ":60:"));
            assertTrue(tier(e, 2, m, T0 + 3600, T0 + 3600).get(0).startsWith((T0 + 3600) + ":3600:"),
                    tier(e, 2, m, T0 + 3600, T0 + 3600)::toString);
        }
    }

    @Test
    void rotationStillDeletesTheOldestDatafileAndTheFirstTimeFollowsThePastPage(@TempDir Path dir)
            throws IOException {
        AtomicLong clock = new AtomicLong(T0);
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withDatafileMaxBytes(64 * 1024)
                .withMaxAge(0, 2500).withClockSeconds(clock::get).withFutureMarginSeconds(0);
        try (StorageEngine e = StorageEngine.open(cfg)) {
            int[] ids = define(e, 10, 6);
            for (long t = T0; t < T0 + 1000; t++) {
                for (int id : ids) {
                    e.store(id, t, 1, value(id, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            e.flush();
            for (long t = T0 + 3000; t < T0 + 4000; t++) {
                for (int id : ids) {
                    e.store(id, t, 1, value(id, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            e.flush();
            int m = ids[0];
            assertEquals(2000, e.storePast(m, T0 + 1000, 1, sns(m, T0 + 1000, 2000), 0, 2000));
            e.flush();
            List<TierStore0Files> before = TierStore0Files.of(e);
            assertTrue(before.size() >= 3, "several datafiles: " + before);
            assertTrue(before.get(before.size() - 1).first() <= T0 + 1000, "the newest datafile reaches back: " + before);
            clock.set(T0 + 4000); // expires what ends before T0 + 1500: the datafiles of T0..T0+999
            assertTrue(e.tier(0).enforceRetention(T0 + 4000) > 0);
            List<TierStore0Files> after = TierStore0Files.of(e);
            assertEquals(before.subList(before.size() - after.size(), before.size()), after, "the oldest were deleted");
            for (TierStore0Files f : after) {
                assertTrue(f.last() >= T0 + 1500, "kept " + f);
            }
            assertEquals(T0 + 1000, e.registry().firstTime(m, 0), "first_entry: the past page's start");
            assertEquals(T0 + 3000, e.registry().firstTime(ids[1], 0));
            assertEquals(expected(m, T0 + 1000, T0 + 3999), tier0(e, m, T0, T0 + 3999));
            assertEquals(expected(ids[1], T0 + 3000, T0 + 3999), tier0(e, ids[1], T0, T0 + 3999));
        }
        try (StorageEngine e = StorageEngine.open(cfg)) {
            assertEquals(T0 + 1000, e.registry().firstTime(ids0(e), 0), "after a restart");
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path q = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(q);
                } else {
                    Files.copy(p, q);
                }
            }
        }
    }

    private static int ids0(StorageEngine e) {
        return e.metadata().metrics(e.metadata().chartId(EngineTestSupport.HOST, "test.chart0")).get(0);
    }

    /** A datafile of tier 0 by its time range. */
    private record TierStore0Files(long first, long last) {
        static List<TierStore0Files> of(StorageEngine e) {
            List<TierStore0Files> out = new ArrayList<>();
            e.tier(0).readLock().lock();
            try {
                for (var d : e.tier(0).datafiles()) {
                    out.add(new TierStore0Files(d.firstTime(), d.lastTime()));
                }
            } finally {
                e.tier(0).readLock().unlock();
            }
            return out;
        }
    }
}
