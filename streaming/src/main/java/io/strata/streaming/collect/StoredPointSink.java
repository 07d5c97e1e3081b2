package io.strata.streaming.collect;

import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;

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

    /**
     * Stores one slot of several dimensions at once: {@code values[i]} for {@code metricIds[i]},
     * {@code i < count}, all at {@code pointTimeSeconds}; a NaN value is a gap (stored with
     * {@code SN_FLAG_NONE}), every other value gets {@code flags}. The same as {@link #store} for
     * each dimension in turn, which is what this default does; the engine's sink hands the slot
     * over in one call.
     */
    default void storeSlot(int[] metricIds, double[] values, int count, long pointTimeSeconds, int updateEvery,
                           int flags) {
        for (int i = 0; i < count; i++) {
            double v = values[i];
            store(metricIds[i], pointTimeSeconds, updateEvery, v, Double.isNaN(v) ? StorageNumber.SN_FLAG_NONE : flags);
        }
    }

    /**
     * Stores a replayed point (an {@code RSET}) as {@link #store} does, and tells whether it was
     * stored: false when the engine refused it (at or before its metric's newest point), in which
     * case the collector may offer it again through {@link #submitPast}. This default stores and
     * answers true.
     */
    default boolean storeReplayed(int metricId, long pointTimeSeconds, int updateEvery, double value, int flags) {
        store(metricId, pointTimeSeconds, updateEvery, value, flags);
        return true;
    }

    /**
     * Hands over a run of points behind the metric's newest one, to be stored where the metric
     * holds no value ({@code StorageEngine.submitPast}: copied, stored on the engine's past-writer
     * thread, never on the caller's): {@code sns[from + i]} (storage numbers, the empty one for a
     * slot the run lacks) at {@code firstTime + i × updateEvery}. Returns false when the run was
     * refused (the engine's queue is full). This default refuses every run.
     */
    default boolean submitPast(int metricId, long firstTime, int updateEvery, int[] sns, int from, int count) {
        return false;
    }

    /** The sink that stores into {@code engine}: NaN is a gap. */
    static StoredPointSink into(StorageEngine engine) {
        return new StoredPointSink() {
            @Override
            public void store(int metricId, long time, int updateEvery, double value, int flags) {
                if (Double.isNaN(value)) {
                    engine.storeGap(metricId, time, updateEvery);
                } else {
                    engine.store(metricId, time, updateEvery, value, flags);
                }
            }

            @Override
            public boolean storeReplayed(int metricId, long time, int updateEvery, double value, int flags) {
                return Double.isNaN(value) ? engine.storeGap(metricId, time, updateEvery)
                        : engine.store(metricId, time, updateEvery, value, flags);
            }

            @Override
            public boolean submitPast(int metricId, long firstTime, int updateEvery, int[] sns, int from, int count) {
                return engine.submitPast(metricId, firstTime, updateEvery, sns, from, count);
            }

            /**
             * A chart's slot in one {@link StorageEngine#storeBatch} (the same points as a store
             * each: a NaN packs to the gap's storage number whatever the flags), which loads
             * the dimensions' hot pages ahead and checks its bookkeeping once, not per point.
             */
            @Override
            public void storeSlot(int[] metricIds, double[] values, int count, long time, int updateEvery,
                                  int flags) {
                engine.storeBatch(metricIds, 0, values, 0, count, time, updateEvery, flags);
            }
        };
    }
}
