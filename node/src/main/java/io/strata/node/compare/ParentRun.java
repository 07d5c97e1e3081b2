package io.strata.node.compare;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.engine.verify.DbVerifier;
import io.strata.streaming.load.LoadGenerator;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import io.strata.engine.thread.StrataThreads;
import io.strata.engine.time.Clocks;

/**
 * One parent under the load: start it, stream the load generator's fleet into it in real time,
 * wait for every child to be connected and the warm-up to pass, read /proc at the window's start
 * and end, measure the ingest lag at the end, let the load finish, read the window back through
 * /api/v1/data, stop the parent and count its tier-0 bytes.
 */
final class ParentRun {

    private final CompareSettings s;
    private final PrintStream progress;

    ParentRun(CompareSettings s, PrintStream progress) {
        this.s = s;
        this.progress = progress;
    }

    ParentMeasurement measure(ParentUnderTest parent) throws IOException, InterruptedException {
        progress.printf("%s: starting the parent on 127.0.0.1:%d%n", parent.name(), parent.port());
        parent.start();
        ParentHttp http = new ParentHttp(parent.port());
        int loadSeconds = s.warmup() + s.seconds() + CompareSettings.TAIL_SECONDS;
        LoadGenerator.Options o = new LoadGenerator.Options("127.0.0.1", parent.port(), s.children(),
                s.charts() * s.dimensions(), s.dimensions(), loadSeconds, s.compression(), CompareSettings.API_KEY,
                s.rate(), 1);
        ExecutorService loadThread = StrataThreads.newSingleThreadExecutor(r -> {
            Thread t = StrataThreads.newThread(r, "compare-load");
            t.setDaemon(true);
            return t;
        });
        try {
            Future<LoadGenerator.Result> load = loadThread.submit(() -> new LoadGenerator().run(o));
            progress.printf("%s: %d children x %d charts x %d dimensions at %.0f samples/s, %d s (warm-up %d s)%n",
                    parent.name(), s.children(), s.charts(), s.dimensions(), s.offeredPerSecond(), loadSeconds,
                    s.warmup());
            int connected = awaitChildren(http, load);
            progress.printf("%s: %d of %d children connected; warming up %d s%n", parent.name(), connected,
                    s.children(), s.warmup());
            sleepUntil(System.nanoTime() + s.warmup() * 1_000_000_000L, load);
            long self = ProcessHandle.current().pid();
            ProcessProbe.Snapshot p0 = ProcessProbe.read(parent.pid());
            ProcessProbe.Snapshot l0 = ProcessProbe.read(self);
            long windowStartEpoch = Clocks.wallMillis() / 1000 + 1;
            progress.printf("%s: measuring %d s%n", parent.name(), s.seconds());
            sleepUntil(p0.nanoTime() + s.seconds() * 1_000_000_000L, load);
            ProcessProbe.Snapshot p1 = ProcessProbe.read(parent.pid());
            ProcessProbe.Snapshot l1 = ProcessProbe.read(self);
            long windowEndEpoch = Clocks.wallMillis() / 1000 - 1;
            double[] lag = ingestLag(http);
            LoadGenerator.Result r;
            try {
                r = load.get(loadSeconds + 120L, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new IOException("the load generator failed: " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                throw new IOException("the load generator did not finish within " + (loadSeconds + 120) + " s");
            }
            double offered = s.offeredPerSecond() * r.seconds();
            double kept = offered <= 0 ? 0 : Math.min(1.0, r.samplesSent() / offered);
            double windowSeconds = (p1.nanoTime() - p0.nanoTime()) / 1e9;
            List<String> queryErrors = new ArrayList<>();
            long[] rows = readBack(http, windowStartEpoch, windowEndEpoch, queryErrors);
            double[] reported = netdataReportedBytesPerSample(parent, http, s.seconds());
            progress.printf("%s: stopping the parent%n", parent.name());
            parent.close();
            long tier0Bytes = ParentUnderTest.bytesUnder(parent.tier0Dir());
            double engineReported = reported[0];
            String how = Double.isNaN(engineReported) ? "not reported"
                    : "4-byte points x (1 - savings of its chart netdata.dbengine_compression_ratio)";
            if (parent instanceof StrataParent sp) {
                DbVerifier.TierSummary t0 = sp.verifyTier0();
                engineReported = t0 == null || t0.points() == 0 ? Double.NaN : t0.bytesPerSample();
                how = t0 == null ? "db verify found no tier 0" : "db verify: tier-0 bytes on disk / " + t0.points()
                        + " points on disk";
            }
            List<String> loadErrors = new ArrayList<>(r.refusals());
            loadErrors.addAll(r.errors());
            List<Map.Entry<String, Double>> byThread = new ArrayList<>(ProcessProbe.cpuByThreadFamily(p0, p1).entrySet());
            byThread.sort(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder()));
            return new ParentMeasurement(parent.name(), windowSeconds, s.offeredPerSecond() * windowSeconds * kept,
                    (p1.cpuTicks() - p0.cpuTicks()) / ProcessProbe.TICKS_PER_SECOND,
                    List.copyOf(byThread.subList(0, Math.min(6, byThread.size()))), p0.rssBytes(), p1.rssBytes(),
                    p1.threads(), rows[0], rows[1], List.copyOf(queryErrors.subList(0, Math.min(10, queryErrors.size()))),
                    lag[0], lag[1], (l1.cpuTicks() - l0.cpuTicks()) / ProcessProbe.TICKS_PER_SECOND, r.samplesSent(),
                    offered, List.copyOf(loadErrors.subList(0, Math.min(10, loadErrors.size()))), tier0Bytes,
                    r.samplesSent() == 0 ? Double.NaN : (double) tier0Bytes / r.samplesSent(), engineReported, how);
        } finally {
            loadThread.shutdownNow();
            loadThread.awaitTermination(30, TimeUnit.SECONDS);
            parent.close();
        }
    }

    /**
     * Children seen by the parent's /api/v1/info (its mirrored hosts but itself), waiting at most
     * as long as the load generator waits for their handshakes before it starts its clock: the
     * window then always ends before the load does.
     */
    private int awaitChildren(ParentHttp http, Future<?> load) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int seen = 0;
        while (System.nanoTime() < deadline && !load.isDone()) {
            try {
                JsonNode info = http.json("/api/v1/info");
                seen = 0;
                for (JsonNode h : info.path("mirrored_hosts")) {
                    if (h.asText().startsWith("load-child-")) {
                        seen++;
                    }
                }
                if (seen >= s.children()) {
                    return seen;
                }
            } catch (IOException busy) {
                // a parent busy with many handshakes may answer late; ask again
            }
            Thread.sleep(500);
        }
        return seen;
    }

