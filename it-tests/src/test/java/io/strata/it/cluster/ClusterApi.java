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

/**
 * What a test reads of a node through its Netdata-compatible query API: from this JVM on
 * 127.0.0.1, or from inside a network namespace of the test (a node in a {@link NetnsLab}).
 */
final class ClusterApi {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Answers a GET of a path (e.g. {@code /api/v1/info}) with the body of a 200. */
    interface Fetcher {
        String fetch(String path) throws IOException, InterruptedException;
    }

    private ClusterApi() {
    }

    /** Over HTTP from this JVM; {@code base}: {@code http://127.0.0.1:PORT}. */
    static Fetcher http(String base) {
        return path -> {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException(base + path + " answered " + r.statusCode() + ": " + r.body());
            }
            return r.body();
        };
    }

    static JsonNode get(Fetcher node, String path) throws IOException, InterruptedException {
        return JSON.readTree(node.fetch(path));
    }

    static JsonNode get(String base, String path) throws IOException, InterruptedException {
        return get(http(base), path);
    }

    /** Host names the node holds besides itself ({@code mirrored_hosts}), or empty when it does not answer. */
    static List<String> hosts(Fetcher node) {
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

    static List<String> charts(Fetcher node, String host) throws IOException, InterruptedException {
        return charts(node, host, 0);
    }

    /**
     * The chart ids of a host ({@code host} null: the node's own), only those collected every
     * {@code updateEvery} seconds when it is not 0.
     */
    static List<String> charts(Fetcher node, String host, int updateEvery) throws IOException, InterruptedException {
        List<String> out = new ArrayList<>();
        JsonNode charts = get(node, prefix(host) + "/api/v1/charts").get("charts");
        Iterator<String> it = charts.fieldNames();
        it.forEachRemaining(id -> {
            if (updateEvery == 0 || charts.get(id).path("update_every").asInt() == updateEvery) {
                out.add(id);
            }
        });
        out.sort(String::compareTo);
        return out;
    }

    static List<String> charts(String base, String host, int updateEvery) throws IOException, InterruptedException {
        return charts(http(base), host, updateEvery);
    }

    private static String prefix(String host) {
        return host == null ? "" : "/host/" + host;
    }

    /**
     * Every second of (after, before] of a chart, one row per second: {@code [time, v1, v2, ...]},
     * NaN where the node has no value.
     */
    static double[][] perSecond(Fetcher node, String host, String chart, long after, long before)
            throws IOException, InterruptedException {
        String q = prefix(host) + "/api/v1/data?chart=" + URLEncoder.encode(chart, StandardCharsets.UTF_8)
                + "&after=" + after + "&before=" + before + "&points=" + (before - after)
                + "&group=average&format=json&options=seconds%7Cunaligned";
        JsonNode data = get(node, q).get("data");
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

    static double[][] perSecond(String base, String host, String chart, long after, long before)
            throws IOException, InterruptedException {
        return perSecond(http(base), host, chart, after, before);
    }
}
