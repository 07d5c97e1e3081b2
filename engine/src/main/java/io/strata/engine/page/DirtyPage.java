package io.strata.engine.page;

/**
 * A sealed page waiting for the flusher, already encoded by the thread that sealed it (so that
 * encoding runs on every collecting core, and a dirty page costs its encoded size rather than a
 * whole page). Immutable; one object per page, never per point.
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
    /** The page as stored in an extent's payload (tier 0: {@link PageCodecTier0}). */
    public final byte[] encoded;
    /** When the page was sealed, by the engine's clock in nanoseconds (for batching). */
    public final long sealedNanos;

    public DirtyPage(int metricId, int chartId, int tier, long uuidMsb, long uuidLsb, long startTime,
                     int updateEvery, int entries, int type, byte[] encoded, long sealedNanos) {
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
    }

    /** Unsigned seconds of the last slot. */
    public long endTime() {
        return startTime + (long) (entries - 1) * updateEvery;
    }
}
