package io.strata.it.netdata;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Draws {@code /api/v1/data} queries from the space Netdata 1.37.1 documents: chart or context,
 * {@code after}/{@code before} (absolute, relative, beyond retention, reversed), {@code points},
 * every {@code group} with {@code gtime} and {@code group_options}, every {@code options} flag in
 * combinations, every {@code format}, {@code dimensions} patterns, {@code tier}. A seed gives the
 * same sequence for the same charts and clock.
 */
final class DataQueryGenerator {

    /** What a query needs to know of a chart. */
    record Chart(String id, String name, String context, int updateEvery, long firstEntry, List<String> dimIds,
                 List<String> dimNames) {
    }

    static final String[] GROUPS = {"average", "mean", "min", "max", "sum", "incremental-sum", "incremental_sum",
            "median", "stddev", "cv", "rsd", "ses", "ema", "ewma", "des", "countif",
            "trimmed-median", "trimmed-median1", "trimmed-median2", "trimmed-median3", "trimmed-median5",
            "trimmed-median10", "trimmed-median15", "trimmed-median20", "trimmed-median25",
            "trimmed-mean", "trimmed-mean1", "trimmed-mean2", "trimmed-mean3", "trimmed-mean5", "trimmed-mean10",
            "trimmed-mean15", "trimmed-mean20", "trimmed-mean25",
            "percentile", "percentile25", "percentile50", "percentile75", "percentile80", "percentile90",
            "percentile95", "percentile97", "percentile98", "percentile99", "no-such-group"};
    static final String[] FORMATS = {"json", "json", "json", "jsonp", "csv", "tsv", "tsv-excel", "ssv", "ssvcomma",
            "html", "datatable", "datasource", "array", "array", "markdown", "csvjsonarray", "no-such-format"};
    static final String[] OPTIONS = {"absolute", "abs", "percentage", "null2zero", "nonzero", "flip", "reversed",
            "jsonwrap", "min2max", "seconds", "ms", "milliseconds", "unaligned", "match-ids", "match-names",
            "objectrows", "google_json", "natural-points", "virtual-points", "display-absolute", "all-dimensions",
            "allow_past", "no-such-option"};
    private static final long[] SPANS = {1, 2, 3, 5, 7, 10, 13, 25, 30, 50, 60, 61, 90, 100, 120, 180, 240, 300, 600,
            3600, 86400};

    private final Random rnd;
    private final List<Chart> charts;
    private final String hostName;
    private final String hostGuid;

    DataQueryGenerator(long seed, List<Chart> charts, String hostName, String hostGuid) {
        this.rnd = new Random(seed);
        this.charts = charts;
        this.hostName = hostName;
        this.hostGuid = hostGuid;
    }

    /**
     * One query path (with the {@code /host/} prefix). {@code settled} is the newest second both
     * parents certainly hold; {@code before} is never after it, so that the answers do not depend
     * on the moment they are computed.
     */
    String next(long settled) {
        Chart c = pickChart();
        StringBuilder q = new StringBuilder();
        q.append("/host/").append(rnd.nextInt(4) == 0 ? hostGuid : hostName).append("/api/v1/data?");
        if (rnd.nextInt(12) == 0) {
            q.append("context=").append(enc(c.context()));
            if (rnd.nextInt(3) == 0) {
                q.append("&chart=").append(enc(c.id()));
            }
        } else {
            q.append("chart=").append(enc(rnd.nextInt(5) == 0 ? c.name() : c.id()));
        }
        window(q, c, settled);
        int points = points(c);
        if (points >= 0) {
            q.append("&points=").append(points);
        }
        if (rnd.nextInt(5) != 0) {
            String g = GROUPS[rnd.nextInt(GROUPS.length)];
            q.append("&group=").append(g);
            if (g.equals("countif")) {
                String[] opts = {">0", "<1", ">=0.5", "!0", "=0", "<=10", ""};
                q.append("&group_options=").append(enc(opts[rnd.nextInt(opts.length)]));
            }
        }
        if (rnd.nextInt(6) == 0) {
            long[] gtimes = {0, 1, 2, 5, 10, 30, 60};
            q.append("&gtime=").append(gtimes[rnd.nextInt(gtimes.length)]);
        }
        String options = options();
        if (!options.isEmpty()) {
            q.append("&options=").append(enc(options));
        }
        if (rnd.nextInt(4) != 0) {
            String format = FORMATS[rnd.nextInt(FORMATS.length)];
            if (format.equals("datasource") && q.indexOf("context=") >= 0) {
                // Netdata 1.37.1 crashes on it (its datasource wrapper reads the chart a context
                // query does not have): not asked, Strata answers it (docs/query-api.md)
                format = "datatable";
            }
            q.append("&format=").append(format);
        }
        if (rnd.nextInt(4) == 0) {
            q.append("&dimensions=").append(enc(dimensions(c)));
        }
        if (rnd.nextInt(15) == 0) {
            q.append("&tier=").append(rnd.nextInt(3));
        }
        return q.toString();
    }

