package io.strata.query.data;

import java.util.Arrays;
import io.strata.engine.netdata.CNumbers;

/**
 * Folds the stored values falling into one output row into the row's value, per Netdata 1.37's
 * grouping methods. One instance serves a whole query: {@link #reset} between dimensions,
 * {@link #flush} at the end of each row (NaN: the row had no value). Values arrive in time order.
 */
public abstract class TimeGrouping {

    /** Forgets everything: the next value starts a new dimension. */
    public abstract void reset();

    /** One stored value (never NaN). */
    public abstract void add(double value);

    /**
     * An interval aggregated by the engine: {@code count} values with this sum, min and max. Methods
     * that need single values see the interval's average, as Netdata reads higher tiers.
     */
    public void addAggregate(double sum, double min, double max, long count) {
        add(sum / count);
    }

    /** The row's value, NaN for an empty row; prepares for the next row. */
    public abstract double flush();

    static final class Average extends TimeGrouping {
        private final double resamplingDivisor;
        private double sum;
        private long count;

        Average(double resamplingDivisor) {
            this.resamplingDivisor = resamplingDivisor;
        }

        @Override
        public void reset() {
            sum = 0;
            count = 0;
        }

        @Override
        public void add(double value) {
            sum += value;
            count++;
        }

        @Override
        public void addAggregate(double s, double mn, double mx, long c) {
            sum += s;
            count += c;
        }

        @Override
        public double flush() {
            double v;
            if (count == 0) {
                v = Double.NaN;
            } else if (resamplingDivisor > 0) {
                // gtime: the row's sum expressed per gtime seconds, as Netdata divides it
                v = sum / resamplingDivisor;
            } else {
                v = sum / count;
            }
            sum = 0;
            count = 0;
            return v;
        }
    }

    static final class Min extends TimeGrouping {
        private double min;
        private boolean any;

        @Override
        public void reset() {
            any = false;
        }

        /** Netdata 1.37.1 keeps the value of the smallest magnitude ({@code fabsndd}), not the smallest value. */
        @Override
        public void add(double value) {
            // Netdata compares magnitudes: the minimum of a negative dimension is its value nearest zero
            if (!any || Math.abs(value) < Math.abs(min)) {
                min = value;
            }
            any = true;
        }

        @Override
        public void addAggregate(double s, double mn, double mx, long c) {
            add(mn);
        }

        @Override
        public double flush() {
            double v = any ? min : Double.NaN;
            any = false;
            return v;
        }
    }

    static final class Max extends TimeGrouping {
        private double max;
        private boolean any;

        @Override
        public void reset() {
            any = false;
        }

        /** Netdata 1.37.1 keeps the value of the largest magnitude ({@code fabsndd}), not the largest value. */
        @Override
        public void add(double value) {
            // Netdata compares magnitudes: the maximum of a negative dimension is its most negative value
            if (!any || Math.abs(value) > Math.abs(max)) {
                max = value;
            }
            any = true;
        }

        @Override
        public void addAggregate(double s, double mn, double mx, long c) {
            add(mx);
        }

        @Override
        public double flush() {
            double v = any ? max : Double.NaN;
            any = false;
            return v;
        }
    }

    static final class Sum extends TimeGrouping {
        private double sum;
        private long count;

        @Override
        public void reset() {
            sum = 0;
            count = 0;
        }

        @Override
        public void add(double value) {
            sum += value;
            count++;
        }

        @Override
        public void addAggregate(double s, double mn, double mx, long c) {
            sum += s;
            count += c;
        }

        @Override
        public double flush() {
            double v = count == 0 ? Double.NaN : sum;
            sum = 0;
            count = 0;
            return v;
        }
    }

    /** The change over the row: last value minus first (0 for a single value). */
    static final class IncrementalSum extends TimeGrouping {
        private double first;
        private double last;
        private long count;

        @Override
        public void reset() {
            count = 0;
        }

        @Override
        public void add(double value) {
            if (count == 0) {
                first = value;
            }
            last = value;
            count++;
        }

        @Override
        public double flush() {
            double v = count == 0 ? Double.NaN : count == 1 ? 0 : last - first;
            count = 0;
            return v;
        }
    }

    /** Keeps the row's values for the order statistics. */
    abstract static class Series extends TimeGrouping {
        double[] values = new double[64];
        int n;

