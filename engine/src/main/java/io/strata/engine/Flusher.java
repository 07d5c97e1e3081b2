package io.strata.engine;

import io.strata.engine.extent.ExtentWriter;
import io.strata.engine.page.DirtyPage;
import io.strata.engine.page.PageMemory;
import io.strata.engine.tier.TierStore;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flushing thread: takes sealed (dirty) pages from collectors without ever blocking them,
 * groups them by tier and chart into extents of up to 64 pages, and writes those through the
 * tiers. Blocking disk I/O happens here and nowhere on a collecting or network thread.
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

    private final LinkedBlockingQueue<DirtyPage> sealed = new LinkedBlockingQueue<>();
    /** Per tier, the dirty pages of each metric (boxing per page, never per point). */
    private final ConcurrentHashMap<Integer, DirtyPage[]>[] dirtyByMetric;
    private final TierStore[] tiers;
    private final ReentrantReadWriteLock memoryLock;
    private final PageMemory[] memory;
    private final long maxAgeNanos;
    private final java.util.function.LongSupplier nanoClock;
    private final ExtentWriter writer = new ExtentWriter();
    private final List<DirtyPage> batch = new ArrayList<>();

    private final Object flushMonitor = new Object();
    private long flushRequested;
    private long flushCompleted;
    private IOException flushError;
    private volatile boolean running = true;
    private volatile long pagesFlushed;
    /** The newest point time written to any tier: the "now" of the maximum-age rule. */
    private long newestWritten;
    private volatile IOException lastError;

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
    @SuppressWarnings("unchecked")
    Flusher(TierStore[] tiers, ReentrantReadWriteLock memoryLock, PageMemory[] memory, long maxAgeNanos,
            java.util.function.LongSupplier nanoClock, IoAction beforeExtents) {
        this.memory = memory;
        this.dirtyByMetric = new ConcurrentHashMap[tiers.length];
        for (int t = 0; t < tiers.length; t++) {
            dirtyByMetric[t] = new ConcurrentHashMap<>();
        }
        this.beforeExtents = beforeExtents;
        this.tiers = tiers;
        this.memoryLock = memoryLock;
        this.maxAgeNanos = maxAgeNanos;
        this.nanoClock = nanoClock;
    }

    /** Called by collectors when a page is sealed; never blocks. */
    void accept(DirtyPage p) {
        dirtyByMetric[p.tier].compute(p.metricId, (k, old) -> {
            if (old == null) {
                return new DirtyPage[]{p};
            }
            DirtyPage[] n = java.util.Arrays.copyOf(old, old.length + 1);
            n[old.length] = p;
            return n;
        });
        sealed.add(p);
    }

    /** Dirty pages of a metric in a tier not yet on disk, or null. */
    DirtyPage[] dirtyPages(int tier, int metric) {
        return dirtyByMetric[tier].get(metric);
    }

    int pendingPages() {
        return sealed.size() + batch.size();
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
        }
        sealed.add(WAKE);
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
    }

    @Override
    public void run() {
        while (true) {
            long wanted;
            synchronized (flushMonitor) {
                wanted = flushRequested;
            }
            boolean force = wanted > flushCompleted || !running;
            recycle();
            try {
                DirtyPage p = force ? sealed.poll() : sealed.poll(50, TimeUnit.MILLISECONDS);
                if (p != null && p != WAKE) {
                    batch.add(p);
                }
                drainQueue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (!force && batch.size() < 64 && !aged()) {
                continue;
            }
            try {
                writeBatch(force || aged());
                if (force && batch.isEmpty() && sealed.isEmpty()) {
                    synchronized (flushMonitor) {
                        flushCompleted = wanted;
                        flushMonitor.notifyAll();
                    }
                    if (!running) {
                        return;
                    }
                }
            } catch (IOException e) {
                lastError = e;
                log.error("flush failed, {} page(s) kept in memory and retried: {}", batch.size(), e.getMessage());
                if (force) {
                    synchronized (flushMonitor) {
                        flushError = e;
                        flushMonitor.notifyAll();
                    }
                    if (!running) {
                        return;
                    }
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Returns the blocks of sealed hot pages to the pool, while no reader copies page memory. */
    private void recycle() {
        memoryLock.writeLock().lock();
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
                batch.add(p);
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
                tiers[tier].write(writer, batch, i, end);
                for (int k = i; k < end; k++) {
                    newestWritten = Math.max(newestWritten, batch.get(k).endTime());
                }
                release(i, end);
                i = end;
            }
        } finally {
            kept.addAll(batch.subList(i, n));
            batch.clear();
            batch.addAll(kept);
        }
        for (TierStore t : tiers) {
            t.enforceRetention(newestWritten);
        }
    }

    private void release(int from, int to) {
        for (int k = from; k < to; k++) {
            DirtyPage p = batch.get(k);
            dirtyByMetric[p.tier].computeIfPresent(p.metricId, (m, old) -> {
                if (old.length == 1) {
                    return old[0] == p ? null : old;
                }
                DirtyPage[] out = new DirtyPage[old.length - 1];
                int j = 0;
                for (DirtyPage q : old) {
                    if (q != p && j < out.length) {
                        out[j++] = q;
                    }
                }
                return out;
            });
        }
        pagesFlushed += to - from;
    }

    /** Drops the pages that could not be written (close after a failure); returns how many. */
    int discardUnwritten() {
        drainQueue();
        int n = batch.size();
        batch.clear();
        for (var m : dirtyByMetric) {
            m.clear();
        }
        return n;
    }
}
