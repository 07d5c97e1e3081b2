package io.strata.node.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every second of (after, before] of one chart as one node answers it through Netdata's
 * {@code /api/v1/data} (one point per second, unaligned), per dimension; NaN where the node has no
 * value.
 */
final class Series {

    private static final ObjectMapper JSON = new ObjectMapper();

    final long after;
    final long before;
    private final Map<String, double[]> byDimension = new HashMap<>();

    private Series(long after, long before) {
        this.after = after;
        this.before = before;
    }

    /**
     * A series of the given values, one array per dimension, index i the second {@code after + 1 + i}
     * (NaN: no value); what {@link #fetch} builds from an answer.
     */
    static Series of(long after, long before, Map<String, double[]> values) {
        Series s = new Series(after, before);
        values.forEach((dim, v) -> {
            if (v.length != before - after) {
                throw new IllegalArgumentException(dim + ": " + v.length + " values for " + (before - after) + " s");
            }
            s.byDimension.put(dim, v.clone());
        });
        return s;
    }

    static Series fetch(ChaosNode node, String host, String chart, long after, long before)
            throws IOException, InterruptedException {
        String path = (host == null ? "" : "/host/" + host) + "/api/v1/data?chart="
                + URLEncoder.encode(chart, StandardCharsets.UTF_8) + "&after=" + after + "&before=" + before
                + "&points=" + (before - after) + "&group=average&format=json&options=seconds%7Cunaligned";
        Series s = new Series(after, before);
        String body;
        try {
            body = node.fetch(path);
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().contains(" 404: No metrics where matched to query")) {
                // Netdata's answer when no dimension has a point in the window: nothing there
                return s;
            }
            throw e;
        }
        JsonNode root = JSON.readTree(body);
        JsonNode labels = root.get("labels");
        int n = (int) (before - after);
        List<double[]> columns = new ArrayList<>();
        for (int j = 1; j < labels.size(); j++) {
            double[] v = new double[n];
            Arrays.fill(v, Double.NaN);
            columns.add(v);
            s.byDimension.put(labels.get(j).asText(), v);
        }
        for (JsonNode row : root.get("data")) {
            long t = row.get(0).asLong();
            int i = (int) (t - after - 1);
            if (i < 0 || i >= n) {
                continue;
            }
            for (int j = 1; j < row.size() && j <= columns.size(); j++) {
                if (!row.get(j).isNull()) {
                    columns.get(j - 1)[i] = row.get(j).asDouble();
                }
            }
        }
        return s;
    }

    /** The chart ids of a host ({@code host} null: the node's own) collected every second. */
    static List<String> charts(ChaosNode node, String host) throws IOException, InterruptedException {
        return new ArrayList<>(firstEntries(node, host).keySet());
    }

    /**
     * The charts of a host ({@code host} null: the node's own) collected every second, in the order
     * of their ids, each with its first second in that node's engine (the chart's {@code first_entry}
     * in {@code /api/v1/charts}; 0 when the answer has none).
     */
    static Map<String, Long> firstEntries(ChaosNode node, String host) throws IOException, InterruptedException {
        JsonNode charts = JSON.readTree(node.fetch((host == null ? "" : "/host/" + host) + "/api/v1/charts"))
                .get("charts");
        Map<String, Long> out = new TreeMap<>();
        Iterator<String> it = charts.fieldNames();
        it.forEachRemaining(id -> {
            if (charts.get(id).path("update_every").asInt() == 1) {
                out.put(id, charts.get(id).path("first_entry").asLong(0));
            }
        });
        return out;
    }

    /** Host names the node holds besides itself, or empty when it does not answer. */
    static List<String> hosts(ChaosNode node) {
        List<String> out = new ArrayList<>();
        try {
            for (JsonNode h : JSON.readTree(node.fetch("/api/v1/info")).get("mirrored_hosts")) {
                out.add(h.asText());
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            // down, frozen or cut off
        }
        return out;
    }

    List<String> dimensions() {
        List<String> d = new ArrayList<>(byDimension.keySet());
        d.sort(String::compareTo);
        return d;
    }

    /** The value at second {@code t} (after < t <= before), NaN when none or the dimension is unknown. */
    double at(String dimension, long t) {
        double[] v = byDimension.get(dimension);
        int i = (int) (t - after - 1);
        return v == null || i < 0 || i >= v.length ? Double.NaN : v[i];
    }

    /** Whether any dimension has a value at second {@code t}. */
    boolean holds(long t) {
        for (double[] v : byDimension.values()) {
            int i = (int) (t - after - 1);
            if (i >= 0 && i < v.length && !Double.isNaN(v[i])) {
                return true;
            }
        }
        return false;
    }

    /** The newest second with a value in any dimension, or {@link #after} when none. */
    long newest() {
        for (long t = before; t > after; t--) {
            if (holds(t)) {
                return t;
            }
        }
        return after;
    }

    /** Seconds of the first dimension with a value. */
    int valued() {
        if (byDimension.isEmpty()) {
            return 0;
        }
        double[] v = byDimension.get(dimensions().get(0));
        int n = 0;
        for (double x : v) {
            n += Double.isNaN(x) ? 0 : 1;
        }
        return n;
    }
}
