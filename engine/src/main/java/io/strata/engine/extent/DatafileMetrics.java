package io.strata.engine.extent;

import java.util.Arrays;

/**
 * The metric table of the datafile being written: which number each metric has in it. Numbers
 * are given in order of first use, 0, 1, 2, ...; the extent that first uses a number defines it
 * (its UUID), and the next extent written defines it again, so that one damaged extent never
 * loses a definition ({@code docs/format/extent.md}, "Metric numbers").
 *
 * <p>Numbers given while an extent is built are tentative until {@link #commit()} (the extent is
 * in the datafile); {@link #rollback()} forgets them (the write failed and will be retried).
 * One writer thread.
 */
public final class DatafileMetrics {

    /** Indexed by registry metric id: number + 1, 0 when the metric has none here. */
    private int[] numberPlusOne = new int[1024];
    private int[] metricIdOf = new int[256];
    private long[] msb = new long[256];
    private long[] lsb = new long[256];
    /** Numbers below this are committed. */
    private int committed;
    /** Numbers below this exist, committed or tentative. */
    private int count;
    /** The numbers first defined by the last committed extent: [repeatFrom, committed). */
    private int repeatFrom;

    /** The number of metric {@code metricId}, giving it the next one (tentatively) when it has none. */
    public int numberOf(int metricId, long uuidMsb, long uuidLsb) {
        if (metricId < 0) {
            throw new IllegalArgumentException("metric id " + metricId);
        }
        if (metricId >= numberPlusOne.length) {
            numberPlusOne = Arrays.copyOf(numberPlusOne, Math.max(metricId + 1, numberPlusOne.length * 2));
        }
        int n = numberPlusOne[metricId] - 1;
        if (n >= 0) {
            return n;
        }
        n = count++;
        if (n == msb.length) {
            msb = Arrays.copyOf(msb, n * 2);
            lsb = Arrays.copyOf(lsb, n * 2);
            metricIdOf = Arrays.copyOf(metricIdOf, n * 2);
        }
        msb[n] = uuidMsb;
        lsb[n] = uuidLsb;
        metricIdOf[n] = metricId;
        numberPlusOne[metricId] = n + 1;
        return n;
    }

    /**
     * Adds to {@code table} the definitions the extent being built carries: the numbers first
     * used by the previous extent, and those it uses first itself.
     */
    public void addDefinitions(ExtentTable table) {
        table.clearDefinitions();
        for (int n = repeatFrom; n < count; n++) {
            table.define(n, msb[n], lsb[n]);
        }
    }

    /** The extent built is in the datafile: its tentative numbers are final. */
    public void commit() {
        repeatFrom = committed;
        committed = count;
    }

    /** The extent built was not written: its tentative numbers are forgotten. */
    public void rollback() {
        for (int n = committed; n < count; n++) {
            numberPlusOne[metricIdOf[n]] = 0;
        }
        count = committed;
    }

    /** Forgets every number (a new datafile begins). */
    public void clear() {
        rollback();
        for (int n = 0; n < committed; n++) {
            numberPlusOne[metricIdOf[n]] = 0;
        }
        committed = 0;
        count = 0;
        repeatFrom = 0;
    }

    /** Numbers given by extents already written; an extent being built first uses those above. */
    public int committedSize() {
        return committed;
    }

    /** Numbers given so far, committed or not. */
    public int size() {
        return count;
    }
}
