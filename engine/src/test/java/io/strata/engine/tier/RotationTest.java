package io.strata.engine.tier;

import io.strata.engine.DiskFormat;
import io.strata.engine.EngineConfig;
import io.strata.engine.EngineTestSupport;
import io.strata.engine.StorageEngine;
import io.strata.engine.bench.RandomWalkDataset;
import io.strata.engine.io.FaultInjectingFileIo;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rotation and retention of tier 0: quota, maximum age, reopen, a lowered quota and failed
 * deletions. Assertions are on bytes and times only.
 */
class RotationTest {

    static final long T0 = 1_700_000_000L;
    static final long QUOTA = 1 << 20;
    static final int CHUNK = 1000;
    static final RandomWalkDataset DATA = new RandomWalkDataset(7);

    static double value(int m, long t) {
        return DATA.value(m, t - T0);
    }

    static int sn(int m, long t) {
        return StorageNumber.pack(value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
    }

    static EngineConfig withQuota(Path dir, long quota) {
        return EngineConfig.defaults(dir).withQuota(0, quota);
    }

    /** Stores seconds {@code [from, to)} of every metric, then flushes. */
    static void store(StorageEngine e, int[] ids, long from, long to) throws IOException {
        for (long t = from; t < to; t++) {
            for (int m : ids) {
                assertTrue(e.store(m, t, 1, value(m, t), StorageNumber.SN_DEFAULT_FLAGS));
            }
        }
        e.flush();
    }

    /** Sizes of the files of each datafile number in the tier directory (datafile and journals). */
    static Map<Integer, Long> bytesByFileno(Path tierDir) throws IOException {
        Map<Integer, Long> out = new HashMap<>();
        try (var s = Files.list(tierDir)) {
            for (Path p : s.toList()) {
                String n = p.getFileName().toString();
                if (n.startsWith("datafile-0-") || n.startsWith("journalfile-0-")) {
                    int fileno = Integer.parseInt(n.substring(n.lastIndexOf('-') + 1, n.indexOf('.')));
                    out.merge(fileno, Files.size(p), Long::sum);
                }
            }
        }
        return out;
    }

    /**
     * The quota guarantee at a checkpoint: the running count is what is on disk, and the disk use
     * exceeds the quota by at most the newest datafile (the one being written) with its journals.
     */
    static void checkQuota(StorageEngine e, long quota) throws IOException {
        TierStore t0 = e.tier(0);
        long disk = t0.bytesOnDisk();
        assertEquals(disk, t0.accountedBytes(), "running count = bytes in the directory");
        Map<Integer, Long> byFile = bytesByFileno(t0.dir());
        int newest = byFile.keySet().stream().mapToInt(Integer::intValue).max().orElseThrow();
        long newestBytes = byFile.get(newest);
        assertTrue(disk <= quota + newestBytes, "disk " + disk + " > quota " + quota + " + newest datafile "
                + newestBytes);
        long newestDatafile = Files.size(t0.dir().resolve(DiskFormat.datafileName(0, newest)));
        assertTrue(newestDatafile <= e.config().datafileMaxBytes(0), "newest datafile " + newestDatafile);
    }

    /**
     * Every metric: its registry first time is the first point a query returns, and from there to
     * {@code end} every point is there with its value. Returns the first times.
     */
    static long[] checkSuffix(StorageEngine e, int[] ids, long end) throws IOException {
        long[] firsts = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            int m = ids[i];
            long first = e.registry().firstTime(m, 0);
            assertTrue(first >= T0 && first <= end, "metric " + m + " first " + first);
            long[] expect = {first};
            long n = e.queryTier0(m, T0, end, (t, v) -> {
                assertEquals(expect[0], t, "metric " + m + ": points are contiguous from the first time");
                assertEquals(sn(m, t), v, "metric " + m + " t " + t);
                expect[0]++;
            });
            assertEquals(end - first + 1, n, "metric " + m);
            assertEquals(end, e.registry().lastTime(m, 0));
            firsts[i] = first;
        }
        return firsts;
    }