    private static void sleepUntil(long nanoDeadline, Future<?> load) throws InterruptedException, IOException {
        while (System.nanoTime() < nanoDeadline) {
            if (load.isDone()) {
                try {
                    load.get();
                } catch (ExecutionException e) {
                    throw new IOException("the load generator failed: " + e.getCause(), e.getCause());
                }
                throw new IOException("the load generator stopped before the window ended");
            }
            Thread.sleep(Math.max(1, Math.min(500, (nanoDeadline - System.nanoTime()) / 1_000_000)));
        }
    }

    /** The sampled hosts, spread over the fleet. */
    private List<String> sampleHosts() {
        List<String> hosts = new ArrayList<>();
        int n = Math.min(s.sampleHosts(), s.children());
        for (int i = 0; i < n; i++) {
            hosts.add("load-child-" + (int) ((long) i * s.children() / n));
        }
        return hosts;
    }

    /** The sampled charts, spread over a child's charts. */
    private List<String> sampleCharts() {
        List<String> charts = new ArrayList<>();
        int n = Math.min(s.sampleCharts(), s.charts());
        for (int i = 0; i < n; i++) {
            charts.add("load.chart" + (int) ((long) i * s.charts() / n));
        }
        return charts;
    }

    /** Now minus each sampled host's newest stored second of its first chart: {max, median}; NaN when none answered. */
    private double[] ingestLag(ParentHttp http) {
        List<Double> lags = new ArrayList<>();
        for (String h : sampleHosts()) {
            try {
                JsonNode c = http.json("/host/" + h + "/api/v1/chart?chart=load.chart0");
                long last = c.path("last_entry").asLong(0);
                if (last > 0) {
                    lags.add(Math.max(0, Clocks.wallMillis() / 1000.0 - last));
                }
            } catch (IOException e) {
                // counted as no answer: the read-back below reports the missing host
            }
        }
        if (lags.isEmpty()) {
            return new double[]{Double.NaN, Double.NaN};
        }
        lags.sort(null);
        return new double[]{lags.get(lags.size() - 1), lags.get(lags.size() / 2)};
    }

    /**
     * Reads the window back, one row a second, for the sampled hosts x charts: {rows, rows with a
     * null}. A host or chart the parent does not know is an error, not a row.
     */
    private long[] readBack(ParentHttp http, long after, long before, List<String> errors) {
        long rows = 0;
        long nulls = 0;
        long points = Math.max(1, before - after);
        for (String h : sampleHosts()) {
            for (String c : sampleCharts()) {
                String q = "/host/" + h + "/api/v1/data?chart=" + c + "&after=" + after + "&before=" + before
                        + "&points=" + points + "&group=average&gtime=0&format=json&options=seconds";
                try {
                    JsonNode data = http.json(q).path("data");
                    for (JsonNode row : data) {
                        rows++;
                        for (int i = 1; i < row.size(); i++) {
                            if (row.get(i).isNull()) {
                                nulls++;
                                break;
                            }
                        }
                    }
                } catch (IOException e) {
                    errors.add(h + " " + c + ": " + e.getMessage());
                }
            }
        }
        return new long[]{rows, nulls};
    }

    /**
     * Netdata's own figure: 4 bytes a point x (1 - the savings its dbengine compression chart shows,
     * averaged over the window); NaN while it has shown none.
     */
    private static double[] netdataReportedBytesPerSample(ParentUnderTest parent, ParentHttp http, int seconds) {
        if (!(parent instanceof NetdataParent)) {
            return new double[]{Double.NaN};
        }
        try {
            JsonNode d = http.json("/api/v1/data?chart=netdata.dbengine_compression_ratio&after=-" + seconds
                    + "&points=1&group=average&format=json");
            JsonNode row = d.path("data").path(0);
            if (row.size() >= 2 && row.get(1).isNumber() && row.get(1).asDouble() > 0) {
                return new double[]{4.0 * (1 - row.get(1).asDouble() / 100.0)};
            }
        } catch (IOException e) {
            // the chart is absent when Netdata's own monitoring is off: no reported figure
        }
        return new double[]{Double.NaN};
    }
}
