package io.strata.engine.page;

import io.strata.engine.DiskFormat;
import io.strata.engine.registry.MetricRegistry;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.lang.invoke.VarHandle;
import java.lang.invoke.MethodHandles;

/**
 * One higher tier (1..4) of every metric, updated in real time as tier 0 is collected, as
 * Netdata's {@code store_metric_at_tier} does: each tier-0 point is merged into the metric's
 * <em>open window</em> (sum, min, max, count, anomaly count) of {@code step = update_every ×
 * grouping^tier} seconds; when a point arrives past the window, the window becomes one 16-byte
 * point at the window's end time ({@code (T − step, T]}, T a multiple of step) in the tier's hot
 * page. A window without values becomes a gap point (count 0). The open window itself is not
 * visible to readers and not persisted: after a restart, backfill rebuilds it from tier 0.
 *
 * <p>Hot pages work as in {@link HotPageTable}: fixed step, gap points for missing windows, a
 * change of {@code update_every} or a full page seals the page, encoded with
 * {@link PageCodecTier1}, to the sink. State is a struct of arrays in chunks by metric id; one
 * writer thread per metric; readers use {@link #snapshot}.
 */
public final class HotAggregateTable {

    private static final int CHUNK_BITS = 12;
    private static final int CHUNK = 1 << CHUNK_BITS;
    private static final int MASK = CHUNK - 1;
    /** Points of tier 1+ are 4 ints (see {@link PageCodecTier1}). */
    private static final int INTS = 4;
    /** The largest count a tier point stores (u16); see {@link #closeWindow}. */
    public static final long MAX_STORED_COUNT = 0xFFFF;
    /** The longest step a tier page holds: its step is an int of seconds. */
    public static final long MAX_STEP = Integer.MAX_VALUE;
    /** Publishes a hot page's entry count after its points, as {@link HotPageTable} publishes its own. */
    private static final VarHandle ENTRIES =
            MethodHandles.arrayElementVarHandle(short[].class);

    private final int tier;
    private final long groupingPow;
    private final MetricRegistry registry;
    private final Consumer<DirtyPage> sink;
    private final PageMemory memory;
    private final int pagePoints;
    private final long seed;
    private final LongSupplier nanoClock;
    private volatile Chunk[] chunks = new Chunk[0];
    /** The next tier, which live merges feed with each window this tier closes; null for the top one. */
    private HotAggregateTable upper;

    private static final class Chunk {
        /**
         * The open window of each metric, 4 longs side by side so that merging a value touches
         * one cache line: [0] sum (double bits), [1] min | max (float bits, low | high),
         * [2] window end (u32) | tier-0 update_every << 32 (end 0: no window),
         * [3] count (low 32) | anomaly count << 32.
         */
        final long[] win = new long[4 * CHUNK];
        // the hot page
        final long[] addr = new long[CHUNK];
        final int[] start = new int[CHUNK];
        final short[] entries = new short[CHUNK];
        final short[] capacity = new short[CHUNK];
        /** The page's step in seconds (tier-0 update_every × grouping^tier). */
        final int[] step = new int[CHUNK];
        final boolean[] sealedOnce = new boolean[CHUNK];
    }

    private static final ThreadLocal<int[]> SEAL_POINTS =
            ThreadLocal.withInitial(() -> new int[INTS * DiskFormat.pagePoints(1)]);
    private static final ThreadLocal<byte[]> SEAL_BYTES =
            ThreadLocal.withInitial(() -> new byte[PageCodecTier1.maxEncodedLength(DiskFormat.pagePoints(1))]);

    public HotAggregateTable(int tier, int grouping, MetricRegistry registry, Consumer<DirtyPage> sink,
                             PageMemory memory, long seed, LongSupplier nanoClock) {
        if (tier < 1) {
            throw new IllegalArgumentException("aggregate tiers start at 1, got " + tier);
        }
        long g = 1;
        for (int t = 0; t < tier; t++) {
            g *= grouping;
        }
        this.tier = tier;
        this.groupingPow = g;
        this.registry = registry;
        this.sink = sink;
        this.memory = memory;
        this.pagePoints = DiskFormat.pagePoints(tier);
        this.seed = seed;
        this.nanoClock = nanoClock;
    }

