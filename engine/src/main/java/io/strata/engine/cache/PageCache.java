package io.strata.engine.cache;

import io.strata.engine.datafile.DataFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The clean part of DBENGINE's main cache (decoded pages that are on disk) and its extent cache
 * (compressed extents as read), each an LRU bounded in bytes. Hot and dirty pages live in the hot
 * tables and the flusher; together they make the main cache.
 *
 * <p>The extent cache is what makes "read whole extents" pay: the dimensions of a chart share
 * extents, so a query over a chart reads each extent from the disk once. Both maps are guarded
 * by their own monitor; a lookup is a few hundred nanoseconds per page of up to 1024 points.
 *
 * <p>Extents live off the Java heap, in buffers that are lent to a reader ({@link #acquireExtent})
 * until it gives them back ({@link #release}) and are used again for later extents once neither
 * the cache nor a reader holds them. Queries that miss read tens of KiB per extent: as fresh heap
 * arrays that garbage (over 100 MB/s with two reading threads) is what made the collector grow
 * the heap of a busy node to gigabytes. The extent bound counts the buffers kept for reuse as
 * well as the cached ones, at their full capacity.
 */
public final class PageCache {

    private record PageKey(DataFile file, long extentOffset, int slot) {
    }

    private record ExtentKey(DataFile file, long offset) {
    }

    /**
     * The bytes of one extent, lent to a reader by {@link #acquireExtent} until {@link #release}.
     * Its buffer goes back to the pool once neither the cache nor any reader holds it.
     */
    public static final class Extent {
        private final ByteBuffer buffer;
        private final int length;
        /** The cache (while the extent is in it) and each reader it is lent to; guarded by the extent map. */
        private int holders;

        private Extent(ByteBuffer buffer, int length) {
            this.buffer = buffer;
            this.length = length;
        }

        /** The extent's bytes, little-endian, from position 0 to its length (a view of its own). */
        public ByteBuffer bytes() {
            ByteBuffer b = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            b.position(0).limit(length);
            return b;
        }

        public int length() {
            return length;
        }

        /** Whether both extents are read into the same memory (one's buffer was reused for the other). */
        boolean sharesMemoryWith(Extent other) {
            return buffer == other.buffer;
        }

        /** Memory the extent holds: its buffer's capacity (a size class, not its length) and bookkeeping. */
        long footprint() {
            return buffer.capacity() + 96L;
        }
    }

    /** A decoded page: its points are {@code points[0..length)} of an array from {@link #pagePool}. */
    private record CachedPage(int[] points, int length) {
    }

    private final Lru<PageKey, CachedPage> pages;
    /** Free page arrays; guarded by {@link #pages}. */
    private final PageArrayPool pagePool = new PageArrayPool();
    private final Lru<ExtentKey, Extent> extents;
    /** Free extent buffers; guarded by {@link #extents}, like the holders of each extent. */
    private final ExtentBufferPool pool = new ExtentBufferPool();
    private final LongAdder pageHits = new LongAdder();
    private final LongAdder pageMisses = new LongAdder();
    private final LongAdder extentHits = new LongAdder();
    private final LongAdder extentMisses = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();

    /**
     * @param pageBudgetBytes   bound of the decoded clean pages
     * @param extentBudgetBytes bound of the compressed extents, cached or kept for reuse
     */
    public PageCache(long pageBudgetBytes, long extentBudgetBytes) {
        this.pages = new Lru<>(pageBudgetBytes, this::pageLeft);
        this.extents = new Lru<>(extentBudgetBytes, this::dropHolder);
    }

    /**
     * Copies the decoded points of a clean page into {@code dst} and returns how many there are,
     * or -1 when the page is not cached. A copy rather than the cached array itself, so that an
     * evicted page's array can hold the next page while a query still reads this one.
     */
    public int copyPage(DataFile file, long extentOffset, int slot, int[] dst) {
        PageKey k = new PageKey(file, extentOffset, slot);
        synchronized (pages) {
            CachedPage p = pages.get(k);
            if (p != null) {
                if (p.length() > dst.length) {
                    throw new IllegalArgumentException("a cached page of " + p.length() + " ints does not fit "
                            + dst.length);
                }
                System.arraycopy(p.points(), 0, dst, 0, p.length());
                pageHits.increment();
                return p.length();
            }
        }
        pageMisses.increment();
        return -1;
    }

    /** Whether a clean page is cached (counted as a lookup, like {@link #copyPage}). */
    public boolean containsPage(DataFile file, long extentOffset, int slot) {
        boolean in = pages.get(new PageKey(file, extentOffset, slot)) != null;
        if (in) {
            pageHits.increment();
        } else {
            pageMisses.increment();
        }
        return in;
    }

    /** Caches a copy of the decoded points {@code points[0..length)} of a clean page. */
    public void putPage(DataFile file, long extentOffset, int slot, int[] points, int length) {
        PageKey k = new PageKey(file, extentOffset, slot);
        long size = PageArrayPool.arrayBytes(PageArrayPool.classInts(length)) + 64;
        synchronized (pages) {
            if (size > pages.budget()) {
                return;
            }
            // Evict first: with the cache full, the page that leaves gives its array to this one
            // (evicting after the put would find no room to keep the array, and drop it).
            pages.makeRoom(size);
            int[] a = pagePool.take(length);
            System.arraycopy(points, 0, a, 0, length);
            pages.put(k, new CachedPage(a, length), size);
        }
    }

    /** Called with the page map's monitor held, for each page that leaves it. */
    private void pageLeft(CachedPage p) {
        keepOrDrop(p.points());
    }

    private void keepOrDrop(int[] a) {
        if (pages.bytes() + pagePool.bytes() + PageArrayPool.arrayBytes(a.length) <= pages.budget()) {
            pagePool.give(a);
        }
    }

    /**
     * The extent of {@code length} bytes at {@code offset} of {@code file}, from the cache or read
     * from the datafile (and then cached when it fits the bound), lent to the caller until it
     * calls {@link #release} with it, once, however the reading went.
     */
    public Extent acquireExtent(DataFile file, long offset, int length) throws IOException {
        if (length <= 0) {
            throw new IllegalArgumentException(file.path() + ": extent at " + offset + " of length " + length);
        }
        ExtentKey k = new ExtentKey(file, offset);
        synchronized (extents) {
            Extent e = extents.get(k);
            if (e != null && e.length == length) {
                e.holders++;
                extentHits.increment();
                return e;
            }
        }
        extentMisses.increment();
        ByteBuffer buf;
        synchronized (extents) {
            // Room first, as for pages: an extent evicted now lends its buffer to this read.
            long footprint = ExtentBufferPool.classBytes(length) + 96L;
            if (footprint <= extents.budget()) {
                extents.makeRoom(footprint);
            }
            buf = pool.take(length);
        }
        Extent e = new Extent(buf, length);
        try {
            buf.clear().limit(length);
            file.read(buf, offset);
        } catch (IOException | RuntimeException ex) {
            synchronized (extents) {
                keepOrFree(buf);
            }
            throw ex;
        }
        bytesRead.add(length);
        synchronized (extents) {
            // the caller's hold and, if it is cached, the cache's
            e.holders = 2;
            if (!extents.put(k, e, e.footprint())) {
                e.holders = 1;
            }
        }
        return e;
    }

    /** Gives back an extent {@link #acquireExtent} lent; its bytes must not be used after. */
    public void release(Extent e) {
        synchronized (extents) {
            dropHolder(e);
        }
    }

    /** Called with the extent map's monitor held. */
    private void dropHolder(Extent e) {
        if (e.holders <= 0) {
            throw new IllegalStateException("extent released more often than it was acquired");
        }
        if (--e.holders == 0) {
            keepOrFree(e.buffer);
        }
    }

    /** Keeps a buffer no one holds for a later extent while the bound allows it, else frees it. */
    private void keepOrFree(ByteBuffer buf) {
        if (extents.bytes() + pool.bytes() + buf.capacity() <= extents.budget()) {
            pool.give(buf);
        } else {
            ExtentBufferPool.free(buf);
        }
    }

    /** Drops everything of a datafile (it was deleted by rotation). */
    public void invalidate(DataFile file) {
        pages.removeIf(k -> k.file() == file);
        extents.removeIf(k -> k.file() == file);
    }

    /** Changes both bounds (memory sized from the number of collected metrics); evicts at once. */
    public void resize(long pageBudgetBytes, long extentBudgetBytes) {
        synchronized (pages) {
            pages.resize(pageBudgetBytes);
            pagePool.trimTo(Math.max(0, pageBudgetBytes - pages.bytes()));
        }
        synchronized (extents) {
            extents.resize(extentBudgetBytes);
            pool.trimTo(Math.max(0, extentBudgetBytes - extents.bytes()));
        }
    }

    /** Memory of the page cache: cached pages and the free arrays kept for reuse. */
    public long pageBytes() {
        synchronized (pages) {
            return pages.bytes() + pagePool.bytes();
        }
    }

    /** Page arrays allocated so far (the others were reused). */
    long pageArraysCreated() {
        synchronized (pages) {
            return pagePool.created();
        }
    }

    /** Extent buffers allocated so far (the others were reused). */
    long extentBuffersCreated() {
        synchronized (extents) {
            return pool.created();
        }
    }

    /** Of {@link #pageBytes}, the free arrays kept for reuse. */
    public long pooledPageBytes() {
        synchronized (pages) {
            return pagePool.bytes();
        }
    }

    /** Memory of the extent cache: cached extents and the free buffers kept for reuse. */
    public long extentBytes() {
        synchronized (extents) {
            return extents.bytes() + pool.bytes();
        }
    }

    /** Of {@link #extentBytes}, the free buffers kept for reuse. */
    public long pooledExtentBytes() {
        synchronized (extents) {
            return pool.bytes();
        }
    }

    public long pageHits() {
        return pageHits.sum();
    }

    public long pageMisses() {
        return pageMisses.sum();
    }

    public long extentHits() {
        return extentHits.sum();
    }

    public long extentMisses() {
        return extentMisses.sum();
    }

    /** Bytes read from datafiles by queries. */
    public long bytesRead() {
        return bytesRead.sum();
    }

    /** An access-ordered map bounded by the sizes given with each entry. */
    private static final class Lru<K, V> {
        private final LinkedHashMap<K, Entry<V>> map = new LinkedHashMap<>(1024, 0.75f, true);
        /** Told of each value that leaves the map (evicted, replaced, removed); null for none. */
        private final Consumer<V> removed;
        private long budget;
        private long bytes;

        private record Entry<V>(V value, long size) {
        }

        Lru(long budget, Consumer<V> removed) {
            this.budget = budget;
            this.removed = removed;
        }

        private void left(V v) {
            if (removed != null) {
                removed.accept(v);
            }
        }

        synchronized V get(K k) {
            Entry<V> e = map.get(k);
            return e == null ? null : e.value();
        }

        /** Whether {@code v} was cached (false: larger than the whole bound). */
        synchronized boolean put(K k, V v, long size) {
            if (size > budget) {
                return false;
            }
            Entry<V> old = map.put(k, new Entry<>(v, size));
            if (old != null) {
                bytes -= old.size();
                left(old.value());
            }
            bytes += size;
            evict();
            return true;
        }

        private void evict() {
            evictUntil(budget);
        }

        /** Evicts the least recently used entries until {@code size} more bytes fit the bound. */
        synchronized void makeRoom(long size) {
            evictUntil(budget - size);
        }

        private void evictUntil(long limit) {
            Iterator<Map.Entry<K, Entry<V>>> it = map.entrySet().iterator();
            while (bytes > limit && it.hasNext()) {
                Entry<V> e = it.next().getValue();
                bytes -= e.size();
                it.remove();
                left(e.value());
            }
        }

        synchronized void removeIf(Predicate<K> p) {
            Iterator<Map.Entry<K, Entry<V>>> it = map.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<K, Entry<V>> e = it.next();
                if (p.test(e.getKey())) {
                    bytes -= e.getValue().size();
                    it.remove();
                    left(e.getValue().value());
                }
            }
        }

        synchronized void resize(long newBudget) {
            budget = newBudget;
            evict();
        }

        synchronized long bytes() {
            return bytes;
        }

        synchronized long budget() {
            return budget;
        }
    }
}
