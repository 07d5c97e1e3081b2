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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.strata.engine.EngineTestSupport.define;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The signal a parent needs for back-pressure: when the pages waiting for a stalled disk pass the
 * main cache's bound the engine says so once, and once again when they are back under 3/4 of it.
 * A parent's engine ({@code KEEP}) then drops nothing; a child's ({@code DROP_OLDEST}) drops its
 * oldest pages and counts them.
 */
class DiskBacklogSignalTest {

    static final long T0 = 1_700_000_000L;
    static final long BOUND = 1L << 20;

    /** Datafile writes fail while {@link #stalled} (a disk that takes nothing). */
    static final class StalledDiskIo extends ForwardingFileIo {
        volatile boolean stalled;

        StalledDiskIo() {
            super(FileChannelIo.INSTANCE);
        }

        @Override
        public FileHandle open(Path path, OpenMode mode) throws IOException {
            return new ForwardingFileHandle(delegate.open(path, mode)) {
                @Override
                public int write(ByteBuffer src, long position) throws IOException {
                    if (stalled && path.getFileName().toString().endsWith(".ndf") && position > 0) {
                        throw new IOException("injected: the disk does not answer");
                    }
                    return delegate.write(src, position);
                }
            };
        }
    }

    record Event(boolean high, long waiting, long bound) {
    }

    /** Datafile writes hang (do not return) while {@link #gate} is closed: a disk that stalls. */
    static final class HangingDiskIo extends ForwardingFileIo {
        final CountDownLatch gate = new CountDownLatch(1);
        volatile boolean stalled;
        volatile boolean hanging;

        HangingDiskIo() {
            super(FileChannelIo.INSTANCE);
        }

        @Override
        public FileHandle open(Path path, OpenMode mode) throws IOException {
            return new ForwardingFileHandle(delegate.open(path, mode)) {
                @Override
                public int write(ByteBuffer src, long position) throws IOException {
                    if (stalled && path.getFileName().toString().endsWith(".ndf") && position > 0) {
                        hanging = true;
                        try {
                            // bounded: the test opens the gate long before
                            gate.await(120, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IOException("interrupted", e);
                        }
                    }
                    return delegate.write(src, position);
                }
            };
        }
    }

    /**
     * A flusher stuck in a write does not turn, so the pages sealed meanwhile stay raw in its queue:
     * they count (at the size they will be encoded to), and the parent is told to pause long before
     * {@link Flusher#RAW_BACKLOG_BYTES} of them pile up beyond the bound.
     */
    @Test
    void aFlusherStuckInAWriteStillSignalsTheBacklog(@TempDir Path dir) throws Exception {
        HangingDiskIo io = new HangingDiskIo();
        List<Event> events = new CopyOnWriteArrayList<>();
        long bound = 256L << 10;
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withFlushMaxAgeMillis(5).withCacheBytes(bound)
                .withIo(io).withClockSeconds(() -> T0);
        try (StorageEngine e = StorageEngine.open(cfg)) {
            e.setDirtyPagePolicy(StorageEngine.DirtyPagePolicy.KEEP);
            e.setDiskBacklogListener((high, waiting, b) -> events.add(new Event(high, waiting, b)));
            int[] ids = define(e, 10, 10);
            io.stalled = true;
            long t = T0;
            try {
                // until the flusher is in a write that does not return
                for (; t < T0 + 20_000 && !io.hanging; t++) {
                    for (int m : ids) {
                        e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                    }
                    if ((t - T0) % 1024 == 1023) {
                        waitFor(() -> io.hanging || e.pendingPages() == 0, "the flusher takes the pages");
                    }
                }
                assertTrue(io.hanging, "the flusher never wrote a datafile");
                // raw pages pile up behind it (bounded: twice RAW_BACKLOG_BYTES and the bound)
                long limit = 2 * (Flusher.RAW_BACKLOG_BYTES + bound);
                for (long end = t + 200_000; t < end && !e.diskBacklogHigh() && e.dirtyBytes() < limit; t++) {
                    for (int m : ids) {
                        e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                    }
                }
                assertTrue(e.diskBacklogHigh(), "no pause while " + e.dirtyBytes() + " bytes of pages wait for a"
                        + " stalled disk (bound " + bound + ")");
                assertTrue(e.dirtyBytes() < Flusher.RAW_BACKLOG_BYTES, "the pause came only after "
                        + e.dirtyBytes() + " bytes of pages waited (bound " + bound + ")");
                assertTrue(events.get(0).high() && events.get(0).waiting() > bound, events.toString());
            } finally {
                io.stalled = false;
                io.gate.countDown();
            }
            e.flush();
            waitFor(() -> !e.diskBacklogHigh(), "the backlog drops under 3/4 of the bound");
            assertEquals(0, e.pagesDropped());
        }
    }

    @Test
    void aParentKeepsEveryPageAndIsToldWhenToPauseAndResume(@TempDir Path dir) throws Exception {
        List<Event> events = run(dir, StorageEngine.DirtyPagePolicy.KEEP, true);
        assertEquals(2, events.size(), "one pause, one resume: " + events);
        assertTrue(events.get(0).high() && events.get(0).waiting() > BOUND, events.toString());
        assertFalse(events.get(1).high(), events.toString());
        assertTrue(events.get(1).waiting() < BOUND * 3 / 4, events.toString());
    }

