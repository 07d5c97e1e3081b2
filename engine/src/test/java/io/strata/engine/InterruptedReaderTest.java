package io.strata.engine;

import io.strata.engine.page.StorageNumber;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static io.strata.engine.EngineTestSupport.define;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread interrupted while it reads the engine (a stream sender stopped while it answers a
 * replication request from disk, an exporter stopped mid-query) must not break the engine for
 * everyone else. The JDK closes a {@code FileChannel} whose caller is interrupted inside it, or
 * enters it interrupted: the engine's files must stay readable by the other threads, and the
 * datafile being written (read through the same channel when reads are buffered) writable.
 */
class InterruptedReaderTest {

    static final long T0 = 1_700_000_000L;

    @ParameterizedTest(name = "direct reads: {0}")
    @ValueSource(booleans = {true, false})
    void anInterruptedQueryLeavesTheFilesReadableAndWritable(boolean direct, @TempDir Path dir) throws Exception {
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withDirectReads(direct);
        long end = T0 + 3 * 3600;
        int[] ids;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            ids = define(e, 2, 4);
            store(e, ids, T0, end);
            e.flush();
        }
        long later = end + 3600;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            // a fresh engine: nothing cached, the query reads the datafile
            Thread.currentThread().interrupt();
            try {
                FlusherSurvivesTest.count(e, ids[0], T0, end - 1);
            } catch (IOException expected) {
                // the interrupted reader may fail: it was interrupted
            } finally {
                Thread.interrupted();
            }
            for (int m : ids) {
                assertEquals(end - T0, FlusherSurvivesTest.count(e, m, T0, end - 1), "metric " + m + " after the interrupt");
            }
            assertEquals(0, e.readErrors(), "read errors after the interrupted reader");
            store(e, ids, end, later);
            e.flush();
        }
        try (StorageEngine e = StorageEngine.open(cfg)) {
            for (int m : ids) {
                assertEquals(later - T0, FlusherSurvivesTest.count(e, m, T0, later - 1), "metric " + m + " after a restart");
            }
        }
    }

    private static void store(StorageEngine e, int[] ids, long from, long to) {
        for (long t = from; t < to; t++) {
            for (int m : ids) {
                assertTrue(e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS));
            }
        }
    }
}
