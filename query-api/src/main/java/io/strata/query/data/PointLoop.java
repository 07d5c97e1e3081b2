package io.strata.query.data;

import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.query.AggregateSink;

/**
 * Turns one dimension's stored points into its rows the way Netdata 1.37.1's query engine does
 * ({@code rrd2rrdr_do_dimension}), fed point by point in time order:
 * <ul>
 *   <li>a stored point covers {@code (end − its update_every, end]};</li>
 *   <li>a row ending at {@code E} (rows are {@code view_update_every} apart) gets the points that
 *       end in {@code [previous row end, E)}, plus one value at {@code E} itself: the point covering
 *       {@code E}, interpolated linearly between the point before it and itself when the two touch
 *       and the point is wider than a second (so a chart collected every 5 s asked for a row every
 *       2 s gives a row every 2 s, not a null between its points);</li>
 *   <li>a row that no point reaches is null (a gap), rows after the last point are null.</li>
 * </ul>
 * Points that do not advance in time are dropped, as Netdata drops them. Values reach the grouping
 * method one by one; the engine's higher-tier points give the value Netdata fetches from a tier
 * for the method (average, min, max or sum). Every row built counts against the query's deadline
 * ({@link QueryBudget#cells}), which stops the loop with a 504.
 */
final class PointLoop implements StorageEngine.Tier0Consumer, AggregateSink {

    /** What a higher-tier point stands for: Netdata's {@code TIER_QUERY_FETCH}. */
    enum Fetch { AVERAGE, MIN, MAX, SUM }

    private final DataResult result;
    private final TimeGrouping grouping;
    private final Fetch fetch;
    private final long vue;
    private final long firstRowEnd;
    private final int rows;

    private int column;
    private int row;
    private long nowStart;
    private long nowEnd;
    /** Seconds a point of the tier being read covers. */
    private long pointWidth;
    private boolean firstFlush = true;

    // the two previous points: end 0 = none
    private long last1Start;
    private long last1End;
    private double last1Value;
    private long last2Start;
    private long last2End;
    private double last2Value;

    PointLoop(DataResult result, TimeGrouping grouping, Fetch fetch) {
        this.result = result;
        this.grouping = grouping;
        this.fetch = fetch;
        this.vue = result.window.viewUpdateEvery();
        this.rows = result.rows;
        this.firstRowEnd = result.window.before() - (long) (rows - 1) * vue;
    }

    static Fetch fetchFor(GroupingMethod method) {
        return switch (method.kind()) {
            case MIN -> Fetch.MIN;
            case MAX -> Fetch.MAX;
            case SUM -> Fetch.SUM;
            default -> Fetch.AVERAGE;
        };
    }

    /** Starts a dimension whose tier-0 points are {@code updateEvery} seconds wide. */
    void start(int c, long updateEvery) {
        column = c;
        row = 0;
        nowEnd = firstRowEnd;
        nowStart = firstRowEnd - vue;
        pointWidth = Math.max(1, updateEvery);
        last1Start = last1End = last2Start = last2End = 0;
        last1Value = last2Value = Double.NaN;
        grouping.reset();
    }

    /** The width of the points that follow (a tier's step). */
    void pointWidth(long seconds) {
        pointWidth = Math.max(1, seconds);
    }

    /** The time after which no row needs a point: the end of the last row. */
    long lastRowEnd() {
        return result.window.before();
    }

    boolean done() {
        return row >= rows;
    }

    @Override
    public void point(long time, int sn) {
        double v = Double.NaN;
        if (StorageNumber.exists(sn)) {
            v = StorageNumber.unpack(sn);
        }
        storagePoint(time - pointWidth, time, v);
    }

    @Override
    public void point(long time, double sum, double min, double max, long count, long anomalies) {
        double v;
        if (count == 0) {
            v = Double.NaN;
        } else {
            v = switch (fetch) {
                case AVERAGE -> sum / count;
                case MIN -> min;
                case MAX -> max;
                case SUM -> sum;
            };
        }
        storagePoint(time - pointWidth, time, v);
    }

    /** One stored point covering {@code (start, end]}; NaN: stored as a gap. */
    void storagePoint(long start, long end, double value) {
        if (end <= last1End) {
            return; // the database does not advance: Netdata skips such a point
        }
        if (row >= rows) {
            return;
        }
        if (end < nowEnd) {
            if (end >= nowStart) {
                add(value);
            }
            shift(start, end, value);
            return;
        }
        while (nowEnd <= end && row < rows) {
            double current;
            if (nowEnd > start) {
                current = interpolate(start, end, value, last1End, last1Value, nowEnd);
            } else if (nowEnd <= last1End) {
                current = interpolate(last1Start, last1End, last1Value, last2End, last2Value, nowEnd);
            } else {
                current = Double.NaN; // a gap: nothing covers this moment
            }
            add(current);
            flushRow();
        }
        shift(start, end, value);
    }

    /** No more points: the rows left get what they gathered, then nulls. */
    void finish() {
        while (row < rows) {
            flushRow();
        }
    }

    private static double interpolate(long start, long end, double value, long lastEnd, double lastValue, long now) {
        if (end - start > 1 && lastEnd == start && isNumber(value) && isNumber(lastValue)) {
            return lastValue + (value - lastValue) * (1.0 - (double) (end - now) / (double) (end - start));
        }
        return value;
    }

    private static boolean isNumber(double v) {
        return !Double.isNaN(v) && !Double.isInfinite(v);
    }

    private void add(double v) {
        if (!isNumber(v)) {
            return;
        }
        if (v != 0) {
            result.nonZero[column] = true;
        }
        grouping.add(v);
    }

    private void shift(long start, long end, double value) {
        last2Start = last1Start;
        last2End = last1End;
        last2Value = last1Value;
        last1Start = start;
        last1End = end;
        last1Value = value;
    }

    private void flushRow() {
        result.budget.cells(1);
        double v = grouping.flush();
        result.values[row * result.columns + column] = v;
        double forRange = Double.isNaN(v) ? 0 : v;
        if (firstFlush) {
            result.min = forRange;
            result.max = forRange;
            firstFlush = false;
        } else {
            result.min = Math.min(result.min, forRange);
            result.max = Math.max(result.max, forRange);
        }
        row++;
        nowStart = nowEnd;
        nowEnd += vue;
    }
}
