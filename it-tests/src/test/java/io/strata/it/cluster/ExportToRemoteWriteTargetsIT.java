package io.strata.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A Strata parent fed by a child exports by Prometheus remote write to a real VictoriaMetrics and a real
 * Prometheus (Debian's packages, started here on 127.0.0.1). VictoriaMetrics is stopped for a while and
 * started again, then the parent is killed with SIGKILL and started again; afterwards every second of
 * every dimension of the child's charts is in both targets exactly once, under Netdata's names, with the
 * value the parent's {@code /api/v1/data} gives for it.
 *
 * <p>The outage lasts {@code -Dstrata.it.export.outage.seconds} (20 by default; the 120 with
 * {@code -Dstrata.it.export.outage.seconds=120}).
 */
class ExportToRemoteWriteTargetsIT {

    static final int CHARTS = 4;
    static final int DIMENSIONS = 3;
    static final String CHILD = "child-1";

    @Test
    void targetOutageAndParentKillLeaveNoGapAndNoDuplicateInTheTargets() throws Exception {
        List<RemoteWriteTarget.Kind> kinds = new ArrayList<>();
        for (RemoteWriteTarget.Kind k : RemoteWriteTarget.Kind.values()) {
            String why = RemoteWriteTarget.absent(k);
            if (why == null) {
                kinds.add(k);
            } else {
                System.out.println("[ExportToRemoteWriteTargetsIT] without " + k + ": " + why);
            }
        }
        Assumptions.assumeTrue(!kinds.isEmpty(), "neither victoria-metrics nor prometheus is installed");
        long outageSeconds = Long.getLong("strata.it.export.outage.seconds", 20);

        Path tmp = ClusterLayout.runDirectory("ExportToRemoteWriteTargetsIT");
        List<RemoteWriteTarget> targets = new ArrayList<>();
        for (RemoteWriteTarget.Kind k : kinds) {
            targets.add(new RemoteWriteTarget(k, tmp.resolve(k.name().toLowerCase()), ClusterLayout.freePort()));
        }
        int parentPort = ClusterLayout.freePort();
        NodeProcess parent = ClusterLayout.parent(tmp, "parent", parentPort, List.of());
        StringBuilder conf = new StringBuilder("[exporting:global]\n\tenabled = yes\n\tupdate every = 1\n");
        for (RemoteWriteTarget t : targets) {
            conf.append("[prometheus_remote_write:").append(t.kind.name().toLowerCase()).append("]\n")
                    .append("\tenabled = yes\n")
                    .append("\tdestination = 127.0.0.1:").append(t.port).append('\n')
                    .append("\tremote write URL path = ").append(t.writePath()).append('\n')
                    .append("\tsend hosts matching = ").append(CHILD).append('\n');
        }
        Files.writeString(parent.dir.resolve("exporting.conf"), conf);
        NodeProcess child = ClusterLayout.child(tmp, CHILD, ClusterLayout.freePort(), List.of(parentPort), CHARTS,
                DIMENSIONS);
        try (parent; child) {
            for (RemoteWriteTarget t : targets) {
                t.start();
            }
            parent.start();
            child.start();
            ClusterChecks.waitForHosts(parent, List.of(CHILD), Duration.ofSeconds(60));
            // export is live once every target holds a recent second of the child
            long liveBy = System.currentTimeMillis() / 1000;
            for (RemoteWriteTarget t : targets) {
                waitForSecond(t, liveBy, Duration.ofSeconds(60), parent);
            }
            long from = System.currentTimeMillis() / 1000;
            Thread.sleep(5_000);

            RemoteWriteTarget stopped = targets.get(0);
            stopped.stop();
            System.out.println("[ExportToRemoteWriteTargetsIT] " + stopped + " stopped for " + outageSeconds + " s");
            Thread.sleep(outageSeconds * 1000);
            stopped.start();
            Thread.sleep(3_000);

            parent.kill9();
            System.out.println("[ExportToRemoteWriteTargetsIT] parent killed with SIGKILL");
            Thread.sleep(3_000);
            parent.start();
            ClusterChecks.waitForHosts(parent, List.of(CHILD), Duration.ofSeconds(60));
            Thread.sleep(5_000);
            long until = System.currentTimeMillis() / 1000 - 2;
            for (RemoteWriteTarget t : targets) {
                waitForSecond(t, until, Duration.ofSeconds(120), parent);
            }
            List<String> charts = ClusterApi.charts(parent, CHILD);
            assertEquals(CHARTS, charts.size(), charts.toString());
            for (RemoteWriteTarget t : targets) {
                int compared = compare(t, parent, charts, from, until);
                System.out.println("[ExportToRemoteWriteTargetsIT] " + t.kind + ": " + compared + " samples over "
                        + (until - from) + " s equal the parent's /api/v1/data, none missing, none twice");
                assertTrue(compared >= (long) CHARTS * DIMENSIONS * (until - from - 2), "too few compared: " + compared);
            }
            String metrics = parent.fetch("/metrics");
            for (String line : metrics.split("\n")) {
                if (line.startsWith("strata_exporting_")) {
                    System.out.println("[ExportToRemoteWriteTargetsIT] " + line);
                }
            }
        } finally {
            for (RemoteWriteTarget t : targets) {
                t.close();
            }
        }
    }

    /** Waits until the target holds a sample of the child at {@code second} or later. */
    private static void waitForSecond(RemoteWriteTarget t, long second, Duration timeout, NodeProcess parent)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                Map<String, List<double[]>> raw = t.rawSamples(selector(), second - 60, second + 3600);
                long newest = 0;
                for (List<double[]> s : raw.values()) {
                    newest = Math.max(newest, (long) s.get(s.size() - 1)[0] / 1000);
                }
                if (raw.size() >= CHARTS * DIMENSIONS && newest >= second) {
                    return;
                }
                last = raw.size() + " series, newest second " + newest;
            } catch (Exception e) {
                last = e.toString();
            }
            Thread.sleep(500);
        }
        fail(t + " does not hold second " + second + " of " + CHILD + " (" + last + ")\n" + parent.tail(40));
    }

    private static String selector() {
        return "{__name__=~\"netdata_strata_synthetic_.*\",instance=\"" + CHILD + "\"}";
    }

    /** Every second of (from, until] of every dimension: once in the target, with the parent's value. */
    private static int compare(RemoteWriteTarget t, NodeProcess parent, List<String> charts, long from, long until)
            throws Exception {
        Map<String, List<double[]>> raw = t.rawSamples(selector(), from, until);
        int compared = 0;
        for (String chart : charts) {
            JsonNode data = ClusterApi.get(parent, "/host/" + CHILD + "/api/v1/data?chart=" + chart + "&after=" + from
                    + "&before=" + until + "&points=" + (until - from) + "&group=average&format=json"
                    + "&options=seconds%7Cunaligned");
            JsonNode labels = data.get("labels");
            boolean rate = chart.endsWith("_1") || chart.endsWith("_3");
            String name = rate ? "netdata_strata_synthetic_rate_events_persec_average"
                    : "netdata_strata_synthetic_gauge_value_average";
            for (int j = 1; j < labels.size(); j++) {
                String dim = labels.get(j).asText();
                TreeMap<Long, Double> truth = new TreeMap<>();
                for (JsonNode row : data.get("data")) {
                    if (!row.get(j).isNull()) {
                        truth.put(row.get(0).asLong(), row.get(j).asDouble());
                    }
                }
                String key = "{__name__=" + name + ", chart=" + chart + ", dimension=" + dim
                        + ", family=synthetic, instance=" + CHILD + ", source=synthetic}";
                List<double[]> got = raw.get(key);
                if (got == null) {
                    fail(t + " has no series " + key + "; it has " + raw.keySet());
                }
                long previous = Long.MIN_VALUE;
                TreeMap<Long, Double> inTarget = new TreeMap<>();
                for (double[] s : got) {
                    long ms = (long) s[0];
                    assertTrue(ms % 1000 == 0, key + ": a sample off the second: " + ms);
                    assertTrue(ms > previous, t + " " + key + ": second " + ms / 1000 + " stored twice");
                    previous = ms;
                    inTarget.put(ms / 1000, s[1]);
                }
                assertEquals(truth.keySet(), inTarget.keySet(), t + " " + key + ": seconds missing or extra (parent vs"
                        + " target) from " + from + " to " + until);
                for (Map.Entry<Long, Double> e : truth.entrySet()) {
                    double want = e.getValue();
                    double gotValue = inTarget.get(e.getKey());
                    assertEquals(want, gotValue, Math.max(1e-7, Math.abs(want) * 1e-7),
                            t + " " + key + " at " + e.getKey());
                    compared++;
                }
            }
        }
        return compared;
    }
}