        @Override
        public void reset() {
            n = 0;
        }

        @Override
        public void add(double value) {
            if (n == values.length) {
                values = Arrays.copyOf(values, n * 2);
            }
            values[n++] = value;
        }

        @Override
        public double flush() {
            double v;
            if (n == 0) {
                v = Double.NaN;
            } else if (n == 1) {
                v = values[0];
            } else {
                Arrays.sort(values, 0, n);
                v = ofSorted();
            }
            n = 0;
            return Double.isFinite(v) ? v : Double.NaN;
        }

        /** The value of {@code values[0..n)}, sorted ascending, n >= 2. */
        abstract double ofSorted();
    }

    /**
     * Median, optionally trimmed: values farther than {@code percent} of the row's range from its
     * ends are left out first. For an even count Netdata averages the two values just above the
     * middle (its {@code median_on_sorted_series}); we answer what Netdata answers.
     */
    static final class Median extends Series {
        private final double fraction;

        Median(double percent) {
            this.fraction = percent / 100.0;
        }

        @Override
        double ofSorted() {
            int start = 0;
            int end = n - 1;
            if (fraction > 0) {
                double delta = (values[n - 1] - values[0]) * fraction;
                double low = values[0] + delta;
                double high = values[n - 1] - delta;
                while (start < n && values[start] < low) {
                    start++;
                }
                while (end > start && values[end] > high) {
                    end--;
                }
            }
            if (start >= n) {
                start = n - 1;
            }
            if (start >= end) {
                return values[start];
            }
            int count = end - start + 1;
            if (count == 2) {
                return (values[start] + values[end]) / 2;
            }
            if (count % 2 == 0) {
                int m = start + count / 2;
                return (values[m] + values[m + 1]) / 2;
            }
            return values[start + count / 2];
        }
    }

    /**
     * The mean of a {@code fraction} of the sorted values, the last one weighted by the part of it
     * the fraction covers; for series with negative values counted from the larger end. How
     * Netdata 1.37 computes {@code percentileN} (fraction N %, from the smallest value) and
     * {@code trimmed-meanN} (fraction 100 − 2N %, centred).
     */
    static final class FractionMean extends Series {
        private final double fraction;
        private final boolean centred;

        private FractionMean(double fraction, boolean centred) {
            this.fraction = fraction;
            this.centred = centred;
        }

        static FractionMean percentile(double percent) {
            return new FractionMean(percent / 100.0, false);
        }

        static FractionMean trimmedMean(double percent) {
            return new FractionMean(1.0 - percent / 100.0 * 2.0, true);
        }

        @Override
        double ofSorted() {
            double min = values[0];
            double max = values[n - 1];
            if (min == max) {
                return min;
            }
            int use = Math.max(1, (int) (n * fraction));
            double used = (double) use / n;
            double partial = 0;
            if (fraction - used > 0) {
                partial = (fraction - used) / ((double) (use + 1) / n - used);
            }
            int offset = centred ? (n - use) / 2 : 0;
            boolean ascending = min >= 0 && max >= 0;
            int start = ascending ? offset : n - 1 - offset;
            int step = ascending ? 1 : -1;
            int stop = start + step * use;
            double sum = 0;
            for (int i = start; i != stop; i += step) {
                sum += values[i];
            }
            long counted = use;
            if (partial > 0 && stop >= 0 && stop < n) {
                sum += values[stop] * partial + values[stop - step] * (1 - partial);
                counted++;
            }
            return sum / counted;
        }
    }

    /** Sample standard deviation (Welford), or with {@code cv} the coefficient of variation in percent. */
    static final class StdDev extends TimeGrouping {
        private final boolean cv;
        private long count;
        private double mean;
        private double m2;

        StdDev(boolean cv) {
            this.cv = cv;
        }

        @Override
        public void reset() {
            count = 0;
            mean = 0;
            m2 = 0;
        }

        @Override
        public void add(double value) {
            count++;
            double delta = value - mean;
            mean += delta / count;
            m2 += delta * (value - mean);
        }

