package io.strata.streaming.collect;

import java.nio.charset.StandardCharsets;

/**
 * How a dimension turns the raw collected integers into the value stored for a slot, as named by
 * the {@code DIMENSION} line of the Netdata 1.37.1 stream ({@code RRD_ALGORITHM}).
 */
public enum Algorithm {
    /** The collected value times multiplier / divisor. */
    ABSOLUTE("absolute"),
    /** The per-second rate of a counter: (value - previous) * multiplier / divisor / seconds. */
    INCREMENTAL("incremental"),
    /** 100 * value / (sum of the values collected for the chart in the same collection). */
    PERCENTAGE_OF_ABSOLUTE_ROW("percentage-of-absolute-row"),
    /** 100 * increment / (sum of the increments of the chart's collected dimensions). */
    PERCENTAGE_OF_INCREMENTAL_ROW("percentage-of-incremental-row");

    private final String netdataName;
    private final byte[] netdataNameBytes;

    Algorithm(String netdataName) {
        this.netdataName = netdataName;
        this.netdataNameBytes = netdataName.getBytes(StandardCharsets.US_ASCII);
    }

    /** The exact word Netdata writes in a {@code DIMENSION} line. */
    public String netdataName() {
        return netdataName;
    }

    /**
     * Netdata's {@code rrd_algorithm_id}: an exact, case-sensitive match of one of the four names;
     * anything else (including null and the empty string) is {@link #ABSOLUTE}, which is what a
     * 1.37.1 parent does with an unknown algorithm instead of rejecting the dimension.
     */
    public static Algorithm parse(String name) {
        if (name == null) {
            return ABSOLUTE;
        }
        for (Algorithm a : VALUES) {
            if (a.netdataName.equals(name)) {
                return a;
            }
        }
        return ABSOLUTE;
    }

    /**
     * {@link #parse(String)} over the bytes {@code b[s..e)} of a line, without building a String.
     *
     * @throws IndexOutOfBoundsException if the range is not inside {@code b}
     */
    public static Algorithm parse(byte[] b, int s, int e) {
        if (b == null || s < 0 || e > b.length || s > e) {
            throw new IndexOutOfBoundsException("algorithm word [" + s + ", " + e + ") outside a buffer of "
                    + (b == null ? "null" : b.length + " bytes"));
        }
        int len = e - s;
        for (Algorithm a : VALUES) {
            byte[] n = a.netdataNameBytes;
            if (n.length != len) {
                continue;
            }
            int i = 0;
            while (i < len && n[i] == b[s + i]) {
                i++;
            }
            if (i == len) {
                return a;
            }
        }
        return ABSOLUTE;
    }

    private static final Algorithm[] VALUES = values();
}
