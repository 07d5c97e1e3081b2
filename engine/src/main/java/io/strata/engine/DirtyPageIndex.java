package io.strata.engine;

import io.strata.engine.page.DirtyPage;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The dirty pages of each metric of one tier (sealed, not yet on disk), for readers to merge
 * with what the disk holds. Indexed by metric id in chunks, like the hot-page tables: a
 * collector adds a page when it seals one and the flusher removes it once it is written, each
 * with a compare-and-set of the metric's small array, so neither takes a lock nor boxes the id
 * (a map of boxed ids cost the collectors about a tenth of their time in a profile).
 */
final class DirtyPageIndex {

    private static final int CHUNK_BITS = 12;
    private static final int CHUNK = 1 << CHUNK_BITS;
    private static final int MASK = CHUNK - 1;

    @SuppressWarnings("unchecked")
    private volatile AtomicReferenceArray<DirtyPage[]>[] chunks = new AtomicReferenceArray[0];

    /** Adds {@code p} after the metric's other dirty pages. */
    void add(DirtyPage p) {
        AtomicReferenceArray<DirtyPage[]> c = chunkFor(p.metricId);
        int i = p.metricId & MASK;
        while (true) {
            DirtyPage[] old = c.get(i);
            DirtyPage[] next;
            if (old == null) {
                next = new DirtyPage[]{p};
            } else {
                next = Arrays.copyOf(old, old.length + 1);
                next[old.length] = p;
            }
            if (c.compareAndSet(i, old, next)) {
                return;
            }
        }
    }

    /** Removes {@code p} (the same object), keeping the order of the others; absent, nothing. */
    void remove(DirtyPage p) {
        AtomicReferenceArray<DirtyPage[]>[] cs = chunks;
        int ci = p.metricId >>> CHUNK_BITS;
        if (ci >= cs.length || cs[ci] == null) {
            return;
        }
        AtomicReferenceArray<DirtyPage[]> c = cs[ci];
        int i = p.metricId & MASK;
        while (true) {
            DirtyPage[] old = c.get(i);
            int at = -1;
            for (int k = 0; old != null && k < old.length; k++) {
                if (old[k] == p) {
                    at = k;
                    break;
                }
            }
            if (at < 0) {
                return;
            }
            DirtyPage[] next = null;
            if (old.length > 1) {
                next = new DirtyPage[old.length - 1];
                System.arraycopy(old, 0, next, 0, at);
                System.arraycopy(old, at + 1, next, at, old.length - at - 1);
            }
            if (c.compareAndSet(i, old, next)) {
                return;
            }
        }
    }

    /** The metric's dirty pages in the order they were added, or null; the array is never changed. */
    DirtyPage[] get(int metric) {
        AtomicReferenceArray<DirtyPage[]>[] cs = chunks;
        int ci = metric >>> CHUNK_BITS;
        if (metric < 0 || ci >= cs.length || cs[ci] == null) {
            return null;
        }
        return cs[ci].get(metric & MASK);
    }

    /** Forgets every page (close after a failure). */
    synchronized void clear() {
        AtomicReferenceArray<DirtyPage[]>[] cs = chunks;
        for (AtomicReferenceArray<DirtyPage[]> c : cs) {
            if (c != null) {
                for (int i = 0; i < CHUNK; i++) {
                    c.set(i, null);
                }
            }
        }
    }

    private AtomicReferenceArray<DirtyPage[]> chunkFor(int metric) {
        AtomicReferenceArray<DirtyPage[]>[] cs = chunks;
        int ci = metric >>> CHUNK_BITS;
        if (ci < cs.length && cs[ci] != null) {
            return cs[ci];
        }
        return grow(ci);
    }

    private synchronized AtomicReferenceArray<DirtyPage[]> grow(int ci) {
        AtomicReferenceArray<DirtyPage[]>[] cs = chunks;
        if (ci >= cs.length) {
            cs = Arrays.copyOf(cs, ci + 1);
        }
        if (cs[ci] == null) {
            cs[ci] = new AtomicReferenceArray<>(CHUNK);
        }
        chunks = cs;
        return cs[ci];
    }
}
