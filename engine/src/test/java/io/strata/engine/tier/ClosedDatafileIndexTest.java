package io.strata.engine.tier;

import io.strata.engine.EngineConfig;
import io.strata.engine.EngineTestSupport;
import io.strata.engine.StorageEngine;
import io.strata.engine.datafile.OpenPageIndex;
import io.strata.engine.journal.JournalV2;
import io.strata.engine.page.StorageNumber;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A datafile that is closed and has its journal v2 lets go of its in-memory page index and
 * metric table (they held 21 bytes a page and a few ints a metric for every datafile ever
 * written, so the heap grew with the data), and its pages are still found through the journal.
 */
class ClosedDatafileIndexTest {

    private static final long T0 = 1_700_000_000L;
    private static final int SECONDS = 6_000;

    @Test
    void closedDatafilesKeepOnlyTheirJournalV2(@TempDir Path dir) throws Exception {
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withDatafileMaxBytes(64 * 1024);
        try (StorageEngine e = StorageEngine.open(cfg)) {
            int[] ids = EngineTestSupport.define(e, 4, 5);
            for (long t = T0; t < T0 + SECONDS; t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            e.flush();
            List<TierStore.Datafile> files = e.tier(0).datafiles();
            assertTrue(files.size() >= 3, files.size() + " datafiles: the test needs several closed ones");
            for (int i = 0; i < files.size() - 1; i++) {
                TierStore.Datafile d = files.get(i);
                assertTrue(d.index() instanceof JournalV2, "datafile " + i + " is indexed by its journal v2");
                assertNull(d.open, "datafile " + i + ": the in-memory page index is let go");
                assertNull(d.metrics, "datafile " + i + ": the metric table of the writer is let go");
            }
            TierStore.Datafile current = files.get(files.size() - 1);
            assertTrue(current.open instanceof OpenPageIndex);
            assertSame(current.open, current.index(), "the datafile being written is indexed in memory");
            for (int m : ids) {
                long[] n = {0};
                e.queryTier0(m, T0, T0 + SECONDS, (t, v) -> n[0]++);
                assertEquals(SECONDS, n[0], "every point of metric " + m + " is found, most through journals v2");
            }
        }
    }
}
