package io.strata.engine;

import io.strata.engine.io.FileChannelIo;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo.OpenMode;
import io.strata.engine.io.ForwardingFileHandle;
import io.strata.engine.io.ForwardingFileIo;
import io.strata.engine.page.StorageNumber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flusher whose write throws an unchecked exception (a bug, a mapping failure, an allocation
 * failure) or an Error goes on: the failed batch is kept and retried, the failure counted, and
 * every point reaches the disk.
 */
class FlusherSurvivesTest {

    static final long T0 = 1_700_000_000L;

    /** Datafile writes throw {@code failure} on the {@code nth} write (1-based), once. */
    static final class ThrowingIo extends ForwardingFileIo {
        final int nth;
        final RuntimeException runtime;
        final Error error;
        final AtomicInteger writes = new AtomicInteger();

        ThrowingIo(int nth, RuntimeException runtime, Error error) {
            super(FileChannelIo.INSTANCE);
            this.nth = nth;
            this.runtime = runtime;
            this.error = error;
        }

        @Override
        public FileHandle open(Path path, OpenMode mode) throws IOException {
            return new ForwardingFileHandle(delegate.open(path, mode)) {
                @Override
                public int write(ByteBuffer src, long position) throws IOException {
                    if (path.getFileName().toString().endsWith(".ndf") && position > 0
                            && writes.incrementAndGet() == nth) {
                        if (runtime != null) {
                            throw runtime;
                        }
                        throw error;
                    }
                    return delegate.write(src, position);
                }
            };
        }
    }

    @Test
    void aRuntimeExceptionInAWriteIsCountedAndTheBatchRetried(@TempDir Path dir) throws Exception {
        survives(dir, new ThrowingIo(3, new IllegalStateException("injected bug in a write"), null));
    }

    @Test
    void anErrorInAWriteIsCountedAndTheBatchRetried(@TempDir Path dir) throws Exception {
        survives(dir, new ThrowingIo(2, null, new OutOfMemoryError("injected: Direct buffer memory")));
    }

    private static void survives(Path dir, ThrowingIo io) throws Exception {
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withFlushMaxAgeMillis(5).withIo(io);
        int[] ids;
        long end = T0 + 3 * 3600;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            e.flushTimeoutMillis = 15_000;
            ids = define(e, 4, 8);
            for (long t = T0; t < end; t++) {
                for (int m : ids) {
                    assertTrue(e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS));
                }
            }
            // The injected failure must happen in one of the flusher's own turns (pages aged past
            // 5 ms), not in the turn that answers flush(): a flush whose attempt fails rightly
            // throws. On a busy machine the flusher may not run before the collector is done, so
            // wait for the failure to be counted first.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (e.flusherFailures() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1, e.flusherFailures(), "the injected failure happened within 60 s");
            e.flush();
            assertTrue(io.writes.get() > io.nth, "the engine kept writing after the failure: " + io.writes.get());
            assertEquals(1, e.flusherFailures(), "the failure is counted");
            assertEquals(0, e.pendingPages());
            assertEquals(0, e.pagesDropped());
            for (int m : ids) {
                assertEquals(end - T0, count(e, m, T0, end - 1), "metric " + m);
            }
        }
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(1))) {
            for (int m : ids) {
                assertEquals(end - T0, count(e, m, T0, end - 1), "metric " + m + " after a restart");
            }
        }
    }

    static long count(StorageEngine e, int m, long from, long to) throws IOException {
        long[] n = {0};
        e.queryTier0(m, from, to, (t, v) -> {
            assertEquals(sn(m, t), v, "metric " + m + " at " + t);
            n[0]++;
        });
        return n[0];
    }
}
