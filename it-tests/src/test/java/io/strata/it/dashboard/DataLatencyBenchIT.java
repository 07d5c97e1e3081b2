package io.strata.it.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.it.netdata.RealNetdata;
import io.strata.node.config.NodeConfig;
import io.strata.node.runtime.NodeRoles;
import io.strata.node.runtime.StrataNode;
import io.strata.streaming.auth.StreamConfig;
import io.strata.replication.child.LocalHostStreamer;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.config.IniFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The figure of docs/benchmarks.md, run on demand only ({@code -Dstrata.bench.data=true}): the
 * latency of {@code /api/v1/data} for one chart of 10 dimensions, one hour into 60 points, under
 * 64 concurrent keep-alive clients ({@code wrk}), on a Strata parent and on a real Netdata 1.37.1
 * parent holding the same hour. The hour is collected by a Strata child into its own engine in
 * the past (1 s steps) before it connects; both parents get it by replication, so they hold the
 * same points. Everything on 127.0.0.1, each run bounded by {@code wrk -d}.
 */
class DataLatencyBenchIT {

    static final String KEY = RealNetdata.API_KEY;
    static final int DIMENSIONS = 10;
    static final int HOUR = 3600;
    static final ObjectMapper JSON = new ObjectMapper();
    static final Pattern PERCENTILE = Pattern.compile("^\\s*(50|75|90|99)%\\s+([0-9.]+)(us|ms|s)\\s*$");
    static final Pattern RATE = Pattern.compile("^Requests/sec:\\s+([0-9.]+)");

    @TempDir
    Path tmp;

