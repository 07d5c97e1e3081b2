package io.strata.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parent replaced by an empty machine while its peer holds hours of history of its children:
 * parent-a starts with {@code historySeconds} of {@code children × metrics} load-generator children
 * in its engine ({@link LoadFleetHistory}) and keeps receiving those children live
 * ({@code strata load}, one collection a second); parent-b starts with an empty disk, the two forward
 * to each other, and parent-b asks parent-a for every chart's whole history ({@code [db] seconds to
 * replicate} above it on both parents: Netdata's default, a day, would cut the oldest seconds).
 *
 * <p>Measures the time until parent-b holds every chart of every host from parent-a's first second
 * (each chart's {@code first_entry} there, and live data since parent-b's start, which a chart gets
 * only once its replication ended), the replay rate, and parent-a's live ingest meanwhile: its lag
 * (the wall clock against its oldest newest second of any chart, polled) and the live seconds it
 * failed to store. Then checks values: parent-b's against parent-a's in random windows of the
 * history (a bounded count), the first and last windows of every host, with none missing or
 * different.
 *
 * <p>By default the CI size: 2 children × 100 metrics, 20 minutes of history (several replication
 * steps of 600 s each, the path of the full figure, in seconds). The figure of docs/benchmarks.md:
 * {@code -Dstrata.bench.refill=true} (20 children × 100 metrics, 24 h: 173 M samples; 864 M with
 * {@code -Dstrata.bench.metrics=500}, which takes about an hour on a shared 2-core machine); sizes with
 * {@code -Dstrata.bench.children}, {@code -Dstrata.bench.metrics}, {@code -Dstrata.bench.historyHours}.
 */
class ReplacedParentRefilledFromPeerIT {

    private static final int DIMENSIONS = 10;

    @Test
    void aParentWithAnEmptyDiskGetsItsPeersWholeHistoryWhileThePeerKeepsIngesting() throws Exception {
        boolean full = Boolean.getBoolean("strata.bench.refill");
        int children = Integer.getInteger("strata.bench.children", full ? 20 : 2);
        int metrics = Integer.getInteger("strata.bench.metrics", 100);
        int history = (int) Math.round(Double.parseDouble(System.getProperty("strata.bench.historyHours",
                full ? "24" : String.valueOf(1200 / 3600.0))) * 3600);
        long catchUpBoundSeconds = full ? 1800 : 180;
        int chartsPerChild = metrics / DIMENSIONS;
        Path tmp = ClusterLayout.runDirectory("RefillBench");
        int pa = ClusterLayout.freePort();
        int pb = ClusterLayout.freePort();
        // tier 0 of a random walk takes about a byte a point; room for the whole history and the run
        long diskMb = Math.max(64, (long) children * metrics * (history + 4000L) * 2 / (1 << 20));
        String db = "\tdbengine multihost disk space MB = " + diskMb + "\n"
                + "\tseconds to replicate = " + (history + 3600) + "\n";
        NodeProcess a = ClusterLayout.parent(tmp, "parent-a", pa, List.of(pb), db).heap(full ? "-Xmx1g" : "-Xmx256m");
        NodeProcess b = ClusterLayout.parent(tmp, "parent-b", pb, List.of(pa), db).heap(full ? "-Xmx1g" : "-Xmx256m");
        LoadFleetHistory.Written written = LoadFleetHistory.write(a.dir, children, metrics, DIMENSIONS, 1, history, 2);
        System.out.printf("[RefillBench] history written into parent-a's engine: %d children x %d metrics, %d s"
                        + " (%d .. %d), %d samples in %.1f s (%.2f M samples/s), %d pages dropped%n", children, metrics,
                written.lastSecond() - written.firstSecond() + 1, written.firstSecond(), written.lastSecond(),
                written.samples(), written.seconds(), written.samples() / written.seconds() / 1e6,
                written.pagesDropped());
        assertEquals(0, written.pagesDropped(), "pages dropped while writing the history");
        List<String> hosts = new ArrayList<>();
        for (int c = 0; c < children; c++) {
            hosts.add(LoadFleetHistory.hostname(c));
        }
        Process load = null;
        try (a; b) {
            long aStarted = System.nanoTime();
            a.start();
            double aStartSeconds = (System.nanoTime() - aStarted) / 1e9;
            // parent-a knows every host and chart of the history before any child connects
            Map<String, Map<String, long[]>> onA = new HashMap<>();
            for (String h : hosts) {
                Map<String, long[]> e = entries(a, h);
                assertEquals(chartsPerChild, e.size(), h + "'s charts on parent-a after its start: " + e.keySet());
                onA.put(h, e);
            }
            long historyFirst = Long.MAX_VALUE;
            for (Map<String, long[]> e : onA.values()) {
                for (long[] fl : e.values()) {
                    historyFirst = Math.min(historyFirst, fl[0]);
                }
            }
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-cp", System.getProperty("java.class.path"), "io.strata.node.cli.StrataMain", "load",
                    "--parent", "127.0.0.1:" + pa, "--children", String.valueOf(children), "--metrics-per-child",
                    String.valueOf(metrics), "--dimensions-per-chart", String.valueOf(DIMENSIONS), "--rate", "1",
                    "--seed", "1", "--seconds", String.valueOf(catchUpBoundSeconds + 600)));
            load = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(tmp.resolve("load.log").toFile()).start();
            // every host live on parent-a: its newest second past the history's
            long liveDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            List<String> notLive = new ArrayList<>(hosts);
            while (!notLive.isEmpty() && System.nanoTime() < liveDeadline) {
                notLive.removeIf(h -> newest(a, h) > written.lastSecond() + 1);
                Thread.sleep(200);
            }
            assertTrue(notLive.isEmpty(), "not live on parent-a in 2 minutes: " + notLive);
            long liveFrom = System.currentTimeMillis() / 1000;
            for (String h : hosts) {
                Map<String, long[]> e = entries(a, h);
                assertEquals(chartsPerChild, e.size(), h + ": the live children's charts are the history's: "
                        + e.keySet());
            }

