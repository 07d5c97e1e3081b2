package io.strata.query.data;

/**
 * The {@code options=} flags of {@code /api/v1/data}, as bits. Names and aliases are Netdata's;
 * {@link #render} prints the first name of each set flag in Netdata's table order, which is how
 * the wrapper's {@code options} field and the query id show them. Unknown names are ignored.
 */
public final class DataOptions {

    private DataOptions() {
    }

    public static final long NONZERO = 1L;
    public static final long REVERSED = 1L << 1;
    public static final long JSON_WRAP = 1L << 2;
    public static final long MIN2MAX = 1L << 3;
    public static final long MILLISECONDS = 1L << 4;
    public static final long ABSOLUTE = 1L << 5;
    public static final long DISPLAY_ABSOLUTE = 1L << 6;
    public static final long SECONDS = 1L << 7;
    public static final long NULL2ZERO = 1L << 8;
    public static final long OBJECT_ROWS = 1L << 9;
    public static final long GOOGLE_JSON = 1L << 10;
    public static final long PERCENTAGE = 1L << 11;
    public static final long NOT_ALIGNED = 1L << 12;
    public static final long MATCH_IDS = 1L << 13;
    public static final long MATCH_NAMES = 1L << 14;
    public static final long ANOMALY_BIT = 1L << 15;
    public static final long SELECTED_TIER = 1L << 16;
    public static final long RAW = 1L << 17;
    public static final long JW_ANOMALY_RATES = 1L << 18;
    public static final long NATURAL_POINTS = 1L << 19;
    public static final long VIRTUAL_POINTS = 1L << 20;
    public static final long ALL_DIMENSIONS = 1L << 21;

    private static final String[] NAMES = {
        "nonzero", "flip", "reversed", "reverse", "jsonwrap", "min2max", "ms", "milliseconds", "abs", "absolute",
        "absolute_sum", "absolute-sum", "display_absolute", "display-absolute", "seconds", "null2zero", "objectrows",
        "google_json", "google-json", "percentage", "unaligned", "match_ids", "match-ids", "match_names", "match-names",
        "anomaly-bit", "selected-tier", "raw", "jw-anomaly-rates", "natural-points", "virtual-points", "all-dimensions",
    };
    private static final long[] BITS = {
        NONZERO, REVERSED, REVERSED, REVERSED, JSON_WRAP, MIN2MAX, MILLISECONDS, MILLISECONDS, ABSOLUTE, ABSOLUTE,
        ABSOLUTE, ABSOLUTE, DISPLAY_ABSOLUTE, DISPLAY_ABSOLUTE, SECONDS, NULL2ZERO, OBJECT_ROWS,
        GOOGLE_JSON, GOOGLE_JSON, PERCENTAGE, NOT_ALIGNED, MATCH_IDS, MATCH_IDS, MATCH_NAMES, MATCH_NAMES,
        ANOMALY_BIT, SELECTED_TIER, RAW, JW_ANOMALY_RATES, NATURAL_POINTS, VIRTUAL_POINTS, ALL_DIMENSIONS,
    };

    /** The flags named in {@code s}, separated by commas, spaces or pipes. */
    public static long parse(String s) {
        long flags = 0;
        if (s == null) {
            return 0;
        }
        int n = s.length();
        int start = 0;
        for (int i = 0; i <= n; i++) {
            if (i == n || s.charAt(i) == ',' || s.charAt(i) == ' ' || s.charAt(i) == '|') {
                if (i > start) {
                    flags |= flag(s, start, i);
                }
                start = i + 1;
            }
        }
        return flags;
    }

    private static long flag(String s, int from, int to) {
        int len = to - from;
        for (int k = 0; k < NAMES.length; k++) {
            if (NAMES[k].length() == len && s.regionMatches(from, NAMES[k], 0, len)) {
                return BITS[k];
            }
        }
        return 0;
    }

    /** The set flags by their first name, comma separated, in Netdata's order. */
    public static String render(long flags) {
        StringBuilder sb = new StringBuilder();
        long used = 0;
        for (int k = 0; k < NAMES.length; k++) {
            if ((flags & BITS[k]) != 0 && (used & BITS[k]) == 0) {
                used |= BITS[k];
                if (sb.length() > 0) {
                    sb.append(',');
                }
                sb.append(NAMES[k]);
            }
        }
        return sb.toString();
    }
}
