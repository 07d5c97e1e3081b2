package io.strata.engine.page;

import java.util.concurrent.atomic.AtomicLong;

import net.openhft.chronicle.core.UnsafeMemory;

/**
 * Off-heap memory of pages, accounted per tag so that a leak names its owner. Whoever allocates a
 * block frees it or hands it on (hot page -> dirty page -> flusher, which frees it once the page
 * is on disk); the Javadoc of each hand-off says so.
 */
public final class PageMemory {

    /** What a block of page memory is for. */
    public enum Tag { HOT, DIRTY }

    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;
    private static final AtomicLong[] BYTES = {new AtomicLong(), new AtomicLong()};
    private static final AtomicLong TOTAL = new AtomicLong();

    private PageMemory() {
    }

    /** Allocates {@code bytes} of zeroed memory. */
    public static long allocate(int bytes, Tag tag) {
        long addr = MEMORY.allocate(bytes);
        MEMORY.setMemory(addr, bytes, (byte) 0);
        BYTES[tag.ordinal()].addAndGet(bytes);
        TOTAL.addAndGet(bytes);
        return addr;
    }

    /** Moves the accounting of a block from one tag to another (no copy). */
    public static void retag(int bytes, Tag from, Tag to) {
        BYTES[from.ordinal()].addAndGet(-bytes);
        BYTES[to.ordinal()].addAndGet(bytes);
    }

    public static void free(long addr, int bytes, Tag tag) {
        MEMORY.freeMemory(addr, bytes);
        BYTES[tag.ordinal()].addAndGet(-bytes);
        TOTAL.addAndGet(-bytes);
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

    /** Copies {@code bytes} (a multiple of 4) as little-endian ints into {@code dst}. */
    public static void copyToBytes(long addr, byte[] dst, int dstOffset, int bytes) {
        for (int i = 0; i < bytes; i += 4) {
            int v = MEMORY.readInt(addr + i);
            dst[dstOffset + i] = (byte) v;
            dst[dstOffset + i + 1] = (byte) (v >>> 8);
            dst[dstOffset + i + 2] = (byte) (v >>> 16);
            dst[dstOffset + i + 3] = (byte) (v >>> 24);
        }
    }

    public static long bytes(Tag tag) {
        return BYTES[tag.ordinal()].get();
    }

    /** All page memory currently allocated. */
    public static long totalBytes() {
        return TOTAL.get();
    }
}
