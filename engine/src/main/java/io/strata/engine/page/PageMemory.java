package io.strata.engine.page;

import java.util.concurrent.atomic.AtomicLong;

import net.openhft.chronicle.core.UnsafeMemory;

/**
 * Off-heap memory of hot pages, in size classes that are multiples of a granule up to a whole
 * page, recycled through a pool per class and accounted so that a leak names its owner. A hot
 * page starts in the smallest class and moves to the next as it fills, so that a metric's hot
 * pages cost about what they hold — half a page on average — rather than a page each (the
 * difference between 6.5 and 3.7 KiB per metric with 3 tiers).
 *
 * <p>A block goes from the pool to a hot page ({@link #acquire}); when the page grows or is
 * sealed its writer {@link #retire retires} the old block; the flusher {@link #recycleRetired
 * recycles} retired blocks into the pools only while no reader can be copying them (under the
 * engine's memory write lock). So no block is ever freed or reused under a reader, and no
 * collecting thread ever waits for one.
 */
public final class PageMemory {

    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;

    private final int pageBytes;
    private final int granule;
    private final int classes;
    private final AtomicLong allocated = new AtomicLong();
    private final AtomicLong inUse = new AtomicLong();
    private final long[][] free;
    private final int[] freeCount;
    /** Retired blocks, with their class in the low bits of a parallel array. */
    private long[] retired = new long[256];
    private byte[] retiredClass = new byte[256];
    private int retiredCount;

    /** One class: whole pages of {@code pageBytes}. */
    public PageMemory(int pageBytes) {
        this(pageBytes, pageBytes);
    }

    /**
     * @param pageBytes the largest block, a whole page
     * @param granule   the step between classes; divides {@code pageBytes}
     */
    public PageMemory(int pageBytes, int granule) {
        if (granule <= 0 || pageBytes % granule != 0) {
            throw new IllegalArgumentException("granule " + granule + " must divide the page size " + pageBytes);
        }
        this.pageBytes = pageBytes;
        this.granule = granule;
        this.classes = pageBytes / granule;
        this.free = new long[classes][16];
        this.freeCount = new int[classes];
    }

    /**
     * Page memory for hot pages of {@code pageBytes}: granules of 1/16 page, at least 64 bytes
     * (16 classes, as many as the low bits of a block address can name). A hot page wastes half
     * a granule on average, so finer classes cost less memory per metric (128 bytes instead of
     * 256 for a tier-0 page) for one more copy of half a page, on average, per page filled.
     */
    public static PageMemory forPages(int pageBytes) {
        int g = Math.max(64, pageBytes / 16);
        while (pageBytes % g != 0) {
            g += 16;
        }
        return new PageMemory(pageBytes, g);
    }

    public int blockBytes() {
        return pageBytes;
    }

    /** Number of size classes; class {@code c} holds {@code (c + 1) × granule} bytes. */
    public int classes() {
        return classes;
    }

    public int classBytes(int cls) {
        return (cls + 1) * granule;
    }

    /** The smallest class holding {@code bytes}. */
    public int classFor(int bytes) {
        return Math.min(classes - 1, Math.max(0, (bytes + granule - 1) / granule - 1));
    }

    /** A whole page; its content is undefined. */
    public long acquire() {
        return acquire(classes - 1);
    }

    /** A block of class {@code cls}; its content is undefined. */
    public long acquire(int cls) {
        inUse.incrementAndGet();
        synchronized (this) {
            if (freeCount[cls] > 0) {
                return free[cls][--freeCount[cls]];
            }
        }
        int b = classBytes(cls);
        allocated.addAndGet(b);
        return MEMORY.allocate(b);
    }

    /** Hands back a whole-page block; see {@link #retire(long, int)}. */
    public void retire(long addr) {
        retire(addr, classes - 1);
    }

    /** Hands back a block no longer used by its page; it is reused after {@link #recycleRetired}. */
    public synchronized void retire(long addr, int cls) {
        if (retiredCount == retired.length) {
            retired = java.util.Arrays.copyOf(retired, retiredCount * 2);
            retiredClass = java.util.Arrays.copyOf(retiredClass, retiredCount * 2);
        }
        retired[retiredCount] = addr;
        retiredClass[retiredCount++] = (byte) cls;
        inUse.decrementAndGet();
    }

    /**
     * Moves retired blocks to the pools. Call only while no reader copies page memory; keeps at
     * most {@code keep} free blocks per class and frees the rest.
     */
    public synchronized void recycleRetired(int keep) {
        for (int i = 0; i < retiredCount; i++) {
            long a = retired[i];
            int c = retiredClass[i];
            if (freeCount[c] < keep) {
                if (freeCount[c] == free[c].length) {
                    free[c] = java.util.Arrays.copyOf(free[c], freeCount[c] * 2);
                }
                free[c][freeCount[c]++] = a;
            } else {
                MEMORY.freeMemory(a, classBytes(c));
                allocated.addAndGet(-classBytes(c));
            }
        }
        retiredCount = 0;
    }

    /** Frees every pooled and retired block (close). Blocks still in use are the hot pages' to free. */
    public synchronized void freePooled() {
        recycleRetired(0);
        for (int c = 0; c < classes; c++) {
            for (int i = 0; i < freeCount[c]; i++) {
                MEMORY.freeMemory(free[c][i], classBytes(c));
                allocated.addAndGet(-classBytes(c));
            }
            freeCount[c] = 0;
        }
    }

    /** Frees a whole-page block directly. */
    public void free(long addr) {
        free(addr, classes - 1);
    }

    /** Frees a block directly (close, for blocks of hot pages never sealed). */
    public void free(long addr, int cls) {
        MEMORY.freeMemory(addr, classBytes(cls));
        allocated.addAndGet(-classBytes(cls));
        inUse.decrementAndGet();
    }

    /** Off-heap bytes held: blocks of hot pages, retired and pooled. */
    public long allocatedBytes() {
        return allocated.get();
    }

    /** Blocks held by hot pages. */
    public long blocksInUse() {
        return inUse.get();
    }

    public static int readInt(long addr) {
        return MEMORY.readInt(addr);
    }

    public static void writeInt(long addr, int value) {
        MEMORY.writeInt(addr, value);
    }

    public static void copyToArray(long addr, int[] dst, int count) {
        for (int i = 0; i < count; i++) {
            dst[i] = MEMORY.readInt(addr + 4L * i);
        }
    }

    /** Copies {@code bytes} (a multiple of 4) from one block to another. */
    public static void copy(long from, long to, int bytes) {
        MEMORY.copyMemory(from, to, bytes);
    }
}
