package io.strata.engine;

import io.strata.engine.page.StorageNumber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.strata.engine.EngineTestSupport.define;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Datafiles sized from the quota as DBENGINE does, and queries that search only the datafiles of their range. */
class DatafileSizingTest {

    static final long T0 = 1_700_000_000L;

    @Test
    void datafilesAreSizedFromTheQuota(@TempDir Path dir) {
        EngineConfig d = EngineConfig.defaults(dir);
        assertEquals(512L << 20, d.withQuota(0, 100L << 30).datafileMaxBytes(0), "100 GiB: 200 datafiles of 512 MiB");
        assertEquals((1L << 30) / 50, d.withQuota(0, 1L << 30).datafileMaxBytes(0), "1 GiB: 50 datafiles");
        assertEquals(4L << 20, d.withQuota(0, 100L << 20).datafileMaxBytes(0), "100 MiB: 4 MiB, the minimum");
        assertEquals(256L << 10, d.withQuota(0, 1L << 20).datafileMaxBytes(0), "a tiny quota: 4 datafiles");
        assertEquals(EngineConfig.NO_QUOTA_DATAFILE_BYTES, d.datafileMaxBytes(0), "no quota");
        // a configured size is a ceiling (tests, benchmarks)
        assertEquals(128L << 10, d.withQuota(0, 100L << 30).withDatafileMaxBytes(128 << 10).datafileMaxBytes(0));
        for (long q = 1L << 20; q <= 1L << 44; q *= 3) {
            long size = d.withQuota(0, q).datafileMaxBytes(0);
            assertTrue(size <= EngineConfig.MAX_DATAFILE_BYTES, "at most 512 MiB for " + q);
            assertTrue(q / size <= Math.max(50, q / EngineConfig.MAX_DATAFILE_BYTES) + 1, "files for " + q);
        }
    }

    @Test
    void aQuerySearchesOnlyTheDatafilesOfItsRange(@TempDir Path dir) throws Exception {
        long end = T0 + 12 * 3600;
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(1).withDatafileMaxBytes(64 << 10)
                .withClockSeconds(() -> end))) {
            int[] ids = define(e, 5, 10);
            for (long t = T0; t < end; t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
                if ((t - T0) % 1800 == 1799) {
                    e.flush(); // a flush writes chart after chart: datafiles follow time roughly
                }
            }
            e.flush();
            int files = e.tier(0).datafiles().size();
            assertTrue(files > 30, "many datafiles: " + files);
            long before = e.tier(0).indexesSearched();
            long[] n = {0};
            e.queryTier0(ids[7], end - 600, end - 1, (t, v) -> n[0]++);
            assertEquals(600, n[0]);
            long searched = e.tier(0).indexesSearched() - before;
            assertTrue(searched <= 4, "searched " + searched + " of " + files + " datafile indexes");
            // and the whole range still finds everything
            n[0] = 0;
            e.queryTier0(ids[7], T0, end - 1, (t, v) -> n[0]++);
            assertEquals(end - T0, n[0]);
        }
    }
}
