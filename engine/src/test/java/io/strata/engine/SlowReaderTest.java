package io.strata.engine;

import io.strata.engine.page.StorageNumber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reader whose sink blocks (a slow HTTP client) holds no lock the flusher needs: the flusher
 * rolls datafiles over and rotation deletes the very datafile the reader is reading, and the
 * reader still gets every point when it resumes.
 */
class SlowReaderTest {

    static final long T0 = 1_700_000_000L;

    @Test
    void aBlockedSinkDoesNotDelayTheFlushersRolloverNorLoseItsDatafile(@TempDir Path dir) throws Exception {
        long quota = 1L << 20;
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withFlushMaxAgeMillis(5).withQuota(0, quota)
                .withClockSeconds(() -> T0 + 1_000_000);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (StorageEngine e = StorageEngine.open(cfg)) {
            e.flushTimeoutMillis = 30_000;
            int[] ids = define(e, 5, 10);
            long t = T0;
            for (; t < T0 + 3600; t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            e.flush();
            int m = ids[0];
            CountDownLatch inSink = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            long[] delivered = {0};
            Future<Long> query = pool.submit(() -> e.queryTier0(m, T0, T0 + 3599, (time, v) -> {
                assertEquals(sn(m, time), v, "at " + time);
                if (delivered[0]++ == 0) {
                    inSink.countDown();
                    try {
                        // the sink of a client that stopped reading: until the test lets it go
                        assertTrue(resume.await(120, TimeUnit.SECONDS));
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }
            }));
            assertTrue(inSink.await(60, TimeUnit.SECONDS), "the query reached its sink");
            long files = e.tier(0).extentsWritten();
            int firstFile = e.tier(0).datafiles().get(0).file.fileno();
            long deletedBefore = e.tier(0).datafilesDeleted();
            // the flusher rolls over (and rotates, the quota being small) while the sink sleeps
            for (int round = 0; round < 40 && e.tier(0).datafilesDeleted() == deletedBefore; round++) {
                long to = t + 1800;
                for (; t < to; t++) {
                    for (int id : ids) {
                        e.store(id, t, 1, EngineTestSupport.value(id, t), StorageNumber.SN_DEFAULT_FLAGS);
                    }
                }
                // datafiles of 256 KiB (a quarter of the quota): the flusher rolls over every round or two
                e.flush();
            }
            assertTrue(e.tier(0).extentsWritten() > files, "written while the reader sleeps");
            assertTrue(e.tier(0).datafilesDeleted() > deletedBefore, "rotated while the reader sleeps");
            assertTrue(e.tier(0).datafiles().get(0).file.fileno() > firstFile, "the reader's first datafile is gone");
            assertFalse(query.isDone(), "the reader still sleeps");
            resume.countDown();
            assertEquals(3600, query.get(60, TimeUnit.SECONDS), "every point, from a datafile rotated meanwhile");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBlockedScanDoesNotDelayTheFlushersRolloverNorLoseItsDatafiles(@TempDir Path dir) throws Exception {
        long quota = 1L << 20;
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withFlushMaxAgeMillis(5).withQuota(0, quota)
                .withClockSeconds(() -> T0 + 1_000_000);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (StorageEngine e = StorageEngine.open(cfg)) {
            e.flushTimeoutMillis = 30_000;
            int[] ids = define(e, 5, 10);
            long t = T0;
            for (; t < T0 + 3600; t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            e.flush();
            CountDownLatch inSink = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            long[] checked = {0};
            Future<TierScanner.Stats> scan = pool.submit(() -> e.scanTier(0, (msb, lsb, start, step, entries, pts) -> {
                int m = e.registry().lookup(new java.util.UUID(msb, lsb));
                for (int i = 0; i < entries; i++) {
                    assertEquals(sn(m, start + (long) i * step), pts[i], "metric " + m + " at " + (start + i * step));
                    checked[0]++;
                }
                if (inSink.getCount() > 0) {
                    inSink.countDown();
                    try {
                        assertTrue(resume.await(120, TimeUnit.SECONDS));
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }
            }));
            assertTrue(inSink.await(60, TimeUnit.SECONDS), "the scan reached its sink");
            long deletedBefore = e.tier(0).datafilesDeleted();
            int firstFile = e.tier(0).datafiles().get(0).file.fileno();
            for (int round = 0; round < 40 && e.tier(0).datafilesDeleted() == deletedBefore; round++) {
                long to = t + 1800;
                for (; t < to; t++) {
                    for (int id : ids) {
                        e.store(id, t, 1, EngineTestSupport.value(id, t), StorageNumber.SN_DEFAULT_FLAGS);
                    }
                }
                e.flush();
            }
            assertTrue(e.tier(0).datafilesDeleted() > deletedBefore, "rotated while the scan sleeps");
            assertTrue(e.tier(0).datafiles().get(0).file.fileno() > firstFile, "the scan's first datafile is gone");
            assertFalse(scan.isDone(), "the scan still sleeps");
            resume.countDown();
            TierScanner.Stats st = scan.get(60, TimeUnit.SECONDS);
            assertEquals(0, st.damagedExtents());
            assertEquals(st.points(), checked[0]);
            assertTrue(checked[0] >= 3600L * ids.length, "every point of the first hour at least: " + checked[0]);
        } finally {
            pool.shutdownNow();
        }
    }
}
