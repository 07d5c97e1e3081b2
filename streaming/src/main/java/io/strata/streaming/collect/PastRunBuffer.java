package io.strata.streaming.collect;

import io.strata.engine.page.StorageNumber;

import java.util.Arrays;

/**
 * The replayed points of a chart's dimensions that the engine refused because they lie behind
 * their metric's newest point (a replication answer for a hole stored past, from a peer or the
 * child): gathered per dimension into runs of consecutive slots and handed to
 * {@link StoredPointSink#submitPast} when a run breaks (a slot skipped, another update_every, a
 * full page of {@link #RUN_POINTS}) and when the answer ends ({@link #flushAll}). The engine stores
 * them where the metric holds no value and rebuilds its higher tiers over them.
 *
 * <p>Primitive: a run is an {@code int[]} of storage numbers per dimension, allocated at the
 * dimension's first past point and reused; no object per point. Single-threaded, as its
 * {@link ChartCollector}.
 */
final class PastRunBuffer {

    /** Points of a run: a tier-0 page. */
    static final int RUN_POINTS = 1024;

    private final StoredPointSink sink;
    private int[][] runs = new int[0][];
    private long[] first = new long[0];
    private int[] updateEvery = new int[0];
    private int[] count = new int[0];
    private int[] metricIds = new int[0];
    private int open;
    private long offered;
    private long runsRefused;

    PastRunBuffer(StoredPointSink sink) {
        this.sink = sink;
    }

    /**
     * Adds the refused point of dimension {@code index} (metric {@code metricId}) at {@code time}:
     * a value ({@code sn}), or a gap ({@link StorageNumber#SN_EMPTY_SLOT}), which only keeps an
     * open run contiguous and starts none.
     */
    void add(int index, int metricId, long time, int ue, int sn) {
        if (index >= count.length) {
            int n = Math.max(index + 1, count.length * 2);
            runs = Arrays.copyOf(runs, n);
            first = Arrays.copyOf(first, n);
            updateEvery = Arrays.copyOf(updateEvery, n);
            count = Arrays.copyOf(count, n);
            metricIds = Arrays.copyOf(metricIds, n);
        }
        int c = count[index];
        if (c > 0 && (ue != updateEvery[index] || metricId != metricIds[index]
                || time != first[index] + (long) c * ue || c == RUN_POINTS)) {
            flush(index);
            c = 0;
        }
        if (c == 0) {
            if (sn == StorageNumber.SN_EMPTY_SLOT) {
                return;
            }
            if (runs[index] == null) {
                runs[index] = new int[RUN_POINTS];
            }
            first[index] = time;
            updateEvery[index] = ue;
            metricIds[index] = metricId;
            open++;
        }
        if (sn != StorageNumber.SN_EMPTY_SLOT) {
            offered++;
        }
        runs[index][c] = sn;
        count[index] = c + 1;
    }

    /** Hands every open run to the sink. */
    void flushAll() {
        for (int i = 0; open > 0 && i < count.length; i++) {
            if (count[i] > 0) {
                flush(i);
            }
        }
    }

    private void flush(int index) {
        int c = count[index];
        count[index] = 0;
        open--;
        if (!sink.submitPast(metricIds[index], first[index], updateEvery[index], runs[index], 0, c)) {
            runsRefused++;
        }
    }

    /** Values refused by the normal store and offered behind their metric's newest point. */
    long offered() {
        return offered;
    }

    /** Runs the sink refused (the engine's queue of past runs was full): their values are not stored. */
    long runsRefused() {
        return runsRefused;
    }
}
