package io.strata.engine.cache;

import io.strata.engine.datafile.DataFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The clean part of DBENGINE's main cache (decoded pages that are on disk) and its extent cache
 * (compressed extents as read), each an LRU bounded in bytes. Hot and dirty pages live in the hot
 * tables and the flusher; together they make the main cache.
 *
 * <p>The extent cache is what makes "read whole extents" pay: the dimensions of a chart share
 * extents, so a query over a chart reads each extent from the disk once. Both maps are guarded
 * by their own monitor; a lookup is a few hundred nanoseconds per page of up to 1024 points.
 */
public final class PageCache {

    private record PageKey(DataFile file, long extentOffset, int slot) {
    }

    private record ExtentKey(DataFile file, long offset) {
    }

    private final Lru<PageKey, int[]> pages;
    private final Lru<ExtentKey, ByteBuffer> extents;
    private final LongAdder pageHits = new LongAdder();
    private final LongAdder pageMisses = new LongAdder();
    private final LongAdder extentHits = new LongAdder();
    private final LongAdder extentMisses = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();

    /**
     * @param pageBudgetBytes   bound of the decoded clean pages
     * @param extentBudgetBytes bound of the compressed extents
     */
    public PageCache(long pageBudgetBytes, long extentBudgetBytes) {
        this.pages = new Lru<>(pageBudgetBytes);
        this.extents = new Lru<>(extentBudgetBytes);
    }

    /** The decoded points of a clean page, or null. */
    public int[] get(DataFile file, long extentOffset, int slot) {
        int[] p = pages.get(new PageKey(file, extentOffset, slot));
        if (p != null) {
            pageHits.increment();
        } else {
            pageMisses.increment();
        }
        return p;
    }

    public void put(DataFile file, long extentOffset, int slot, int[] points) {
        pages.put(new PageKey(file, extentOffset, slot), points, 16L + 4L * points.length + 64);
    }

    /** The bytes of an extent, from the cache or read from its datafile (and then cached). */
    public ByteBuffer extent(DataFile file, long offset, int length) throws IOException {
        ExtentKey k = new ExtentKey(file, offset);
        ByteBuffer b = extents.get(k);
        if (b != null) {
            extentHits.increment();
            return b.duplicate();
        }
        extentMisses.increment();
        b = file.read(offset, length);
        bytesRead.add(length);
        extents.put(k, b, length + 96L);
        return b.duplicate();
    }

    /** Drops everything of a datafile (it was deleted by rotation). */
    public void invalidate(DataFile file) {
        pages.removeIf(k -> k.file() == file);
        extents.removeIf(k -> k.file() == file);
    }

    /** Changes both bounds (memory sized from the number of collected metrics); evicts at once. */
    public void resize(long pageBudgetBytes, long extentBudgetBytes) {
        pages.resize(pageBudgetBytes);
        extents.resize(extentBudgetBytes);
    }

    public long pageBytes() {
        return pages.bytes();
    }

    public long extentBytes() {
        return extents.bytes();
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
        private long budget;
        private long bytes;

        private record Entry<V>(V value, long size) {
        }

        Lru(long budget) {
            this.budget = budget;
        }

        synchronized V get(K k) {
            Entry<V> e = map.get(k);
            return e == null ? null : e.value();
        }

        synchronized void put(K k, V v, long size) {
            if (size > budget) {
                return;
            }
            Entry<V> old = map.put(k, new Entry<>(v, size));
            if (old != null) {
                bytes -= old.size();
            }
            bytes += size;
            evict();
        }

        private void evict() {
            Iterator<Map.Entry<K, Entry<V>>> it = map.entrySet().iterator();
            while (bytes > budget && it.hasNext()) {
                bytes -= it.next().getValue().size();
                it.remove();
            }
        }

        synchronized void removeIf(java.util.function.Predicate<K> p) {
            Iterator<Map.Entry<K, Entry<V>>> it = map.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<K, Entry<V>> e = it.next();
                if (p.test(e.getKey())) {
                    bytes -= e.getValue().size();
                    it.remove();
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
    }
}
