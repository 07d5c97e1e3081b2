package io.strata.engine;

import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static io.strata.engine.EngineTestSupport.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sealed tier-0 pages wait raw (not yet encoded) while the flusher is busy: here it is held
 * inside a write, so every page sealed meanwhile stays raw in its queue. Queries read those
 * pages' points exactly, once each, beside the hot pages and the pages on disk; once the flusher
 * goes on, it encodes and writes them and the same queries give the same answer.
 */
class RawDirtyPagesQueryTest {

    private static final long T0 = 1_700_000_000L;

    @Test
    void queriesReadRawDirtyPagesExactlyOnce(@TempDir Path dir) throws Exception {
        WriteGatedIo io = new WriteGatedIo();
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withFlushMaxAgeMillis(1).withIo(io);
        StorageEngine e = StorageEngine.open(cfg);
        try {
            int[] ids = define(e, 2, 5);
            long seconds = 5_000;
            // the first 1 500 s reach the disk
            store(e, ids, T0, T0 + 1_500);
            e.flush();
            long flushed = e.pagesFlushed();
            io.close();
            // past a whole page after the flush sealed every page: pages seal and the flusher writes
            long split = T0 + 2_600;
            store(e, ids, T0 + 1_500, split);
            assertTrue(io.held.await(30, TimeUnit.SECONDS), "the flusher reached a write");
            // the flusher is held: every page sealed from now on waits raw in its queue
            int pendingBefore = e.pendingPages();
            store(e, ids, split, T0 + seconds);
            assertTrue(e.pendingPages() >= pendingBefore + 2 * ids.length,
                    "pages sealed while the flusher is held: " + (e.pendingPages() - pendingBefore));
            assertEquals(flushed, e.pagesFlushed(), "nothing written meanwhile");
            checkAll(e, ids, seconds);
            releaseFlushAndCheck(e, io, ids, seconds);
        } finally {
            // a failed assertion must not leave the flusher held: close waits for it
            io.open();
            e.close();
        }
    }

    @Test
    void collectorsEncodeTheirPagesOnceTheFlusherIsFarBehind(@TempDir Path dir) throws Exception {
        WriteGatedIo io = new WriteGatedIo();
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withFlushMaxAgeMillis(1).withIo(io);
        StorageEngine e = StorageEngine.open(cfg);
        try {
            int[] ids = define(e, 30, 10);
            long seconds = 7_000;
            io.close();
            store(e, ids, T0, T0 + 1_100);
            assertTrue(io.held.await(30, TimeUnit.SECONDS), "the flusher reached a write");
            assertEquals(0, e.pagesEncodedByCollectors(), "a few raw pages wait for the flusher");
            // about 6 pages of 4 KiB per metric: past the raw backlog, the collector encodes
            store(e, ids, T0 + 1_100, T0 + seconds);
            long raw = Flusher.RAW_BACKLOG_BYTES / (4 * 1024);
            assertTrue(e.pendingPages() > raw, "pages waiting: " + e.pendingPages());
            assertTrue(e.pagesEncodedByCollectors() > 0 && e.pagesEncodedByCollectors() < e.pendingPages(),
                    "encoded by the collector: " + e.pagesEncodedByCollectors() + " of " + e.pendingPages());
            assertTrue(e.dirtyBytes() < Flusher.RAW_BACKLOG_BYTES + e.pendingPages() * 1_500L,
                    "raw pages bounded: " + e.dirtyBytes() + " bytes for " + e.pendingPages() + " pages");
            checkAll(e, ids, seconds);
            releaseFlushAndCheck(e, io, ids, seconds);
        } finally {
            io.open();
            e.close();
        }
    }

    /** Lets the flusher go, waits until every page is on disk, and checks every point again. */
    private static void releaseFlushAndCheck(StorageEngine e, WriteGatedIo io, int[] ids, long seconds) throws Exception {
        io.open();
        e.flush();
        assertEquals(0, e.pendingPages());
        checkAll(e, ids, seconds);
    }

    private static void store(StorageEngine e, int[] ids, long from, long to) {
        double[] row = new double[ids.length];
        for (long t = from; t < to; t++) {
            for (int i = 0; i < ids.length; i++) {
                row[i] = value(ids[i], t);
            }
            assertEquals(ids.length, e.storeBatch(ids, 0, row, 0, ids.length, t, 1, StorageNumber.SN_DEFAULT_FLAGS));
        }
    }

    /** Every point of every metric once, in order, with its value: none missing, none twice. */
    private static void checkAll(StorageEngine e, int[] ids, long seconds) throws IOException {
        for (int m : ids) {
            long[] next = {T0};
            long n = e.queryTier0(m, T0, T0 + seconds - 1, (t, v) -> {
                assertEquals(next[0], t, "metric " + m + ": the next point");
                assertEquals(sn(m, t), v, "metric " + m + " at " + t);
                next[0] = t + 1;
            });
            assertEquals(seconds, n, "metric " + m);
        }
    }
}
