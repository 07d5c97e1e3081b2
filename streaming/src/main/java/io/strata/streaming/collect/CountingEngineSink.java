package io.strata.streaming.collect;

import io.strata.engine.StorageEngine;

/**
 * {@link StoredPointSink#into}'s engine sink that also counts, from the last {@link #startCounting},
 * the points offered and the points the engine stored: a collection whose every point was refused
 * (none after its metric's last stored point) is not the node's data for those seconds and is
 * neither streamed by a child nor forwarded by a parent (docs/chaos.md, finding 3). Single-threaded,
 * as its collectors are.
 */
public final class CountingEngineSink implements StoredPointSink {

    private final StorageEngine engine;
    private int offered;
    private int stored;

    public CountingEngineSink(StorageEngine engine) {
        this.engine = engine;
    }

    /** Starts counting a collection's points. */
    public void startCounting() {
        offered = 0;
        stored = 0;
    }

    /** Points were offered since {@link #startCounting} and the engine stored none of them. */
    public boolean refusedAll() {
        return offered > 0 && stored == 0;
    }

    @Override
    public void store(int metricId, long time, int updateEvery, double value, int flags) {
        offered++;
        boolean ok = Double.isNaN(value) ? engine.storeGap(metricId, time, updateEvery)
                : engine.store(metricId, time, updateEvery, value, flags);
        if (ok) {
            stored++;
        }
    }

    /** As {@link #store}, telling whether the engine stored the point. */
    @Override
    public boolean storeReplayed(int metricId, long time, int updateEvery, double value, int flags) {
        offered++;
        boolean ok = Double.isNaN(value) ? engine.storeGap(metricId, time, updateEvery)
                : engine.store(metricId, time, updateEvery, value, flags);
        if (ok) {
            stored++;
        }
        return ok;
    }

    @Override
    public boolean submitPast(int metricId, long firstTime, int updateEvery, int[] sns, int from, int count) {
        return engine.submitPast(metricId, firstTime, updateEvery, sns, from, count);
    }

    /** The slot in one {@link StorageEngine#storeBatch}, as {@link StoredPointSink#into}'s. */
    @Override
    public void storeSlot(int[] metricIds, double[] values, int count, long time, int updateEvery, int flags) {
        offered += count;
        stored += engine.storeBatch(metricIds, 0, values, 0, count, time, updateEvery, flags);
    }
}
