package io.strata.query.data;

import io.strata.engine.netdata.CNumbers;
import io.strata.query.catalog.ChartView;
import io.strata.query.http.QueryString;

/**
 * The parameters of one {@code /api/v1/data} request, read leniently as Netdata reads them: a
 * number that does not parse is 0, an unknown format, group or option is the default, a
 * parameter with an empty value is ignored, later parameters override earlier ones (dimensions
 * and options accumulate).
 */
public final class DataRequest {

    String chart;
    String context;
    /** Netdata concatenates every {@code dimension(s)=} as {@code |value}; null when none was given. */
    String dimensions;
    long after = -600;
    long before;
    long points;
    long gtime;
    long timeoutMs;
    GroupingMethod group = GroupingMethod.AVERAGE;
    String groupOptions;
    DataFormat format = DataFormat.JSON;
    long options;
    int tier;
    boolean tierGiven;
    String callback;
    String filename;
    String googleVersion = "0.6";
    String googleReqId = "0";
    String googleSig = "0";
    String googleOut = "json";
    long googleTimestamp;
    /** When set, the query reads only this chart (not looked up by name): a single-metric query of weights. */
    ChartView onlyChart;
    /** With {@link #onlyChart}, the one dimension to read, or -1 for all of them. */
    int onlyDimension = -1;

    /**
     * Netdata's {@code tier=}: a tier the database has turns {@code selected-tier} on (whatever
     * {@code options} says); any other is tier 0.
     */
    void applyTiers(int tiers) {
        if (!tierGiven) {
            return;
        }
        if (tier < tiers) {
            options |= DataOptions.SELECTED_TIER;
        } else {
            tier = 0;
        }
    }

    public static DataRequest parse(QueryString q) {
        DataRequest r = new DataRequest();
        String afterStr = null;
        String beforeStr = null;
        String pointsStr = null;
        StringBuilder dims = null;
        for (int i = 0; i < q.size(); i++) {
            String name = q.name(i);
            String value = q.value(i);
            switch (name) {
                case "chart" -> r.chart = value;
                case "context" -> r.context = value;
                case "dimension", "dim", "dimensions", "dims" -> {
                    if (dims == null) {
                        dims = new StringBuilder();
                    }
                    dims.append('|').append(value);
                }
                case "after" -> afterStr = value;
                case "before" -> beforeStr = value;
                case "points" -> pointsStr = value;
                case "timeout" -> r.timeoutMs = CNumbers.strtol(value, 10);
                case "gtime" -> r.gtime = CNumbers.strtol(value, 10);
                case "group_options" -> r.groupOptions = value;
                case "group" -> r.group = GroupingMethod.parse(value);
                case "format" -> r.format = DataFormat.parse(value);
                case "options" -> r.options |= DataOptions.parse(value);
                case "callback" -> r.callback = value;
                case "filename" -> r.filename = value;
                case "tqx" -> r.parseTqx(value);
                case "tier" -> {
                    long t = CNumbers.strtol(value, 10);
                    r.tier = t < 0 || t > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) t;
                    r.tierGiven = true;
                }
                default -> {
                    // Netdata ignores parameters it does not know
                }
            }
        }
        if (dims != null) {
            r.dimensions = dims.toString();
        }
        if (afterStr != null) {
            r.after = CNumbers.strtol(afterStr, 10);
        }
        if (beforeStr != null) {
            r.before = CNumbers.strtol(beforeStr, 10);
        }
        if (pointsStr != null) {
            // Netdata reads points into an int and then a size_t: a negative count means "as many as possible"
            long p = CNumbers.strtol(pointsStr, 10);
            r.points = p > Integer.MAX_VALUE ? Integer.MAX_VALUE : p < 0 ? -1 : p;
        }
        r.googleOut = safeGoogle(r.googleOut);
        r.googleSig = safeGoogle(r.googleSig);
        r.googleReqId = safeGoogle(r.googleReqId);
        r.googleVersion = safeGoogle(r.googleVersion);
        r.callback = safeGoogle(r.callback);
        r.filename = safeGoogle(r.filename);
        return r;
    }

    private void parseTqx(String value) {
        for (String item : value.split(";")) {
            int colon = item.indexOf(':');
            if (colon <= 0 || colon == item.length() - 1) {
                continue;
            }
            String n = item.substring(0, colon);
            String v = item.substring(colon + 1);
            switch (n) {
                case "version" -> googleVersion = v;
                case "reqId" -> googleReqId = v;
                case "sig" -> {
                    googleSig = v;
                    googleTimestamp = Math.max(0, CNumbers.strtol(v, 10));
                }
                case "out" -> {
                    googleOut = v;
                    format = DataFormat.parseGoogle(v);
                }
                case "responseHandler" -> callback = v;
                case "outFileName" -> filename = v;
                default -> {
                }
            }
        }
    }

    /**
     * A request built by another endpoint (badges, weights) rather than parsed: Netdata's
     * {@code rrd2rrdr} called with these values. {@code tier} is {@code tier=} (negative: not given).
     */
    public static DataRequest of(String chart, String dimensions, long after, long before, long points,
                                 GroupingMethod group, String groupOptions, long options, int tier) {
        DataRequest r = new DataRequest();
        r.chart = chart;
        r.dimensions = dimensions;
        r.after = after;
        r.before = before;
        r.points = points;
        r.group = group;
        r.groupOptions = groupOptions;
        r.options = options;
        if (tier >= 0) {
            r.tier = tier;
            r.tierGiven = true;
        }
        return r;
    }

    /** As {@link #of}, reading only dimension {@code dimension} of {@code chart} (Netdata's query target of one metric). */
    public static DataRequest ofMetric(ChartView chart, int dimension, long after, long before, long points,
                                       GroupingMethod group, String groupOptions, long options, int tier) {
        DataRequest r = ofChart(chart, null, after, before, points, group, groupOptions, options, tier);
        r.onlyDimension = dimension;
        return r;
    }

    /** As {@link #of}, on {@code chart} already found (Netdata's {@code rrd2rrdr_legacy} on an {@code RRDSET}). */
    public static DataRequest ofChart(ChartView chart, String dimensions, long after, long before, long points,
                                      GroupingMethod group, String groupOptions, long options, int tier) {
        DataRequest r = of(chart.id(), dimensions, after, before, points, group, groupOptions, options, tier);
        r.onlyChart = chart;
        return r;
    }

    /**
     * Netdata's {@code fix_google_param}: anything but letters, digits, dot, dash and underscore
     * becomes an underscore. This is what keeps a {@code callback=} from injecting script.
     */
    static String safeGoogle(String s) {
        if (s == null) {
            return null;
        }
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c < 128 && (Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-');
            if (!ok) {
                if (sb == null) {
                    sb = new StringBuilder(s);
                }
                sb.setCharAt(i, '_');
            }
        }
        return sb == null ? s : sb.toString();
    }

    /** Netdata's {@code is_valid_sp}: present, not empty, not the dashboard's "null"/"undefined" placeholders. */
    static boolean given(String s) {
        return s != null && !s.isEmpty() && !s.equals("null") && !s.equals("undefined");
    }

    public String chart() {
        return chart;
    }

    public String context() {
        return context;
    }

    public DataFormat format() {
        return format;
    }

    public long options() {
        return options;
    }

    /** {@code timeout=}, milliseconds; 0 or less when not given. */
    public long timeoutMillis() {
        return timeoutMs;
    }

    public String filename() {
        return filename;
    }

    public boolean hasTarget() {
        return given(chart) || given(context);
    }
}