    @Test
    void aChildDropsItsOldestPagesAndCountsThem(@TempDir Path dir) throws Exception {
        List<Event> events = run(dir, StorageEngine.DirtyPagePolicy.DROP_OLDEST, false);
        assertTrue(events.size() >= 1 && events.get(0).high(), events.toString());
        assertFalse(events.get(events.size() - 1).high(), "back under the bound in the end: " + events);
    }

    /**
     * A collector's transition to high and the flusher's back to low right after it, delivered in
     * the other order (the collector is preempted between its transition and its call): the
     * listener must end told the truth, not "pause" while nothing waits for the disk, which would
     * stop a parent reading from its children for good (nothing read, no page sealed, no further
     * transition).
     */
    @Test
    void transitionsThatRaceAreDeliveredAsTheStateIsNow(@TempDir Path dir) throws Exception {
        HangingDiskIo io = new HangingDiskIo();
        List<Event> events = new CopyOnWriteArrayList<>();
        long bound = 256L << 10;
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withFlushMaxAgeMillis(5).withCacheBytes(bound)
                .withIo(io).withClockSeconds(() -> T0);
        try (StorageEngine e = StorageEngine.open(cfg)) {
            e.setDirtyPagePolicy(StorageEngine.DirtyPagePolicy.KEEP);
            e.setDiskBacklogListener((high, waiting, b) -> events.add(new Event(high, waiting, b)));
            int[] ids = define(e, 10, 10);
            boolean[] lowSeen = {false};
            // between the collector's transition to high and its call: the disk comes back and
            // the flusher writes everything, going back under 3/4 of the bound on its own thread
            e.flusher().beforeBacklogDelivery.set(() -> {
                io.stalled = false;
                io.gate.countDown();
                try {
                    waitFor(() -> !e.diskBacklogHigh(), "the flusher's transition back under the bound");
                    lowSeen[0] = true;
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                }
            });
            io.stalled = true;
            long t = T0;
            try {
                long limit = 2 * (Flusher.RAW_BACKLOG_BYTES + bound);
                for (long end = T0 + 200_000; t < end && e.flusher().beforeBacklogDelivery.get() != null
                        && e.dirtyBytes() < limit; t++) {
                    for (int m : ids) {
                        e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                    }
                }
            } finally {
                io.stalled = false;
                io.gate.countDown();
            }
            assertTrue(lowSeen[0], "the transitions did not race as the test means: " + events);
            // the stores of the loop's last second may pass the bound again on a loaded machine
            // before the flusher, writing freely now, takes them: the state settles under it
            waitFor(() -> !e.diskBacklogHigh(), "the backlog under the bound with the disk back");
            waitFor(() -> events.isEmpty() || !events.get(events.size() - 1).high(),
                    "the listener told to read again while nothing waits for the disk: " + events);
            e.flush();
        }
    }

    private static List<Event> run(Path dir, StorageEngine.DirtyPagePolicy policy, boolean keeps) throws Exception {
        StalledDiskIo io = new StalledDiskIo();
        List<Event> events = new CopyOnWriteArrayList<>();
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1).withFlushMaxAgeMillis(5).withCacheBytes(BOUND)
                .withIo(io).withClockSeconds(() -> T0);
        int[] ids;
        long t = T0;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            e.setDirtyPagePolicy(policy);
            e.setDiskBacklogListener((high, waiting, bound) -> events.add(new Event(high, waiting, bound)));
            ids = define(e, 10, 10);
            io.stalled = true;
            // store until the backlog passes the bound (bounded: 3 MiB of pages at most)
            for (; t < T0 + 40_000 && !e.diskBacklogHigh(); t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            assertTrue(e.diskBacklogHigh(), "the backlog passed the bound by " + t);
            // as much again while the disk stays stalled
            long more = t + (t - T0);
            for (; t < more; t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            waitFor(() -> e.pendingPages() > 0 && (keeps || e.pagesDropped() > 0), "pages waiting or dropped");
            if (keeps) {
                assertEquals(0, e.pagesDropped(), "a parent drops nothing");
                assertTrue(e.dirtyBytes() > BOUND, "kept past the bound: " + e.dirtyBytes());
                assertTrue(e.diskBacklogHigh());
            } else {
                assertTrue(e.pagesDropped() > 0, "a child drops its oldest pages");
            }
            io.stalled = false;
            e.flush();
            waitFor(() -> !e.diskBacklogHigh(), "the backlog drops under 3/4 of the bound");
        }
        if (keeps) {
            try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(1).withClockSeconds(() -> T0))) {
                for (int m : ids) {
                    long[] n = {0};
                    e.queryTier0(m, T0, t - 1, (time, v) -> n[0]++);
                    assertEquals(t - T0, n[0], "every point of metric " + m + " reached the disk");
                }
            }
        }
        return events;
    }

    static void waitFor(java.util.function.BooleanSupplier c, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!c.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "waited 60 s for: " + what);
            Thread.sleep(10);
        }
    }
}
