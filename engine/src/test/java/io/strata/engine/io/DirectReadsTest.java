package io.strata.engine.io;

import io.strata.engine.EngineConfig;
import io.strata.engine.EngineTestSupport;
import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.tier.TierStore;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reads with O_DIRECT: any offset and length, the end of the file, and the engine reading through them. */
class DirectReadsTest {

    static FileHandle openDirect(Path p) throws Exception {
        try {
            return FileChannelIo.INSTANCE.open(p, FileIo.OpenMode.READ_DIRECT);
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("O_DIRECT not supported on this file system: " + e.getMessage());
            return null;
        }
    }

    @Test
    void unalignedReadsReturnExactlyTheFileBytes(@TempDir Path dir) throws Exception {
        byte[] content = new byte[3 * 4096 + 1234];
        new Random(7).nextBytes(content);
        Path p = dir.resolve("f");
        Files.write(p, content);
        try (FileHandle h = openDirect(p)) {
            Random rnd = new Random(11);
            for (int i = 0; i < 500; i++) {
                int off = rnd.nextInt(content.length);
                int len = 1 + rnd.nextInt(Math.min(20_000, content.length - off));
                ByteBuffer b = ByteBuffer.allocate(len);
                h.readFully(b, off);
                byte[] want = java.util.Arrays.copyOfRange(content, off, off + len);
                assertArrayEquals(want, b.array(), "read of " + len + " at " + off);
            }
            // past the end: what is there, then nothing
            ByteBuffer tail = ByteBuffer.allocate(100);
            assertEquals(34, h.read(tail, content.length - 34));
            assertEquals(0, h.read(ByteBuffer.allocate(10), content.length));
            assertThrows(java.io.EOFException.class, () -> h.readFully(ByteBuffer.allocate(10), content.length - 5));
            assertThrows(java.io.IOException.class, () -> h.write(ByteBuffer.allocate(1), 0));
        }
    }

    @Test
    void anEngineWithDirectReadsAnswersQueriesAndScans(@TempDir Path dir) throws Exception {
        openDirect(Files.write(dir.resolve("probe"), new byte[1])).close();
        EngineConfig cfg = EngineConfig.defaults(dir.resolve("db")).withDirectReads(true).withFlushMaxAgeMillis(5);
        long t0 = 1_700_000_000L;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            int[] ids = define(e, 5, 5);
            for (long t = t0; t < t0 + 5000; t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            e.flush();
            e.tier(0).readLock().lock();
            try {
                for (TierStore.Datafile d : e.tier(0).datafiles()) {
                    assertTrue(d.file.directReads(), d.file.path() + " reads with O_DIRECT");
                }
            } finally {
                e.tier(0).readLock().unlock();
            }
            for (int m : ids) {
                long n = e.queryTier0(m, t0, t0 + 4999, (t, v) -> assertEquals(sn(m, t), v, "metric " + m + " at " + t));
                assertEquals(5000, n);
            }
            long[] points = {0};
            var stats = e.scanTier(0, (msb, lsb, start, step, entries, pts) -> points[0] += entries);
            assertEquals(0, stats.damagedExtents());
            assertEquals(stats.points(), points[0]);
            assertTrue(points[0] > 0);
        }
    }
}
