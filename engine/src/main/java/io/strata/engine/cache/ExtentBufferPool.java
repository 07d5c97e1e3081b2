package io.strata.engine.cache;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Free off-heap buffers for extents, by size class, so that a query that misses the extent cache
 * reads into memory some earlier extent left instead of into a fresh array. A class is a quarter
 * step between two powers of two (4 KiB, 5 KiB, 6 KiB, 7 KiB, 8 KiB, 10 KiB, ...): a buffer wastes
 * under a quarter of its length, and extents of similar lengths share a class. Not thread-safe:
 * the {@link PageCache} guards it.
 */
final class ExtentBufferPool {

    /** The smallest class; extents are rarely smaller and below it classes would only multiply. */
    static final int MIN_CLASS_BYTES = 4096;
    /** Four classes per power of two up to 2^31. */
    private static final int CLASSES = 4 * 32;

    @SuppressWarnings("unchecked")
    private final ArrayDeque<ByteBuffer>[] free = new ArrayDeque[CLASSES];
    private long bytes;
    private long created;

    /** The capacity of the class that holds {@code length} bytes. */
    static int classBytes(int length) {
        if (length <= 0) {
            throw new IllegalArgumentException("buffer length must be positive, got " + length);
        }
        int n = Math.max(length, MIN_CLASS_BYTES);
        int step = Integer.highestOneBit(n - 1) >>> 2;
        long c = ((long) n + step - 1) / step * step;
        if (c > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("no buffer class holds " + length + " bytes");
        }
        return (int) c;
    }

    /** The index of a class capacity {@link #classBytes} returned. */
    static int classIndex(int classBytes) {
        int e = 31 - Integer.numberOfLeadingZeros(classBytes - 1);
        int step = 1 << (e - 2);
        return 4 * e + classBytes / step - 5;
    }

    /** A buffer of the class of {@code length}: a free one if there is, else a new one. */
    ByteBuffer take(int length) {
        int c = classBytes(length);
        ArrayDeque<ByteBuffer> q = free[classIndex(c)];
        ByteBuffer b = q == null ? null : q.pollLast();
        if (b != null) {
            bytes -= b.capacity();
            return b;
        }
        created++;
        return ByteBuffer.allocateDirect(c);
    }

    /** Keeps {@code b} (from {@link #take}) for a later {@link #take}. */
    void give(ByteBuffer b) {
        int i = classIndex(b.capacity());
        if (free[i] == null) {
            free[i] = new ArrayDeque<>();
        }
        free[i].addLast(b);
        bytes += b.capacity();
    }

    /** Frees kept buffers, the largest classes first, until at most {@code maxBytes} are kept. */
    void trimTo(long maxBytes) {
        for (int i = CLASSES - 1; i >= 0 && bytes > maxBytes; i--) {
            ArrayDeque<ByteBuffer> q = free[i];
            while (q != null && !q.isEmpty() && bytes > maxBytes) {
                ByteBuffer b = q.pollLast();
                bytes -= b.capacity();
                free(b);
            }
        }
    }

    /** Bytes of the buffers kept. */
    long bytes() {
        return bytes;
    }

    /** How many {@link #take} could not serve from the kept ones and allocated. */
    long created() {
        return created;
    }

    private static final Object UNSAFE;
    private static final Method INVOKE_CLEANER;

    static {
        Object u = null;
        Method m = null;
        try {
            Class<?> c = Class.forName("sun.misc.Unsafe");
            Field f = c.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            u = f.get(null);
            m = c.getMethod("invokeCleaner", ByteBuffer.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // no explicit free: a dropped buffer's memory goes back when the collector finds it
            u = null;
            m = null;
        }
        UNSAFE = u;
        INVOKE_CLEANER = m;
    }

    /**
     * Gives a direct buffer's memory back now rather than when the collector notices the buffer
     * (which, with a heap that rarely needs collecting, can be long after). The buffer must not be
     * used after.
     */
    static void free(ByteBuffer b) {
        if (UNSAFE == null || !b.isDirect()) {
            return;
        }
        try {
            INVOKE_CLEANER.invoke(UNSAFE, b);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // left to the collector, as without Unsafe
        }
    }
}