    @Test
    void quotaDeletesTheOldestDatafilesAndMovesFirstTimes(@TempDir Path dir) throws Exception {
        EngineConfig cfg = withQuota(dir, QUOTA);
        assertEquals(256 * 1024, cfg.datafileMaxBytes(0), "quota / 4 for a quota below 4 minimum datafiles");
        int[] ids;
        long end = T0;
        long[] firsts;
        List<Integer> deletedFilenos = new CopyOnWriteArrayList<>();
        try (StorageEngine e = StorageEngine.open(cfg)) {
            ids = EngineTestSupport.define(e, 10, 10);
            e.tier(0).addDeletionListener(f -> deletedFilenos.add(f.fileno()));
            int checkpointsAfterRotation = 0;
            for (int round = 0; round < 60 && checkpointsAfterRotation < 4; round++) {
                store(e, ids, end, end + CHUNK);
                end += CHUNK;
                checkQuota(e, QUOTA);
                if (e.tier(0).datafilesDeleted() > 0) {
                    checkpointsAfterRotation++;
                    assertTrue(e.tier(0).bytesOnDisk() > QUOTA - 2 * cfg.datafileMaxBytes(0),
                            "rotation keeps close to the quota, not far below it");
                }
            }
            assertEquals(4, checkpointsAfterRotation, "the quota was reached");
            long deleted = e.tier(0).datafilesDeleted();
            assertTrue(deleted >= 3, "deleted " + deleted);
            assertEquals(deleted, deletedFilenos.size(), "the listener saw every deletion");
            for (int i = 0; i < deletedFilenos.size(); i++) {
                assertEquals(i + 1, deletedFilenos.get(i), "oldest first");
                assertFalse(Files.exists(e.tier(0).dir().resolve(DiskFormat.datafileName(0, i + 1))));
                assertFalse(Files.exists(e.tier(0).dir().resolve(DiskFormat.journalV1Name(0, i + 1))));
                assertFalse(Files.exists(e.tier(0).dir().resolve(DiskFormat.journalV2Name(0, i + 1))));
            }
            assertEquals(0, e.tier(0).deleteFailures());
            firsts = checkSuffix(e, ids, end - 1);
            for (long f : firsts) {
                assertTrue(f > T0, "first time moved forward");
            }
            // The first time is the earliest page start left on disk.
            e.tier(0).readLock().lock();
            try {
                long oldestKept = e.tier(0).datafiles().get(0).firstTime();
                assertEquals(oldestKept, java.util.Arrays.stream(firsts).min().orElseThrow());
            } finally {
                e.tier(0).readLock().unlock();
            }
        }
        // Reopen: the datafile written last is now closed, so opening trims like a rollover; the
        // newest data and the first-time rule are the same.
        long bytesAfterReopen;
        long[] firstsAfterReopen;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            assertTrue(e.recoveryReport().intact(), () -> e.recoveryReport().findings().toString());
            checkQuota(e, QUOTA);
            long closed = e.tier(0).accountedBytes() - 2 * DiskFormat.DATAFILE_SUPERBLOCK_SIZE;
            assertTrue(closed <= QUOTA, "at open the closed datafiles fit the quota: " + closed);
            assertTrue(closed > QUOTA - 2 * cfg.datafileMaxBytes(0), "and no more was deleted: " + closed);
            firstsAfterReopen = checkSuffix(e, ids, end - 1);
            for (int i = 0; i < ids.length; i++) {
                assertTrue(firstsAfterReopen[i] >= firsts[i]);
            }
            bytesAfterReopen = e.tier(0).bytesOnDisk();
        }
        // And again: nothing more is deleted, nothing moves.
        try (StorageEngine e = StorageEngine.open(cfg)) {
            assertTrue(e.recoveryReport().intact(), () -> e.recoveryReport().findings().toString());
            assertEquals(0, e.tier(0).datafilesDeleted());
            assertEquals(bytesAfterReopen, e.tier(0).bytesOnDisk());
            long[] again = checkSuffix(e, ids, end - 1);
            assertEquals(java.util.Arrays.toString(firstsAfterReopen), java.util.Arrays.toString(again));
            // and writing goes on under the quota
            for (int round = 0; round < 3; round++) {
                store(e, ids, end, end + CHUNK);
                end += CHUNK;
            }
            checkQuota(e, QUOTA);
            checkSuffix(e, ids, end - 1);
        }
    }

    @Test
    void readersDuringRotationSeeContiguousCorrectData(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(withQuota(dir, QUOTA))) {
            int[] ids = EngineTestSupport.define(e, 10, 10);
            AtomicLong flushedEnd = new AtomicLong(T0 - 1);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong queries = new AtomicLong();
            Thread reader = new Thread(() -> {
                try {
                    for (int i = 0; !stop.get(); i++) {
                        int m = ids[i % ids.length];
                        long end = flushedEnd.get();
                        long[] next = {-1};
                        e.queryTier0(m, T0, end, (t, v) -> {
                            if (next[0] >= 0) {
                                assertEquals(next[0], t, "metric " + m + ": no hole");
                            }
                            assertEquals(sn(m, t), v, "metric " + m + " t " + t);
                            next[0] = t + 1;
                        });
                        if (end >= T0) {
                            assertEquals(end + 1, next[0], "metric " + m + ": the newest flushed point is there");
                        }
                        queries.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "rotation-test-reader");
            reader.start();
            long end = T0;
            try {
                for (int round = 0; round < 12 && failure.get() == null; round++) {
                    store(e, ids, end, end + CHUNK);
                    end += CHUNK;
                    flushedEnd.set(end - 1);
                }
            } finally {
                stop.set(true);
                reader.join(60_000);
            }
            if (failure.get() != null) {
                throw new AssertionError("reader failed", failure.get());
            }
            assertTrue(e.tier(0).datafilesDeleted() >= 3, "deleted " + e.tier(0).datafilesDeleted());
            assertTrue(queries.get() > 0);
            checkQuota(e, QUOTA);
            checkSuffix(e, ids, end - 1);
        }
    }

    @Test
    void aLoweredQuotaRotatesAtOpen(@TempDir Path dir) throws Exception {
        int[] ids;
        long end = T0 + 12 * CHUNK;
        try (StorageEngine e = StorageEngine.open(withQuota(dir, 0).withDatafileMaxBytes(256 * 1024))) {
            ids = EngineTestSupport.define(e, 10, 10);
            // chunk by chunk, so that each datafile holds a span of time of every metric
            for (long t = T0; t < end; t += CHUNK) {
                store(e, ids, t, t + CHUNK);
            }
            assertTrue(e.tier(0).bytesOnDisk() > 2 * QUOTA, "enough data: " + e.tier(0).bytesOnDisk());
            assertEquals(0, e.tier(0).datafilesDeleted(), "no quota, no rotation");
            assertEquals(e.tier(0).bytesOnDisk(), e.tier(0).accountedBytes());
        }
        try (StorageEngine e = StorageEngine.open(withQuota(dir, QUOTA))) {
            assertTrue(e.tier(0).datafilesDeleted() >= 2, "deleted " + e.tier(0).datafilesDeleted());
            assertEquals(e.tier(0).bytesOnDisk(), e.tier(0).accountedBytes());
            assertTrue(e.tier(0).accountedBytes() <= QUOTA + 2 * DiskFormat.DATAFILE_SUPERBLOCK_SIZE,
                    "bytes " + e.tier(0).accountedBytes());
            long[] firsts = checkSuffix(e, ids, end - 1);
            assertTrue(java.util.Arrays.stream(firsts).allMatch(f -> f > T0));
        }
    }

    @Test
    void maximumAgeDeletesDatafilesWhoseNewestPointIsTooOld(@TempDir Path dir) throws Exception {
        long maxAge = 4 * CHUNK;
        long end = T0 + 12 * CHUNK;
        // the engine's clock at the end of the data: the flusher measures age against it
        EngineConfig cfg = EngineConfig.defaults(dir).withDatafileMaxBytes(128 * 1024).withMaxAge(0, maxAge)
                .withClockSeconds(() -> end - 1);
        try (StorageEngine e = StorageEngine.open(cfg)) {
            int[] ids = EngineTestSupport.define(e, 5, 10);
            for (long t = T0; t < end; t += CHUNK) {
                store(e, ids, t, t + CHUNK);
            }
            e.flush();
            long now = end - 1;
            long cutoff = now - maxAge;
            TierStore t0 = e.tier(0);
            // The flusher applies the age rule after its writes, against the engine's clock.
            assertTrue(t0.datafilesDeleted() >= 2, "deleted " + t0.datafilesDeleted());
            long deleted = t0.datafilesDeleted();
            t0.enforceRetention(now);
            assertEquals(0, t0.enforceRetention(now), "idempotent");
            assertTrue(t0.datafilesDeleted() >= deleted);
            assertEquals(t0.bytesOnDisk(), t0.accountedBytes());
            long oldestKeptFirst;
            t0.readLock().lock();
            try {
                List<TierStore.Datafile> kept = t0.datafiles();
                assertTrue(kept.size() >= 2, "kept " + kept.size());
                for (TierStore.Datafile d : kept) {
                    assertTrue(d.lastTime() >= cutoff, "kept datafile " + d.file.fileno() + " ends " + d.lastTime());
                }
                // datafiles are only roughly in time order: a flush writes chart after chart
                oldestKeptFirst = kept.stream().mapToLong(TierStore.Datafile::firstTime).min().orElseThrow();
            } finally {
                t0.readLock().unlock();
            }
            long[] firsts = checkSuffix(e, ids, now);
            for (long f : firsts) {
                // what is left older than the cutoff is only in datafiles that also hold newer points
                assertTrue(f >= oldestKeptFirst && f <= cutoff, "first " + f + ", cutoff " + cutoff);
            }
            // Points before every datafile kept are gone.
            for (int m : ids) {
                assertEquals(0, e.queryTier0(m, T0, oldestKeptFirst - 1, (t, v) -> { }));
            }
        }
    }

    @Test
    void aFailedDeleteIsRetriedWithoutLosingDataThatShouldStay(@TempDir Path dir) throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        EngineConfig cfg = withQuota(dir, QUOTA).withIo(io);
        // Datafile 1 cannot be deleted until the rule is cleared.
        FaultInjectingFileIo.Rule rule = io.fail(FaultInjectingFileIo.Op.DELETE,
                FaultInjectingFileIo.named(DiskFormat.datafileName(0, 1)), 0, Integer.MAX_VALUE);
        try (StorageEngine e = StorageEngine.open(cfg)) {
            int[] ids = EngineTestSupport.define(e, 10, 10);
            TierStore t0 = e.tier(0);
            long end = T0;
            int roundsAfterFailure = 0;
            for (int round = 0; round < 60 && roundsAfterFailure < 3; round++) {
                store(e, ids, end, end + CHUNK);
                end += CHUNK;
                if (t0.deleteFailures() > 0) {
                    roundsAfterFailure++;
                }
            }
            assertEquals(3, roundsAfterFailure, "datafile 1 was due for deletion");
            assertTrue(rule.fired() >= 2, "retried at each new datafile: " + rule.fired());
            assertEquals(rule.fired(), t0.deleteFailures(), "every failure is counted");
            assertEquals(1, t0.datafilesPendingDeletion());
            assertEquals(0, t0.datafilesDeleted());
            // Datafile 1 is out of the tier but still on disk with its journals, and counted.
            Path d1 = t0.dir().resolve(DiskFormat.datafileName(0, 1));
            assertTrue(Files.exists(d1));
            assertTrue(Files.exists(t0.dir().resolve(DiskFormat.journalV1Name(0, 1))));
            assertTrue(Files.exists(t0.dir().resolve(DiskFormat.journalV2Name(0, 1))));
            assertEquals(t0.bytesOnDisk(), t0.accountedBytes());
            assertTrue(t0.accountedBytes() > QUOTA, "over quota, since the disk was not freed");
            // No other datafile was deleted to make up for it: 2 .. newest are all there.
            t0.readLock().lock();
            try {
                List<TierStore.Datafile> files = t0.datafiles();
                for (int i = 0; i < files.size(); i++) {
                    assertEquals(i + 2, files.get(i).file.fileno());
                }
            } finally {
                t0.readLock().unlock();
            }
            long[] firsts = checkSuffix(e, ids, end - 1);

            // The disk recovers: the next enforcement deletes datafile 1, then rotates down to the quota.
            io.clear();
            int n = t0.enforceRetention(end - 1);
            assertTrue(n >= 2, "datafile 1 and what is over quota: " + n);
            assertEquals(n, t0.datafilesDeleted());
            assertEquals(0, t0.datafilesPendingDeletion());
            assertFalse(Files.exists(d1));
            assertFalse(Files.exists(t0.dir().resolve(DiskFormat.journalV1Name(0, 1))));
            checkQuota(e, QUOTA);
            long[] after = checkSuffix(e, ids, end - 1);
            for (int i = 0; i < ids.length; i++) {
                assertTrue(after[i] >= firsts[i]);
            }

            // A journal that cannot be deleted does not block rotation; it is retried and stays counted.
            FaultInjectingFileIo.Rule j = io.fail(FaultInjectingFileIo.Op.DELETE,
                    p -> p.getFileName().toString().endsWith(DiskFormat.JOURNAL_V2_SUFFIX), 0, 1);
            long deletedBefore = t0.datafilesDeleted();
            for (int round = 0; round < 20 && j.fired() == 0; round++) {
                store(e, ids, end, end + CHUNK);
                end += CHUNK;
            }
            assertEquals(1, j.fired());
            assertTrue(t0.datafilesDeleted() > deletedBefore);
            assertEquals(0, t0.datafilesPendingDeletion(), "only a journal is left to delete");
            assertEquals(t0.bytesOnDisk(), t0.accountedBytes());
            t0.enforceRetention(end - 1);
            assertEquals(t0.bytesOnDisk(), t0.accountedBytes());
            Map<Integer, Long> left = bytesByFileno(t0.dir());
            t0.readLock().lock();
            try {
                assertEquals(t0.datafiles().size(), left.size(), "no orphan journal left: " + left.keySet());
            } finally {
                t0.readLock().unlock();
            }
            checkQuota(e, QUOTA);
            checkSuffix(e, ids, end - 1);
        }
    }

    @Test
    void firstTimeOfAMetricWithNothingLeftOnDisk(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(withQuota(dir, QUOTA))) {
            int[] ids = EngineTestSupport.define(e, 10, 10);
            int gone = ids[0];
            int[] others = java.util.Arrays.copyOfRange(ids, 1, ids.length);
            // "gone" is collected for a while, then no more; the others go on until its datafiles rotate.
            store(e, ids, T0, T0 + CHUNK);
            long end = T0 + CHUNK;
            for (int round = 0; round < 60 && e.registry().firstTime(gone, 0) != MetricRegistry.NO_TIME; round++) {
                store(e, others, end, end + CHUNK);
                end += CHUNK;
            }
            assertEquals(MetricRegistry.NO_TIME, e.registry().firstTime(gone, 0), "nothing of it is left");
            assertEquals(T0 + CHUNK - 1, e.registry().lastTime(gone, 0), "last seen");
            assertEquals(0, e.queryTier0(gone, T0, end, (t, v) -> { }));
            checkSuffix(e, others, end - 1);
            // collected again: the first time is set by the new point
            assertTrue(e.store(gone, end, 1, 1.0, StorageNumber.SN_DEFAULT_FLAGS));
            assertEquals(end, e.registry().firstTime(gone, 0));
        }
    }

    @Test
    void firstTimeOfAMetricWhosePointsAreOnlyInMemory(@TempDir Path dir) throws Exception {
        int slowEvery = 60;
        try (StorageEngine e = StorageEngine.open(withQuota(dir, QUOTA).withFlushMaxAgeMillis(10))) {
            int[] ids = EngineTestSupport.define(e, 10, 10);
            int hooked = ids[0];
            int unhooked = ids[1];
            int[] others = java.util.Arrays.copyOfRange(ids, 2, ids.length);
            // Two metrics collected every 60 s have a page on disk, in datafile 1 ...
            long end = T0 + CHUNK;
            for (long t = T0; t < end; t++) {
                for (int m : others) {
                    assertTrue(e.store(m, t, 1, value(m, t), StorageNumber.SN_DEFAULT_FLAGS));
                }
                if ((t - T0) % slowEvery == 0) {
                    assertTrue(e.store(hooked, t, slowEvery, value(hooked, t), StorageNumber.SN_DEFAULT_FLAGS));
                    assertTrue(e.store(unhooked, t, slowEvery, value(unhooked, t), StorageNumber.SN_DEFAULT_FLAGS));
                }
            }
            e.flush();
            long lastOnDisk = T0 + (CHUNK - 1) / slowEvery * slowEvery;
            long firstInMemory = lastOnDisk + slowEvery;
            // ... then their points stay in their hot pages (1024 slots of 60 s) while the other
            // metrics fill datafiles that rotate datafile 1 away. Only the hooked one is known to
            // the memory hook (the engine wires one that looks at hot and dirty pages).
            e.tier(0).setMemoryFirstTime(m -> m == hooked ? firstInMemory : MetricRegistry.NO_TIME);
            for (int round = 0; round < 40 && (e.registry().firstTime(hooked, 0) == T0
                    || e.registry().firstTime(unhooked, 0) == T0); round++) {
                for (long t = end; t < end + CHUNK; t++) {
                    for (int m : others) {
                        assertTrue(e.store(m, t, 1, value(m, t), StorageNumber.SN_DEFAULT_FLAGS));
                    }
                    if ((t - T0) % slowEvery == 0) {
                        assertTrue(e.store(hooked, t, slowEvery, value(hooked, t), StorageNumber.SN_DEFAULT_FLAGS));
                        assertTrue(e.store(unhooked, t, slowEvery, value(unhooked, t), StorageNumber.SN_DEFAULT_FLAGS));
                    }
                }
                end += CHUNK;
                // let the flusher write what was sealed (the slow pages stay hot); then the tier's
                // monitor waits for a write in progress
                for (int i = 0; i < 2000 && e.pendingPages() > 0; i++) {
                    Thread.sleep(5);
                }
                e.tier(0).enforceRetention(0);
            }
            assertTrue(e.tier(0).datafilesDeleted() > 0);
            assertEquals(firstInMemory, e.registry().firstTime(hooked, 0), "the hook's answer");
            assertEquals(lastOnDisk + 1, e.registry().firstTime(unhooked, 0),
                    "without the hook: a lower bound, one second after its last point deleted");
            for (int m : new int[]{hooked, unhooked}) {
                long[] firstPoint = {-1};
                long n = e.queryTier0(m, T0, end, (t, v) -> {
                    if (firstPoint[0] < 0) {
                        firstPoint[0] = t;
                    }
                    assertEquals(sn(m, t), v);
                });
                assertEquals(firstInMemory, firstPoint[0], "its points in memory are all there");
                assertEquals((end - 1 - firstInMemory) / slowEvery + 1, n);
            }
        }
    }
}