        @Override
        public double flush() {
            double v;
            if (count == 0) {
                v = Double.NaN;
            } else if (count == 1) {
                v = 0;
            } else {
                double sd = Math.sqrt(m2 / (count - 1));
                // Netdata divides by the mean's magnitude: a negative dimension's cv is positive
                v = cv ? 100.0 * sd / Math.abs(mean) : sd;
            }
            reset();
            return Double.isFinite(v) ? v : Double.NaN;
        }
    }

    /**
     * Single exponential smoothing; the level carries from row to row (only a new dimension
     * restarts it), as in Netdata.
     */
    static final class Ses extends TimeGrouping {
        private final double alpha;
        private double level;
        private long count;

        Ses(double window) {
            this.alpha = 2.0 / (window + 1.0);
        }

        @Override
        public void reset() {
            level = 0;
            count = 0;
        }

        @Override
        public void add(double value) {
            if (count == 0) {
                level = value;
            }
            level = alpha * value + (1 - alpha) * level;
            count++;
        }

        @Override
        public double flush() {
            return count == 0 || !Double.isFinite(level) ? Double.NaN : level;
        }
    }

    /** Double exponential smoothing (Holt: level and trend, both smoothed by 2/(window+1)). */
    static final class Des extends TimeGrouping {
        private final double alpha;
        private final double beta;
        private double level;
        private double trend;
        private long count;

        Des(double window) {
            this.alpha = 2.0 / (window + 1.0);
            this.beta = alpha;
        }

        @Override
        public void reset() {
            level = 0;
            trend = 0;
            count = 0;
        }

        @Override
        public void add(double value) {
            if (count == 0) {
                level = value;
                trend = 0;
            } else if (count == 1) {
                trend = value - level;
                level = value;
            }
            double previous = level;
            level = alpha * value + (1 - alpha) * (level + trend);
            trend = beta * (level - previous) + (1 - beta) * trend;
            count++;
        }

        @Override
        public double flush() {
            return count == 0 || !Double.isFinite(level) ? Double.NaN : level;
        }
    }

    /** The percentage of values meeting a condition ({@code group_options}: {@code >0.5}, {@code !=0}...; default {@code ==0}). */
    static final class CountIf extends TimeGrouping {
        static final int EQ = 0;
        static final int NE = 1;
        static final int LT = 2;
        static final int LE = 3;
        static final int GT = 4;
        static final int GE = 5;

        private final int comparison;
        private final double target;
        private long count;
        private long matched;

        CountIf(int comparison, double target) {
            this.comparison = comparison;
            this.target = target;
        }

        static CountIf of(String options) {
            if (options == null || options.isEmpty()) {
                return new CountIf(EQ, 0);
            }
            String s = options.stripLeading();
            int cmp;
            int skip;
            char c0 = s.isEmpty() ? '=' : s.charAt(0);
            char c1 = s.length() > 1 ? s.charAt(1) : 0;
            switch (c0) {
                case '!' -> {
                    cmp = NE;
                    skip = c1 == '=' || c1 == ':' ? 2 : 1;
                }
                case '>' -> {
                    cmp = c1 == '=' || c1 == ':' ? GE : GT;
                    skip = cmp == GE ? 2 : 1;
                }
                case '<' -> {
                    if (c1 == '>') {
                        cmp = NE;
                        skip = 2;
                    } else if (c1 == '=' || c1 == ':') {
                        cmp = LE;
                        skip = 2;
                    } else {
                        cmp = LT;
                        skip = 1;
                    }
                }
                case '=', ':' -> {
                    cmp = EQ;
                    skip = 1;
                }
                default -> {
                    // Netdata steps over the first character whatever it is
                    cmp = EQ;
                    skip = 1;
                }
            }
            String rest = skip <= s.length() ? s.substring(skip) : "";
            return new CountIf(cmp, CNumbers.strtod(rest));
        }

        @Override
        public void reset() {
            count = 0;
            matched = 0;
        }

        @Override
        public void add(double v) {
            boolean m = switch (comparison) {
                case EQ -> v == target;
                case NE -> v != target;
                case LT -> v < target;
                case LE -> v <= target;
                case GT -> v > target;
                default -> v >= target;
            };
            if (m) {
                matched++;
            }
            count++;
        }

        @Override
        public double flush() {
            double v = count == 0 ? Double.NaN : matched * 100.0 / count;
            count = 0;
            matched = 0;
            return v;
        }
    }
}
