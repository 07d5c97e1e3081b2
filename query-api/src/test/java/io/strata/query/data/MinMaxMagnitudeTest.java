package io.strata.query.data;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Netdata 1.37.1's {@code min} and {@code max} groupings compare magnitudes ({@code fabsndd}): the
 * "max" of a negative dimension (a chart's {@code sent}, {@code out}) is its most negative value,
 * its "min" the value nearest zero. Found by the differential harness (badges with
 * {@code group=max} over negative dimensions).
 */
class MinMaxMagnitudeTest {

    static double group(String method, double... values) {
        TimeGrouping g = GroupingMethod.parse(method).create(null, values.length, 1, 0);
        for (double v : values) {
            g.add(v);
        }
        return g.flush();
    }

    @Test
    void maxIsTheLargestMagnitudeWithItsSign() {
        assertEquals(-5.0, group("max", -2, 0, -5, -1), 0);
        assertEquals(7.0, group("max", -2, 7, -5), 0);
        assertEquals(-8.0, group("max", -2, 7, -8), 0);
        // the first of equal magnitudes stays
        assertEquals(3.0, group("max", 3, -3), 0);
    }

    @Test
    void minIsTheSmallestMagnitudeWithItsSign() {
        assertEquals(0.0, group("min", -2, 0, -5), 0);
        assertEquals(-1.0, group("min", -2, -1, -5), 0);
        assertEquals(-1.0, group("min", 4, -1, 2), 0);
        assertEquals(3.0, group("min", 3, -3), 0);
    }
}
