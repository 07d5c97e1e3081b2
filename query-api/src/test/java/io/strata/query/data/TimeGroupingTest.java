package io.strata.query.data;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each grouping method on known series. The 10 values are system.cpu "user" of 1795263101..110
 * in the recorded parent, whose 10-second rows Netdata answered (data-group-* vectors).
 */
class TimeGroupingTest {

    static final double[] USER = {79.10448, 75.37688, 82.58706, 78.5, 83.41709, 87.12871, 84.42211, 87.06468,
        89.3401, 92.46231};

    static double row(String method, String options, double... values) {
        TimeGrouping g = GroupingMethod.parse(method).create(options, values.length, 6, 0);
        g.reset();
        for (double v : values) {
            g.add(v);
        }
        return g.flush();
    }

    @Test
    void theRecordedRowsOfEachMethod() {
        assertEquals(83.940342, row("average", null, USER), 1e-6);
        assertEquals(75.37688, row("min", null, USER), 0);
        assertEquals(92.46231, row("max", null, USER), 0);
        assertEquals(839.40342, row("sum", null, USER), 1e-6);
        assertEquals(13.35783, row("incremental-sum", null, USER), 1e-6);
        // Netdata's median of an even count averages the two values just above the middle
        assertEquals(85.743395, row("median", null, USER), 1e-6);
        assertEquals(5.2742723, row("stddev", null, USER), 1e-6);
        assertEquals(6.2833581, row("cv", null, USER), 1e-6);
        assertEquals(83.7842315, row("percentile95", null, USER), 1e-6);
        assertEquals(82.9934567, row("trimmed-mean5", null, USER), 1e-6);
        assertEquals(0, row("countif", null, USER), 0);
        assertEquals(100, row("countif", ">0.5", USER), 0);
    }

    /**
     * Netdata 1.37.1's min and max compare magnitudes ({@code fabsndd}): the max of a negated
     * dimension (system.processes "blocked", stored as -1 and 0) is -1, as the Netdata parent answered.
     */
    /**
     * 1.37.1's coefficient of variation divides by the mean's magnitude (stddev.c), so a negative
     * dimension (a chart's "sent", multiplied by -1) has a positive cv, as a real parent answered.
     */
    @Test
    void cvOfANegativeDimensionIsPositive() {
        double[] negated = new double[USER.length];
        for (int i = 0; i < USER.length; i++) {
            negated[i] = -USER[i];
        }
        assertEquals(row("cv", null, USER), row("cv", null, negated), 1e-9);
        assertEquals(row("rsd", null, USER), row("rsd", null, negated), 1e-9);
        assertTrue(row("cv", null, negated) > 0);
    }

    @Test
    void minAndMaxKeepTheValueOfTheSmallestAndLargestMagnitude() {
        assertEquals(-1, row("max", null, 0, -1, 0), 0);
        assertEquals(0, row("min", null, -1, 0, -2), 0);
        assertEquals(-5, row("max", null, 3, -5, 4), 0);
        assertEquals(3, row("min", null, 3, -5, 4), 0);
        // the first of equal magnitudes stays
        assertEquals(-2, row("max", null, -2, 2), 0);
        assertEquals(2, row("min", null, 2, -2), 0);
    }

    @Test
    void emptyRowsAreNaNAndSingleValuesAreThemselves() {
        for (String m : new String[] {"average", "min", "max", "sum", "incremental-sum", "median", "stddev", "cv",
                "percentile", "trimmed-mean", "countif", "ses", "des"}) {
            assertTrue(Double.isNaN(row(m, null)), m);
        }
        assertEquals(0, row("incremental-sum", null, 5), 0);
        assertEquals(0, row("stddev", null, 5), 0);
        assertEquals(5, row("median", null, 5), 0);
        assertEquals(5, row("percentile", null, 5), 0);
        assertEquals(3, row("median", null, 2, 4), 0);
        assertEquals(5, row("trimmed-mean", null, 5, 5, 5), 0);
    }

    @Test
    void countifConditions() {
        double[] v = {0, 1, 2, 3};
        assertEquals(25, row("countif", null, v), 0);
        assertEquals(75, row("countif", "!=0", v), 0);
        assertEquals(75, row("countif", "<>0", v), 0);
        assertEquals(50, row("countif", ">=2", v), 0);
        assertEquals(50, row("countif", "<2", v), 0);
        assertEquals(75, row("countif", "<:2", v), 0);
        assertEquals(25, row("countif", " =3", v), 0);
    }

