package io.strata.query.data;

import io.strata.engine.netdata.CNumbers;

/**
 * A {@code group=} method of {@code /api/v1/data}: Netdata 1.37's names and aliases, with the
 * parameter some carry in their name ({@code percentile95}, {@code trimmed-mean5}). Unknown
 * names are {@code average}, as in Netdata.
 */
public final class GroupingMethod {

    /** How a method turns the values of one output row into one value. */
    public enum Kind {
        AVERAGE, MIN, MAX, SUM, INCREMENTAL_SUM, MEDIAN, PERCENTILE, TRIMMED_MEAN, STDDEV, CV, SES, DES, COUNTIF
    }

    private static final Object[][] TABLE = {
        {"average", Kind.AVERAGE, 0.0}, {"mean", Kind.AVERAGE, 0.0},
        {"incremental_sum", Kind.INCREMENTAL_SUM, 0.0}, {"incremental-sum", Kind.INCREMENTAL_SUM, 0.0},
        {"median", Kind.MEDIAN, 0.0},
        {"trimmed-median1", Kind.MEDIAN, 1.0}, {"trimmed-median2", Kind.MEDIAN, 2.0},
        {"trimmed-median3", Kind.MEDIAN, 3.0}, {"trimmed-median5", Kind.MEDIAN, 5.0},
        {"trimmed-median10", Kind.MEDIAN, 10.0}, {"trimmed-median15", Kind.MEDIAN, 15.0},
        {"trimmed-median20", Kind.MEDIAN, 20.0}, {"trimmed-median25", Kind.MEDIAN, 25.0},
        {"trimmed-median", Kind.MEDIAN, 5.0},
        {"percentile25", Kind.PERCENTILE, 25.0}, {"percentile50", Kind.PERCENTILE, 50.0},
        {"percentile75", Kind.PERCENTILE, 75.0}, {"percentile80", Kind.PERCENTILE, 80.0},
        {"percentile90", Kind.PERCENTILE, 90.0}, {"percentile95", Kind.PERCENTILE, 95.0},
        {"percentile97", Kind.PERCENTILE, 97.0}, {"percentile98", Kind.PERCENTILE, 98.0},
        {"percentile99", Kind.PERCENTILE, 99.0}, {"percentile", Kind.PERCENTILE, 95.0},
        {"trimmed-mean1", Kind.TRIMMED_MEAN, 1.0}, {"trimmed-mean2", Kind.TRIMMED_MEAN, 2.0},
        {"trimmed-mean3", Kind.TRIMMED_MEAN, 3.0}, {"trimmed-mean5", Kind.TRIMMED_MEAN, 5.0},
        {"trimmed-mean10", Kind.TRIMMED_MEAN, 10.0}, {"trimmed-mean15", Kind.TRIMMED_MEAN, 15.0},
        {"trimmed-mean20", Kind.TRIMMED_MEAN, 20.0}, {"trimmed-mean25", Kind.TRIMMED_MEAN, 25.0},
        {"trimmed-mean", Kind.TRIMMED_MEAN, 5.0},
        {"min", Kind.MIN, 0.0}, {"max", Kind.MAX, 0.0}, {"sum", Kind.SUM, 0.0},
        {"stddev", Kind.STDDEV, 0.0}, {"cv", Kind.CV, 0.0}, {"rsd", Kind.CV, 0.0},
        {"ses", Kind.SES, 0.0}, {"ema", Kind.SES, 0.0}, {"ewma", Kind.SES, 0.0},
        {"des", Kind.DES, 0.0}, {"countif", Kind.COUNTIF, 0.0},
    };

    public static final GroupingMethod AVERAGE = new GroupingMethod("average", Kind.AVERAGE, 0.0);

    private final String name;
    private final Kind kind;
    private final double parameter;

    private GroupingMethod(String name, Kind kind, double parameter) {
        this.name = name;
        this.kind = kind;
        this.parameter = parameter;
    }

    public static GroupingMethod parse(String s) {
        if (s == null) {
            return AVERAGE;
        }
        for (Object[] e : TABLE) {
            if (e[0].equals(s)) {
                return new GroupingMethod(canonicalName(s), (Kind) e[1], (Double) e[2]);
            }
        }
        return AVERAGE;
    }

    /**
     * The name Netdata reports for a method: aliases show as the name they stand for
     * ({@code incremental-sum} as {@code incremental_sum}); {@code percentile} and
     * {@code percentile95} are distinct methods that compute alike, and keep their names.
     */
    private static String canonicalName(String s) {
        return switch (s) {
            case "mean" -> "average";
            case "incremental-sum" -> "incremental_sum";
            case "rsd" -> "cv";
            case "ema", "ewma" -> "ses";
            // the aliases without a number are the 5 % / 95 % methods, which come first in Netdata's table
            case "trimmed-median" -> "trimmed-median5";
            case "trimmed-mean" -> "trimmed-mean5";
            case "percentile" -> "percentile95";
            default -> s;
        };
    }

    public String name() {
        return name;
    }

    public Kind kind() {
        return kind;
    }

    /** The percentage in the method's name (trimmed-median5: 5, percentile95: 95), else 0. */
    public double parameter() {
        return parameter;
    }

    /**
     * True when the method needs every stored value rather than per-interval sum, min, max and
     * count: those four compose across intervals and tiers, a median or deviation does not.
     */
    public boolean needsValues() {
        return switch (kind) {
            case AVERAGE, MIN, MAX, SUM -> false;
            default -> true;
        };
    }

    /**
     * A fresh accumulator for one query.
     *
     * @param options            the request's {@code group_options} (a percentage, or countif's condition), or null
     * @param group              stored points per output row
     * @param points             output rows
     * @param resamplingDivisor  with {@code gtime}, what an average's sum is divided by instead of its
     *                           count (Netdata's resampling divisor); 0 without gtime
     */
    public TimeGrouping create(String options, long group, long points, double resamplingDivisor) {
        return switch (kind) {
            case AVERAGE -> new TimeGrouping.Average(resamplingDivisor);
            case MIN -> new TimeGrouping.Min();
            case MAX -> new TimeGrouping.Max();
            case SUM -> new TimeGrouping.Sum();
            case INCREMENTAL_SUM -> new TimeGrouping.IncrementalSum();
            case MEDIAN -> new TimeGrouping.Median(percent(options, parameter, 50.0));
            case PERCENTILE -> TimeGrouping.FractionMean.percentile(percent(options, parameter, 100.0));
            case TRIMMED_MEAN -> TimeGrouping.FractionMean.trimmedMean(percent(options, parameter, 50.0));
            case STDDEV -> new TimeGrouping.StdDev(false);
            case CV -> new TimeGrouping.StdDev(true);
            case SES -> new TimeGrouping.Ses(smoothingWindow(group, points));
            case DES -> new TimeGrouping.Des(smoothingWindow(group, points));
            case COUNTIF -> TimeGrouping.CountIf.of(options);
        };
    }

    /** Netdata's {@code str2ndd} of the options, kept within [0, max]; the method's own number without options. */
    private static double percent(String options, double def, double max) {
        if (options == null || options.isEmpty()) {
            return def;
        }
        double p = CNumbers.strtod(options);
        if (!Double.isFinite(p) || p < 0) {
            return 0;
        }
        return Math.min(p, max);
    }

    /** SES/DES smooth over the points of a row, or over the whole answer when rows are single points; at most 15. */
    private static double smoothingWindow(long group, long points) {
        long w = group == 1 ? points : group;
        return Math.min(w, 15);
    }
}
