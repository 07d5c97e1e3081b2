package io.strata.engine;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.strata.engine.io.DiskFullException;
import io.strata.engine.io.FileChannelIo;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.ForwardingFileHandle;
import io.strata.engine.io.ForwardingFileIo;
import io.strata.engine.io.FileIo.OpenMode;
import io.strata.engine.page.StorageNumber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A disk that fills while the engine runs: the datafile writes fail with the operating system's
 * ENOSPC text; the engine says "disk full" and names the tier's directory, once and then every
 * 10 s rather than at every retry; the pages stay in memory and readable; when space returns a
 * retry writes them and says so.
 */
class DiskFullTest {

    static final long T0 = 1_700_000_000L;

    /** Datafile writes fail as the kernel's ENOSPC does (FileChannel's IOException text) while {@link #full}. */
    static final class FillingDiskIo extends ForwardingFileIo {
        volatile boolean full;
        volatile int refused;

        FillingDiskIo() {
            super(FileChannelIo.INSTANCE);
        }

        @Override
        public FileHandle open(Path path, OpenMode mode) throws IOException {
            return new ForwardingFileHandle(delegate.open(path, mode)) {
                @Override
                public int write(ByteBuffer src, long position) throws IOException {
                    if (full && path.getFileName().toString().endsWith(".ndf")) {
                        refused++;
                        throw new IOException("No space left on device");
                    }
                    return delegate.write(src, position);
                }
            };
        }
    }

    static void write(StorageEngine e, int[] ids, long from, long to) {
        for (long t = from; t < to; t++) {
            for (int m : ids) {
                assertTrue(e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS));
            }
        }
    }

    /** The events of {@code level} so far; the flusher appends meanwhile (under the appender's lock). */
    static List<ILoggingEvent> events(ListAppender<ILoggingEvent> logged, Level level) {
        synchronized (logged) {
            return logged.list.stream().filter(ev -> ev.getLevel() == level).toList();
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

    @Test
    void aFullDiskIsNamedOncePagesStayReadableAndARetryWritesThemWhenSpaceReturns(@TempDir Path dir) throws Exception {
        FillingDiskIo io = new FillingDiskIo();
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withFlushMaxAgeMillis(5).withIo(io);
        Logger flusherLog = (Logger) LoggerFactory.getLogger(Flusher.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        flusherLog.addAppender(logged);
        int[] ids;
        long full = T0 + 1200;
        long healed = T0 + 3600;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            ids = define(e, 2, 5);
            write(e, ids, T0, full);
            e.flush();

            io.full = true;
            write(e, ids, full, healed);
            IOException failed = assertThrows(IOException.class, e::flush);
            DiskFullException diskFull = null;
            for (Throwable t = failed; t != null; t = t.getCause()) {
                if (t instanceof DiskFullException d) {
                    diskFull = d;
                }
            }
            assertNotNull(diskFull, "a DiskFullException in " + failed);
            assertEquals(e.tier(0).dir(), diskFull.directory());
            assertTrue(failed.getMessage().contains("disk full: cannot write to " + e.tier(0).dir()
                    + " (No space left on device)"), failed.getMessage());
            // retries go on (each second) without a message each: one ERROR for the first failure,
            // then one every 10 s while it lasts (a busy machine may take that long to get here)
            int refusedBefore = io.refused;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (io.refused < refusedBefore + 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(io.refused >= refusedBefore + 2, "retried while the disk is full");
            List<ILoggingEvent> errors = events(logged, Level.ERROR);
            String first = errors.get(0).getFormattedMessage();
            assertTrue(first.startsWith("disk full: cannot write to " + e.tier(0).dir()), first);
            for (int i = 1; i < errors.size(); i++) {
                String again = errors.get(i).getFormattedMessage();
                assertTrue(again.contains("(still, for "), "one ERROR for the first failure, then summaries: " + again);
                // the summaries come every 10 s (on the flusher's clock; the log's stamps are a
                // little apart from it, hence the margin), not with each retry
                assertTrue(errors.get(i).getTimeStamp() - errors.get(i - 1).getTimeStamp() >= 5_000,
                        "a summary " + (errors.get(i).getTimeStamp() - errors.get(i - 1).getTimeStamp())
                                + " ms after the message before it");
            }
            System.out.println("[DiskFullTest] " + first);

            // collection went on, and what the disk refused is still read from memory
            assertEquals(0, e.pagesDropped());
            for (int m : ids) {
                assertEquals(healed - full, count(e, m, full, healed - 1), "metric " + m + " while the disk is full");
            }

            io.full = false;
            write(e, ids, healed, healed + 60);
            e.flush();
            List<String> infos = events(logged, Level.INFO).stream().map(ILoggingEvent::getFormattedMessage)
                    .filter(s -> s.startsWith("writes succeed again")).toList();
            assertEquals(1, infos.size(), "one message when writes succeed again: " + infos);
            assertTrue(infos.get(0).contains("disk full in " + e.tier(0).dir()), infos.get(0));
            System.out.println("[DiskFullTest] " + infos.get(0));
            assertEquals(0, e.pendingPages());
        } finally {
            flusherLog.detachAppender(logged);
        }
        // on disk: everything, the stretch of the full disk included
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(1))) {
            for (int m : ids) {
                assertEquals(healed + 60 - T0, count(e, m, T0, healed + 59), "metric " + m + " after a restart");
            }
        }
    }
}
