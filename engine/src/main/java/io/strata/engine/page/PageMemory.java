package io.strata.engine.page;

import java.util.concurrent.atomic.AtomicLong;

import net.openhft.chronicle.core.UnsafeMemory;

/**
 * Off-heap memory of hot pages: fixed-size blocks recycled through a pool, accounted so that a
 * leak names its owner. A block goes from the pool to a hot page ({@link #acquire}); when the
 * page is sealed its writer encodes it and {@link #retire retires} the block; the flusher
 * {@link #recycleRetired recycles} retired blocks into the pool only while no reader can be
 * copying them (under the engine's memory write lock). So no block is ever freed or reused
 * under a reader, and no collecting thread ever waits for one.
 */
public final class PageMemory {

    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;

    private final int blockBytes;
    private final AtomicLong allocated = new AtomicLong();
    private final AtomicLong inUse = new AtomicLong();
    private long[] free = new long[256];
    private int freeCount;
    private long[] retired = new long[256];
    private int retiredCount;

    public PageMemory(int blockBytes) {
        this.blockBytes = blockBytes;
    }

    public int blockBytes() {
        return blockBytes;
    }

    /** A block for a hot page; its content is undefined. */
    public long acquire() {
        inUse.incrementAndGet();
        synchronized (this) {
            if (freeCount > 0) {
                return free[--freeCount];
            }
        }
        allocated.addAndGet(blockBytes);
        return MEMORY.allocate(blockBytes);
    }

    /** Hands back a block no longer used by its page; it is reused after {@link #recycleRetired}. */
    public synchronized void retire(long addr) {
        if (retiredCount == retired.length) {
            retired = java.util.Arrays.copyOf(retired, retiredCount * 2);
        }
        retired[retiredCount++] = addr;
        inUse.decrementAndGet();
    }

    /**
     * Moves retired blocks to the pool. Call only while no reader copies page memory; keeps at
     * most {@code keep} free blocks and frees the rest.
     */
    public synchronized void recycleRetired(int keep) {
        for (int i = 0; i < retiredCount; i++) {
            long a = retired[i];
            if (freeCount < keep) {
                if (freeCount == free.length) {
                    free = java.util.Arrays.copyOf(free, freeCount * 2);
                }
                free[freeCount++] = a;
            } else {
                MEMORY.freeMemory(a, blockBytes);
                allocated.addAndGet(-blockBytes);
            }
        }
        retiredCount = 0;
    }

    /** Frees every pooled and retired block (close). Blocks still in use are the hot pages' to free. */
    public synchronized void freePooled() {
        recycleRetired(0);
        for (int i = 0; i < freeCount; i++) {
            MEMORY.freeMemory(free[i], blockBytes);
            allocated.addAndGet(-blockBytes);
        }
        freeCount = 0;
    }

    /** Frees a block directly (close, for blocks of hot pages never sealed). */
    public void free(long addr) {
        MEMORY.freeMemory(addr, blockBytes);
        allocated.addAndGet(-blockBytes);
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
}
