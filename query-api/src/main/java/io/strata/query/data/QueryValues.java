package io.strata.query.data;

/**
 * One number out of a data query, as Netdata's {@code rrdr2value} takes it for badges and
 * weights: a row's shown cells summed (or max − min with {@code min2max}), percentages of the
 * row's total over every queried dimension, NaN when every shown cell is empty.
 */
public final class QueryValues {

    private QueryValues() {
    }

    /** The value of row {@code row} (0 the oldest) under {@code options} (the request's, as Netdata passes them). */
    public static double rowValue(DataResult r, int row, long options) {
        boolean absolute = (options & DataOptions.ABSOLUTE) != 0;
        boolean percentage = (options & DataOptions.PERCENTAGE) != 0;
        double total = 1;
        if (percentage) {
            total = 0;
            for (int c = 0; c < r.columns; c++) {
                double v = r.value(row, c);
                if (!Double.isNaN(v)) {
                    total += absolute && v < 0 ? -v : v;
                }
            }
            if (total == 0) {
                total = 1;
            }
        }
        double sum = 0;
        double min = 0;
        double max = 0;
        boolean init = true;
        boolean allNull = true;
        for (int c = 0; c < r.columns; c++) {
            if (r.hidden[c] || ((options & DataOptions.NONZERO) != 0 && !r.nonZero[c])) {
                continue;
            }
            double v = r.value(row, c);
            boolean empty = Double.isNaN(v);
            double n = empty ? 0 : v;
            if (absolute && n < 0) {
                n = -n;
            }
            if (percentage) {
                n = n * 100 / total;
            }
            if (init) {
                min = n > 0 ? 0 : n;
                max = n > 0 ? n : 0;
                init = false;
            }
            if (!empty) {
                allNull = false;
                sum += n;
            }
            min = Math.min(min, n);
            max = Math.max(max, n);
        }
        if (allNull) {
            return Double.NaN;
        }
        return (options & DataOptions.MIN2MAX) != 0 ? max - min : sum;
    }

    /** The row Netdata's single-value callers read: the newest, or the oldest with {@code flip}. */
    public static int valueRow(DataResult r, long options) {
        return (options & DataOptions.REVERSED) != 0 ? 0 : r.rows - 1;
    }

    /** True when a point of column {@code c} was non-zero (Netdata's {@code RRDR_DIMENSION_NONZERO}). */
    public static boolean nonZero(DataResult r, int c) {
        return r.nonZero[c];
    }
}