            long bStartSecond = System.currentTimeMillis() / 1000;
            double aCpuBefore = cpuSeconds(a.pid());
            long started = System.nanoTime();
            b.start();
            double bStartSeconds = (System.nanoTime() - started) / 1e9;
            long deadline = started + TimeUnit.SECONDS.toNanos(catchUpBoundSeconds);
            List<String> pending = new ArrayList<>(hosts);
            long maxLag = 0;
            long lagPolls = 0;
            long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            int lagHost = 0;
            while (!pending.isEmpty() && System.nanoTime() < deadline) {
                // few requests a round: on a starved machine a parent's answer takes up to a second, and the
                // polls must not slow the refill they time; a host stays pending until it is caught up, and
                // hosts are refilled side by side, so the first pending one is the one to ask
                while (!pending.isEmpty() && caughtUp(b, pending.get(0), onA.get(pending.get(0)), bStartSecond)) {
                    pending.remove(0);
                }
                long now = System.currentTimeMillis() / 1000;
                long oldestNewest = oldestNewest(a, hosts.get(lagHost++ % hosts.size()));
                if (oldestNewest > 0) {
                    maxLag = Math.max(maxLag, now - oldestNewest);
                    lagPolls++;
                }
                if (full && System.nanoTime() > nextReport) {
                    nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    System.out.printf("[RefillBench] %.0f s: %d of %d hosts caught up; parent-a's largest lag so far"
                                    + " %d s; load average %.1f%n", (System.nanoTime() - started) / 1e9,
                            hosts.size() - pending.size(), hosts.size(), maxLag,
                            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
                }
                Thread.sleep(500);
            }
            double catchUp = (System.nanoTime() - started) / 1e9;
            long catchUpEnd = System.currentTimeMillis() / 1000;
            // what the refill cost: both parents' CPU (parent-a's includes its live ingest and the polls)
            double cpuA = cpuSeconds(a.pid()) - aCpuBefore;
            double cpuB = cpuSeconds(b.pid());
            assertTrue(pending.isEmpty(), "parent-b not caught up in " + catchUpBoundSeconds + " s: " + pending
                    + "\n" + b.tail(20));
            // what parent-b replicated: parent-a's history and live seconds up to its start, every metric
            long samples = (long) children * chartsPerChild * DIMENSIONS * (bStartSecond - historyFirst + 1);

            // values: random windows of the history, and every host's first and last window, on both parents
            SplittableRandom rnd = new SplittableRandom(42);
            int window = (int) Math.min(600, bStartSecond - historyFirst);
            int randomWindows = full ? 100 : 20;
            List<long[]> checks = new ArrayList<>(); // host index, chart, after
            for (int h = 0; h < children; h++) {
                checks.add(new long[] {h, rnd.nextInt(chartsPerChild), historyFirst - 1});
                checks.add(new long[] {h, rnd.nextInt(chartsPerChild), bStartSecond - window});
            }
            for (int i = 0; i < randomWindows; i++) {
                checks.add(new long[] {rnd.nextInt(children), rnd.nextInt(chartsPerChild),
                        historyFirst - 1 + rnd.nextLong(Math.max(1, bStartSecond - window - historyFirst + 1))});
            }
            long compared = 0;
            long differ = 0;
            long notOnA = 0;
            List<String> firstDiffs = new ArrayList<>();
            for (long[] c : checks) {
                String host = hosts.get((int) c[0]);
                String chart = "load.chart" + c[1];
                double[][] va = ClusterApi.perSecond(a, host, chart, c[2], c[2] + window);
                double[][] vb = ClusterApi.perSecond(b, host, chart, c[2], c[2] + window);
                assertEquals(window, va.length, host + " " + chart + " rows on parent-a after " + c[2]);
                for (int i = 0; i < va.length; i++) {
                    for (int j = 1; j < va[i].length; j++) {
                        boolean onB = i < vb.length && j < vb[i].length && vb[i][0] == va[i][0]
                                && !Double.isNaN(vb[i][j]);
                        if (Double.isNaN(va[i][j]) && !onB) {
                            notOnA++; // the seconds between the history and the live stream: nothing to replicate
                            continue;
                        }
                        compared++;
                        boolean bad = Double.isNaN(va[i][j]) || !onB
                                || Math.abs(va[i][j] - vb[i][j]) > Math.max(1e-9, Math.abs(va[i][j]) * 1e-6);
                        if (bad) {
                            differ++;
                            if (firstDiffs.size() < 10) {
                                firstDiffs.add(host + " " + chart + " t=" + (long) va[i][0] + " d" + (j - 1) + ": a "
                                        + va[i][j] + ", b " + (i < vb.length && j < vb[i].length ? vb[i][j] : "none"));
                            }
                        }
                    }
                }
            }

            // parent-a's live ingest during the refill: every second of every chart of every host stored?
            long liveExpected = 0;
            long liveMissing = 0;
            long liveAfter = Math.max(liveFrom, bStartSecond - 5);
            // at least 20 s of live ingest are checked: a refill faster than that is measured up to its end,
            // and the window runs on past it (the same stream stored both)
            long liveBefore = Math.max(catchUpEnd, liveAfter + 20);
            long liveWaitDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.currentTimeMillis() / 1000 - 3 < liveBefore && System.nanoTime() < liveWaitDeadline) {
                Thread.sleep(200);
            }
            liveBefore = Math.min(liveBefore, System.currentTimeMillis() / 1000 - 3);
            int liveCharts = full ? Math.min(5, chartsPerChild) : chartsPerChild;
            for (String h : hosts) {
                for (int c = 0; c < liveCharts; c++) {
                    double[][] rows = ClusterApi.perSecond(a, h, "load.chart" + c, liveAfter, liveBefore);
                    liveExpected += liveBefore - liveAfter;
                    long stored = 0;
                    for (double[] r : rows) {
                        boolean all = true;
                        for (int j = 1; j < r.length; j++) {
                            all &= !Double.isNaN(r[j]);
                        }
                        stored += all ? 1 : 0;
                    }
                    liveMissing += Math.max(0, (liveBefore - liveAfter) - stored);
                }
            }
            System.out.printf("[RefillBench] %d children x %d metrics, %d s of history (%.1f h) on parent-a;"
                            + " parent-a up in %.1f s; parent-b (empty disk) up in %.1f s, holds all of it %.1f s after"
                            + " its start: %d samples replicated, %.2f M samples/s including its start%n", children,
                    metrics, bStartSecond - historyFirst + 1, (bStartSecond - historyFirst + 1) / 3600.0,
                    aStartSeconds, bStartSeconds, catchUp, samples, samples / catchUp / 1e6);
            System.out.printf("[RefillBench] CPU meanwhile: parent-a %.1f s, parent-b %.1f s (from its start): %.0f ns"
                    + " of both a sample replicated%n", cpuA, cpuB, (cpuA + cpuB) * 1e9 / samples);
            System.out.printf("[RefillBench] parent-a's live ingest meanwhile: largest lag %d s (%d polls of a"
                            + " host's charts, in turn); %d of %d chart-seconds of %d charts a host not stored, seconds %d..%d%n",
                    maxLag, lagPolls, liveMissing, liveExpected, liveCharts, liveAfter, liveBefore);
            System.out.printf("[RefillBench] values: %d compared in %d windows of %d s, %d missing or different on"
                    + " parent-b %s (%d without a value on either: the seconds between the history and the live"
                    + " stream)%n", compared, checks.size(), window, differ, firstDiffs, notOnA);
            System.out.println("[RefillBench] machine: " + Runtime.getRuntime().availableProcessors() + " cores, "
                    + ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() + " load average");
            assertEquals(0, differ, "values of the history missing or different on parent-b: " + firstDiffs);
            assertTrue(liveExpected > 0, "no live second of parent-a checked: seconds " + liveAfter + ".." + liveBefore);
            assertEquals(0, liveMissing, "live seconds parent-a did not store during the refill");
        } finally {
            if (load != null) {
                load.destroyForcibly();
                load.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** utime + stime of a process from /proc (clock ticks of 1/100 s); 0 where there is no /proc. */
    private static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Each chart's {@code [first_entry, last_entry]} of {@code host} on {@code node}. */
    static Map<String, long[]> entries(ClusterApi.Fetcher node, String host) throws Exception {
        Map<String, long[]> out = new HashMap<>();
        JsonNode charts = ClusterApi.get(node, "/host/" + host + "/api/v1/charts").get("charts");
        Iterator<String> it = charts.fieldNames();
        while (it.hasNext()) {
            String id = it.next();
            out.put(id, new long[] {charts.get(id).path("first_entry").asLong(), charts.get(id).path("last_entry")
                    .asLong()});
        }
        return out;
    }

    /** The newest second of any chart of {@code host} on {@code node}; 0 when it does not answer. */
    private static long newest(ClusterApi.Fetcher node, String host) {
        try {
            long n = 0;
            for (long[] fl : entries(node, host).values()) {
                n = Math.max(n, fl[1]);
            }
            return n;
        } catch (Exception e) {
            return 0;
        }
    }

    /** The oldest of the newest seconds of {@code host}'s charts on {@code node}: how far its slowest chart is. */
    private static long oldestNewest(ClusterApi.Fetcher node, String host) {
        try {
            long n = Long.MAX_VALUE;
            for (long[] fl : entries(node, host).values()) {
                n = Math.min(n, fl[1]);
            }
            return n == Long.MAX_VALUE ? 0 : n;
        } catch (Exception e) {
            return 0;
        }
    }

    /**
     * Every chart of {@code host} on parent-b starts where it starts on parent-a and has live data
     * since parent-b started (a chart is streamed only once its replication ended).
     */
    private static boolean caughtUp(ClusterApi.Fetcher b, String host, Map<String, long[]> onA, long bStart) {
        try {
            Map<String, long[]> e = entries(b, host);
            if (e.size() < onA.size()) {
                return false;
            }
            for (Map.Entry<String, long[]> c : onA.entrySet()) {
                long[] fl = e.get(c.getKey());
                if (fl == null || fl[0] == 0 || fl[0] > c.getValue()[0] || fl[1] < bStart) {
                    return false;
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
