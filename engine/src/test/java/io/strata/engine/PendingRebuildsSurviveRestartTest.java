package io.strata.engine;

import io.strata.engine.page.DirtyPage;
import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static io.strata.engine.EngineTestSupport.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tier windows a past run could not rebuild at once (still open at the fill) are rebuilt
 * after a restart and after a crash, once the tier passes them: the pending rebuilds are kept in
 * {@code past-rebuilds} ({@link PendingRebuildJournal}).
 */
class PendingRebuildsSurviveRestartTest {

    /** A multiple of 3600: the tier-1 window T0+60 holds T0+1 .. T0+60. */
    private static final long T0 = 1_700_002_800L;
    private static final long HOLE_FROM = T0 + 11;
    private static final long HOLE_TO = T0 + 20;

    private static void storeRange(StorageEngine e, int m, long from, long to) {
        for (long t = from; t <= to; t++) {
            assertTrue(e.store(m, t, 1, value(m, t), StorageNumber.SN_DEFAULT_FLAGS), "stored " + t);
        }
    }

    private static int[] sns(int m, long from, int count) {
        int[] s = new int[count];
        for (int i = 0; i < count; i++) {
            s[i] = sn(m, from + i);
        }
        return s;
    }

    /** The tier-1 point ending at {@code end} as "end:count:sum". */
    private static String tier1(StorageEngine e, int m, long end) throws IOException {
        List<String> out = new ArrayList<>();
        e.readTier(1, m, end, end, (t, step, sum, min, max, count, an) -> {
            if (t == end) {
                out.add(t + ":" + count + ":" + (float) sum);
            }
        });
        assertEquals(1, out.size(), "one point at " + end + ": " + out);
        return out.get(0);
    }

    /** The window T0+60 over all its 60 values. */
    private static String full(int m) {
        double sum = 0;
        for (long t = T0 + 1; t <= T0 + 60; t++) {
            sum += StorageNumber.unpack(sn(m, t));
        }
        return (T0 + 60) + ":60:" + (float) sum;
    }

    /** Live T0+1..10 and T0+21..30, the hole T0+11..20 filled behind them while the window T0+60 is open. */
    private static int fillInsideTheOpenWindow(StorageEngine e) throws IOException {
        int m = define(e, 1, 1)[0];
        storeRange(e, m, T0 + 1, T0 + 10);
        storeRange(e, m, T0 + 21, T0 + 30);
        assertEquals(10, e.storePast(m, HOLE_FROM, 1, sns(m, HOLE_FROM, 10), 0, 10));
        assertTrue(e.pendingTierRebuilds() > 0, "the window T0+60 is open: queued");
        return m;
    }