    private Chart pickChart() {
        // charts collected every 5 s or more are few: give them a third of the queries
        if (rnd.nextInt(3) == 0) {
            List<Chart> slow = new ArrayList<>();
            for (Chart c : charts) {
                if (c.updateEvery() > 1) {
                    slow.add(c);
                }
            }
            if (!slow.isEmpty()) {
                return slow.get(rnd.nextInt(slow.size()));
            }
        }
        return charts.get(rnd.nextInt(charts.size()));
    }

    private void window(StringBuilder q, Chart c, long settled) {
        long held = Math.max(1, settled - c.firstEntry());
        long span;
        if (rnd.nextInt(5) == 0) {
            span = SPANS[rnd.nextInt(SPANS.length)]; // often more than is held: reaches beyond retention
        } else {
            span = 1 + rnd.nextLong(held);
        }
        // end: absolute inside what both hold, or relative to now (compared only within one wall-clock second)
        long room = Math.max(0, held - Math.min(span, held));
        long back = rnd.nextInt(2) == 0 ? rnd.nextLong(Math.min(room, 30) + 1) : rnd.nextLong(room + 1);
        long end = settled - back;
        int kind = rnd.nextInt(12);
        if (kind == 0) {
            // entirely before the first entry: beyond retention
            end = c.firstEntry() - 1 - rnd.nextLong(1000);
        }
        boolean relativeEnd = kind >= 8;
        String before = relativeEnd ? "-" + (System.currentTimeMillis() / 1000 - end) : String.valueOf(end);
        int a = rnd.nextInt(12);
        if (a < 4) {
            q.append("&before=").append(before).append("&after=-").append(span);
        } else if (a < 8) {
            q.append("&before=").append(before).append("&after=").append(end - span);
        } else if (a == 8) {
            // reversed: the later time as after, both in the past
            q.append("&before=").append(end - span).append("&after=").append(end);
        } else if (a == 9) {
            // reaching beyond the first entry
            q.append("&before=").append(before).append("&after=").append(c.firstEntry() - rnd.nextLong(1, 4000));
        } else if (a == 10) {
            q.append("&before=").append(before).append("&after=0");
        } else {
            q.append("&before=").append(before); // after: the default, -600
        }
    }

    private int points(Chart c) {
        return switch (rnd.nextInt(10)) {
            case 0 -> -1;
            case 1 -> 0;
            case 2 -> 1;
            case 3 -> 1 + rnd.nextInt(10);
            case 4 -> 25;
            case 5, 6 -> 1 + rnd.nextInt(300);
            case 7 -> 7 * (1 + rnd.nextInt(20));
            default -> 1 + rnd.nextInt(2000);
        };
    }

    private String options() {
        int n = rnd.nextInt(5) == 0 ? 0 : 1 + rnd.nextInt(4);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (s.length() > 0) {
                s.append(rnd.nextInt(4) == 0 ? "," : (rnd.nextInt(5) == 0 ? " " : "|"));
            }
            s.append(OPTIONS[rnd.nextInt(OPTIONS.length)]);
        }
        if (rnd.nextInt(20) == 0) {
            s.append(s.length() > 0 ? "|" : "").append("selected-tier");
        }
        return s.toString();
    }

    private String dimensions(Chart c) {
        int n = c.dimIds().size();
        int i = rnd.nextInt(n);
        return switch (rnd.nextInt(8)) {
            case 0 -> c.dimIds().get(i);
            case 1 -> c.dimNames().get(i);
            case 2 -> c.dimNames().get(i) + "|" + c.dimNames().get(rnd.nextInt(n));
            case 3 -> "*" + lastChar(c.dimNames().get(i));
            case 4 -> "!" + c.dimNames().get(i) + " *";
            case 5 -> c.dimIds().get(i) + "," + c.dimIds().get(rnd.nextInt(n));
            case 6 -> "no-such-dimension";
            default -> "*";
        };
    }

    private static String lastChar(String s) {
        return s.isEmpty() ? "" : s.substring(s.length() - 1);
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
