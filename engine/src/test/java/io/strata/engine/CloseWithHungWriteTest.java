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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.strata.engine.EngineTestSupport.define;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Closing while a datafile write hangs: close returns with an error instead of discarding the
 * flusher's batch under it (or waiting on the write forever), and when the write returns the
 * flusher writes what it held: nothing is lost.
 */
class CloseWithHungWriteTest {

    static final long T0 = 1_700_000_000L;

    static final class HangingIo extends ForwardingFileIo {
        volatile boolean hang;
        final CountDownLatch hanging = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        HangingIo() {
            super(FileChannelIo.INSTANCE);
        }

        @Override
        public FileHandle open(Path path, OpenMode mode) throws IOException {
            return new ForwardingFileHandle(delegate.open(path, mode)) {
                @Override
                public int write(ByteBuffer src, long position) throws IOException {
                    if (hang && path.getFileName().toString().endsWith(".ndf") && position > 0) {
                        hanging.countDown();
                        try {
                            release.await(120, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return delegate.write(src, position);
                }
            };
        }
    }

    @Test
    void closeLeavesAHungFlusherItsPagesAndTheyReachTheDiskWhenTheWriteReturns(@TempDir Path dir) throws Exception {
        HangingIo io = new HangingIo();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        int[] ids;
        long end = T0 + 2 * 3600;
        try {
            StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(1).withFlushMaxAgeMillis(5)
                    .withIo(io).withClockSeconds(() -> T0));
            e.flushTimeoutMillis = 1_000;
            e.closeJoinMillis = 1_000;
            ids = define(e, 2, 5);
            io.hang = true;
            for (long t = T0; t < end; t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            Future<Throwable> closing = pool.submit(() -> {
                try {
                    e.close();
                    return null;
                } catch (IOException ex) {
                    return ex;
                }
            });
            assertTrue(io.hanging.await(60, TimeUnit.SECONDS), "a write hangs");
            Throwable closed;
            try {
                closed = closing.get(60, TimeUnit.SECONDS);
            } catch (TimeoutException ex) {
                io.release.countDown();
                fail("close waited on the hung write");
                return;
            }
            assertTrue(closed != null && closed.getMessage().startsWith("the flusher did not stop"), "" + closed);
            io.hang = false;
            io.release.countDown();
            // the flusher writes what it held, then stops
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (e.pendingPages() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(0, e.pendingPages(), "the flusher wrote its pages once the write returned");
            // and the rest of the close follows: page memory freed, files closed
            while (!e.released() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(e.released(), "the engine released its memory and files once the flusher stopped");
        } finally {
            io.release.countDown();
            pool.shutdownNow();
        }
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(1).withClockSeconds(() -> T0))) {
            for (int m : ids) {
                long[] n = {0};
                e.queryTier0(m, T0, end - 1, (t, v) -> n[0]++);
                assertEquals(end - T0, n[0], "metric " + m + " after the restart");
            }
        }
    }
}