    @Test
    void trimmedMedianTrimsByTheValueRange() {
        // Netdata drops values within 25 % of the range from either end (12.5 and 17.5 here), not 25 % of the values
        assertEquals(13, row("trimmed-median25", null, 10, 11, 12, 13, 20), 0);
        assertEquals(12, row("median", null, 10, 11, 12, 13, 20), 0);
        // hence an outlier can be all that is left
        assertEquals(100, row("trimmed-median25", null, 1, 2, 3, 4, 100), 0);
    }

    @Test
    void negativeSeriesCountFromTheLargerEnd() {
        // percentile 50 of {-4,-3,-2,-1}: the two values from the top, -1 and -2
        assertEquals(-1.5, row("percentile", "50", -4, -3, -2, -1), 1e-12);
    }

    @Test
    void averagesWithGtimeDivideTheSum() {
        TimeGrouping g = GroupingMethod.AVERAGE.create(null, 10, 6, 1.0);
        for (double v : USER) {
            g.add(v);
        }
        assertEquals(839.40342, g.flush(), 1e-6, "groups of 10 at gtime=10: per-gtime sums");
    }

    @Test
    void aggregatesFeedSummingMethodsWholeAndOthersTheirAverage() {
        TimeGrouping sum = GroupingMethod.parse("sum").create(null, 2, 6, 0);
        sum.addAggregate(10, 1, 9, 4);
        sum.addAggregate(6, 2, 4, 2);
        assertEquals(16, sum.flush(), 0);
        TimeGrouping min = GroupingMethod.parse("min").create(null, 2, 6, 0);
        min.addAggregate(10, 1, 9, 4);
        min.addAggregate(6, 2, 4, 2);
        assertEquals(1, min.flush(), 0);
        TimeGrouping avg = GroupingMethod.AVERAGE.create(null, 2, 6, 0);
        avg.addAggregate(10, 1, 9, 4);
        avg.addAggregate(6, 2, 4, 2);
        assertEquals(16.0 / 6, avg.flush(), 1e-12);
        TimeGrouping median = GroupingMethod.parse("median").create(null, 2, 6, 0);
        median.addAggregate(10, 1, 9, 4);
        median.addAggregate(6, 2, 4, 2);
        assertEquals((2.5 + 3) / 2, median.flush(), 1e-12);
    }

    @Test
    void exponentialSmoothingCarriesAcrossRows() {
        TimeGrouping ses = GroupingMethod.parse("ses").create(null, 2, 6, 0);
        ses.add(10);
        ses.add(10);
        assertEquals(10, ses.flush(), 1e-12);
        ses.add(40);
        double level = ses.flush();
        assertTrue(level > 10 && level < 40, "the level moves toward new values, remembering old ones");
        ses.reset();
        ses.add(40);
        assertEquals(40, ses.flush(), 1e-12);
    }

    /**
     * 1.37.1's trimmed median at a higher tier: each tier point gives its average (sum / count,
     * {@code TIER_QUERY_FETCH_AVERAGE}), and the trimming keeps the values within N % of the
     * sorted series' range from its ends ({@code grouping_flush_median}): an outlier moves the
     * bounds, so [1, 2, 3, 4, 100] trimmed by 10 % keeps only 100.
     */
    @Test
    void trimmedMedianOfTierPointsTakesTheirAveragesAndTrimsByRange() {
        TimeGrouping g = GroupingMethod.parse("trimmed-median10").create(null, 5, 1, 0);
        g.reset();
        g.addAggregate(60, 0, 5, 60);
        g.addAggregate(120, 1, 3, 60);
        g.addAggregate(180, 2, 9, 60);
        g.addAggregate(240, 0, 8, 60);
        g.addAggregate(6000, 50, 150, 60);
        assertEquals(100, g.flush(), 0);
        // without the outlier: bounds 1.3 and 3.7 keep 2 and 3, whose median is their mean
        g.addAggregate(60, 0, 5, 60);
        g.addAggregate(120, 1, 3, 60);
        g.addAggregate(180, 2, 9, 60);
        g.addAggregate(240, 0, 8, 60);
        assertEquals(2.5, g.flush(), 0);
    }
}
