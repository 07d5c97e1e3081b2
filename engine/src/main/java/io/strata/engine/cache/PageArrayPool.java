package io.strata.engine.cache;

import java.util.ArrayDeque;

/**
 * Free arrays for decoded clean pages, by power-of-two length, so that a page entering the cache
 * takes the array of one that left it: cached pages outlive young collections, and evicted ones
 * would otherwise be old-generation garbage that the collector makes room for by growing the
 * heap. Not thread-safe: the {@link PageCache} guards it.
 */
final class PageArrayPool {

    /** The shortest class (a tier-2 page of 24 points takes 96 ints). */
    static final int MIN_CLASS_INTS = 64;
    private static final int CLASSES = 32;

    @SuppressWarnings("unchecked")
    private final ArrayDeque<int[]>[] free = new ArrayDeque[CLASSES];
    private long bytes;
    private long created;

    /** The length of the class that holds {@code ints} ints. */
    static int classInts(int ints) {
        if (ints < 0 || ints > 1 << 30) {
            throw new IllegalArgumentException("no page array class holds " + ints + " ints");
        }
        return Math.max(MIN_CLASS_INTS, Integer.highestOneBit(Math.max(1, ints - 1)) << 1);
    }

    /** Bytes an array of {@code length} ints holds on the heap, header included. */
    static long arrayBytes(int length) {
        return 16L + 4L * length;
    }

    /** An array of the class of {@code ints}: a free one if there is, else a new one. */
    int[] take(int ints) {
        int c = classInts(ints);
        ArrayDeque<int[]> q = free[Integer.numberOfTrailingZeros(c)];
        int[] a = q == null ? null : q.pollLast();
        if (a != null) {
            bytes -= arrayBytes(a.length);
            return a;
        }
        created++;
        return new int[c];
    }

    /** Keeps {@code a} (from {@link #take}) for a later {@link #take}. */
    void give(int[] a) {
        int i = Integer.numberOfTrailingZeros(a.length);
        if (free[i] == null) {
            free[i] = new ArrayDeque<>();
        }
        free[i].addLast(a);
        bytes += arrayBytes(a.length);
    }

    /** Drops kept arrays, the longest first, until at most {@code maxBytes} are kept. */
    void trimTo(long maxBytes) {
        for (int i = CLASSES - 1; i >= 0 && bytes > maxBytes; i--) {
            ArrayDeque<int[]> q = free[i];
            while (q != null && !q.isEmpty() && bytes > maxBytes) {
                bytes -= arrayBytes(q.pollLast().length);
            }
        }
    }

    long bytes() {
        return bytes;
    }

    /** How many {@link #take} could not serve from the kept ones and allocated. */
    long created() {
        return created;
    }
}
