package io.strata.streaming.collect;

import io.strata.engine.page.StorageNumber;

import java.util.Arrays;

/**
 * A {@link StoredPointSink} that stores through to its target and keeps what one collection of a
 * chart stored, in the order stored (slot by slot, dimensions in order within a slot): what a 2.x
 * child sends with INTERPOLATED ({@code BEGIN2}/{@code SET2}). A point is the engine metric, the
 * slot's end time, the stored value (NaN for a gap) and its storage flags. Kept in primitive
 * arrays reused from one collection to the next (they grow only when a collection stores more
 * slots than any before). Single-threaded: the collecting thread writes and reads it.
 */
public final class StoredPointLog implements StoredPointSink {

    /** A log of nothing (its target refuses points). */
    public static final StoredPointLog EMPTY = new StoredPointLog((metric, time, updateEvery, value, flags) -> {
        throw new UnsupportedOperationException("the empty log stores nothing");
    });

    private final StoredPointSink target;
    /** Whether points are logged as well as stored: off, the log stays empty and costs nothing a point. */
    private boolean recording = true;
    private int count;
    private int[] metrics = new int[8];
    private long[] times = new long[8];
    private double[] values = new double[8];
    private int[] flags = new int[8];

    public StoredPointLog(StoredPointSink target) {
        this.target = target;
    }

    /** Forgets the points of the previous collection. */
    public void clear() {
        count = 0;
    }

    /**
     * Whether the points stored from now on are logged too (they always reach the target). A
     * receiver with nobody to read the log (no forwarder) stores without it.
     */
    public void record(boolean on) {
        recording = on;
    }

    @Override
    public void store(int metricId, long pointTimeSeconds, int updateEvery, double value, int storageFlags) {
        target.store(metricId, pointTimeSeconds, updateEvery, value, storageFlags);
        if (recording) {
            log(metricId, pointTimeSeconds, value, storageFlags);
        }
    }

    private void log(int metricId, long pointTimeSeconds, double value, int storageFlags) {
        if (count == times.length) {
            int n = count * 2;
            metrics = Arrays.copyOf(metrics, n);
            times = Arrays.copyOf(times, n);
            values = Arrays.copyOf(values, n);
            flags = Arrays.copyOf(flags, n);
        }
        metrics[count] = metricId;
        times[count] = pointTimeSeconds;
        values[count] = value;
        flags[count] = storageFlags;
        count++;
    }

    /** Stores through {@link StoredPointSink#storeReplayed} and logs the point as {@link #store} would. */
    @Override
    public boolean storeReplayed(int metricId, long pointTimeSeconds, int updateEvery, double value, int storageFlags) {
        boolean ok = target.storeReplayed(metricId, pointTimeSeconds, updateEvery, value, storageFlags);
        if (recording) {
            log(metricId, pointTimeSeconds, value, storageFlags);
        }
        return ok;
    }

    /** Past runs go to the target only: they are not a collection of the chart (nothing to forward as one). */
    @Override
    public boolean submitPast(int metricId, long firstTime, int updateEvery, int[] sns, int from, int pointCount) {
        return target.submitPast(metricId, firstTime, updateEvery, sns, from, pointCount);
    }

    /**
     * Hands the slot to the target in one call (the engine's sink stores it as one batch, hot
     * pages loaded ahead) and logs its points as {@link #store} would, dimension by dimension: a
     * NaN with {@code SN_FLAG_NONE}, every other value with {@code storageFlags}.
     */
    @Override
    public void storeSlot(int[] metricIds, double[] slotValues, int slotCount, long pointTimeSeconds, int updateEvery,
                          int storageFlags) {
        target.storeSlot(metricIds, slotValues, slotCount, pointTimeSeconds, updateEvery, storageFlags);
        if (!recording) {
            return;
        }
        if (count + slotCount > times.length) {
            int n = Math.max(count * 2, count + slotCount);
            metrics = Arrays.copyOf(metrics, n);
            times = Arrays.copyOf(times, n);
            values = Arrays.copyOf(values, n);
            flags = Arrays.copyOf(flags, n);
        }
        for (int i = 0; i < slotCount; i++) {
            double v = slotValues[i];
            metrics[count] = metricIds[i];
            times[count] = pointTimeSeconds;
            values[count] = v;
            flags[count] = Double.isNaN(v) ? StorageNumber.SN_FLAG_NONE : storageFlags;
            count++;
        }
    }

    public int storedPoints() {
        return count;
    }

    public int storedMetric(int point) {
        return metrics[point];
    }

    public long storedTime(int point) {
        return times[point];
    }

    public double storedValue(int point) {
        return values[point];
    }

    public int storedFlags(int point) {
        return flags[point];
    }
}
