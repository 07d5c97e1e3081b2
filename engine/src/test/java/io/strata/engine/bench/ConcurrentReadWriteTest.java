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
}
