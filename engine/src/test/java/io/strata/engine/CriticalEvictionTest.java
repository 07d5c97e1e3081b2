package io.strata.engine;

import io.strata.engine.io.FaultInjectingFileIo;
import io.strata.engine.io.FaultInjectingFileIo.Op;
import io.strata.engine.page.StorageNumber;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Critical eviction: while the disk refuses every write, dirty pages pile up; past the main
 * cache's bound the oldest are dropped, so memory stays bounded and collection goes on, and the
 * clean caches give their room to the dirty pages.
 */
class CriticalEvictionTest {

    static final long T0 = 1_700_000_000L;
    static final long BOUND = 256 * 1024;

    static void write(StorageEngine e, int[] ids, long from, long to) {
        for (long t = from; t < to; t++) {
            for (int m : ids) {
                assertTrue(e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS));
            }
        }
    }

    /** Polls until the flusher has had its turn; fails the test only through the assertions after it. */
    static void waitFor(java.util.function.BooleanSupplier done) throws InterruptedException {
        for (int i = 0; i < 600 && !done.getAsBoolean(); i++) {
            Thread.sleep(50);
        }
    }

    @Test
    void dirtyPagesPastTheBoundAreDroppedOldestFirstAndCollectionGoesOn(@TempDir Path dir) throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withCacheBytes(BOUND).withFlushMaxAgeMillis(5)
                .withIo(io);
        try (StorageEngine e = StorageEngine.open(cfg)) {
            int[] ids = define(e, 10, 10);
            // a first hour reaches the disk and is queried: the clean caches fill
            write(e, ids, T0, T0 + 3600);
            e.flush();
            // (flush leaves no dirty page: the queries give the clean caches the whole bound)
            assertEquals(0, e.dirtyBytes());
            for (int m : ids) {
                e.queryTier0(m, T0, T0 + 3599, (t, v) -> { });
            }
            long cleanBefore = e.cache().pageBytes() + e.cache().extentBytes();
            assertTrue(cleanBefore > BOUND / 4, "clean caches filled: " + cleanBefore);

            // then the disk refuses every write of an extent: about 10x the bound of pages pile up
            FaultInjectingFileIo.Rule refuse = io.fail(Op.WRITE,
                    p -> p.getFileName().toString().endsWith(".ndf"), 0, Integer.MAX_VALUE);
            write(e, ids, T0 + 3600, T0 + 3600 * 6);
            waitFor(() -> e.pagesDropped() > 0 && e.dirtyBytes() <= BOUND);
            assertTrue(refuse.fired() > 0);
            assertTrue(e.pagesDropped() > 0, "pages dropped");
            assertTrue(e.pointsDropped() >= e.pagesDropped(), "points dropped");
            assertTrue(e.dirtyBytes() <= BOUND, "dirty bytes " + e.dirtyBytes() + " within the bound");
            // (the clean budget follows the dirty bytes in steps of 1/16 of the bound)
            waitFor(() -> e.cache().pageBytes() + e.cache().extentBytes() + e.dirtyBytes() <= BOUND + BOUND / 16);
            assertTrue(e.cache().pageBytes() + e.cache().extentBytes() + e.dirtyBytes() <= BOUND + BOUND / 16,
                    "clean caches evicted to what the dirty pages leave: " + (e.cache().pageBytes()
                            + e.cache().extentBytes()) + " of " + BOUND + " with " + e.dirtyBytes() + " dirty");

            // the disk comes back: the backlog drains, then everything stored is kept
            io.clear();
            waitFor(() -> e.pendingPages() == 0);
            long dropped = e.pagesDropped();
            long healed = T0 + 3600 * 6;
            write(e, ids, healed, healed + 600);
            e.flush();
            assertEquals(dropped, e.pagesDropped(), "nothing dropped once the disk keeps up");
            for (int m : ids) {
                long[] n = {0};
                e.queryTier0(m, healed, healed + 599, (t, v) -> {
                    assertEquals(sn(m, t), v, "metric " + m + " at " + t);
                    n[0]++;
                });
                assertEquals(600, n[0], "metric " + m + " after the disk came back");
                long[] first = {0};
                e.queryTier0(m, T0, T0 + 3599, (t, v) -> first[0]++);
                assertEquals(3600, first[0], "metric " + m + ": what reached the disk before is intact");
            }
            // the oldest pages were the ones dropped: the newest second before the disk came back is there
            long[] last = {0};
            e.queryTier0(ids[0], healed - 1, healed - 1, (t, v) -> last[0]++);
            assertEquals(1, last[0]);
        }
    }
}
