package io.strata.it.cluster;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.fail;

/** What the cluster tests wait for and compare. */
final class ClusterChecks {

    private ClusterChecks() {
    }

    static void waitForHosts(NodeProcess p, List<String> hosts, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (ClusterApi.hosts(p).containsAll(hosts)) {
                return;
            }
            Thread.sleep(200);
        }
        fail(p + " does not hold " + hosts + ": " + ClusterApi.hosts(p) + "\n" + p.tail(30));
    }

    /** Until the node has a value for every second of (from, until] of the host's chart. */
    static void waitForCatchUp(NodeProcess p, String host, String chart, long from, long until, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String missing = "";
        while (System.nanoTime() < deadline) {
            try {
                double[][] rows = ClusterApi.perSecond(p, host, chart, from, until);
                int gaps = 0;
                StringBuilder at = new StringBuilder();
                for (double[] r : rows) {
                    for (int j = 1; j < r.length; j++) {
                        if (Double.isNaN(r[j])) {
                            gaps++;
                            at.append(' ').append((long) r[0]).append('/').append(j);
                        }
                    }
                }
                if (rows.length >= until - from && gaps == 0) {
                    return;
                }
                missing = rows.length + " rows of " + (until - from) + " in (" + from + ", " + until + "], " + gaps
                        + " empty values (time/column:" + at + ")";
            } catch (Exception e) {
                missing = e.toString();
            }
            Thread.sleep(500);
        }
        fail(p + " did not catch up with " + host + " (" + missing + ")\n" + p.tail(40));
    }

    /** Returns the values compared. */
    static int same(String what, double[][] truth, double[][] got) {
        return same(what, truth, got, false);
    }

    /**
     * Returns the values compared. {@code truthMayHaveGaps}: seconds the source itself lacks (a
     * real Netdata collector that missed one) are skipped instead of failing.
     */
    static int same(String what, double[][] truth, double[][] got, boolean truthMayHaveGaps) {
        java.util.Map<Long, double[]> byTime = new java.util.HashMap<>();
        for (double[] r : got) {
            byTime.put((long) r[0], r);
        }
        int n = 0;
        for (int i = 0; i < truth.length; i++) {
            long time = (long) truth[i][0];
            double[] row = byTime.get(time);
            for (int j = 1; j < truth[i].length; j++) {
                double t = truth[i][j];
                if (Double.isNaN(t) && truthMayHaveGaps) {
                    continue;
                }
                double g = row == null || j >= row.length ? Double.NaN : row[j];
                if (Double.isNaN(t) || Double.isNaN(g)) {
                    StringBuilder around = new StringBuilder();
                    for (int k = Math.max(0, i - 3); k < Math.min(truth.length, i + 4); k++) {
                        double[] r = byTime.get((long) truth[k][0]);
                        around.append("\n  ").append((long) truth[k][0]).append(" source ").append(truth[k][j])
                                .append(" replica ").append(r == null || j >= r.length ? "none" : r[j]);
                    }
                    System.out.println("[cluster] " + what + around);
                    fail(what + ": no value at " + time + " column " + j + " (source " + t + ", replica " + g + ")");
                }
                double tol = Math.max(1e-9, Math.abs(t) * 1e-6);
                if (Math.abs(t - g) > tol) {
                    fail(what + ": at " + time + " column " + j + " the source has " + t + " and the replica " + g);
                }
                n++;
            }
        }
        return n;
    }
}
