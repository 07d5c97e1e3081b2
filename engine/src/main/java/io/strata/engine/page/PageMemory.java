package io.strata.engine.page;

import java.util.concurrent.atomic.AtomicLong;

import net.openhft.chronicle.core.UnsafeMemory;
import java.util.Arrays;

/**
 * Off-heap memory of hot pages, in size classes that are multiples of a granule up to a whole
 * page, carved out of large slabs and accounted so that a leak names its owner. A hot page starts
 * in the smallest class and moves to the next as it fills, so that a metric's hot pages cost
 * about what they hold — half a page on average — rather than a page each (the difference
 * between 6.5 and 3.7 KiB per metric with 3 tiers).
 *
 * <p>A block goes from a slab to a hot page ({@link #acquire}); when the page grows or is sealed
 * its writer {@link #retire retires} the old block; the flusher {@link #recycleRetired recycles}
 * retired blocks into their slabs only while no reader can be copying them (under the engine's
 * memory write lock). So no block is ever freed or reused under a reader, and no collecting
 * thread ever waits for one.
 *
 * <p>Why slabs: 100 000 metrics with 3 tiers hold some 300 000 blocks, and a block per
 * {@code malloc} pays the allocator's header and its fragmentation on each (about half a KiB per
 * metric in all). A slab holds blocks of one class side by side, carved in address order as they
 * are first needed (its untouched tail costs address space, not memory); a block given back goes
 * on its slab's free list, threaded through the free blocks themselves. New blocks come from the
 * class's oldest slab with room, so that the newest slabs drain when a class shrinks; a slab with
 * no block out is released (see {@link #recycleRetired}).
 */
public final class PageMemory {

    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;

    /**
     * Bytes of a slab, unless a class's block is larger: room for 16 to 1 024 blocks, one
     * allocation. Smaller slabs empty (and go back) sooner when a class shrinks; at 100 000
     * metrics 64 KiB slabs left about 30 bytes less hot-page memory per metric than 256 KiB ones
     * (one run, 1 300 s).
     */
    public static final int DEFAULT_SLAB_BYTES = 64 * 1024;

    private final int pageBytes;
    private final int granule;
    private final int classes;
    private final int slabBytes;
    /** Bytes of blocks carved out of live slabs: in use, retired or on a free list. */
    private final AtomicLong allocated = new AtomicLong();
    private final AtomicLong inUse = new AtomicLong();
    private final AtomicLong reserved = new AtomicLong();
    /** Per class, its slabs in the order they were made (an emptied slab's place takes the last). */
    private final Slab[][] classSlabs;
    private final int[] classSlabCount;
    /** Per class, no slab before this index has room. */
    private final int[] firstWithRoom;
    /** Per class, free blocks over all its slabs, carved or not. */
    private final long[] classRoom;
    /** Every slab by its first block's address, ascending, to find a block's slab. */
    private long[] slabBase = new long[16];
    private Slab[] slabByBase = new Slab[16];
    private int slabCount;
    private static final int RETIRED_CHUNK_BITS = 12;
    private static final int RETIRED_CHUNK = 1 << RETIRED_CHUNK_BITS;
    /**
     * Retired blocks, each address with its class in the low 4 bits, in chunks: when the flusher
     * falls behind, an accelerated writer retires a million blocks before the next recycling,
     * and one doubling array would stay that large on the heap (and be copied as one huge
     * object); chunks past the first are dropped once recycled.
     */
    private long[][] retiredChunks = {new long[RETIRED_CHUNK]};
    private int retiredCount;
    /** The first chunk of the list last recycled, for the next list. */
    private long[] spareRetired;
    /** Retired blocks given back under one hold of the lock. */
    private static final int RECYCLE_SLICE = 256;

    /** Blocks of one class, side by side; its free blocks hold the address of the next free one. */
    private static final class Slab {
        final long raw;
        final long base;
        final int cls;
        final int blockBytes;
        final int capacity;
        /** Blocks handed out at least once (the carved prefix). */
        int carved;
        /** Blocks out: in hot pages or retired. */
        int used;
        long freeHead;
        int freeCount;
        /** Index in its class's slab list. */
        int pos;

        Slab(long raw, long base, int cls, int blockBytes, int capacity) {
            this.raw = raw;
            this.base = base;
            this.cls = cls;
            this.blockBytes = blockBytes;
            this.capacity = capacity;
        }

        int room() {
            return capacity - carved + freeCount;
        }
    }

    /** One class: whole pages of {@code pageBytes}. */
    public PageMemory(int pageBytes) {
        this(pageBytes, pageBytes);
    }

    /**
     * @param pageBytes the largest block, a whole page
     * @param granule   the step between classes; divides {@code pageBytes}, a multiple of 16
     */
    public PageMemory(int pageBytes, int granule) {
        this(pageBytes, granule, DEFAULT_SLAB_BYTES);
    }

