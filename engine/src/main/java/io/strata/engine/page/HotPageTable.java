package io.strata.engine.page;

import io.strata.engine.DiskFormat;
import io.strata.engine.registry.MetricRegistry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The hot (being filled) tier-0 page of every metric: fixed-step pages of 4-byte storage numbers,
 * one per metric and {@code update_every}, off-heap. A missed collection writes gap points (the
 * empty storage number); a change of {@code update_every}, a gap longer than the page, or a full
 * page seal the page and hand it to the sink as a raw {@link DirtyPage}, its block with it.
 *
 * <p>State is in chunks indexed by metric id; the state of one metric is 4 longs side by side
 * (one cache line holds two metrics), because every store reads and writes all of it and a
 * parent stores into 100 000 metrics in turn: a struct of arrays would cost a cache miss per
 * field. A metric's last points (up to {@link #STAGE}) are staged beside its state and go to
 * the page together (see {@link #put}). One writer thread per metric; readers use
 * {@link #snapshot} which validates what it read.
 * Missed collections are written as {@link StorageNumber#SN_EMPTY_SLOT}.
 * The first page of a chart gets a capacity between 1 point and a whole page, uniformly, chosen
 * from the chart id, so that hot pages do not all fill (and flush) at once — the pages of all
 * metrics are half full on average at any moment — while a chart's dimensions, collected
 * together, still fill together and land in one extent.
 */
public final class HotPageTable {

    private static final int CHUNK_BITS = 12;
    private static final int CHUNK = 1 << CHUNK_BITS;
    private static final int MASK = CHUNK - 1;

    private final MetricRegistry registry;
    private final Consumer<DirtyPage> sink;
    private final PageMemory memory;
    private final int pagePoints;
    private final long seed;
    private final LongSupplier nanoClock;
    private volatile Chunk[] chunks = new Chunk[0];

    /** Low bits of an {@code addr} word: the block's size class (blocks are 16-byte aligned). */
    public static final long CLASS_MASK = 15;

    /** Ordered access to the {@code addr} words that readers follow. */
    static final VarHandle ADDR = MethodHandles.arrayElementVarHandle(long[].class);

    /**
     * Per metric {@code m}, at {@code 4 × (m & MASK)}: [0] the hot page's block address with its
     * size class in the low 4 bits (0: no hot page; accessed through {@link #ADDR});
     * [1] start (u32) | entries (u16) << 32 | capacity (u16) << 48; [2] update_every (low 32) |
     * 1 << 32 once a page was sealed (the first page is the short one); [3] for the
     * {@link LateAggregator}: the time (u32) after which the next point goes to it at once (0: the
     * next point does) | the slots already given to it (u16) << 32.
     */
    private static final class Chunk {
        final long[] st = new long[4 * CHUNK];
        /** The staged points of metric {@code m}, from {@code STAGE × (m & MASK)} (see {@link #put}). */
        final int[] staged = new int[STAGE * CHUNK];
    }

    /**
     * Points staged per metric before they go to its page together. A batch of stores walks the
     * metrics in turn, and each one's page is somewhere else in memory: a point written to the
     * page costs a cache (and TLB) miss; a point written to the staging slots, which lie side by
     * side in metric order like the state, costs none, and the page's miss is paid once per
     * {@code STAGE} points. 8 ints: 32 bytes a metric, the half of a cache line.
     */
    static final int STAGE = 8;
    private static final VarHandle STAGED = MethodHandles.arrayElementVarHandle(int[].class);
    /** Ordered access to the state word with the point count, which readers validate against. */
    private static final VarHandle ENTRIES = MethodHandles.arrayElementVarHandle(long[].class);

    private static long pack(long start, int entries, int capacity) {
        return (start & 0xFFFF_FFFFL) | ((long) entries << 32) | ((long) capacity << 48);
    }

    private static long start(long w) {
        return w & 0xFFFF_FFFFL;
    }

    private static int entries(long w) {
        return (int) (w >>> 32) & 0xFFFF;
    }

    private static int capacity(long w) {
        return (int) (w >>> 48);
    }

    /**
     * Receives the stored points late, in bursts, for the tiers above to aggregate: a point is
     * handed over at once only when its time is past the horizon the aggregator gave, and the
     * points before it (all at or before the horizon) go with it in the same call, in order.
     * Every point of a page is handed over before the page is sealed. So the aggregator sees
     * each point exactly once and in order, and reaches a point past its horizon at the moment
     * it is stored, while the points within a window are merged together, with one metric's
     * state in the caches, instead of one cache miss per point and tier.
     */
    @FunctionalInterface
    public interface LateAggregator {
        /**
         * Slots {@code [from, to)} of the hot page at {@code pageAddress} (slot {@code i} at
         * {@code start + i × updateEvery}; missed collections hold the empty storage number).
         * Returns the new horizon (unsigned seconds): later points up to it may wait.
         */
        long aggregate(int metric, long pageAddress, long start, int updateEvery, int from, int to);
    }

    private LateAggregator aggregator;

    /** Sets who receives the stored points late (before any store; null: nobody). */
    public void setLateAggregator(LateAggregator aggregator) {
        this.aggregator = aggregator;
    }

    /** The outcome of {@link #store}. */
    public static final int STORED = 0;
    /** The time is at or before the last stored slot of the metric: ignored. */
    public static final int REJECTED_PAST = 1;

    public HotPageTable(MetricRegistry registry, Consumer<DirtyPage> sink, PageMemory memory, long seed,
                        LongSupplier nanoClock) {
        this.registry = registry;
        this.memory = memory;
        this.sink = sink;
        this.pagePoints = DiskFormat.pagePoints(0);
        this.seed = seed;
        this.nanoClock = nanoClock;
    }

    private Chunk chunkFor(int metric) {
        Chunk[] cs = chunks;
        int c = metric >>> CHUNK_BITS;
        if (c < cs.length && cs[c] != null) {
            return cs[c];
        }
        return grow(c);
    }

    private synchronized Chunk grow(int c) {
        Chunk[] cs = chunks;
        if (c >= cs.length) {
            cs = Arrays.copyOf(cs, c + 1);
        }
        if (cs[c] == null) {
            cs[c] = new Chunk();
        }
        chunks = cs;
        return cs[c];
    }

    /**
     * Stores storage number {@code sn} for {@code metric} at unsigned second {@code time}.
     * Returns {@link #STORED} or {@link #REJECTED_PAST}.
     */
    public int store(int metric, long time, int updateEvery, int sn) {
        Chunk ch = chunkFor(metric);
        long[] st = ch.st;
        int b = (metric & MASK) << 2;
        long addr = st[b];
        long w = st[b + 1];
        int n;
        int slot;
        if (addr == 0) {
            // No hot page (the last one sealed, or none since start): the registry's last time
            // still tells a point in the past, which would start a page overlapping the last.
            if (time <= registry.lastTime(metric, 0)) { // NO_TIME is 0, before every time
                return REJECTED_PAST;
            }
            addr = open(st, b, metric, time, updateEvery);
            w = st[b + 1];
            n = 0;
            slot = 0;
        } else {
            long start = start(w);
            n = entries(w);
            int ue = (int) st[b + 2];
            if (updateEvery != ue) {
                if (time <= start + (long) (n - 1) * ue) {
                    return REJECTED_PAST;
                }
                seal(ch, b, metric);
                addr = open(st, b, metric, time, updateEvery);
                w = st[b + 1];
                n = 0;
                slot = 0;
            } else {
                long d = time - start;
                // Most metrics are collected every second: no division for them.
                long idx = updateEvery == 1 ? d : d / updateEvery;
                if (d < 0 || idx < n) {
                    return REJECTED_PAST;
                }
                if (idx >= capacity(w)) {
                    // The gap ends past this page: the points between stay unstored, which a
                    // query reports as a gap exactly like stored gap points.
                    seal(ch, b, metric);
                    addr = open(st, b, metric, time, updateEvery);
                    w = st[b + 1];
                    n = 0;
                    slot = 0;
                } else {
                    slot = (int) idx;
                }
            }
        }
        addr = put(ch, b, addr, w, n, slot, sn);
        long slotTime = start(w) + (long) slot * updateEvery;
        registry.extend(metric, 0, slotTime, slotTime);
        LateAggregator agg = aggregator;
        if (agg != null) {
            long late = st[b + 3];
            if (slotTime > (late & 0xFFFF_FFFFL)) {
                addr = drainPartial(ch, b, addr, slot + 1);
                long horizon = agg.aggregate(metric, addr & ~CLASS_MASK, start(w), updateEvery,
                        (int) (late >>> 32) & 0xFFFF, slot + 1);
                st[b + 3] = (horizon & 0xFFFF_FFFFL) | ((long) (slot + 1) << 32);
            }
        }
        if (slot + 1 == capacity(w)) {
            seal(ch, b, metric);
        }
        return STORED;
    }

    /**
     * Writes {@code sn} at {@code slot} of the hot page whose block is {@code word}, state
     * {@code w} and {@code n} points (slot {@code >= n}; the slots between are missed
     * collections, stored as gaps), and publishes {@code slot + 1} points. Returns the block
     * (moved when it had no room).
     *
     * <p>The last {@code n mod STAGE} points are in the metric's staging slots, not in the page:
     * they go to the page {@link #STAGE} at a time, one cache line, when their group is complete
     * (and earlier for the aggregator and the seal). A reader that copies the staging slots of
     * group {@code g} is valid while fewer than {@code g + STAGE} points are published, so a
     * staging slot is written only after the count reached its group's first slot, with release
     * stores, and the count is published with a release store after the page writes.
     */
    private long put(Chunk ch, int b, long word, long w, int n, int slot, int sn) {
        long[] st = ch.st;
        int[] sg = ch.staged;
        int q = (b >>> 2) * STAGE;
        int g = n & ~(STAGE - 1);
        if (slot >= g + STAGE) {
            if (n > g) {
                // complete the group that has points, its missing slots as gaps, and drain it
                for (int k = n - g; k < STAGE; k++) {
                    STAGED.setRelease(sg, q + k, StorageNumber.SN_EMPTY_SLOT);
                }
                word = drain(ch, b, word, g, g + STAGE);
                n = g + STAGE;
            }
            int ng = slot & ~(STAGE - 1);
            if (ng > n) {
                // whole groups of missed collections go to the page directly
                word = ensureRoom(st, b, word, ng, n);
                long page = word & ~CLASS_MASK;
                for (int i = n; i < ng; i++) {
                    PageMemory.writeInt(page + 4L * i, StorageNumber.SN_EMPTY_SLOT);
                }
            }
            ENTRIES.setRelease(st, b + 1, pack(start(w), ng, capacity(w)));
            n = ng;
            g = ng;
        }
        for (int k = n - g; k < slot - g; k++) {
            STAGED.setRelease(sg, q + k, StorageNumber.SN_EMPTY_SLOT);
        }
        STAGED.setRelease(sg, q + slot - g, sn);
        if (slot - g == STAGE - 1) {
            word = drain(ch, b, word, g, g + STAGE);
        }
        ENTRIES.setRelease(st, b + 1, pack(start(w), slot + 1, capacity(w)));
        return word;
    }

    /**
     * Copies the staging slots of the group from {@code g} into page slots {@code [g, end)}
     * (moving the page to a larger block first when it has no room). The points stay in the
     * staging slots too until the next group's first store: readers take them from there.
     */
    private long drain(Chunk ch, int b, long word, int g, int end) {
        word = ensureRoom(ch.st, b, word, end, g);
        long page = (word & ~CLASS_MASK) + 4L * g;
        int q = (b >>> 2) * STAGE;
        int[] sg = ch.staged;
        for (int k = 0; k < end - g; k++) {
            PageMemory.writeInt(page + 4L * k, sg[q + k]);
        }
        return word;
    }

    /** Puts the staged points before {@code end} in the page too, for whoever reads the page itself. */
    private long drainPartial(Chunk ch, int b, long word, int end) {
        int g = (end - 1) & ~(STAGE - 1);
        return drain(ch, b, word, g, end);
    }

    /**
     * Loads the memory the next {@link #store} of {@code metric} will write (its state, and the
     * page line when that store completes a group of staged points), and returns a value read
     * there for the caller to fold into something it keeps, so that the loads are not optimised
     * away. Java has no prefetch instruction: a batch of stores touches the metric a few places
     * ahead with this, so that several cache misses are in flight instead of one per store. Only
     * the metric's writer calls it; it changes nothing.
     */
    public int touch(int metric) {
        Chunk[] cs = chunks;
        int c = metric >>> CHUNK_BITS;
        if (c >= cs.length || cs[c] == null) {
            return 0;
        }
        Chunk ch = cs[c];
        long[] st = ch.st;
        int b = (metric & MASK) << 2;
        long word = st[b];
        if (word == 0) {
            return 0;
        }
        int n = entries(st[b + 1]);
        int g = n & ~(STAGE - 1);
        if (n - g != STAGE - 1 || 4 * (g + STAGE) > memory.classBytes((int) (word & CLASS_MASK))) {
            // the next store stays in the staging slots (in the state's stream), or moves the
            // page to a larger block: nothing to load in this one
            return ch.staged[(b >>> 2) * STAGE];
        }
        return PageMemory.readInt((word & ~CLASS_MASK) + 4L * g);
    }

    /**
     * Moves the hot page to a larger block when {@code slots} do not fit in its block: copies
     * the first {@code copy} points, publishes the new block in one store, then retires the old
     * one (readers holding it still read valid memory until the flusher recycles it).
     */
    private long ensureRoom(long[] st, int b, long word, int slots, int copy) {
        int cls = (int) (word & CLASS_MASK);
        if (4 * slots <= memory.classBytes(cls)) {
            return word;
        }
        int ncls = memory.classFor(4 * slots);
        long na = memory.acquire(ncls);
        checkAligned(na);
        long old = word & ~CLASS_MASK;
        PageMemory.copy(old, na, 4 * copy);
        long nw = na | ncls;
        ADDR.setRelease(st, b, nw);
        memory.retire(old, cls);
        return nw;
    }

    public static void checkAligned(long a) {
        if ((a & CLASS_MASK) != 0) {
            throw new IllegalStateException("page memory block " + Long.toHexString(a) + " is not 16-byte aligned");
        }
    }

    private long open(long[] st, int b, int metric, long time, int updateEvery) {
        int cap = pagePoints;
        if ((st[b + 2] >>> 32) == 0) {
            int chart = registry.chartId(metric);
            long h = (chart >= 0 ? chart : metric) * 0x9E3779B97F4A7C15L + seed;
            h ^= h >>> 31;
            // Uniform over a whole page: the pages of all metrics are then at every moment half
            // full on average (with half a page of spread the average swings between 1/4 and 3/4).
            cap = 1 + (int) Long.remainderUnsigned(h, pagePoints);
        }
        long addr = memory.acquire(0);
        checkAligned(addr);
        st[b + 1] = pack(time, 0, cap);
        st[b + 2] = (st[b + 2] & 0xFFFF_FFFF_0000_0000L) | (updateEvery & 0xFFFF_FFFFL);
        ADDR.setRelease(st, b, addr);
        return addr;
    }

    private void seal(Chunk ch, int b, int metric) {
        long[] st = ch.st;
        long word = st[b];
        long w = st[b + 1];
        int n = entries(w);
        if ((n & (STAGE - 1)) != 0) {
            word = drainPartial(ch, b, word, n);
        }
        long addr = word & ~CLASS_MASK;
        LateAggregator agg = aggregator;
        if (agg != null) {
            int given = (int) (st[b + 3] >>> 32) & 0xFFFF;
            if (given < n) {
                agg.aggregate(metric, addr, start(w), (int) st[b + 2], given, n);
            }
            // the next page's first point goes at once: a change of update_every closes windows
            st[b + 3] = 0;
        }
        // The block goes with the page, raw: the flusher encodes it on its own thread (the
        // collecting thread only hands it over) and retires the block after that. The page is
        // dirty (visible to readers there) before it stops being hot: a reader finds the points
        // in one place or the other, never in neither, and one that still copies the hot block
        // re-checks the address and retries.
        sink.accept(DirtyPage.rawTier0(metric, registry.chartId(metric), registry.uuidMsb(metric),
                registry.uuidLsb(metric), start(w), (int) st[b + 2], n, DiskFormat.PAGE_TYPE_TIER0, word,
                nanoClock.getAsLong()));
        ADDR.setRelease(st, b, 0L);
        st[b + 2] |= 1L << 32;
    }

    /** Seals the hot page of {@code metric}, if it has one with points (shutdown, tests). */
    public void sealIfAny(int metric) {
        Chunk[] cs = chunks;
        int c = metric >>> CHUNK_BITS;
        if (c >= cs.length || cs[c] == null) {
            return;
        }
        long[] st = cs[c].st;
        int b = (metric & MASK) << 2;
        if (st[b] != 0 && entries(st[b + 1]) > 0) {
            seal(cs[c], b, metric);
        }
    }

    /** Seals every hot page with points. Only while no writer stores (shutdown, flush barrier). */
    public void sealAll() {
        int n = registry.size();
        for (int m = 0; m < n; m++) {
            sealIfAny(m);
        }
    }

    /** Frees every hot page without storing it (close after a failure). */
    public void freeAll() {
        for (Chunk ch : chunks) {
            if (ch == null) {
                continue;
            }
            for (int b = 0; b < 4 * CHUNK; b += 4) {
                long w = ch.st[b];
                if (w != 0) {
                    memory.free(w & ~CLASS_MASK, (int) (w & CLASS_MASK));
                    ch.st[b] = 0;
                }
            }
        }
    }

    /**
     * Copies the points of the hot page of {@code metric} into {@code dst} (room for a page) and
     * describes them in {@code out}; false when the metric has no hot page. A copy that raced
     * with a seal, a move to a larger block, or a store past the staged group it copied (see
     * {@link #put}) is read again.
     */
    public boolean snapshot(int metric, int[] dst, HotSnapshot out) {
        Chunk[] cs = chunks;
        int c = metric >>> CHUNK_BITS;
        if (c >= cs.length || cs[c] == null) {
            return false;
        }
        Chunk ch = cs[c];
        long[] st = ch.st;
        int b = (metric & MASK) << 2;
        int q = (metric & MASK) * STAGE;
        for (int attempt = 0; attempt < 16; attempt++) {
            long word = (long) ADDR.getAcquire(st, b);
            if (word == 0) {
                return false;
            }
            long w = (long) ENTRIES.getAcquire(st, b + 1);
            int ue = (int) st[b + 2];
            int n = Math.min(entries(w), capacity(w));
            int g = n & ~(STAGE - 1);
            if (4 * g > memory.classBytes((int) (word & CLASS_MASK))) {
                continue; // the block moved after it was read: read both again
            }
            PageMemory.copyToArray(word & ~CLASS_MASK, dst, g);
            for (int k = 0; k < n - g; k++) {
                dst[g + k] = ch.staged[q + k];
            }
            // the copies above happen before the checks below read the state again
            VarHandle.acquireFence();
            long now = st[b + 1];
            if ((long) ADDR.getAcquire(st, b) == word && start(now) == start(w) && entries(now) < g + STAGE) {
                out.startTime = start(w);
                out.updateEvery = ue;
                out.entries = n;
                return true;
            }
        }
        return false;
    }

    /** What {@link #snapshot} read. */
    public static final class HotSnapshot {
        public long startTime;
        public int updateEvery;
        public int entries;
    }
}