    public int tier() {
        return tier;
    }

    /**
     * Makes {@code next} (tier + 1, same grouping) the tier that {@link #addSlots} feeds through
     * this one: each window this tier closes is merged there as one aggregate, instead of every
     * tier-0 value being merged in every tier. Set before any store.
     */
    public void setUpper(HotAggregateTable next) {
        if (next != null && next.tier != tier + 1) {
            throw new IllegalArgumentException("tier " + tier + " feeds tier " + (tier + 1) + ", not " + next.tier);
        }
        this.upper = next;
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
     * Merges tier-0 storage number {@code sn} of {@code metric} at {@code time} (collected every
     * {@code updateEvery}) into the open window. Points at or before the open window are ignored
     * (the tier-0 table has already refused them).
     */
    public void add(int metric, long time, int updateEvery, int sn) {
        if (sn == StorageNumber.SN_EMPTY_SLOT) {
            addAggregate(metric, time, updateEvery, 0, 0, 0, 0, 0);
            return;
        }
        double v = StorageNumber.unpack(sn);
        addAggregate(metric, time, updateEvery, v, v, v, 1, (sn & StorageNumber.SN_FLAG_NOT_ANOMALOUS) == 0 ? 1 : 0);
    }

    /**
     * Merges tier-0 slots {@code [from, to)} of a hot page at {@code page} (slot {@code i} at
     * {@code start + i × updateEvery}) into the open windows of {@code tiers[1..]}, in order, and
     * returns the end of tier 1's open window: until a point passes it no window of any tier can
     * close (a higher tier's windows end on multiples of tier 1's step), so the points up to it
     * can wait in the hot page ({@link HotPageTable.LateAggregator}). An empty slot before the
     * last is skipped: it is a missed collection, which never reaches the tiers, or a stored gap
     * within the open window, which changes nothing there; the last slot is the one that may
     * close windows, gap or not. The result is what {@link #add} point by point gives.
     */
    public static long addSlots(HotAggregateTable[] tiers, int metric, long page, long start, int updateEvery,
                                int from, int to) {
        HotAggregateTable first = tiers[1];
        boolean cascade = first.upper != null;
        int last = to - 1;
        if (!cascade && tiers.length > 2) {
            // tiers 2+ are fed only through tier 1's cascade (StorageEngine links them)
            throw new IllegalStateException("tier 1 has no upper tier linked, but there are " + tiers.length + " tiers");
        }
        int i = from;
        while (i < to) {
            // Most slots fall inside tier 1's open window: summed in a loop of locals, written
            // back once. A slot past the window closes it, through merge (which cascades).
            i = first.accumulate(metric, page, start, updateEvery, i, to);
            if (i == to) {
                break;
            }
            int sn = PageMemory.readInt(page + 4L * i);
            if (sn == StorageNumber.SN_EMPTY_SLOT && i != last) {
                i++;
                continue;
            }
            long t = start + (long) i * updateEvery;
            if (sn == StorageNumber.SN_EMPTY_SLOT) {
                first.merge(metric, t, updateEvery, 0, 0, 0, 0, 0, cascade);
            } else {
                double v = StorageNumber.unpack(sn);
                first.merge(metric, t, updateEvery, v, v, v, 1,
                        (sn & StorageNumber.SN_FLAG_NOT_ANOMALOUS) == 0 ? 1 : 0, cascade);
            }
            i++;
        }
        return first.openWindowEnd(metric);
    }

    /**
     * Merges the tier-0 slots from {@code from} on that lie inside the open window of {@code
     * metric} (with the same update_every), stopping at the first slot after the window's end,
     * and returns that slot (or {@code to}). The same arithmetic in the same order as {@link
     * #merge} point by point, so the window's double sum is bit for bit the same; empty slots and
     * points before the window change nothing there, as in merge.
     */
    private int accumulate(int metric, long page, long start, int updateEvery, int from, int to) {
        Chunk ch = chunkFor(metric);
        long[] w = ch.win;
        int b = (metric & MASK) << 2;
        long endUe = w[b + 2];
        long end = endUe & 0xFFFF_FFFFL;
        if (end == 0 || (int) (endUe >>> 32) != updateEvery || end < start) {
            return from;
        }
        long inWindow = (end - start) / updateEvery + 1;
        int stop = (int) Math.min(to, inWindow);
        if (stop <= from) {
            return from;
        }
        long lowest = end - (long) updateEvery * groupingPow;
        long ca = w[b + 3];
        long caBefore = ca;
        double sum = Double.longBitsToDouble(w[b]);
        long mm = w[b + 1];
        float mn = Float.intBitsToFloat((int) mm);
        float mx = Float.intBitsToFloat((int) (mm >>> 32));
        for (int i = from; i < stop; i++) {
            int sn = PageMemory.readInt(page + 4L * i);
            if (sn == StorageNumber.SN_EMPTY_SLOT || start + (long) i * updateEvery <= lowest) {
                continue;
            }
            double v = StorageNumber.unpack(sn);
            if ((int) ca == 0) {
                sum = v;
                mn = (float) v;
                mx = (float) v;
            } else {
                sum = sum + v;
                if (v < mn) {
                    mn = (float) v;
                }
                if (v > mx) {
                    mx = (float) v;
                }
            }
            ca += 1 + ((long) ((sn & StorageNumber.SN_FLAG_NOT_ANOMALOUS) == 0 ? 1 : 0) << 32);
        }
        if (ca != caBefore) {
            w[b] = Double.doubleToRawLongBits(sum);
            w[b + 1] = (Float.floatToRawIntBits(mn) & 0xFFFF_FFFFL) | ((long) Float.floatToRawIntBits(mx) << 32);
            w[b + 3] = ca;
        }
        return stop;
    }

    /**
     * Merges an aggregate of a lower tier (backfill): {@code time} is the end of its interval,
     * which lies in one window of this tier; {@code count} 0 is a gap, which only moves time.
     */
    public void addAggregate(int metric, long time, int updateEvery, double sum, double min, double max, int count,
                             int anomalies) {
        merge(metric, time, updateEvery, sum, min, max, count, anomalies, false);
    }

    /**
     * Merges an aggregate ending at {@code time}; with {@code cascade}, a window this closes goes
     * to {@link #upper} as one aggregate at its end time, and the upper tier's time then moves to
     * {@code time} (which may close its window), in that order: what merging every tier-0 value
     * in every tier does, but the upper tiers do their work once per window of this one. The sum
     * then adds this tier's double-precision window sums rather than the values one by one (the
     * same to float precision, in which the sum is stored).
     */
    private void merge(int metric, long time, int updateEvery, double sum, double min, double max, int count,
                       int anomalies, boolean cascade) {
        Chunk ch = chunkFor(metric);
        int s = metric & MASK;
        long[] w = ch.win;
        int b = s << 2;
        long endUe = w[b + 2];
        long end = endUe & 0xFFFF_FFFFL;
        long step = (long) updateEvery * groupingPow;
        if (step > MAX_STEP) {
            // A window of more than 68 years (update_every x grouping^tier): no point of this
            // tier can ever close in 32-bit time; the tier keeps nothing of such a metric.
            return;
        }
        boolean closes = end != 0 && ((int) (endUe >>> 32) != updateEvery || time > end);
        if (closes) {
            HotAggregateTable up = cascade ? upper : null;
            if (up != null) {
                long ca = w[b + 3];
                int n = (int) ca;
                long mm = w[b + 1];
                double wSum = Double.longBitsToDouble(w[b]);
                float wMin = Float.intBitsToFloat((int) mm);
                float wMax = Float.intBitsToFloat((int) (mm >>> 32));
                int ue = (int) (endUe >>> 32);
                closeWindow(ch, s, metric);
                openWindow(w, b, time, updateEvery, step);
                up.merge(metric, end, ue, wSum, wMin, wMax, n, (int) (ca >>> 32), true);
                up.merge(metric, time, updateEvery, 0, 0, 0, 0, 0, true);
            } else {
                closeWindow(ch, s, metric);
                openWindow(w, b, time, updateEvery, step);
            }
        } else if (end == 0) {
            openWindow(w, b, time, updateEvery, step);
            if (cascade && upper != null) {
                upper.merge(metric, time, updateEvery, 0, 0, 0, 0, 0, true);
            }
        } else if (time <= end - step) {
            return;
        }
        if (count == 0) {
            return;
        }
        long ca = w[b + 3];
        if ((int) ca == 0) {
            w[b] = Double.doubleToRawLongBits(sum);
            w[b + 1] = (Float.floatToRawIntBits((float) min) & 0xFFFF_FFFFL)
                    | ((long) Float.floatToRawIntBits((float) max) << 32);
        } else {
            w[b] = Double.doubleToRawLongBits(Double.longBitsToDouble(w[b]) + sum);
            long mm = w[b + 1];
            float mn = Float.intBitsToFloat((int) mm);
            float mx = Float.intBitsToFloat((int) (mm >>> 32));
            if (min < mn || max > mx) {
                if (min < mn) {
                    mn = (float) min;
                }
                if (max > mx) {
                    mx = (float) max;
                }
                w[b + 1] = (Float.floatToRawIntBits(mn) & 0xFFFF_FFFFL) | ((long) Float.floatToRawIntBits(mx) << 32);
            }
        }
        w[b + 3] = ca + count + ((long) anomalies << 32);
    }

    private static void openWindow(long[] w, int b, long time, int updateEvery, long step) {
        long end = (time + step - 1) / step * step;
        w[b] = 0;
        w[b + 1] = 0;
        w[b + 2] = (end & 0xFFFF_FFFFL) | ((long) updateEvery << 32);
        w[b + 3] = 0;
    }

    /** Writes the open window as a point of the hot page. */
    private void closeWindow(Chunk ch, int s, int metric) {
        long[] w = ch.win;
        int b = s << 2;
        long endUe = w[b + 2];
        long end = endUe & 0xFFFF_FFFFL;
        int step = (int) ((endUe >>> 32) * groupingPow);
        long ca = w[b + 3];
        int count = (int) ca;
        int anomalies = (int) (ca >>> 32);
        int w0;
        int w1;
        int w2;
        if (count == 0) {
            w0 = 0;
            w1 = 0;
            w2 = 0;
        } else {
            w0 = Float.floatToRawIntBits((float) Double.longBitsToDouble(w[b]));
            w1 = (int) w[b + 1];
            w2 = (int) (w[b + 1] >>> 32);
        }
        int w3;
        if (Integer.toUnsignedLong(count) <= MAX_STORED_COUNT) {
            w3 = count | (anomalies << 16);
        } else {
            // The stored count is a u16 (Netdata's format): only tier 3+ at 1-second collection
            // passes it (216 000 points in a tier-3 window). Stored as is, the count saturated
            // while the sum covered every point, and averages were wrong by the ratio. The count
            // becomes the window's weight, capped at 65535, and the sum and anomaly count are
            // scaled by the same factor: sum / count is the window's mean and anomalies / count
            // its anomaly rate, as collected; min and max are untouched.
            double scale = (double) MAX_STORED_COUNT / Integer.toUnsignedLong(count);
            w0 = Float.floatToRawIntBits((float) (Double.longBitsToDouble(w[b]) * scale));
            int scaledAnomalies = (int) Math.min(MAX_STORED_COUNT, Math.round(Integer.toUnsignedLong(anomalies) * scale));
            w3 = (int) MAX_STORED_COUNT | (scaledAnomalies << 16);
        }
        w[b + 2] = 0;
        writePoint(ch, s, metric, end, step, w0, w1, w2, w3);
    }

    private void writePoint(Chunk ch, int s, int metric, long time, int step, int w0, int w1, int w2, int w3) {
        long addr = ch.addr[s];
        int slot;
        if (addr == 0) {
            addr = open(ch, s, metric, time, step);
            slot = 0;
        } else {
            long start = Integer.toUnsignedLong(ch.start[s]);
            int n = ch.entries[s];
            if (step != ch.step[s]) {
                seal(ch, s, metric);
                addr = open(ch, s, metric, time, step);
                slot = 0;
            } else {
                long d = time - start;
                long idx = d / step;
                if (d < 0 || idx < n) {
                    return;
                }
                if (idx >= ch.capacity[s]) {
                    seal(ch, s, metric);
                    addr = open(ch, s, metric, time, step);
                    slot = 0;
                } else {
                    slot = (int) idx;
                    addr = ensureRoom(ch, s, addr, slot, n);
                    for (int g = n; g < slot; g++) {
                        long a = (addr & ~HotPageTable.CLASS_MASK) + 16L * g;
                        PageMemory.writeInt(a, 0);
                        PageMemory.writeInt(a + 4, 0);
                        PageMemory.writeInt(a + 8, 0);
                        PageMemory.writeInt(a + 12, 0);
                    }
                }
            }
        }
        long a = (addr & ~HotPageTable.CLASS_MASK) + 16L * slot;
        PageMemory.writeInt(a, w0);
        PageMemory.writeInt(a + 4, w1);
        PageMemory.writeInt(a + 8, w2);
        PageMemory.writeInt(a + 12, w3);
        // released after the point: a reader that acquires the count finds its points written
        ENTRIES.setRelease(ch.entries, s, (short) (slot + 1));
        registry.extend(metric, tier, time, time);
        if (slot + 1 == ch.capacity[s]) {
            seal(ch, s, metric);
        }
    }

    /** As {@link HotPageTable}: moves the page to a larger block when {@code slot} is past its block. */
    private long ensureRoom(Chunk ch, int s, long word, int slot, int n) {
        int cls = (int) (word & HotPageTable.CLASS_MASK);
        if (16 * (slot + 1) <= memory.classBytes(cls)) {
            return word;
        }
        int ncls = memory.classFor(16 * (slot + 1));
        long na = memory.acquire(ncls);
        HotPageTable.checkAligned(na);
        long old = word & ~HotPageTable.CLASS_MASK;
        PageMemory.copy(old, na, 16 * n);
        long nw = na | ncls;
        HotPageTable.ADDR.setRelease(ch.addr, s, nw);
        memory.retire(old, cls);
        return nw;
    }

    private long open(Chunk ch, int s, int metric, long time, int step) {
        int cap = pagePoints;
        if (!ch.sealedOnce[s]) {
            int chart = registry.chartId(metric);
            long h = ((chart >= 0 ? chart : metric) * 0x9E3779B97F4A7C15L + seed) ^ (tier * 0xC2B2AE3D27D4EB4FL);
            h ^= h >>> 31;
            // uniform over a whole page, as tier 0's (HotPageTable.open): a tier-1 page spans
            // 128 minutes, and pages that all started together would all seal together
            cap = 1 + (int) Long.remainderUnsigned(h, pagePoints);
        }
        long addr = memory.acquire(0);
        HotPageTable.checkAligned(addr);
        ch.start[s] = (int) time;
        ch.step[s] = step;
        ch.capacity[s] = (short) cap;
        ENTRIES.setRelease(ch.entries, s, (short) 0);
        // published last: a reader that acquires the address sees the page's start, step and count
        HotPageTable.ADDR.setRelease(ch.addr, s, addr);
        return addr;
    }

    private void seal(Chunk ch, int s, int metric) {
        long word = ch.addr[s];
        long addr = word & ~HotPageTable.CLASS_MASK;
        int n = ch.entries[s];
        int[] pts = SEAL_POINTS.get();
        byte[] buf = SEAL_BYTES.get();
        PageMemory.copyToArray(addr, pts, INTS * n);
        int len = PageCodecTier1.encode(pts, n, buf, 0);
        byte[] encoded = Arrays.copyOf(buf, len);
        // The page is dirty (visible to readers there) before it stops being hot, and the block
        // is retired only then: a reader finds the points in one place or the other, never in
        // neither, and one that still copies the old block re-checks the address and retries.
        sink.accept(new DirtyPage(metric, registry.chartId(metric), tier, registry.uuidMsb(metric),
                registry.uuidLsb(metric), Integer.toUnsignedLong(ch.start[s]), ch.step[s], n,
                DiskFormat.PAGE_TYPE_TIER1, encoded, nanoClock.getAsLong()));
        HotPageTable.ADDR.setRelease(ch.addr, s, 0L);
        ch.sealedOnce[s] = true;
        memory.retire(addr, (int) (word & HotPageTable.CLASS_MASK));
    }

    /** Seals the hot page of {@code metric} if it has points; the open window stays open. */
    public void sealIfAny(int metric) {
        Chunk[] cs = chunks;
        int c = metric >>> CHUNK_BITS;
        if (c >= cs.length || cs[c] == null) {
            return;
        }
        Chunk ch = cs[c];
        int s = metric & MASK;
        if (ch.addr[s] != 0 && ch.entries[s] > 0) {
            seal(ch, s, metric);
        }
    }

    /** Seals every hot page with points. Only while no writer stores (shutdown, flush barrier). */
    public void sealAll() {
        int n = registry.size();
        for (int m = 0; m < n; m++) {
            sealIfAny(m);
        }
    }

    /** Frees every hot page without storing it. */
    public void freeAll() {
        for (Chunk ch : chunks) {
            if (ch == null) {
                continue;
            }
            for (int s = 0; s < CHUNK; s++) {
                long w = ch.addr[s];
                if (w != 0) {
                    memory.free(w & ~HotPageTable.CLASS_MASK, (int) (w & HotPageTable.CLASS_MASK));
                    ch.addr[s] = 0;
                }
            }
        }
    }

    /**
     * The end time of the open window of {@code metric} (unsigned seconds), or 0 when it has none:
     * points up to {@code end − step} are in pages, the window's are still being aggregated.
     */
    public long openWindowEnd(int metric) {
        Chunk[] cs = chunks;
        int c = metric >>> CHUNK_BITS;
        if (c >= cs.length || cs[c] == null) {
            return 0;
        }
        return cs[c].win[((metric & MASK) << 2) + 2] & 0xFFFF_FFFFL;
    }

    /**
     * The start of the open window of {@code metric} (its end minus its step; the window holds
     * values after it), or 0 when it has none.
     */
    public long openWindowStart(int metric) {
        Chunk[] cs = chunks;
        int c = metric >>> CHUNK_BITS;
        if (c >= cs.length || cs[c] == null) {
            return 0;
        }
        long endUe = cs[c].win[((metric & MASK) << 2) + 2];
        long end = endUe & 0xFFFF_FFFFL;
        return end == 0 ? 0 : end - (endUe >>> 32) * groupingPow;
    }

    /**
     * Copies the points of the hot page of {@code metric} into {@code dst} (room for
     * {@code 4 × pagePoints(1)} ints) and describes them in {@code out}; false when there is none.
     */
    public boolean snapshot(int metric, int[] dst, HotPageTable.HotSnapshot out) {
        Chunk[] cs = chunks;
        int c = metric >>> CHUNK_BITS;
        if (c >= cs.length || cs[c] == null) {
            return false;
        }
        Chunk ch = cs[c];
        int s = metric & MASK;
        for (int attempt = 0; attempt < 16; attempt++) {
            long word = (long) HotPageTable.ADDR.getAcquire(ch.addr, s);
            if (word == 0) {
                return false;
            }
            int start = ch.start[s];
            int step = ch.step[s];
            int n = Math.min(Math.min((short) ENTRIES.getAcquire(ch.entries, s), ch.capacity[s]),
                    memory.classBytes((int) (word & HotPageTable.CLASS_MASK)) / 16);
            PageMemory.copyToArray(word & ~HotPageTable.CLASS_MASK, dst, INTS * n);
            if ((long) HotPageTable.ADDR.getAcquire(ch.addr, s) == word && ch.start[s] == start) {
                out.startTime = Integer.toUnsignedLong(start);
                out.updateEvery = step;
                out.entries = n;
                return true;
            }
        }
        return false;
    }
}
