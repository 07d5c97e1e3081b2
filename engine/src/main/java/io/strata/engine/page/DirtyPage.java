package io.strata.engine.page;

import java.util.Arrays;

/**
 * A sealed page waiting for the flusher. One object per page, never per point.
 *
 * <p>A tier-0 page arrives <i>raw</i>: the collecting thread hands over the hot page's off-heap
 * block as it is, and the flusher encodes it ({@link #encodeRaw}) on its own thread, as DBENGINE
 * compresses in its flush workers rather than on the collector. Tiers above arrive encoded. Once
 * encoded, a page stays so; the block is retired only after the encoding is published, and the
 * flusher recycles retired blocks only while no reader holds the engine's memory lock, so a
 * reader that saw the page raw can still copy the block. Readers use {@link #points}, which reads
 * either form.
 */
public final class DirtyPage {
    public final int metricId;
    public final int chartId;
    public final int tier;
    public final long uuidMsb;
    public final long uuidLsb;
    /** Unsigned seconds of the first slot. */
    public final long startTime;
    public final int updateEvery;
    public final int entries;
    /** {@code DiskFormat.PAGE_TYPE_*}. */
    public final int type;
    /**
     * The page as stored in an extent's payload (tier 0: {@link PageCodecTier0}); null while the
     * page is raw. Written once, by the flusher, before the raw block is retired.
     */
    public volatile byte[] encoded;
    /** When the page was sealed, by the engine's clock in nanoseconds (for batching). */
    public final long sealedNanos;
    /** The raw page's block address with its size class in the low 4 bits; 0 when it came encoded. */
    private final long rawBlock;
    /** A raw page whose block was retired unencoded ({@link #releaseRaw}); the flusher's field. */
    private boolean released;

    public DirtyPage(int metricId, int chartId, int tier, long uuidMsb, long uuidLsb, long startTime,
                     int updateEvery, int entries, int type, byte[] encoded, long sealedNanos) {
        this(metricId, chartId, tier, uuidMsb, uuidLsb, startTime, updateEvery, entries, type, encoded, sealedNanos, 0L);
    }

    private DirtyPage(int metricId, int chartId, int tier, long uuidMsb, long uuidLsb, long startTime,
                      int updateEvery, int entries, int type, byte[] encoded, long sealedNanos, long rawBlock) {
        this.metricId = metricId;
        this.chartId = chartId;
        this.tier = tier;
        this.uuidMsb = uuidMsb;
        this.uuidLsb = uuidLsb;
        this.startTime = startTime;
        this.updateEvery = updateEvery;
        this.entries = entries;
        this.type = type;
        this.encoded = encoded;
        this.sealedNanos = sealedNanos;
        this.rawBlock = rawBlock;
    }

    /**
     * A tier-0 page still in its hot block ({@code block}: address | size class), to be encoded by
     * the flusher; the block now belongs to the page.
     */
    public static DirtyPage rawTier0(int metricId, int chartId, long uuidMsb, long uuidLsb, long startTime,
                                     int updateEvery, int entries, int type, long block, long sealedNanos) {
        if (block == 0) {
            throw new IllegalArgumentException("a raw page needs its block");
        }
        return new DirtyPage(metricId, chartId, 0, uuidMsb, uuidLsb, startTime, updateEvery, entries, type, null,
                sealedNanos, block);
    }

    /** Unsigned seconds of the last slot. */
    public long endTime() {
        return startTime + (long) (entries - 1) * updateEvery;
    }

    /** Whether the page is waiting to be encoded. */
    public boolean isRaw() {
        return encoded == null;
    }

    /** Heap and off-heap bytes the page holds now: its encoding, or its raw points. */
    public long bytesHeld() {
        byte[] e = encoded;
        return e != null ? e.length : 4L * entries;
    }

    /**
     * Encodes a raw tier-0 page with the caller's scratch ({@code points}: room for the page,
     * {@code buf}: {@link PageCodecTier0#maxEncodedLength}), publishes the encoding, then retires
     * the block into {@code memory}. Called by the flusher, or by the collector that sealed the
     * page before it hands it over; a page already encoded is left as is.
     */
    public void encodeRaw(PageMemory memory, int[] points, byte[] buf) {
        if (encoded != null || released) {
            return;
        }
        long addr = rawBlock & ~HotPageTable.CLASS_MASK;
        PageMemory.copyToArray(addr, points, entries);
        int len = PageCodecTier0.encode(points, entries, buf, 0);
        encoded = Arrays.copyOf(buf, len);
        memory.retire(addr, (int) (rawBlock & HotPageTable.CLASS_MASK));
    }

    /**
     * Decodes the page's points into {@code dst} (tier 0: {@code entries} storage numbers; tiers
     * above: 4 ints a point), from its encoding or, while it is raw, from its block. A raw block
     * is valid for as long as the caller holds the engine's memory read lock.
     */
    public void points(int[] dst) {
        byte[] e = encoded;
        if (e == null) {
            PageMemory.copyToArray(rawBlock & ~HotPageTable.CLASS_MASK, dst, entries);
        } else if (tier == 0) {
            PageCodecTier0.decode(e, 0, e.length, dst, entries);
        } else {
            PageCodecTier1.decode(e, 0, e.length, dst, entries);
        }
    }

    /**
     * Copies the page's points into {@code dst} if it is still raw (its block is valid for as
     * long as the caller holds the engine's memory read lock) and returns true; false for an
     * encoded page, which the caller decodes with {@link #points} whenever it likes.
     */
    public boolean copyIfRaw(int[] dst) {
        if (encoded != null) {
            return false;
        }
        PageMemory.copyToArray(rawBlock & ~HotPageTable.CLASS_MASK, dst, entries);
        return true;
    }

    /**
     * Retires a raw page's block without encoding it (a page dropped by critical eviction or
     * discarded at close), once the page is out of the readers' view; a reader that took it
     * before still copies valid memory until the flusher's next recycling. Flusher only.
     */
    public void releaseRaw(PageMemory memory) {
        if (encoded == null && !released) {
            released = true;
            memory.retire(rawBlock & ~HotPageTable.CLASS_MASK, (int) (rawBlock & HotPageTable.CLASS_MASK));
        }
    }
}
