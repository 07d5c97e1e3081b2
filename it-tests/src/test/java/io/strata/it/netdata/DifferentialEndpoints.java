package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.query.data.DataOptions;
import io.strata.query.data.QueryWindow;

import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The differential comparison of {@code badge.svg}, {@code weights} and {@code metric_correlations}
 * between the real Netdata parent and the Strata parent, for {@link QueryApiMatchesNetdataIT}.
 * <ul>
 *   <li>Badges: a seeded sample of the child's charts, each asked with a set of parameter variants
 *   (default, a dimension, windows in the past, groupings, options, labels, units formats,
 *   colours, precision, scale, fixed widths, refresh), plus an unknown chart and an alarm (Strata
 *   has no health: the Netdata parent, whose health is off for the child, must answer as well). The
 *   SVG text must be equal, and the {@code Cache-Control} and {@code Refresh} headers.</li>
 *   <li>Weights: {@code metric_correlations} (ks2) and {@code weights} with each method over fixed
 *   windows in the past, spread and {@code raw}. Answers are compared as JSON without
 *   {@code statistics} (timings and point counts of each engine), keys as sets (the order of
 *   contexts and charts is reported on its own), numbers within {@link #RAW_TOLERANCE} relative.</li>
 * </ul>
 */
final class DifferentialEndpoints {

    /**
     * Scores are printed with 7 decimals ({@code %0.7f}); raw scores are computed from the same
     * stored points by the same formulas and differ only by floating-point rounding (Netdata
     * computes in long double, Strata in double), so two printed scores may differ by one unit of
     * the last decimal where the value sits on a rounding boundary, never more. Spread weights are
     * multiples of 1/(distinct scores) and are held to the same.
     */
    static final double RAW_TOLERANCE = 1.5e-7;

    /** One difference found, as the IT records them. */
    interface Recorder {
        void record(String kind, String query, AnswerDiff.Difference d, AnswerDiff.Answer netdata,
                    AnswerDiff.Answer strata);
    }

    /**
     * The documented cause of spread ks2 weights differing while every raw score agrees: the spread
     * counts distinct scores exactly, and two p-values in the far tail (1 − p equal to 7 decimals)
     * can be one double in Netdata and two here (long double differences and libm rounding).
     */
    static final String KS2_DISTINCT = "ks2 distinct scores: ";

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final Random random;
    private final String host;

    DifferentialEndpoints(long seed, String childName) {
        this.random = new Random(seed ^ 0x5eed_badeL);
        this.host = "/host/" + childName + "/api/v1/";
    }

    /**
     * Compares both endpoints families; returns the number of answers compared.
     *
     * @param chartsDiffer the two parents list different charts (a documented cause for weights listing)
     * @param obsolete     the prefix of that documented cause
     * @param otherOrder   the prefix of the documented definition-order cause when the two parents list
     *                     their charts or contexts in another order, else null: weights list contexts,
     *                     charts and dimensions in that order, so an answer differing only in it is put
     *                     down to it
     * @param plannedOnTier the prefix of the documented cause of answers whose query plan read tier 1
     *                     or 2 on either parent and whose tier-0 twin both parents answer alike
     * @param retentionStart the prefix of the documented cause of answers over seconds before one
     *                     parent's first entry of a context: weights whose every differing score is of a
     *                     context the two parents hold from different seconds, both after the baseline's start
     */
    int compare(String nd, String st, List<DataQueryGenerator.Chart> charts, boolean chartsDiffer, String obsolete,
                String otherOrder, String plannedOnTier, String retentionStart, Recorder recorder) throws IOException {
        int n = badges(nd, st, charts, plannedOnTier, recorder);
        n += weights(nd, st, chartsDiffer, obsolete, otherOrder, plannedOnTier, retentionStart, recorder);
        return n;
    }

    // ---- badges -----------------------------------------------------------------------------------

    private int badges(String nd, String st, List<DataQueryGenerator.Chart> charts, String plannedOnTier,
                       Recorder recorder) throws IOException {
        List<DataQueryGenerator.Chart> sample = new ArrayList<>(charts);
        Collections.shuffle(sample, random);
        sample = sample.subList(0, Math.min(40, sample.size()));
        int n = 0;
        List<String> queries = new ArrayList<>();
        queries.add("badge.svg?chart=no.such.chart");
        queries.add("badge.svg?chart=system.load&alarm=load_average_1");
        queries.add("badge.svg?label=no+chart");
        for (DataQueryGenerator.Chart c : sample) {
            String chart = "badge.svg?chart=" + DataQueryGenerator.enc(c.id());
            // windows fixed in the past: both parents hold the same points there
            String past = pastWindow(System.currentTimeMillis() / 1000, c.updateEvery());
            String dim = c.dimIds().isEmpty() ? "" : "&dimension=" + DataQueryGenerator.enc(
                    c.dimIds().get(random.nextInt(c.dimIds().size())));
            queries.add(chart + past);
            queries.add(chart + dim + past + "&group=max&points=1");
            queries.add(chart + past + "&points=3&options=" + pick("absolute", "percentage", "min2max", "abs|flip",
                    "nonzero", "display-absolute"));
            queries.add(chart + past + "&group=" + pick("min", "sum", "median", "stddev", "incremental-sum")
                    + "&multiply=" + (1 + random.nextInt(1000)) + "&divide=" + (1 + random.nextInt(100)));
            queries.add(chart + dim + past + "&units=" + DataQueryGenerator.enc(pick("seconds", "minutes ago", "hours", "on/off",
                    "percent", "empty", "KiB")) + "&precision=" + (random.nextInt(5) - 1));
            queries.add(chart + past + "&label=" + DataQueryGenerator.enc(pick("a + b", "\u00e9t\u00e9", "x<y>\"'", "l")) + "&label_color="
                    + pick("red", "abc", "bogus", "0f0f0f") + "&value_color=" + DataQueryGenerator.enc(
                    pick("red>10|green", "yellow<=5|blue", "grey:null|orange", "red")) + "&scale=" + pick("50", "150",
                    "300") + "&text_color_lbl=" + pick("000", "red") + "&text_color_val=fff");
            queries.add(chart + past + "&fixed_width_lbl=" + (40 + random.nextInt(60)) + "&fixed_width_val="
                    + (30 + random.nextInt(40)) + "&refresh=" + pick("auto", "5", "-10"));
            // the default window (the last collection interval) moves: asked again when the answers differ
            queries.add(chart + "&refresh=auto&options=unaligned");
        }
        for (String q : queries) {
            n++;
            AnswerDiff.Answer a = null;
            AnswerDiff.Answer b = null;
            AnswerDiff.Difference d = null;
            for (int attempt = 0; attempt < 3; attempt++) {
                a = badge(nd + host + q);
                b = badge(st + host + q);
                d = a.equals(b) ? null : new AnswerDiff.Difference("badge", firstDifference(a, b));
                // a window in the past is asked again only when its row, aligned, reaches the newest
                // seconds (which the Strata parent gets after the Netdata parent)
                if (d == null || (q.contains("&after=") && !rowEndsAfterWindow(q))) {
                    break;
                }
            }
            if (d != null) {
                // a window in the past whose plan reads a coarser tier on either parent (each parent's
                // plan moves to tier 1 when its tier-1 point covering the window closes, at its own moment)
                boolean planned = q.contains("&after=") && badgeReadsCoarserTier(nd, st, q)
                        && sameDataOnTierZero(nd, st, dataTwin(q, ""));
                recorder.record((planned ? plannedOnTier : "") + "badge " + variant(q), host + q, d, a, b);
            }
        }
        return n;
    }

    /** A badge window of 60 s ending 10 s and two intervals back. */
    static String pastWindow(long now, int updateEvery) {
        long end = now - 10 - 2L * updateEvery;
        return "&after=" + (end - 60) + "&before=" + end;
    }

    /**
     * True when Netdata's window arithmetic ({@code query_target_calculate_window}) aligns the end
     * of the badge's row past the {@code before} asked: a row of 61 s for the default
     * {@code points=1}, rounded up to a whole row, reaches up to a minute further, into the newest
     * seconds, which the Strata parent gets after the Netdata parent (a badge of
     * {@code netdata.workers_cpu_streamsnd} read 0.033 % there and 0.0336 % here). Moving the window
     * back a row instead made every such badge read tier 1, whose points the two parents aggregate
     * differently: such badges are asked again, as those of the default window.
     */
    static boolean rowEndsAfterWindow(String badgeQuery) {
        Map<String, String> p = new LinkedHashMap<>();
        for (String kv : badgeQuery.substring(badgeQuery.indexOf('?') + 1).split("&")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                p.put(kv.substring(0, eq), URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        if (!p.containsKey("after") || !p.containsKey("before")) {
            return true;
        }
        long before = Long.parseLong(p.get("before"));
        QueryWindow w = QueryWindow.compute(Long.parseLong(p.get("after")), before,
                Long.parseLong(p.getOrDefault("points", "1")), DataOptions.parse(p.get("options")), 0, 0, 0, 0, 1,
                before + 3600);
        return w.before() > before;
    }

    /**
     * The data query a badge makes ({@code rrdset2value_api_v1}: its chart, dimensions, window,
     * points, default 1, group and options) as a json data query, {@code extraOptions} added to its
     * options.
     */
    static String dataTwin(String badgeQuery, String extraOptions) {
        StringBuilder out = new StringBuilder("data?format=json");
        String points = "1";
        String options = "";
        for (String kv : badgeQuery.substring(badgeQuery.indexOf('?') + 1).split("&")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            switch (kv.substring(0, eq)) {
                case "chart", "after", "before", "group", "group_options" -> out.append('&').append(kv);
                case "dimension", "dim", "dimensions", "dims" -> out.append("&dimensions=").append(kv.substring(eq + 1));
                case "points" -> points = kv.substring(eq + 1);
                case "options" -> options = kv.substring(eq + 1);
                default -> {
                    // label, units, colours, sizes, multiply and divide: the badge's rendering of the value
                }
            }
        }
        String all = options.isEmpty() ? extraOptions : extraOptions.isEmpty() ? options : options + "|" + extraOptions;
        return out.append("&points=").append(points).append(all.isEmpty() ? "" : "&options=" + all).toString();
    }

    /** True when either parent's plan for the badge's data query read points of tier 1 or 2. */
    private boolean badgeReadsCoarserTier(String nd, String st, String badgeQuery) throws IOException {
        String wrapped = dataTwin(badgeQuery, "jsonwrap");
        for (String parent : List.of(nd, st)) {
            HttpResponse<String> r = send(parent + host + wrapped);
            if (r.statusCode() == 200 && readsCoarserTier(r.body())) {
                return true;
            }
        }
        return false;
    }

    /** True when an answer's {@code db_points_per_tier} (at its root or in its statistics) counts points above tier 0. */
    static boolean readsCoarserTier(String body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException notJson) {
            return false;
        }
        JsonNode perTier = root.has("db_points_per_tier") ? root.get("db_points_per_tier")
                : root.path("statistics").path("db_points_per_tier");
        for (int t = 1; t < perTier.size(); t++) {
            if (perTier.get(t).asLong() > 0) {
                return true;
            }
        }
        return false;
    }

    /** True when both parents answer {@code dataQuery} asked of tier 0 alike. */
    private boolean sameDataOnTierZero(String nd, String st, String dataQuery) throws IOException {
        String q = dataQuery + "&tier=0";
        HttpResponse<String> ra = send(nd + host + q);
        HttpResponse<String> rb = send(st + host + q);
        return new AnswerDiff(java.util.Set.of()).compare(
                new AnswerDiff.Answer(ra.statusCode(), ra.headers().firstValue("Content-Type").orElse(""), ra.body()),
                new AnswerDiff.Answer(rb.statusCode(), rb.headers().firstValue("Content-Type").orElse(""), rb.body()))
                == null;
    }

    private String pick(String... options) {
        return options[random.nextInt(options.length)];
    }

    /** The parameters a badge query has, for grouping differences. */
    private static String variant(String q) {
        StringBuilder sb = new StringBuilder();
        for (String p : q.substring(q.indexOf('?') + 1).split("&")) {
            String name = p.contains("=") ? p.substring(0, p.indexOf('=')) : p;
            if (!name.equals("chart") && !name.equals("after") && !name.equals("before")) {
                sb.append(sb.length() == 0 ? "" : ",").append(name);
            }
        }
        return sb.length() == 0 ? "default" : sb.toString();
    }

    private static String firstDifference(AnswerDiff.Answer a, AnswerDiff.Answer b) {
        if (a.status() != b.status()) {
            return "status " + a.status() + " vs " + b.status();
        }
        String x = a.body();
        String y = b.body();
        int i = 0;
        while (i < x.length() && i < y.length() && x.charAt(i) == y.charAt(i)) {
            i++;
        }
        int from = Math.max(0, i - 60);
        return "at " + i + ": netdata ..." + x.substring(from, Math.min(x.length(), i + 60)) + "... strata ..."
                + y.substring(from, Math.min(y.length(), i + 60)) + "...";
    }

    /** A badge answer with the headers that must agree folded in front of its body. */
    private AnswerDiff.Answer badge(String url) throws IOException {
        HttpResponse<String> r = send(url);
        String refresh = r.headers().firstValue("Refresh").orElse("-");
        String cache = r.headers().firstValue("Cache-Control").orElse("-");
        return new AnswerDiff.Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""),
                "Cache-Control: " + cache + "\nRefresh: " + refresh + "\n\n" + r.body());
    }

    // ---- weights ----------------------------------------------------------------------------------

    private int weights(String nd, String st, boolean chartsDiffer, String obsolete, String otherOrder,
                        String plannedOnTier, String retentionStart, Recorder recorder) throws IOException {
        long settled = System.currentTimeMillis() / 1000 - 15;
        // a 30 s highlight after a 120 s baseline (4 times: 2 shifts), inside the history the run waited for
        String windows = "after=" + (settled - 30) + "&before=" + settled + "&baseline_after=" + (settled - 150)
                + "&baseline_before=" + (settled - 30);
        // the raw ks2 scores first: the spread ones are judged against them
        List<String> queries = List.of(
                "metric_correlations?" + windows + "&options=raw|nonzero|null2zero|unaligned",
                "metric_correlations?" + windows,
                "metric_correlations?" + windows + "&method=volume",
                "weights?" + windows + "&method=ks2&contexts=system.*,disk.*,net.*",
                "weights?" + windows + "&method=volume",
                "weights?" + windows + "&method=volume&options=raw&group=max",
                "weights?" + windows + "&method=ks2&points=60&options=raw",
                "weights?" + windows + "&options=null2zero",
                "weights?" + windows);
        int n = 0;
        boolean rawKs2Equal = false;
        for (String q : queries) {
            n++;
            HttpResponse<String> ra = send(nd + host + q);
            HttpResponse<String> rb = send(st + host + q);
            AnswerDiff.Answer a = new AnswerDiff.Answer(ra.statusCode(),
                    ra.headers().firstValue("Content-Type").orElse(""), ra.body());
            AnswerDiff.Answer b = new AnswerDiff.Answer(rb.statusCode(),
                    rb.headers().firstValue("Content-Type").orElse(""), rb.body());
            String kind = q.substring(0, q.indexOf('?')) + " " + method(q);
            AnswerDiff.Difference d = compareWeights(a, b);
            boolean ks2 = q.startsWith("metric_correlations") && !q.contains("method=")
                    || q.contains("method=ks2");
            if (ks2 && q.contains("raw") && q.startsWith("metric_correlations")) {
                rawKs2Equal = d == null || d.kind().startsWith("order");
            }
            if (d != null && ks2 && !q.contains("raw") && d.kind().equals("score") && rawKs2Equal) {
                recorder.record(KS2_DISTINCT + kind + " " + d.kind(), host + q, d, a, b);
                continue;
            }
            if (d != null && d.kind().startsWith("only") && q.contains("method=volume")) {
                d = new AnswerDiff.Difference(d.kind(), d.detail() + volumeInputs(nd, st, q, a, b));
            }
            if (d != null) {
                boolean listing = d.kind().startsWith("only") || d.kind().contains("total_dimensions_count")
                        || d.kind().contains("dimensions count");
                boolean orderOnly = d.kind().equals("order of charts");
                String cause = chartsDiffer && listing ? obsolete : orderOnly && otherOrder != null ? otherOrder : "";
                if (cause.isEmpty() && (readsCoarserTier(a.body()) || readsCoarserTier(b.body()))
                        && sameWeightsOnTierZero(nd, st, q, otherOrder != null)) {
                    // the windows' values read from tier 1 or 2 on either parent (rrdmetric2value plans
                    // as the data API); asked of tier 0 both answer alike
                    cause = plannedOnTier;
                }
                if (cause.isEmpty() && d.kind().equals("score")
                        && baselineBeforeRetentionStart(nd, st, settled - 150, differingContexts(a, b))) {
                    cause = retentionStart;
                }
                recorder.record(cause + kind + " " + d.kind(), host + q, d, a, b);
            }
        }
        return n;
    }

    /**
     * For the dimensions one parent lists and the other does not in a volume answer: what each
     * parent's data query gives for the two windows volume compares (one row each, as Netdata's
     * rrdmetric2value asks), so that a run shows whether the inputs or the arithmetic differ.
     */
    private String volumeInputs(String nd, String st, String q, AnswerDiff.Answer a, AnswerDiff.Answer b)
            throws IOException {
        Map<String, Double> sx = scores(JSON.readTree(a.body()));
        Map<String, Double> sy = scores(JSON.readTree(b.body()));
        List<String> only = new ArrayList<>();
        for (String k : sx.keySet()) {
            if (!sy.containsKey(k) && !k.endsWith(" weight")) {
                only.add(k);
            }
        }
        for (String k : sy.keySet()) {
            if (!sx.containsKey(k) && !k.endsWith(" weight")) {
                only.add(k);
            }
        }
        String group = q.contains("group=") ? "&group=" + q.substring(q.indexOf("group=") + 6).split("&")[0] : "";
        StringBuilder out = new StringBuilder();
        for (String k : only.subList(0, Math.min(3, only.size()))) {
            String[] parts = k.split("/", 3);
            if (parts.length < 3) {
                continue;
            }
            String chart = parts[1];
            String dim = URLEncoder.encode(parts[2], StandardCharsets.UTF_8);
            String[][] windows = {
                    {"baseline", param(q, "baseline_after"), param(q, "baseline_before")},
                    {"highlight", param(q, "after"), param(q, "before")}};
            for (String[] w : windows) {
                String data = "data?chart=" + chart + "&dimensions=" + dim + "&after=" + w[1] + "&before=" + w[2]
                        + "&points=1" + group + "&format=json"
                        + "&options=unaligned%7Cnull2zero%7Cabsolute%7Cnatural-points%7Cmatch-ids%7Cjsonwrap";
                out.append("\n  ").append(k).append(' ').append(w[0]).append(": netdata ")
                        .append(rowAndPoints(send(nd + host + data).body())).append(", strata ")
                        .append(rowAndPoints(send(st + host + data).body()));
            }
        }
        return out.toString();
    }

    /**
     * True when both parents answer the weights query {@code q} asked of tier 0 ({@code tier=0})
     * alike (in another order of charts too when {@code otherOrderDocumented}).
     */
    private boolean sameWeightsOnTierZero(String nd, String st, String q, boolean otherOrderDocumented)
            throws IOException {
        String tierZero = q + "&tier=0";
        HttpResponse<String> ra = send(nd + host + tierZero);
        HttpResponse<String> rb = send(st + host + tierZero);
        AnswerDiff.Difference d = compareWeights(
                new AnswerDiff.Answer(ra.statusCode(), ra.headers().firstValue("Content-Type").orElse(""), ra.body()),
                new AnswerDiff.Answer(rb.statusCode(), rb.headers().firstValue("Content-Type").orElse(""), rb.body()));
        return d == null || otherOrderDocumented && d.kind().equals("order of charts");
    }

    private static String param(String q, String name) {
        for (String kv : q.substring(q.indexOf('?') + 1).split("&")) {
            if (kv.startsWith(name + "=")) {
                return kv.substring(name.length() + 1);
            }
        }
        return "";
    }

    private static String rowAndPoints(String body) {
        try {
            JsonNode r = JSON.readTree(body);
            return r.path("result").path("data") + " first_entry " + r.path("first_entry") + " points "
                    + r.path("db_points_per_tier");
        } catch (IOException notJson) {
            return body.length() > 80 ? body.substring(0, 80) : body;
        }
    }

    private static String method(String q) {
        int i = q.indexOf("method=");
        String m = i < 0 ? "default" : q.substring(i + 7).split("&")[0];
        return m + (q.contains("raw") ? " raw" : "");
    }

    /** Null when equal: status, the fields but statistics, the scores by chart and dimension. */
    static AnswerDiff.Difference compareWeights(AnswerDiff.Answer a, AnswerDiff.Answer b) throws IOException {
        if (a.status() != b.status()) {
            return new AnswerDiff.Difference("status " + a.status() + " vs " + b.status(),
                    a.body() + " vs " + b.body());
        }
        JsonNode x = JSON.readTree(a.body());
        JsonNode y = JSON.readTree(b.body());
        if (a.status() != 200) {
            return x.equals(y) ? null : new AnswerDiff.Difference("error text", a.body() + " vs " + b.body());
        }
        List<String> kx = keys(x);
        List<String> ky = keys(y);
        if (!kx.equals(ky)) {
            return new AnswerDiff.Difference("fields", kx + " vs " + ky);
        }
        // the header, then what is listed (its counts after the lists themselves, which say more)
        List<String> counts = List.of("weighted_dimensions", "correlated_dimensions", "total_dimensions_count");
        for (String k : kx) {
            if (k.equals("statistics") || k.equals("contexts") || k.equals("correlated_charts")
                    || counts.contains(k)) {
                continue;
            }
            if (!x.get(k).equals(y.get(k))) {
                return new AnswerDiff.Difference("." + k, x.get(k) + " vs " + y.get(k));
            }
        }
        Map<String, Double> sx = scores(x);
        Map<String, Double> sy = scores(y);
        List<String> onlyX = new ArrayList<>(sx.keySet());
        onlyX.removeAll(sy.keySet());
        List<String> onlyY = new ArrayList<>(sy.keySet());
        onlyY.removeAll(sx.keySet());
        if (!onlyX.isEmpty() || !onlyY.isEmpty()) {
            return new AnswerDiff.Difference("only one lists some dimensions",
                    "only netdata: " + head(onlyX) + " only strata: " + head(onlyY));
        }
        for (Map.Entry<String, Double> e : sx.entrySet()) {
            double p = e.getValue();
            double q = sy.get(e.getKey());
            if (Math.abs(p - q) > RAW_TOLERANCE * Math.max(1, Math.max(Math.abs(p), Math.abs(q)))) {
                // raw volume ratios can be large: relative beyond 1
                return new AnswerDiff.Difference("score", e.getKey() + ": " + p + " vs " + q);
            }
        }
        for (String k : counts) {
            if (x.has(k) && !x.get(k).equals(y.get(k))) {
                return new AnswerDiff.Difference("." + k, x.get(k) + " vs " + y.get(k));
            }
        }
        if (!new ArrayList<>(sx.keySet()).equals(new ArrayList<>(sy.keySet()))) {
            return new AnswerDiff.Difference("order of charts", head(new ArrayList<>(sx.keySet())) + " vs "
                    + head(new ArrayList<>(sy.keySet())));
        }
        return null;
    }

    /** The contexts of every score the two weights answers give differently (keys as {@link #scores}). */
    static Set<String> differingContexts(AnswerDiff.Answer a, AnswerDiff.Answer b) throws IOException {
        Map<String, Double> sx = scores(JSON.readTree(a.body()));
        Map<String, Double> sy = scores(JSON.readTree(b.body()));
        Set<String> out = new LinkedHashSet<>();
        for (Map.Entry<String, Double> e : sx.entrySet()) {
            Double q = sy.get(e.getKey());
            double p = e.getValue();
            if (q == null || Math.abs(p - q) > RAW_TOLERANCE * Math.max(1, Math.max(Math.abs(p), Math.abs(q)))) {
                String k = e.getKey();
                int end = k.indexOf('/') >= 0 ? k.indexOf('/') : k.indexOf(' ') >= 0 ? k.indexOf(' ') : k.length();
                out.add(k.substring(0, end));
            }
        }
        return out;
    }

    /**
     * True when each of {@code contexts} is held from different seconds on the two parents and the
     * later of them is after {@code baselineAfter}: the baseline then reads seconds only one parent holds.
     */
    private boolean baselineBeforeRetentionStart(String nd, String st, long baselineAfter, Set<String> contexts)
            throws IOException {
        if (contexts.isEmpty()) {
            return false;
        }
        for (String ctx : contexts) {
            long fa = firstTime(nd + host + "context?context=" + URLEncoder.encode(ctx, StandardCharsets.UTF_8));
            long fb = firstTime(st + host + "context?context=" + URLEncoder.encode(ctx, StandardCharsets.UTF_8));
            if (fa <= 0 || fb <= 0 || fa == fb || Math.max(fa, fb) <= baselineAfter) {
                return false;
            }
        }
        return true;
    }

    private long firstTime(String url) throws IOException {
        HttpResponse<String> r = send(url);
        return r.statusCode() == 200 ? JSON.readTree(r.body()).path("first_time_t").asLong(0) : 0;
    }

    private static String head(List<String> l) {
        return l.size() <= 10 ? l.toString() : l.subList(0, 10) + "... (" + l.size() + ")";
    }

    private static List<String> keys(JsonNode n) {
        List<String> k = new ArrayList<>();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            k.add(it.next());
        }
        return k;
    }

    /** context/chart/dimension → score, and the context and chart weights, in the answer's order. */
    private static Map<String, Double> scores(JsonNode root) {
        Map<String, Double> m = new LinkedHashMap<>();
        JsonNode charts = root.get("correlated_charts");
        if (charts != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = charts.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> c = it.next();
                String ctx = c.getValue().path("context").asText();
                for (Iterator<Map.Entry<String, JsonNode>> d = c.getValue().path("dimensions").fields(); d.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = d.next();
                    m.put(ctx + "/" + c.getKey() + "/" + e.getKey(), e.getValue().asDouble());
                }
            }
        }
        JsonNode contexts = root.get("contexts");
        if (contexts != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = contexts.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> x = it.next();
                m.put(x.getKey() + " weight", x.getValue().path("weight").asDouble());
                for (Iterator<Map.Entry<String, JsonNode>> c = x.getValue().path("charts").fields(); c.hasNext(); ) {
                    Map.Entry<String, JsonNode> chart = c.next();
                    m.put(x.getKey() + "/" + chart.getKey() + " weight", chart.getValue().path("weight").asDouble());
                    for (Iterator<Map.Entry<String, JsonNode>> d = chart.getValue().path("dimensions").fields();
                         d.hasNext(); ) {
                        Map.Entry<String, JsonNode> e = d.next();
                        m.put(x.getKey() + "/" + chart.getKey() + "/" + e.getKey(), e.getValue().asDouble());
                    }
                }
            }
        }
        return m;
    }

    private HttpResponse<String> send(String url) throws IOException {
        // the option lists' pipes, which java.net.URI refuses, percent-encoded (both parents decode them)
        HttpRequest req = HttpRequest.newBuilder(URI.create(url.replace("|", "%7C"))).timeout(Duration.ofSeconds(60))
                .GET().build();
        try {
            return http.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }
}
