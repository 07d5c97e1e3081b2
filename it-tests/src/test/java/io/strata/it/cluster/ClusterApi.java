package io.strata.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** What a test reads of a node through its Netdata-compatible query API. */
final class ClusterApi {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    private ClusterApi() {
    }

    static JsonNode get(NodeProcess node, String path) throws IOException, InterruptedException {
        return get(node.url(), path);
    }

    /** {@code base}: {@code http://127.0.0.1:PORT}. */
    static JsonNode get(String base, String path) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(base + path + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }

    /** Host names the node holds besides itself ({@code mirrored_hosts}), or empty when it does not answer. */
    static List<String> hosts(NodeProcess node) {
        List<String> out = new ArrayList<>();
        try {
            for (JsonNode h : get(node, "/api/v1/info").get("mirrored_hosts")) {
                out.add(h.asText());
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            // not up yet
        }
        return out;
    }

    static List<String> charts(NodeProcess node, String host) throws IOException, InterruptedException {
        return charts(node.url(), host, 0);
    }

    /**
     * The chart ids of a host ({@code host} null: the node's own), only those collected every
     * {@code updateEvery} seconds when it is not 0.
     */
    static List<String> charts(String base, String host, int updateEvery) throws IOException, InterruptedException {
        List<String> out = new ArrayList<>();
        JsonNode charts = get(base, prefix(host) + "/api/v1/charts").get("charts");
        Iterator<String> it = charts.fieldNames();
        it.forEachRemaining(id -> {
            if (updateEvery == 0 || charts.get(id).path("update_every").asInt() == updateEvery) {
                out.add(id);
            }
        });
        out.sort(String::compareTo);
        return out;
    }

    private static String prefix(String host) {
        return host == null ? "" : "/host/" + host;
    }

    /**
     * Every second of (after, before] of a chart, one row per second: {@code [time, v1, v2, ...]},
     * NaN where the node has no value.
     */
    static double[][] perSecond(NodeProcess node, String host, String chart, long after, long before)
            throws IOException, InterruptedException {
        return perSecond(node.url(), host, chart, after, before);
    }

    static double[][] perSecond(String base, String host, String chart, long after, long before)
            throws IOException, InterruptedException {
        String q = prefix(host) + "/api/v1/data?chart=" + URLEncoder.encode(chart, StandardCharsets.UTF_8)
                + "&after=" + after + "&before=" + before + "&points=" + (before - after)
                + "&group=average&format=json&options=seconds%7Cnonzero%7Cunaligned";
        JsonNode data = get(base, q.replace("%7Cnonzero", "")).get("data");
        double[][] rows = new double[data.size()][];
        for (int i = 0; i < data.size(); i++) {
            JsonNode row = data.get(i);
            rows[i] = new double[row.size()];
            for (int j = 0; j < row.size(); j++) {
                rows[i][j] = row.get(j).isNull() ? Double.NaN : row.get(j).asDouble();
            }
        }
        java.util.Arrays.sort(rows, (a, b) -> Double.compare(a[0], b[0]));
        return rows;
    }
}
