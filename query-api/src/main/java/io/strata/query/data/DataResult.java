package io.strata.query.data;

import io.strata.query.catalog.HostView;
import java.util.List;
import io.strata.query.catalog.ChartView;

/**
 * The answer of a data query before formatting (Netdata's RRDR): one row per output point,
 * oldest first, one column per queried dimension, values in one primitive array with NaN for an
 * empty cell. Hidden columns (queried only so that {@code percentage} can total them) are never
 * printed.
 */
public final class DataResult {

    final DataRequest request;
    final HostView host;
    final QueryWindow window;
    final int rows;
    final int columns;
    /** {@code values[row * columns + column]}, NaN where the row had no stored value. */
    final double[] values;
    final String[] ids;
    final String[] names;
    final String[] chartIds;
    final boolean[] hidden;
    final boolean[] nonZero;
    final double[] latest;
    final long[] pointsPerTier;
    final long dbFirst;
    final long dbLast;
    final long updateEvery;
    final long options;
    /** The unix time the query ran at. */
    final long wallClock;
    /** The chart's name for a chart query (Netdata's query id names it so), else null. */
    String chartName;
    /** {id, name} of every dimension of the target in the window, before the dimensions pattern ({@code all-dimensions}). */
    List<String[]> allDimensions = List.of();
    /** The target's charts with a dimension in the window ({@code all-dimensions}). */
    List<ChartView> allCharts = List.of();
    /** What the query may cost: its deadline also bounds building the rows and printing them. */
    QueryBudget budget = QueryBudget.UNLIMITED;
    /** Min and max over every value computed (empty cells count as 0, as in Netdata). */
    double min;
    double max;

    DataResult(DataRequest request, HostView host, QueryWindow window, int columns, long dbFirst, long dbLast,
               long updateEvery, long options, int tiers, long wallClock) {
        this.request = request;
        this.host = host;
        this.window = window;
        this.rows = (int) window.points();
        this.columns = columns;
        this.values = new double[rows * columns];
        this.ids = new String[columns];
        this.names = new String[columns];
        this.chartIds = new String[columns];
        this.hidden = new boolean[columns];
        this.nonZero = new boolean[columns];
        this.latest = new double[columns];
        this.pointsPerTier = new long[tiers];
        this.dbFirst = dbFirst;
        this.dbLast = dbLast;
        this.updateEvery = updateEvery;
        this.options = options;
        this.wallClock = wallClock;
    }

    public int rows() {
        return rows;
    }

    public int columns() {
        return columns;
    }

    public QueryWindow window() {
        return window;
    }

    /** The end time of row {@code r}, 0 being the oldest. */
    public long rowTime(int r) {
        return window.rowEnd(r);
    }

    public double value(int row, int column) {
        return values[row * columns + column];
    }

    public String id(int column) {
        return ids[column];
    }

    public String name(int column) {
        return names[column];
    }

    public boolean hidden(int column) {
        return hidden[column];
    }

    public long[] pointsPerTier() {
        return pointsPerTier.clone();
    }

    /** True when the column is printed: not hidden, and with {@code nonzero} not all zero. */
    public boolean shown(int column) {
        return !hidden[column] && ((options & DataOptions.NONZERO) == 0 || nonZero[column]);
    }

    public int shownColumns() {
        int n = 0;
        for (int c = 0; c < columns; c++) {
            if (shown(c)) {
                n++;
            }
        }
        return n;
    }
}