    @Test
    void dataP99UnderSixtyFourClientsBesideNetdata() throws Exception {
        boolean asked = Boolean.getBoolean("strata.bench.data");
        if (!asked) {
            System.out.println("SKIPPED: a benchmark; run with -Dstrata.bench.data=true");
        }
        Assumptions.assumeTrue(asked, "benchmark not asked for");
        RealNetdata.assumeInstalled();
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/wrk")), "wrk is not installed (apt-get install wrk)");
        int runs = Integer.getInteger("strata.bench.runs", 3);
        int seconds = Integer.getInteger("strata.bench.seconds", 10);

        try (RealNetdata nd = RealNetdata.parent(tmp.resolve("nd"), "nd-bench-parent", RealNetdata.freePort(), false);
             StrataNode strata = NodeRoles.start(NodeConfig.load(strataParentConf(tmp.resolve("strata"))), null);
             StorageEngine childEngine = StorageEngine.open(EngineConfig.defaults(tmp.resolve("child-db")))) {
            nd.start(Duration.ofSeconds(900));
            int strataPort = strata.listening().get(0).getPort();

            HostInfo self = new HostInfo(UUID.nameUUIDFromBytes("strata-bench-child".getBytes(StandardCharsets.UTF_8)),
                    "bench-child", "linux", "Etc/UTC", 1, Map.of());
            LocalCharts local = new LocalCharts(childEngine, self);
            List<DimensionInfo> dims = new ArrayList<>();
            for (int d = 0; d < DIMENSIONS; d++) {
                dims.add(new DimensionInfo(self.machineGuid(), "bench.ten", "d" + d, "dim" + d, "absolute", 1, 1000, 0));
            }
            LocalCharts.Chart chart = local.define(new ChartInfo(self.machineGuid(), "bench.ten", "bench.ten",
                    "Ten dimensions", "value", "bench", "bench.ten", "line", 1000, 1, "strata", "bench", Map.of()), dims);
            long end = System.currentTimeMillis() / 1000 - 1;
            long start = end - HOUR - 60;
            SplittableRandom rnd = new SplittableRandom(42);
            long[] values = new long[DIMENSIONS];
            for (long t = start; t <= end; t++) {
                for (int d = 0; d < DIMENSIONS; d++) {
                    values[d] = Math.max(0, (d + 1) * 10_000L + (values[d] % 10_000) + rnd.nextLong(2001) - 1000);
                }
                local.collect(chart, values, null, t * 1_000_000L);
            }

            List<LocalHostStreamer> streamers = new ArrayList<>();
            for (int port : new int[]{strataPort, nd.webPort()}) {
                StreamConfig.SenderSettings s = StreamConfig.from(IniFile.parse("[stream]\n\tenabled = yes\n"
                        + "\tdestination = 127.0.0.1:" + port + "\n\tapi key = " + KEY + "\n"
                        + "\tenable compression = no\n", "stream.conf")).sender();
                LocalHostStreamer c = new LocalHostStreamer(local, s, 1, null);
                streamers.add(c);
                c.start();
            }
            try {
                long before = end;
                long after = end - HOUR;
                String path = "/host/bench-child/api/v1/data?chart=bench.ten&after=" + after + "&before=" + before
                        + "&points=60&group=average&format=json&options=jsonwrap";
                JsonNode strataAnswer = waitForHour(strataPort, path, after, before);
                JsonNode ndAnswer = waitForHour(nd.webPort(), path, after, before);
                double maxDiff = compareRows(strataAnswer, ndAnswer);
                System.out.printf("same hour: %d rows each, largest difference of a value %.6f%n",
                        strataAnswer.path("result").path("data").size(), maxDiff);

                String strataUrl = "http://127.0.0.1:" + strataPort + path;
                String ndUrl = "http://127.0.0.1:" + nd.webPort() + path;
                wrk(strataUrl, 3);
                wrk(ndUrl, 3);
                List<double[]> strataRuns = new ArrayList<>();
                List<double[]> ndRuns = new ArrayList<>();
                for (int r = 0; r < runs; r++) {
                    strataRuns.add(wrk(strataUrl, seconds));
                    ndRuns.add(wrk(ndUrl, seconds));
                }
                System.out.println("wrk -t2 -c64 -d" + seconds + "s --latency -H 'Connection: keep-alive' URL, URL:");
                System.out.println("  " + path);
                report("strata", strataRuns);
                report("netdata", ndRuns);

                // open loop, below saturation: what a client sees when the server is not the queue
                double rate = Double.parseDouble(System.getProperty("strata.bench.rate", "1000"));
                for (int r = 0; r < runs; r++) {
                    System.out.println("paced 64 clients, " + rate + " req/s, strata:  "
                            + PacedHttpLoad.run(strataPort, path, 64, rate, seconds));
                    System.out.println("paced 64 clients, " + rate + " req/s, netdata: "
                            + PacedHttpLoad.run(nd.webPort(), path, 64, rate, seconds));
                }
                String scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + strataPort + "/metrics")).GET().build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                for (String line : scrape.split("\n")) {
                    if (line.startsWith("strata_query_data_seconds")) {
                        System.out.println("strata /metrics: " + line);
                    }
                }
            } finally {
                for (LocalHostStreamer c : streamers) {
                    c.close();
                }
            }
        }
    }

    private static Path strataParentConf(Path base) throws Exception {
        Files.createDirectories(base);
        Files.writeString(base.resolve("netdata.conf"), "[global]\n\thostname = strata-bench-parent\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 3\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + base.resolve("cache") + "\n\tlib = " + base.resolve("lib") + "\n");
        Files.writeString(base.resolve("stream.conf"), "[stream]\n\tenabled = no\n\n"
                + "[" + KEY + "]\n\tenabled = yes\n\tallow from = *\n\tenable replication = yes\n"
                + "\tseconds to replicate = 86400\n");
        return base;
    }

    /** Polls until the parent's answer has 60 rows without nulls: the hour arrived by replication. */
    private static JsonNode waitForHour(int port, String path, long after, long before) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            last = r.statusCode() + " " + r.body();
            if (r.statusCode() == 200) {
                JsonNode j = JSON.readTree(r.body());
                JsonNode rows = j.path("result").path("data");
                boolean full = rows.size() == 60;
                for (JsonNode row : rows) {
                    for (JsonNode v : row) {
                        full &= !v.isNull();
                    }
                }
                if (full && j.path("first_entry").asLong() <= after + 1 && j.path("last_entry").asLong() >= before) {
                    return j;
                }
            }
            Thread.sleep(1000);
        }
        throw new AssertionError("port " + port + " never held the hour: " + last.substring(0, Math.min(600, last.length())));
    }

    private static double compareRows(JsonNode a, JsonNode b) {
        JsonNode ra = a.path("result").path("data");
        JsonNode rb = b.path("result").path("data");
        assertEquals(ra.size(), rb.size(), "rows");
        double max = 0;
        for (int i = 0; i < ra.size(); i++) {
            assertEquals(ra.get(i).get(0).asLong(), rb.get(i).get(0).asLong(), "time of row " + i);
            for (int c = 1; c < ra.get(i).size(); c++) {
                max = Math.max(max, Math.abs(ra.get(i).get(c).asDouble() - rb.get(i).get(c).asDouble()));
            }
        }
        return max;
    }

    /** Runs wrk; returns {p50, p75, p90, p99 in ms, requests/s}. */
    private static double[] wrk(String url, int seconds) throws Exception {
        Process p = new ProcessBuilder("timeout", String.valueOf(seconds + 30), "wrk", "-t2", "-c64", "-d" + seconds + "s",
                "--latency", "-H", "Connection: keep-alive", url).redirectErrorStream(true).start();
        double[] out = new double[5];
        Arrays.fill(out, Double.NaN);
        StringBuilder all = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                all.append(line).append('\n');
                Matcher m = PERCENTILE.matcher(line);
                if (m.find()) {
                    double v = Double.parseDouble(m.group(2));
                    v = switch (m.group(3)) {
                        case "us" -> v / 1000;
                        case "s" -> v * 1000;
                        default -> v;
                    };
                    int i = switch (m.group(1)) {
                        case "50" -> 0;
                        case "75" -> 1;
                        case "90" -> 2;
                        default -> 3;
                    };
                    out[i] = v;
                }
                Matcher rate = RATE.matcher(line);
                if (rate.find()) {
                    out[4] = Double.parseDouble(rate.group(1));
                }
            }
        }
        assertEquals(0, p.waitFor(), all.toString());
        assertTrue(!all.toString().contains("Non-2xx"), "wrk saw errors: " + all);
        System.out.println("wrk " + url.substring(0, url.indexOf("/host/")) + ": " + all.toString().replace('\n', '|'));
        return out;
    }

    private static void report(String name, List<double[]> runs) {
        double[][] byColumn = new double[5][runs.size()];
        for (int r = 0; r < runs.size(); r++) {
            for (int c = 0; c < 5; c++) {
                byColumn[c][r] = runs.get(r)[c];
            }
        }
        double[] median = new double[5];
        for (int c = 0; c < 5; c++) {
            double[] v = byColumn[c].clone();
            Arrays.sort(v);
            median[c] = v[v.length / 2];
        }
        System.out.printf("%-8s medians of %d runs: p50 %.3f ms, p75 %.3f ms, p90 %.3f ms, p99 %.3f ms, %.0f req/s; p99 per run %s%n",
                name, runs.size(), median[0], median[1], median[2], median[3], median[4], Arrays.toString(byColumn[3]));
    }
}
