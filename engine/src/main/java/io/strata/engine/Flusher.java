package io.strata.engine;

import io.strata.engine.extent.ExtentWriter;
import io.strata.engine.io.DiskFullException;
import io.strata.engine.page.DirtyPage;
import io.strata.engine.page.PageMemory;
import io.strata.engine.tier.TierStore;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.strata.engine.page.PageCodecTier0;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The flushing thread: takes sealed (dirty) pages from collectors without ever blocking them,
 * encodes the tier-0 pages that collectors hand over raw (so that page encoding runs on this
 * thread, not on the collectors'), groups pages by tier and chart into extents of up to 64
 * pages, and writes those through the tiers. Blocking disk I/O happens here and nowhere on a collecting or network thread.
 *
 * <p>Pages stay visible to readers (through {@link #dirtyPages}) until their extent is indexed.
 * The flusher also recycles the page memory that sealing threads retired, under the engine's
 * memory write lock, which readers hold while they copy hot pages. A failed write keeps the
 * pages in memory and is retried.
 */
final class Flusher implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(Flusher.class);
    private static final Comparator<DirtyPage> ORDER = Comparator.<DirtyPage>comparingInt(p -> p.tier)
            .thenComparingInt(p -> p.chartId).thenComparingInt(p -> p.metricId)
            .thenComparingLong(p -> p.startTime);

    /**
     * Sealed pages, handed over without a lock or a wake-up each: a blocking queue signalled the
     * parked flusher on every page that found it empty, a futex call (and on a virtual machine
     * an interrupt to the other CPU) of 5-15 us on the collecting thread per page sealed, which
     * profiles of 2 writers and 2 readers put at a fifth of the collectors' time. The flusher
     * wakes instead every {@link #IDLE_WAIT_NANOS}, or when {@link #WAKE_RAW_BYTES} of raw pages
     * are waiting, or for a flush or a stop.
     */
    private final ConcurrentLinkedQueue<DirtyPage> sealed = new ConcurrentLinkedQueue<>();
    /** The longest the flusher sleeps with nothing to do. */
    static final long IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** Raw pages waiting past this many bytes wake the flusher (a quarter of the collectors' bound). */
    static final long WAKE_RAW_BYTES = 1L << 20;
    private volatile Thread thread;
    /** Per tier, the dirty pages of each metric. */
    private final DirtyPageIndex[] dirtyByMetric;
    private final TierStore[] tiers;
    private final ReentrantReadWriteLock memoryLock;
    private final PageMemory[] memory;
    private final long maxAgeNanos;
    private final LongSupplier nanoClock;
    private final ExtentWriter writer = new ExtentWriter();
    private final List<DirtyPage> batch = new ArrayList<>();

    private final Object flushMonitor = new Object();
    private long flushRequested;
    private long flushCompleted;
    private IOException flushError;
    private volatile boolean running = true;
    private volatile long pagesFlushed;
    private volatile long unexpectedFailures;
    /** The wall clock in seconds: the "now" of the maximum-age rule (never the newest data time). */
    private volatile LongSupplier clockSeconds = EngineConfig::wallClockSeconds;
    private volatile IOException lastError;
    private static final long FAILURE_LOG_NANOS = 10_000_000_000L;
    /** Whether the last write failed, and when the run of failures began (the flusher's clock). */
    private boolean failing;
    private long failingSinceNanos;
    private long lastFailureLogNanos;
    private long failuresSinceLog;
    /** Estimated heap bytes of the dirty pages not yet written or dropped (sealed queue and batch). */
    private final AtomicLong dirtyBytes = new AtomicLong();
    /** The main cache's bound: above it, the oldest dirty pages are dropped (critical eviction). */
    private volatile long dirtyLimit = Long.MAX_VALUE;
    private volatile long pagesDropped;
    private volatile long pointsDropped;
    private long lastDropLogNanos;
    private long droppedSinceLog;
    /** Runs on every turn of the flusher: the engine re-sizes the clean caches around the dirty bytes. */
    private volatile Runnable pressureListener = () -> { };

    /** An action that may fail with an I/O error. */
    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }

    private final IoAction beforeExtents;

    /**
     * @param beforeExtents runs before each batch of extents is written: the metadata of the
     *                      metrics in them is made durable first, so that no durable point is
     *                      ever without its definition
     */
    Flusher(TierStore[] tiers, ReentrantReadWriteLock memoryLock, PageMemory[] memory, long maxAgeNanos,
            LongSupplier nanoClock, IoAction beforeExtents) {
        this.memory = memory;
        this.dirtyByMetric = new DirtyPageIndex[tiers.length];
        for (int t = 0; t < tiers.length; t++) {
            dirtyByMetric[t] = new DirtyPageIndex();
        }
        this.beforeExtents = beforeExtents;
        this.tiers = tiers;
        this.memoryLock = memoryLock;
        this.maxAgeNanos = maxAgeNanos;
        this.nanoClock = nanoClock;
    }

    /** Bytes a dirty page holds: its encoding (or raw points, until encoded) and the object around it. */
    static long cost(DirtyPage p) {
        return p.bytesHeld() + PAGE_OBJECT_BYTES;
    }

    /** The heap a dirty page holds besides its points. */
    static final long PAGE_OBJECT_BYTES = 112L;

    /** The flusher's scratch for encoding raw tier-0 pages. */
    private final int[] encodePoints = new int[DiskFormat.pagePoints(0)];
    private final byte[] encodeBytes = new byte[PageCodecTier0.maxEncodedLength(
            DiskFormat.pagePoints(0))];

    /**
     * Takes a page from the queue into the batch, encoding a raw tier-0 page first: the
     * collectors hand pages over raw so that encoding runs here, not on their threads.
     */
    private void take(DirtyPage p) {
        if (p.isRaw()) {
            long was = cost(p);
            p.encodeRaw(memory[p.tier], encodePoints, encodeBytes);
            dirtyBytes.addAndGet(cost(p) - was);
            queuedRawBytes.addAndGet(-was);
            queuedRawPages.decrementAndGet();
        }
        batch.add(p);
    }

    /**
     * Bytes of the raw pages still in the queue: counted in the dirty bytes (they hold their
     * blocks), but not against the bound, which is about the pages the flusher holds: a raw page
     * shrinks to its encoding (about 1/8) on this thread's next turn, and the pages it would
     * displace are already encoded.
     */
    private final AtomicLong queuedRawBytes = new AtomicLong();
    /** How many raw pages {@link #queuedRawBytes} are. */
    private final AtomicLong queuedRawPages = new AtomicLong();

    /** About how much smaller a tier-0 page's encoding is than its raw points. */
    static final int RAW_TO_ENCODED = 8;

    /**
     * The bytes the pages waiting for the disk hold once encoded: the encoded pages as they are,
     * and the raw pages still queued at an estimate of their encoding (their points over {@link
     * #RAW_TO_ENCODED}, plus the object around each). Not raw pages whole: a burst the flusher
     * encodes on its next turn is not a disk that does not keep up. Nor without them: a flusher
     * stuck in a write (a stalled disk) does not turn, raw pages are all that piles up meanwhile,
     * and the backlog would pass the bound only after {@link #RAW_BACKLOG_BYTES} of them.
     */
    long waitingBytes() {
        long raw = queuedRawBytes.get();
        long rawPages = Math.max(0, queuedRawPages.get());
        long points = Math.max(0, raw - rawPages * PAGE_OBJECT_BYTES);
        return Math.max(0, dirtyBytes.get() - raw) + points / RAW_TO_ENCODED + rawPages * PAGE_OBJECT_BYTES;
    }

    /**
     * Raw pages waiting beyond this many bytes are encoded by the collector that seals them: the
     * flusher is one thread, and when it does not get the CPU to encode everything (a machine
     * busy with other work, or a write that hangs) the collectors take encoding back rather than
     * let raw pages (8 times their encoding) pile up or the flusher bound the write rate. About a
     * tenth of a second of pages at 10 M points/s: scheduling jitter stays below it.
     */
    static final long RAW_BACKLOG_BYTES = 4L << 20;

    /** Scratch of collectors that encode their own pages (see {@link #RAW_BACKLOG_BYTES}). */
    private static final ThreadLocal<int[]> COLLECTOR_POINTS = ThreadLocal.withInitial(
            () -> new int[DiskFormat.pagePoints(0)]);
    private static final ThreadLocal<byte[]> COLLECTOR_BYTES = ThreadLocal.withInitial(
            () -> new byte[PageCodecTier0.maxEncodedLength(DiskFormat.pagePoints(0))]);

    /** Raw pages the collectors encoded themselves because the flusher was behind. */
    private final LongAdder encodedByCollectors = new LongAdder();

    long pagesEncodedByCollectors() {
        return encodedByCollectors.sum();
    }

    /** Called by collectors when a page is sealed; never blocks. */
    void accept(DirtyPage p) {
        if (p.isRaw() && queuedRawBytes.get() > RAW_BACKLOG_BYTES) {
            // before the page is published: readers and the flusher only ever see it encoded
            p.encodeRaw(memory[p.tier], COLLECTOR_POINTS.get(), COLLECTOR_BYTES.get());
            encodedByCollectors.increment();
        }
        long c = cost(p);
        long raw = 0;
        if (p.isRaw()) {
            queuedRawPages.incrementAndGet();
            raw = queuedRawBytes.addAndGet(c);
        }
        dirtyBytes.addAndGet(c);
        dirtyByMetric[p.tier].add(p);
        sealed.add(p);
        if (!backlogHigh && waitingBytes() > dirtyLimit) {
            // here too, not only on the flusher's turn: a flusher stuck in a write never turns
            signalBacklog();
        }
        if (raw > WAKE_RAW_BYTES && raw - c <= WAKE_RAW_BYTES) {
            // only the page that crosses the mark wakes the flusher
            wake();
        }
    }

    private void wake() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Dirty pages of a metric in a tier not yet on disk, or null. */
    DirtyPage[] dirtyPages(int tier, int metric) {
        return dirtyByMetric[tier].get(metric);
    }

    /** Estimated bytes of the dirty pages waiting (queued, batched or being written). */
    long dirtyBytes() {
        return dirtyBytes.get();
    }

    /** Sets the bound above which the oldest dirty pages are dropped. */
    void setDirtyLimit(long bytes) {
        dirtyLimit = bytes;
    }

    void setClockSeconds(LongSupplier clock) {
        clockSeconds = clock;
    }

    void setPressureListener(Runnable listener) {
        pressureListener = listener;
    }

    // ---- the disk backlog signal (back-pressure) -------------------------------------------

    /**
     * Pages waiting for the disk ({@link #waitingBytes()}: raw pages in the queue count at the
     * size they shrink to on the flusher's next turn) passed the bound and have not yet dropped under
     * {@link #BACKLOG_LOW_NUM}/{@link #BACKLOG_LOW_DEN} of it.
     */
    private volatile boolean backlogHigh;
    private final Object backlogLock = new Object();
    private volatile StorageEngine.DiskBacklogListener backlogListener;
    /** Whether dirty pages past the bound are kept (a parent, which pushes back) rather than dropped. */
    private volatile boolean keepDirtyPages;
    static final int BACKLOG_LOW_NUM = 3;
    static final int BACKLOG_LOW_DEN = 4;

    void setBacklogListener(StorageEngine.DiskBacklogListener l) {
        backlogListener = l;
    }

    void setKeepDirtyPages(boolean keep) {
        keepDirtyPages = keep;
    }

    boolean backlogHigh() {
        return backlogHigh;
    }

    /**
     * Flips the backlog state with hysteresis and tells the listener: high when the waiting pages
     * pass the bound, low again only under 3/4 of it, so that a parent pausing its receivers does
     * not resume and pause at every page. Called on each flusher turn and by collectors whose
     * page passes the bound.
     */
    void signalBacklog() {
        long bound = dirtyLimit;
        if (bound == Long.MAX_VALUE) {
            return;
        }
        boolean changed;
        boolean high;
        long waiting;
        synchronized (backlogLock) {
            waiting = waitingBytes();
            high = backlogHigh;
            if (!high && waiting > bound) {
                high = true;
            } else if (high && waiting < bound / BACKLOG_LOW_DEN * BACKLOG_LOW_NUM) {
                high = false;
            }
            changed = high != backlogHigh;
            backlogHigh = high;
        }
        if (changed) {
            StorageEngine.DiskBacklogListener l = backlogListener;
            if (high) {
                log.info("pages waiting for the disk passed the main cache's bound ({} > {} bytes){}", waiting, bound,
                        keepDirtyPages ? ": kept in memory, the receivers are asked to pause" : "");
            } else {
                log.info("pages waiting for the disk back under 3/4 of the bound ({} < {} bytes)", waiting, bound);
            }
            Runnable seam = beforeBacklogDelivery.getAndSet(null);
            if (seam != null) {
                seam.run();
            }
            if (l != null) {
                // Two threads that flip the state (a collector: high; the flusher: low) deliver
                // after leaving the lock above and could deliver in the other order, leaving a
                // parent paused while nothing waits for the disk, for good: nothing read, no page
                // sealed, no further transition. Each delivery tells the state as it is now, and
                // only when it differs from what the listener was told last.
                synchronized (deliveryLock) {
                    boolean now = backlogHigh;
                    if (now != delivered) {
                        delivered = now;
                        try {
                            l.diskBacklog(now, now == high ? waiting : waitingBytes(), bound);
                        } catch (RuntimeException e) {
                            log.warn("the disk backlog listener failed: {}", e.toString());
                        }
                    }
                }
            }
        }
    }

    /** Guards {@link #delivered}: the listener is called under it, one transition at a time. */
    private final Object deliveryLock = new Object();
    /** The state the listener was told last. */
    private boolean delivered;
    /** Runs once between a transition and its delivery (tests: another thread's transition in between). */
    final AtomicReference<Runnable> beforeBacklogDelivery = new AtomicReference<>();

    /** Dirty pages dropped since open because they passed the bound (the disk did not keep up). */
    long pagesDropped() {
        return pagesDropped;
    }

    long pointsDropped() {
        return pointsDropped;
    }

    int pendingPages() {
        return sealed.size() + batch.size();
    }

    /** Unexpected (unchecked) failures the flusher survived since open. */
    long unexpectedFailures() {
        return unexpectedFailures;
    }

    long pagesFlushed() {
        return pagesFlushed;
    }

    IOException lastError() {
        return lastError;
    }

    /** Waits until every page sealed before this call is on disk; throws the write error if one stopped it. */
    void flush(long timeoutMillis) throws IOException {
        long ticket;
        synchronized (flushMonitor) {
            ticket = ++flushRequested;
            // an error of an attempt before this call (a retry after an earlier flush gave up) is
            // not this call's answer: the next attempt's is
            flushError = null;
        }
        sealed.add(WAKE);
        wake();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        synchronized (flushMonitor) {
            while (flushCompleted < ticket) {
                if (flushError != null) {
                    IOException e = flushError;
                    flushError = null;
                    throw new IOException("flush failed: " + e.getMessage(), e);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IOException("flush did not complete within " + timeoutMillis + " ms");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(flushMonitor, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while flushing", e);
                }
            }
        }
    }

    /** A marker that wakes the thread; never written. */
    private static final DirtyPage WAKE = new DirtyPage(-1, -1, -1, 0, 0, 0, 1, 1, 0, new byte[0], 0);

    void stop() {
        running = false;
        sealed.add(WAKE);
        wake();
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            while (turn()) {
                // one turn after the other until stopped
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One turn: takes the sealed pages, writes what is due, sheds what passes the bound. Returns
     * false when the flusher stops. Survives anything thrown in a turn short of the JVM dying (an
     * I/O error, a bug, a mapping or allocation failure): the pages not written stay in the batch
     * and are retried, and the shedding goes on, so that memory stays bounded and a later flush
     * or close gets an answer instead of waiting for a dead thread.
     */
    private boolean turn() throws InterruptedException {
        long wanted;
        synchronized (flushMonitor) {
            wanted = flushRequested;
        }
        boolean force = wanted > flushCompleted || !running;
        try {
            recycle();
            DirtyPage p = sealed.poll();
            if (p == null && !force) {
                // a flush or a stop between the check above and here has queued a WAKE and
                // unparked this thread: the permit makes this park return at once
                LockSupport.parkNanos(this, IDLE_WAIT_NANOS);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                p = sealed.poll();
            }
            if (p != null && p != WAKE) {
                take(p);
            }
            drainQueue();
            // Pages past the bound are shed only after this turn's writes: a burst of pages sealed
            // between two turns (collectors hand pages over raw and fast) that the disk takes at
            // once is not a disk that does not keep up.
            if (!force && batch.size() < 64 && !aged()) {
                shedOverLimit();
                pressureListener.run();
                signalBacklog();
                return true;
            }
            writeBatch(force || aged());
            shedOverLimit();
            pressureListener.run();
            signalBacklog();
            if (failing) {
                reportRecovery();
            }
            if (force && batch.isEmpty() && sealed.isEmpty()) {
                synchronized (flushMonitor) {
                    flushCompleted = wanted;
                    flushMonitor.notifyAll();
                }
                return running;
            }
            return true;
        } catch (IOException | RuntimeException | Error e) {
            IOException io;
            if (e instanceof IOException x) {
                io = x;
            } else {
                unexpectedFailures++;
                io = new IOException("unexpected flusher failure: " + e, e);
            }
            lastError = io;
            reportFailure(io, e instanceof IOException ? null : e);
            try {
                shedOverLimit();
                pressureListener.run();
                signalBacklog();
            } catch (RuntimeException | Error again) {
                // reported with the failure above (or the next one); the bound is tried next turn
            }
            if (force) {
                synchronized (flushMonitor) {
                    flushError = io;
                    flushMonitor.notifyAll();
                }
                if (!running) {
                    return false;
                }
            }
            // a full disk frees up in minutes, not milliseconds: retry each second, not
            // rebuilding and compressing every extent ten times a second meanwhile
            Thread.sleep(DiskFullException.isDiskFull(io) ? 1_000 : 100);
            return true;
        }
    }

    /**
     * Logs a failed write: the first at once, then while the failure lasts one message every 10 s
     * (the retries run every 100 ms, or every second on a full disk, and each would log).
     */
    private void reportFailure(IOException e, Throwable unexpected) {
        long now = nanoClock.getAsLong();
        failuresSinceLog++;
        if (!failing) {
            failing = true;
            failingSinceNanos = now;
            lastFailureLogNanos = now;
            failuresSinceLog = 0;
            String what = DiskFullException.isDiskFull(e) ? e.getMessage() : "flush failed: " + e.getMessage();
            String rest = "{} page(s) kept in memory, within the main cache's bound, and retried every {}; collection "
                    + "goes on";
            if (unexpected != null) {
                // not a disk error: a bug or a resource exhausted; the stack says where
                log.error(what + "; " + rest, batch.size(), "100 ms", unexpected);
            } else {
                log.error(what + "; " + rest, batch.size(), DiskFullException.isDiskFull(e) ? "second" : "100 ms");
            }
        } else if (now - lastFailureLogNanos >= FAILURE_LOG_NANOS) {
            log.error("{} (still, for {} s; {} failed retries since the last message); {} page(s) kept in memory",
                    DiskFullException.isDiskFull(e) ? e.getMessage() : "flush failed: " + e.getMessage(),
                    (now - failingSinceNanos) / 1_000_000_000L, failuresSinceLog, batch.size());
            lastFailureLogNanos = now;
            failuresSinceLog = 0;
        }
    }

    /** The first write that succeeds after failures says so: the operator's fix worked. */
    private void reportRecovery() {
        IOException last = lastError;
        log.info("writes succeed again after {} s of {}; the pages kept in memory are written", (nanoClock.getAsLong()
                - failingSinceNanos) / 1_000_000_000L, last instanceof DiskFullException full
                ? "disk full in " + full.directory() : "write failures");
        failing = false;
        failuresSinceLog = 0;
    }

    /** Returns the blocks of sealed hot pages to the pool, waiting until no reader copies page memory. */
    private void recycle() {
        memoryLock.writeLock().lock();
        recycleHeld();
    }

    /**
     * {@link #recycle} if no reader copies page memory at this instant; never waits (for a
     * collector, see {@code StorageEngine.RECYCLE_RETIRED_ABOVE}). Returns whether it recycled.
     */
    boolean tryRecycle() {
        if (!memoryLock.writeLock().tryLock()) {
            return false;
        }
        recycleHeld();
        return true;
    }

    /** Recycles with the memory write lock held, and releases it. */
    private void recycleHeld() {
        try {
            for (PageMemory m : memory) {
                m.recycleRetired(256);
            }
        } finally {
            memoryLock.writeLock().unlock();
        }
    }

    private void drainQueue() {
        DirtyPage p;
        while ((p = sealed.poll()) != null) {
            if (p != WAKE) {
                take(p);
            }
        }
    }

    private boolean aged() {
        if (batch.isEmpty()) {
            return false;
        }
        long now = nanoClock.getAsLong();
        for (DirtyPage p : batch) {
            if (now - p.sealedNanos >= maxAgeNanos) {
                return true;
            }
        }
        return false;
    }

    /** Writes full extents; with {@code all}, the remainder too. Written pages leave the batch. */
    private void writeBatch(boolean all) throws IOException {
        if (batch.isEmpty()) {
            return;
        }
        beforeExtents.run();
        batch.sort(ORDER);
        List<DirtyPage> kept = new ArrayList<>();
        int n = batch.size();
        int i = 0;
        try {
            while (i < n) {
                int tier = batch.get(i).tier;
                int end = i;
                while (end < n && end - i < DiskFormat.EXTENT_MAX_PAGES && batch.get(end).tier == tier) {
                    end++;
                }
                if (end - i < DiskFormat.EXTENT_MAX_PAGES && !all) {
                    // Not a full extent yet: wait for more pages of this tier, or for age.
                    kept.addAll(batch.subList(i, end));
                    i = end;
                    continue;
                }
                try {
                    tiers[tier].write(writer, batch, i, end);
                } catch (IOException e) {
                    throw DiskFullException.naming(tiers[tier].dir(), e);
                }
                release(i, end);
                i = end;
            }
        } finally {
            kept.addAll(batch.subList(i, n));
            batch.clear();
            batch.addAll(kept);
        }
        // Age against the clock, not against the newest point written: one point stamped years
        // ahead (a child's bad clock, a replayed history) would otherwise expire every datafile.
        long now = clockSeconds.getAsLong();
        for (TierStore t : tiers) {
            t.enforceRetention(now);
        }
    }

    /**
     * Critical eviction of dirty pages: when the pages waiting for the disk pass the main cache's
     * bound (the disk is slower than collection, or failing), the oldest are dropped until they
     * fit again, so that memory stays bounded and collection never waits for the disk. Their
     * points are lost; counted, and logged at most every 10 s.
     */
    private void shedOverLimit() {
        if (keepDirtyPages) {
            return;
        }
        long limit = dirtyLimit;
        if (dirtyBytes.get() - queuedRawBytes.get() <= limit || batch.isEmpty()) {
            return;
        }
        batch.sort(Comparator.comparingLong(p -> p.sealedNanos));
        int drop = 0;
        long bytes = dirtyBytes.get() - queuedRawBytes.get();
        long points = 0;
        while (drop < batch.size() && bytes > limit) {
            DirtyPage p = batch.get(drop);
            bytes -= cost(p);
            points += p.entries;
            drop++;
        }
        DirtyPage oldest = batch.get(0);
        DirtyPage newest = batch.get(drop - 1);
        forget(0, drop);
        batch.subList(0, drop).clear();
        boolean first = pagesDropped == 0;
        pagesDropped += drop;
        pointsDropped += points;
        droppedSinceLog += drop;
        long now = nanoClock.getAsLong();
        if (first || now - lastDropLogNanos >= 10_000_000_000L) {
            log.warn("the disk does not keep up with collection{}: dropped {} dirty page(s) ({} since the last "
                    + "message, {} in all, {} points), sealed from {} to {} s ago, to keep dirty pages within the "
                    + "main cache's bound of {} bytes; collection goes on", lastError != null
                    ? " (last write error: " + lastError.getMessage() + ")" : "", drop, droppedSinceLog, pagesDropped,
                    pointsDropped, (now - oldest.sealedNanos) / 1_000_000_000L, (now - newest.sealedNanos) / 1_000_000_000L,
                    limit);
            lastDropLogNanos = now;
            droppedSinceLog = 0;
        }
    }

    private void release(int from, int to) {
        forget(from, to);
        pagesFlushed += to - from;
    }

    /** Removes {@code batch[from, to)} from the pages readers see and from the dirty bytes. */
    private void forget(int from, int to) {
        for (int k = from; k < to; k++) {
            DirtyPage p = batch.get(k);
            dirtyBytes.addAndGet(-cost(p));
            dirtyByMetric[p.tier].remove(p);
        }
    }

    /** Drops the pages that could not be written (close after a failure); returns how many. */
    int discardUnwritten() {
        DirtyPage p;
        while ((p = sealed.poll()) != null) {
            if (p != WAKE) {
                p.releaseRaw(memory[p.tier]);
                batch.add(p);
            }
        }
        int n = batch.size();
        batch.clear();
        for (var m : dirtyByMetric) {
            m.clear();
        }
        dirtyBytes.set(0);
        queuedRawBytes.set(0);
        queuedRawPages.set(0);
        return n;
    }
}
