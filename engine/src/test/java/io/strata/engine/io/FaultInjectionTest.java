package io.strata.engine.io;

import io.strata.engine.DiskFormat;
import io.strata.engine.EngineConfig;
import io.strata.engine.EngineTestSupport;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.engine.io.FaultInjectingFileIo.Op;
import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static io.strata.engine.io.FaultInjectingFileIo.named;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every kind of file call fails once; the engine answers and loses nothing it can keep. */
class FaultInjectionTest {

    static final long T0 = 1_700_000_000L;
    static final int SECONDS = 3000;

    static EngineConfig cfg(Path dir, FileIo io) {
        return EngineConfig.defaults(dir).withDatafileMaxBytes(128 * 1024).withFlushMaxAgeMillis(5)
                .withFsync(FsyncPolicy.PER_EXTENT).withIo(io);
    }

    static int[] write(StorageEngine e, long from, long to, int[] ids) {
        for (long t = from; t < to; t++) {
            for (int m : ids) {
                e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
            }
        }
        return ids;
    }

    static void assertAll(StorageEngine e, int[] ids, long from, long to) throws IOException {
        for (int m : ids) {
            long[] expect = {from};
            long n = e.queryTier0(m, from, to - 1, (t, v) -> {
                assertEquals(expect[0], t, "metric " + m + " continuous");
                assertEquals(sn(m, t), v, "metric " + m + " value at " + t);
                expect[0]++;
            });
            assertEquals(to - from, n, "metric " + m + " points");
        }
    }

    /** Runs a write workload with one rule armed, then disarms it, flushes, reopens and checks. */
    void survives(Path dir, java.util.function.Consumer<FaultInjectingFileIo> arm) throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        int[] ids;
        try (StorageEngine e = StorageEngine.open(cfg(dir, io))) {
            ids = define(e, 8, 6);
            write(e, T0, T0 + SECONDS / 2, ids);
            e.flush();
            arm.accept(io);
            write(e, T0 + SECONDS / 2, T0 + SECONDS, ids);
            try {
                e.flush();
            } catch (IOException expected) {
                // the failure is reported to whoever waits for the flush; pages stay in memory
            }
            io.clear();
            assertAll(e, ids, T0, T0 + SECONDS);
        }
        try (StorageEngine e = StorageEngine.open(cfg(dir, new FaultInjectingFileIo()))) {
            assertTrue(e.recoveryReport().lostRanges().isEmpty(), e.recoveryReport().findings()::toString);
            assertAll(e, ids, T0, T0 + SECONDS);
        }
    }

    @Test
    void failedDatafileWriteIsRetried(@TempDir Path dir) throws Exception {
        survives(dir, io -> io.fail(Op.WRITE, named("datafile-"), 0, 3));
    }

    @Test
    void shortDatafileWriteIsCutBackAndRetried(@TempDir Path dir) throws Exception {
        survives(dir, io -> io.shortWrite(named("datafile-"), 0, 2, 100));
    }

    @Test
    void failedDatafileFsyncIsRetried(@TempDir Path dir) throws Exception {
        survives(dir, io -> io.fail(Op.SYNC, named("datafile-"), 0, 2));
    }

    @Test
    void failedJournalWriteKeepsTheExtentAndRewritesTheJournal(@TempDir Path dir) throws Exception {
        survives(dir, io -> io.fail(Op.WRITE, named(DiskFormat.JOURNAL_V1_SUFFIX), 0, 1));
    }

    @Test
    void failedJournalV2RenameKeepsTheIndexInMemory(@TempDir Path dir) throws Exception {
        survives(dir, io -> io.fail(Op.RENAME, named(DiskFormat.JOURNAL_V2_SUFFIX), 0, 2));
    }

    @Test
    void failedMmapAtOpenRebuildsFromJournalV1(@TempDir Path dir) throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        int[] ids;
        try (StorageEngine e = StorageEngine.open(cfg(dir, io))) {
            ids = write(e, T0, T0 + SECONDS, define(e, 4, 4));
        }
        FaultInjectingFileIo.Rule r = io.fail(Op.MAP, named(DiskFormat.JOURNAL_V2_SUFFIX), 0, Integer.MAX_VALUE);
        try (StorageEngine e = StorageEngine.open(cfg(dir, io))) {
            assertTrue(r.fired() > 0);
            assertTrue(e.recoveryReport().lostRanges().isEmpty());
            assertAll(e, ids, T0, T0 + SECONDS);
        }
    }

    @Test
    void failedMetadataAppendKeepsTheDefinitionAndRewritesTheLog(@TempDir Path dir) throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        int[] ids;
        try (StorageEngine e = StorageEngine.open(cfg(dir, io))) {
            define(e, 1, 2);
            io.fail(Op.WRITE, named(DiskFormat.METADATA_FILE), 0, 1);
            ids = define(e, 3, 2);
            io.clear();
            assertEquals(6, e.metadata().dimensionCount(), "known in memory although the append failed");
            write(e, T0, T0 + 100, ids);
        }
        try (StorageEngine e = StorageEngine.open(cfg(dir, new FaultInjectingFileIo()))) {
            assertEquals(6, e.metadata().dimensionCount(), "persisted by the rewrite");
            assertTrue(e.recoveryReport().intact(), e.recoveryReport().findings()::toString);
            assertAll(e, ids, T0, T0 + 100);
        }
    }

    @Test
    void storeRefusesAnUpdateEveryOrTimeThatPagesCannotHold(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(cfg(dir, new FaultInjectingFileIo()))) {
            int m = define(e, 1, 1)[0];
            assertThrows(IllegalArgumentException.class, () -> e.store(m, T0, 0, 1.0, 0));
            assertThrows(IllegalArgumentException.class, () -> e.store(m, 1L << 32, 1, 1.0, 0));
            assertTrue(e.store(m, T0, 1, 1.0, 0));
        }
    }

    @Test
    void unusableDirectoryFailsTheStartWithItsName(@TempDir Path dir) {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        io.fail(Op.OPEN, named(DiskFormat.METADATA_FILE), 0, Integer.MAX_VALUE);
        IOException e = assertThrows(IOException.class, () -> StorageEngine.open(cfg(dir, io)));
        assertTrue(e.getMessage().contains(DiskFormat.METADATA_FILE), e.getMessage());
    }
}
