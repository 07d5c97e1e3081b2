package io.strata.streaming.collect;

import io.strata.engine.StorageEngine;

/**
 * Where a {@link ChartCollector} puts the points it computes: one call per dimension per slot,
 * in increasing slot time for a given dimension. The engine adapter implements it.
 */
@FunctionalInterface
public interface StoredPointSink {

    /**
     * Stores one tier-0 point.
     *
     * @param metricId          the id given to {@link ChartCollector#addDimension}
     * @param pointTimeSeconds  the end of the slot, unix seconds (a multiple of {@code updateEvery}
     *                          for live data, unless update_every changed mid-chart;
     *                          replicated points keep the child's times)
     * @param updateEvery       the chart's update_every in seconds when the point was stored
     * @param value             the value to store; NaN = gap (nothing collected for that slot)
     * @param flags             engine StorageNumber user flags
     *                          ({@code io.strata.engine.page.StorageNumber.SN_FLAG_RESET} /
     *                          {@code SN_FLAG_NOT_ANOMALOUS}); {@code SN_FLAG_NONE} for gaps
     */
    void store(int metricId, long pointTimeSeconds, int updateEvery, double value, int flags);

    /** The sink that stores into {@code engine}: NaN is a gap. */
    static StoredPointSink into(StorageEngine engine) {
        return (metricId, time, updateEvery, value, flags) -> {
            if (Double.isNaN(value)) {
                engine.storeGap(metricId, time, updateEvery);
            } else {
                engine.store(metricId, time, updateEvery, value, flags);
            }
        };
    }
}
