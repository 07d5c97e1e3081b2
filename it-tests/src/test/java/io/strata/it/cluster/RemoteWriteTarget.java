package io.strata.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A real remote-write receiver for the tests, started on 127.0.0.1 and a free port: Debian's
 * {@code victoria-metrics} or {@code prometheus} (with {@code --web.enable-remote-write-receiver}). Can be
 * stopped and started again on the same port and data; reads raw samples back (every sample stored,
 * duplicates included) from the target's own query API.
 */
final class RemoteWriteTarget implements AutoCloseable {

    enum Kind {
        VICTORIA_METRICS("/usr/bin/victoria-metrics"), PROMETHEUS("/usr/bin/prometheus");

        final String binary;

        Kind(String binary) {
            this.binary = binary;
        }
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    final Kind kind;
    final Path dir;
    final int port;
    private Process process;
    private int starts;

    RemoteWriteTarget(Kind kind, Path dir, int port) {
        this.kind = kind;
        this.dir = dir;
        this.port = port;
    }

    /** Why the target cannot run here, or null when its binary exists. */
    static String absent(Kind kind) {
        return Files.isExecutable(Path.of(kind.binary)) ? null
                : kind.binary + " is not installed (apt-get install -y victoria-metrics prometheus)";
    }

    /** The path remote write posts to. */
    String writePath() {
        return "/api/v1/write";
    }

    RemoteWriteTarget start() throws IOException, InterruptedException {
        Files.createDirectories(dir);
        List<String> cmd = new ArrayList<>();
        cmd.add(kind.binary);
        if (kind == Kind.VICTORIA_METRICS) {
            cmd.addAll(List.of("-httpListenAddr=127.0.0.1:" + port, "-storageDataPath=" + dir.resolve("data"),
                    "-retentionPeriod=1y", "-search.disableCache", "-search.latencyOffset=0s"));
        } else {
            Path config = dir.resolve("prometheus.yml");
            Files.writeString(config, "global:\n  scrape_interval: 1h\n");
            cmd.addAll(List.of("--web.enable-remote-write-receiver", "--web.listen-address=127.0.0.1:" + port,
                    "--storage.tsdb.path=" + dir.resolve("data"), "--config.file=" + config));
        }
        starts++;
        Path log = dir.resolve("target.log");
        Files.writeString(log, "---- start " + starts + "\n", StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(kind + " exited with " + process.exitValue() + ": "
                        + Files.readString(log));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                if (get(kind == Kind.VICTORIA_METRICS ? "/health" : "/-/ready").statusCode() == 200) {
                    return this;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(kind + " did not answer on " + port + " in 60 s");
    }

    /** SIGTERM, and its end awaited. */
    void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Every stored sample of the series matching {@code selector} (PromQL) in (after, before] seconds, per
     * series (its labels, sorted, as text): timestamp in ms and value, duplicates included, in time order.
     */
    Map<String, List<double[]>> rawSamples(String selector, long after, long before)
            throws IOException, InterruptedException {
        Map<String, List<double[]>> out = new TreeMap<>();
        if (kind == Kind.VICTORIA_METRICS) {
            // /api/v1/export gives the raw samples, without deduplication
            HttpResponse<String> r = get("/api/v1/export?match[]=" + enc(selector) + "&start=" + (after + 1)
                    + "&end=" + before);
            check(r);
            for (String line : r.body().split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode n = JSON.readTree(line);
                List<double[]> samples = out.computeIfAbsent(labels(n.get("metric")), k -> new ArrayList<>());
                JsonNode ts = n.get("timestamps");
                JsonNode vs = n.get("values");
                for (int i = 0; i < ts.size(); i++) {
                    samples.add(new double[] {ts.get(i).asLong(), vs.get(i).asDouble()});
                }
            }
        } else {
            // a range selector at "before" returns the raw samples of [before - range, before] (2.42 includes both
            // ends): the one at "after" is left out below
            HttpResponse<String> r = get("/api/v1/query?query=" + enc(selector + "[" + (before - after) + "s]")
                    + "&time=" + before);
            check(r);
            for (JsonNode s : JSON.readTree(r.body()).path("data").path("result")) {
                List<double[]> samples = out.computeIfAbsent(labels(s.get("metric")), k -> new ArrayList<>());
                for (JsonNode v : s.get("values")) {
                    long ms = Math.round(v.get(0).asDouble() * 1000);
                    if (ms > after * 1000) {
                        samples.add(new double[] {ms, Double.parseDouble(v.get(1).asText())});
                    }
                }
            }
        }
        for (List<double[]> samples : out.values()) {
            samples.sort((a, b) -> Double.compare(a[0], b[0]));
        }
        return out;
    }

    private void check(HttpResponse<String> r) {
        if (r.statusCode() != 200) {
            throw new IllegalStateException(kind + " answered " + r.statusCode() + ": " + r.body());
        }
    }

    private static String labels(JsonNode metric) {
        TreeMap<String, String> sorted = new TreeMap<>();
        metric.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue().asText()));
        return sorted.toString();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    @Override
    public String toString() {
        return kind + "@" + port;
    }
}