    /**
     * @param slabBytes bytes of a slab; a class whose block is larger gets slabs of one block
     */
    public PageMemory(int pageBytes, int granule, int slabBytes) {
        if (granule <= 0 || pageBytes % granule != 0) {
            throw new IllegalArgumentException("granule " + granule + " must divide the page size " + pageBytes);
        }
        if (granule % 16 != 0) {
            throw new IllegalArgumentException("granule " + granule + " is not a multiple of 16: blocks would not "
                    + "stay 16-byte aligned");
        }
        if (pageBytes / granule > 16) {
            throw new IllegalArgumentException((pageBytes / granule) + " classes: at most 16 fit the low bits of an address");
        }
        if (slabBytes <= 0) {
            throw new IllegalArgumentException("slab of " + slabBytes + " bytes");
        }
        this.pageBytes = pageBytes;
        this.granule = granule;
        this.classes = pageBytes / granule;
        this.slabBytes = slabBytes;
        this.classSlabs = new Slab[classes][4];
        this.classSlabCount = new int[classes];
        this.firstWithRoom = new int[classes];
        this.classRoom = new long[classes];
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

    /** Blocks of class {@code cls} in one of its slabs. */
    public int blocksPerSlab(int cls) {
        return Math.max(1, slabBytes / classBytes(cls));
    }

    /** A whole page; its content is undefined. */
    public long acquire() {
        return acquire(classes - 1);
    }

    /** A block of class {@code cls}; its content is undefined. */
    public long acquire(int cls) {
        if (cls < 0 || cls >= classes) {
            throw new IllegalArgumentException("class " + cls + " of " + classes);
        }
        inUse.incrementAndGet();
        synchronized (this) {
            Slab[] list = classSlabs[cls];
            int n = classSlabCount[cls];
            int i = firstWithRoom[cls];
            while (i < n && list[i].room() == 0) {
                i++;
            }
            firstWithRoom[cls] = i;
            Slab s = i < n ? list[i] : newSlab(cls);
            classRoom[cls]--;
            s.used++;
            if (s.freeHead != 0) {
                long a = s.freeHead;
                s.freeHead = MEMORY.readLong(a);
                s.freeCount--;
                return a;
            }
            long a = s.base + (long) s.carved * s.blockBytes;
            s.carved++;
            allocated.addAndGet(s.blockBytes);
            return a;
        }
    }

    private Slab newSlab(int cls) {
        int bytes = classBytes(cls);
        int capacity = blocksPerSlab(cls);
        long size = SlabMemory.size((long) capacity * bytes);
        long raw = SlabMemory.allocate(size);
        Slab s = new Slab(raw, SlabMemory.align(raw), cls, bytes, capacity);
        reserved.addAndGet(size);
        if (classSlabCount[cls] == classSlabs[cls].length) {
            classSlabs[cls] = Arrays.copyOf(classSlabs[cls], classSlabCount[cls] * 2);
        }
        s.pos = classSlabCount[cls]++;
        classSlabs[cls][s.pos] = s;
        classRoom[cls] += capacity;
        int at = Arrays.binarySearch(slabBase, 0, slabCount, s.base);
        at = -at - 1;
        if (slabCount == slabBase.length) {
            slabBase = Arrays.copyOf(slabBase, slabCount * 2);
            slabByBase = Arrays.copyOf(slabByBase, slabCount * 2);
        }
        System.arraycopy(slabBase, at, slabBase, at + 1, slabCount - at);
        System.arraycopy(slabByBase, at, slabByBase, at + 1, slabCount - at);
        slabBase[at] = s.base;
        slabByBase[at] = s;
        slabCount++;
        return s;
    }

    /** The slab holding the block at {@code addr} of class {@code cls}; an exception if none does. */
    private Slab slabOf(long addr, int cls) {
        int at = Arrays.binarySearch(slabBase, 0, slabCount, addr);
        if (at < 0) {
            at = -at - 2;
        }
        Slab s = at >= 0 ? slabByBase[at] : null;
        if (s == null || s.cls != cls || addr >= s.base + (long) s.carved * s.blockBytes
                || (addr - s.base) % s.blockBytes != 0) {
            throw new IllegalStateException("block " + Long.toHexString(addr) + " of class " + cls
                    + " was not handed out by this page memory");
        }
        return s;
    }

    /** Puts a block back on its slab's free list; true when the slab has no block out any more. */
    private boolean giveBack(Slab s, long addr) {
        MEMORY.writeLong(addr, s.freeHead);
        s.freeHead = addr;
        s.freeCount++;
        s.used--;
        classRoom[s.cls]++;
        if (s.pos < firstWithRoom[s.cls]) {
            firstWithRoom[s.cls] = s.pos;
        }
        return s.used == 0;
    }

    /** Releases an empty slab; the class's last slab takes its place in the class's list. */
    private void release(Slab s) {
        int cls = s.cls;
        Slab[] list = classSlabs[cls];
        int last = --classSlabCount[cls];
        list[s.pos] = list[last];
        list[s.pos].pos = s.pos;
        list[last] = null;
        if (firstWithRoom[cls] > s.pos) {
            firstWithRoom[cls] = s.pos;
        }
        classRoom[cls] -= s.room();
        int at = Arrays.binarySearch(slabBase, 0, slabCount, s.base);
        System.arraycopy(slabBase, at + 1, slabBase, at, slabCount - at - 1);
        System.arraycopy(slabByBase, at + 1, slabByBase, at, slabCount - at - 1);
        slabByBase[--slabCount] = null;
        allocated.addAndGet(-(long) s.carved * s.blockBytes);
        long size = SlabMemory.size((long) s.capacity * s.blockBytes);
        reserved.addAndGet(-size);
        SlabMemory.free(s.raw, size);
    }

    /** Hands back a whole-page block; see {@link #retire(long, int)}. */
    public void retire(long addr) {
        retire(addr, classes - 1);
    }

    /** Hands back a block no longer used by its page; it is reused after {@link #recycleRetired}. */
    public synchronized void retire(long addr, int cls) {
        int k = retiredCount >>> RETIRED_CHUNK_BITS;
        if (k == retiredChunks.length) {
            retiredChunks = Arrays.copyOf(retiredChunks, k * 2);
        }
        if (retiredChunks[k] == null) {
            retiredChunks[k] = new long[RETIRED_CHUNK];
        }
        retiredChunks[k][retiredCount & (RETIRED_CHUNK - 1)] = addr | cls;
        retiredCount++;
        inUse.decrementAndGet();
    }

    /** Blocks retired and not yet recycled. */
    public synchronized int retiredBlocks() {
        return retiredCount;
    }

    /**
     * {@link #retiredBlocks} without taking the lock, possibly stale: for a collector deciding
     * whether recycling is worth trying, on every store.
     */
    public int retiredBlocksRacy() {
        return retiredCount;
    }

    /**
     * Returns retired blocks to their slabs. Call only while no reader copies page memory. A
     * slab left with no block out is released when its class still has at least {@code keep}
     * free blocks in its other slabs, so that a class that shrank gives its memory back while
     * one that merely breathes does not allocate and free a slab at every turn; {@code keep} 0
     * releases every empty slab.
     */
    public void recycleRetired(int keep) {
        long[][] chunks;
        int count;
        synchronized (this) {
            chunks = retiredChunks;
            count = retiredCount;
            if (count == 0) {
                return;
            }
            retiredChunks = new long[][]{spareRetired != null ? spareRetired : new long[RETIRED_CHUNK]};
            spareRetired = null;
            retiredCount = 0;
        }
        // Slice by slice: a collector that needs a block waits for one slice at most, not for the
        // whole list (a holder preempted on a busy machine kept collectors waiting 200 ms).
        // Recyclers exclude each other by the engine's memory lock, so the list is ours alone.
        for (int i = 0; i < count; ) {
            synchronized (this) {
                int end = Math.min(count, i + RECYCLE_SLICE);
                for (; i < end; i++) {
                    long w = chunks[i >>> RETIRED_CHUNK_BITS][i & (RETIRED_CHUNK - 1)];
                    long a = w & ~15L;
                    Slab s = slabOf(a, (int) (w & 15));
                    if (giveBack(s, a) && classRoom[s.cls] - s.room() >= keep) {
                        release(s);
                    }
                }
            }
        }
        synchronized (this) {
            spareRetired = chunks[0];
        }
    }

    /**
     * Recycles every retired block and releases every slab with no block out (close). Blocks
     * still in use are the hot pages' to free ({@link #free(long, int)}), which releases their
     * slabs as they empty.
     */
    public synchronized void freePooled() {
        recycleRetired(0);
        for (int i = slabCount - 1; i >= 0; i--) {
            if (i < slabCount && slabByBase[i].used == 0) {
                release(slabByBase[i]);
            }
        }
    }

    /** Frees a whole-page block directly. */
    public void free(long addr) {
        free(addr, classes - 1);
    }

    /**
     * Frees a block directly (close, for blocks of hot pages never sealed); its slab is released
     * once it has no block out.
     */
    public synchronized void free(long addr, int cls) {
        Slab s = slabOf(addr, cls);
        if (giveBack(s, addr)) {
            release(s);
        }
        inUse.decrementAndGet();
    }

    /**
     * Off-heap bytes of blocks carved out of slabs: blocks of hot pages, retired, and free in
     * their slabs (the part of the page memory that was ever touched).
     */
    public long allocatedBytes() {
        return allocated.get();
    }

    /** Off-heap bytes of the slabs, carved or not (address space; the uncarved tail is never touched). */
    public long reservedBytes() {
        return reserved.get();
    }

    /**
     * Off-heap bytes of the slabs of every page memory in this process, not yet freed. Tests'
     * leak guard compares it before and after each test: a closed engine gives all of it back.
     */
    public static long liveSlabBytes() {
        return SlabMemory.liveBytes();
    }

    /** Slabs held. */
    public synchronized int slabs() {
        return slabCount;
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
