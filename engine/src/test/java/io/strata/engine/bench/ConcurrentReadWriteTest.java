package io.strata.engine.bench;

import io.strata.engine.FsyncPolicy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Netdata's {@code -W stresstest} shape, small: writer threads store, reader threads query random
 * metrics and ranges at the same time, with 3 tiers, flushing and rotation under a small quota,
 * and every value a reader gets is checked against the generator that wrote it.
 */
class ConcurrentReadWriteTest {

    @Test
    void readersSeeExactlyWhatWritersStored(@TempDir Path dir) throws Exception {
        EngineBench.Result r = EngineBench.run(new EngineBench.Options(dir.resolve("db"), 2_000, 4_000,
                new RandomWalkDataset(7), 2, 10, FsyncPolicy.NEVER, 3, new long[]{2L << 20, 1L << 20}, 2, false));
        assertEquals(0, r.readErrors(), "values that differ from what was stored");
        assertTrue(r.queries() > 0, "the readers ran queries");
        assertTrue(r.queryPoints() > 0);
        assertEquals(2_000L * 4_000, r.points());
        assertTrue(r.datafilesDeleted() > 0, "rotation ran under the readers");
    }

    /**
     * Tier 0 alone, more writers than cores and three readers: tier-0 pages are sealed by the
     * thousand, handed to the flusher raw, encoded there (or by their collector when it is behind)
     * and written, while readers check that every second of their ranges comes once, with its
     * value (a point missing or read twice in the hand-over is a read error).
     */
    @Test
    void readersSeeEveryPointOnceWhilePagesMoveFromHotToRawToDisk(@TempDir Path dir) throws Exception {
        EngineBench.Result r = EngineBench.run(new EngineBench.Options(dir.resolve("db"), 3_000, 3_500,
                new RandomWalkDataset(11), 4, 10, FsyncPolicy.NEVER, 1, new long[]{256L << 20}, 3, false));
        assertEquals(0, r.readErrors(), "values missing, twice or different from what was stored");
        assertTrue(r.queries() > 0, "the readers ran queries");
        assertEquals(3_000L * 3_500, r.points());
        assertTrue(r.pagesFlushed() >= 3 * 3_000, "tier-0 pages sealed and written: " + r.pagesFlushed());
    }
}