    @Test
    void aWindowOpenAtTheFillIsRebuiltAfterARestartOnceTheTierPassesIt(@TempDir Path dir) throws IOException {
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(2);
        int m;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            m = fillInsideTheOpenWindow(e);
        }
        try (StorageEngine e = StorageEngine.open(cfg)) {
            storeRange(e, m, T0 + 31, T0 + 200);
            e.flush();
            assertEquals(full(m), tier1(e, m, T0 + 60));
            assertEquals(0, e.pendingRebuildJournalRecords(), "rebuilt and on disk: the record is dropped");
        }
        try (StorageEngine e = StorageEngine.open(cfg)) {
            assertEquals(full(m), tier1(e, m, T0 + 60), "after another restart");
            assertEquals(0, e.pendingTierRebuilds());
        }
    }

    @Test
    void aWindowWrittenWithItsOldAggregateBeforeAKillIsRebuiltAtTheNextStart(@TempDir Path dir,
                                                                           @TempDir Path crashed)
            throws Exception {
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(2);
        int m;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            m = fillInsideTheOpenWindow(e);
            // the live data passes the window and fills the tier-1 page it is in: the page is
            // sealed with the window's live aggregate (50 values) and written by the flusher
            // without a flush, which would rebuild the window first
            long pageEnd = T0 + 60L * DiskFormat.pagePoints(1);
            storeRange(e, m, T0 + 31, pageEnd + 60);
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!onDisk(e, m)) {
                assertTrue(System.nanoTime() < deadline, "the flusher wrote the pages within 60 s");
                Thread.onSpinWait();
                Thread.sleep(10);
            }
            assertTrue(e.pendingTierRebuilds() > 0, "not rebuilt yet: nothing drained the queue");
            // what kill -9 leaves now
            copyTree(dir, crashed);
        }
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(crashed).withTiers(2))) {
            long last = e.registry().lastTime(m, 0);
            storeRange(e, m, last + 1, last + 120);
            e.flush();
            assertEquals(full(m), tier1(e, m, T0 + 60), "after a crash");
        }
    }

    @Test
    void aDamagedJournalIsSkippedRecordByRecordAndLosesNoStoredData(@TempDir Path dir) throws IOException {
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(2);
        int m;
        int other;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            m = fillInsideTheOpenWindow(e);
            other = define(e, 2, 1)[1];
            storeRange(e, other, T0 + 1, T0 + 10);
            storeRange(e, other, T0 + 21, T0 + 30);
            assertEquals(10, e.storePast(other, HOLE_FROM, 1, sns(other, HOLE_FROM, 10), 0, 10));
        }
        Path journal = dir.resolve(PendingRebuildJournal.FILE_NAME);
        byte[] b = Files.readAllBytes(journal);
        int records = (b.length - PendingRebuildJournal.HEADER_BYTES) / PendingRebuildJournal.RECORD_BYTES;
        assertEquals(2, records, "one record per past page");
        // the first record damaged, and a torn record at the end
        b[PendingRebuildJournal.HEADER_BYTES + 20] ^= 0x5A;
        byte[] torn = new byte[b.length + 17];
        System.arraycopy(b, 0, torn, 0, b.length);
        Files.write(journal, torn);
        try (StorageEngine e = StorageEngine.open(cfg)) {
            assertEquals(1, e.pendingRebuildJournalRecordsDamaged());
            storeRange(e, m, T0 + 31, T0 + 200);
            storeRange(e, other, T0 + 31, T0 + 200);
            e.flush();
            // every tier-0 value is there; the undamaged record's window is rebuilt
            List<Long> times = new ArrayList<>();
            e.queryTier0(m, T0 + 1, T0 + 200, (t, s) -> {
                if (!StorageNumber.isEmpty(s)) {
                    times.add(t);
                }
            });
            assertEquals(200, times.size());
            assertEquals(full(other), tier1(e, other, T0 + 60));
        }
        // a file whose header is not ours: the engine starts, keeps it aside and starts a new journal
        Files.write(journal, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
        try (StorageEngine e = StorageEngine.open(cfg)) {
            assertEquals(1, e.pendingRebuildJournalRecordsDamaged());
            assertTrue(Files.exists(dir.resolve(PendingRebuildJournal.FILE_NAME + ".damaged")));
            assertEquals(T0 + 200, e.registry().lastTime(m, 0));
            storeRange(e, m, T0 + 211, T0 + 220);
            assertEquals(10, e.storePast(m, T0 + 201, 1, sns(m, T0 + 201, 10), 0, 10));
            assertEquals(1, e.pendingRebuildJournalRecords());
            assertEquals(PendingRebuildJournal.HEADER_BYTES + PendingRebuildJournal.RECORD_BYTES, Files.size(journal));
        }
    }

    private static boolean onDisk(StorageEngine e, int m) {
        for (int t = 0; t < 2; t++) {
            DirtyPage[] d = e.flusher().dirtyPages(t, m);
            if (d != null && d.length > 0) {
                return false;
            }
        }
        return e.registry().lastTime(m, 1) >= T0 + 60L * DiskFormat.pagePoints(1) - 60;
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
}
