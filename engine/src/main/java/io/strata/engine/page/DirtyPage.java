package io.strata.engine.page;

/**
 * A page that will not be written to again, waiting for the flusher. It owns its off-heap block
 * (tag {@link PageMemory.Tag#DIRTY}); the flusher frees it once the page is in a written extent.
 * One object per page, never per point.
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
    public final long address;
    public final int allocatedBytes;
    /** When the page was sealed, by the engine's clock in nanoseconds (for batching). */
    public final long sealedNanos;

    public DirtyPage(int metricId, int chartId, int tier, long uuidMsb, long uuidLsb, long startTime,
                     int updateEvery, int entries, long address, int allocatedBytes, long sealedNanos) {
        this.metricId = metricId;
        this.chartId = chartId;
        this.tier = tier;
        this.uuidMsb = uuidMsb;
        this.uuidLsb = uuidLsb;
        this.startTime = startTime;
        this.updateEvery = updateEvery;
        this.entries = entries;
        this.address = address;
        this.allocatedBytes = allocatedBytes;
        this.sealedNanos = sealedNanos;
    }

    /** Unsigned seconds of the last slot. */
    public long endTime() {
        return startTime + (long) (entries - 1) * updateEvery;
    }
}
