package io.strata.engine;

import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With the flusher behind, a metric has many dirty pages, and a query reads only those its range
 * reaches: a short range decodes one page, not every dirty page after it. Random ranges over disk,
 * dirty and hot pages give exactly the stored points, through both the tier-0 and the aggregating
 * query path, with the flusher held and again once everything is on disk.
 */
class DirtyPagesInRangeQueryTest {

    private static final long T0 = 1_700_000_000L;
    private static final long SECONDS = 12_000;
    /** The first second that waits in a dirty page (past the flush and the page sealed with it). */
    private static final long DIRTY_FROM = T0 + 3_000;

    @Test
    void shortQueriesReadOnlyTheDirtyPagesTheirRangeReaches(@TempDir Path dir) throws Exception {
        WriteGatedIo io = new WriteGatedIo();
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withFlushMaxAgeMillis(1).withIo(io);
        StorageEngine e = StorageEngine.open(cfg);
        try {
            int[] ids = define(e, 2, 4);
            store(e, ids, T0, T0 + 1_500);
            e.flush();
            io.close();
            store(e, ids, T0 + 1_500, T0 + 2_600);
            assertTrue(io.held.await(60, TimeUnit.SECONDS), "the flusher reached a write");
            int pendingBefore = e.pendingPages();
            store(e, ids, T0 + 2_600, T0 + SECONDS);
            int dirtyPerMetric = (e.pendingPages() - pendingBefore) / ids.length;
            assertTrue(dirtyPerMetric >= 4, "dirty pages per metric while the flusher is held: " + dirtyPerMetric);

            // one second in the first dirty pages: one dirty page holds it (pages of a metric do
            // not overlap), the later ones are not read
            for (int m : ids) {
                for (long t = DIRTY_FROM; t < DIRTY_FROM + 50; t += 7) {
                    long readBefore = e.dirtyPagesReadByQueries();
                    long[] got = {0};
                    long tm = t;
                    assertEquals(1, e.queryTier0(m, t, t, (time, v) -> {
                        assertEquals(tm, time);
                        assertEquals(sn(m, tm), v, "metric " + m + " at " + tm);
                        got[0]++;
                    }));
                    assertTrue(e.dirtyPagesReadByQueries() - readBefore <= 1,
                            "dirty pages read for one second of metric " + m + " at " + t + ": "
                                    + (e.dirtyPagesReadByQueries() - readBefore) + " of " + dirtyPerMetric);
                }
            }
            // a range on disk only reads no dirty page
            long readBefore = e.dirtyPagesReadByQueries();
            assertEquals(1_000, e.queryTier0(ids[0], T0 + 100, T0 + 1_099, (time, v) -> { }));
            assertEquals(readBefore, e.dirtyPagesReadByQueries(), "dirty pages read for a range on disk");

            randomQueries(e, ids, 400, 11);
            io.open();
            e.flush();
            assertEquals(0, e.pendingPages());
            randomQueries(e, ids, 200, 12);
        } finally {
            // a failed assertion must not leave the flusher held: close waits for it
            io.open();
            e.close();
        }
    }

    /** Random ranges of 0–3 599 s starting anywhere (before the first point too): every stored point, once. */
    private static void randomQueries(StorageEngine e, int[] ids, int queries, long seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        for (int q = 0; q < queries; q++) {
            int m = ids[r.nextInt(ids.length)];
            long after = T0 - 20 + r.nextLong(SECONDS + 40);
            long before = after + r.nextInt(3_600);
            long lo = Math.max(after, T0);
            long hi = Math.min(before, T0 + SECONDS - 1);
            long[] next = {lo};
            long n = e.queryTier0(m, after, before, (t, v) -> {
                assertEquals(next[0], t, "metric " + m + " [" + after + ", " + before + "]: the next point");
                assertEquals(sn(m, t), v, "metric " + m + " at " + t);
                next[0] = t + 1;
            });
            assertEquals(Math.max(0, hi - lo + 1), n, "metric " + m + " [" + after + ", " + before + "]");
            // the aggregating path over (after, before] at full resolution
            long[] expected = {after + 1};
            e.query(m, 1, after, before, (int) (before - after), (t, sum, min, max, count, anomalies) -> {
                assertEquals(expected[0], t, "metric " + m + " (" + after + ", " + before + "]: the next point");
                if (t < T0 || t >= T0 + SECONDS) {
                    assertEquals(0, count, "metric " + m + " at " + t + ": nothing stored");
                } else {
                    assertEquals(1, count, "metric " + m + " at " + t);
                    assertEquals(StorageNumber.unpack(sn(m, t)), sum, "metric " + m + " at " + t);
                }
                expected[0] = t + 1;
            });
            assertEquals(before + 1, expected[0], "metric " + m + " (" + after + ", " + before + "]: every point");
        }
    }

    private static void store(StorageEngine e, int[] ids, long from, long to) {
        double[] row = new double[ids.length];
        for (long t = from; t < to; t++) {
            for (int i = 0; i < ids.length; i++) {
                row[i] = EngineTestSupport.value(ids[i], t);
            }
            assertEquals(ids.length, e.storeBatch(ids, 0, row, 0, ids.length, t, 1, StorageNumber.SN_DEFAULT_FLAGS));
        }
    }
}
