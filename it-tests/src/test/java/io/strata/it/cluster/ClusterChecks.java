package io.strata.it.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.fail;

/** What the cluster tests wait for and compare. */
final class ClusterChecks {

    private ClusterChecks() {
    }

    /**
     * The seconds of each chart of {@code host} that the parents' receivers reported the child did
     * not send ("the child sent no point for X..Y (n slot(s)): {@code cause}..." of
     * {@code ReceiverParser}; docs/replication.md): {@link #FIRST_LIVE_POINT_LATE}, a first live
     * point after a replay answer that came more than a slot late (a 2.x sender), or
     * {@link #STATE_READ_DURING_A_COLLECTION}, a replay answer whose collection state was read
     * during a collection (a 1.37.1 sender). A parent filled from the one that logged it holds the
     * same gap without logging it, so the seconds are excepted on every parent.
     */
    static Map<String, Set<Long>> skippedByChild(String host, String cause, NodeProcess... parents)
            throws IOException {
        Pattern line = Pattern.compile("host '" + Pattern.quote(host) + "' \\([^)]*\\): chart '([^']+)': the child sent"
                + " no point for (\\d+)\\.\\.(\\d+) \\(\\d+ slot\\(s\\)\\): " + Pattern.quote(cause));
        Map<String, Set<Long>> skipped = new HashMap<>();
        for (NodeProcess p : parents) {
            Matcher m = line.matcher(p.log());
            while (m.find()) {
                Set<Long> seconds = skipped.computeIfAbsent(m.group(1), k -> new TreeSet<>());
                for (long t = Long.parseLong(m.group(2)); t <= Long.parseLong(m.group(3)); t++) {
                    seconds.add(t);
                }
            }
        }
        return skipped;
    }

    /** The child's rows with the seconds it did not send emptied: {@link #same} skips the source's gaps. */
    static double[][] withoutSkipped(double[][] rows, Set<Long> seconds) {
        if (seconds == null) {
            return rows;
        }
        for (double[] r : rows) {
            if (seconds.contains((long) r[0])) {
                for (int j = 1; j < r.length; j++) {
                    r[j] = Double.NaN;
                }
            }
        }
        return rows;
    }

    /** {@link #skippedByChild}'s cause for a 2.x child's first live point after its answer. */
    static final String FIRST_LIVE_POINT_LATE = "its replay answer that started streaming ended at";
    /** {@link #skippedByChild}'s cause for a 1.37.1 child's state read during a collection. */
    static final String STATE_READ_DURING_A_COLLECTION = "its replay answer's state (RSSTATE)";

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
        waitForCatchUp(p, host, chart, from, until, null, timeout);
    }

    /**
     * Until the node has a value for every second of (from, until] of the host's chart that
     * {@code source} (the host's own rows of that chart and window, as {@link ClusterApi#perSecond}
     * answers them) holds. A second the source itself lacks (a real Netdata collector that lost an
     * iteration under load stores a gap) was never collected, so no parent can hold it: it is not
     * waited for, and is named in the failure. {@code source} null: every second is waited for.
     */
    static void waitForCatchUp(NodeProcess p, String host, String chart, long from, long until, double[][] source,
                               Duration timeout) throws Exception {
        String missing = catchUp(p, host, chart, from, until, source, timeout);
        if (missing != null) {
            fail(p + " did not catch up with " + host + " (" + missing + ")\n" + p.tail(40));
        }
    }

    /** {@link #waitForCatchUp}'s wait: null once caught up, else what is still missing at the deadline. */
    static String catchUp(ClusterApi.Fetcher node, String host, String chart, long from, long until,
                          double[][] source, Duration timeout) throws Exception {
        java.util.Map<Long, double[]> sourceByTime = new java.util.HashMap<>();
        StringBuilder sourceGaps = new StringBuilder();
        if (source != null) {
            for (double[] r : source) {
                sourceByTime.put((long) r[0], r);
                for (int j = 1; j < r.length; j++) {
                    if (Double.isNaN(r[j])) {
                        sourceGaps.append(' ').append((long) r[0]).append('/').append(j);
                    }
                }
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        String missing = "";
        do {
            try {
                double[][] rows = ClusterApi.perSecond(node, host, chart, from, until);
                int gaps = 0;
                StringBuilder at = new StringBuilder();
                for (double[] r : rows) {
                    double[] s = sourceByTime.get((long) r[0]);
                    for (int j = 1; j < r.length; j++) {
                        boolean sourceHasIt = source == null || (s != null && j < s.length && !Double.isNaN(s[j]));
                        if (Double.isNaN(r[j]) && sourceHasIt) {
                            gaps++;
                            at.append(' ').append((long) r[0]).append('/').append(j);
                        }
                    }
                }
                if (rows.length >= until - from && gaps == 0) {
                    return null;
                }
                missing = rows.length + " rows of " + (until - from) + " in (" + from + ", " + until + "], " + gaps
                        + " empty values (time/column:" + at + ")";
            } catch (Exception e) {
                missing = e.toString();
            }
            Thread.sleep(500);
        } while (System.nanoTime() < deadline);
        return missing + (source == null ? "" : "; not waited for, the source's own gaps (time/column):" + sourceGaps);
    }

    /**
     * Until {@code got} answers what {@link #same} accepts, or {@code deadline} (a {@link System#nanoTime}
     * instant) passes; then {@link #same} judges the last answer. For a replica still being filled
     * (replication of the other charts may lag behind the one waited on): it waits for the values,
     * it does not excuse any.
     */
    static int waitForSame(String what, double[][] truth, ClusterApi.Fetcher replica, String host, String chart,
                           long from, long until, long deadline, boolean truthMayHaveGaps) throws Exception {
        double[][] got = ClusterApi.perSecond(replica, host, chart, from, until);
        while (!equal(truth, got, truthMayHaveGaps) && System.nanoTime() < deadline) {
            Thread.sleep(500);
            got = ClusterApi.perSecond(replica, host, chart, from, until);
        }
        return same(what, truth, got, truthMayHaveGaps);
    }

    /** What {@link #same} checks, without failing. */
    private static boolean equal(double[][] truth, double[][] got, boolean truthMayHaveGaps) {
        java.util.Map<Long, double[]> byTime = new java.util.HashMap<>();
        for (double[] r : got) {
            byTime.put((long) r[0], r);
        }
        for (double[] t : truth) {
            double[] row = byTime.get((long) t[0]);
            for (int j = 1; j < t.length; j++) {
                if (Double.isNaN(t[j]) && truthMayHaveGaps) {
                    continue;
                }
                double g = row == null || j >= row.length ? Double.NaN : row[j];
                double tol = Math.max(1e-9, Math.abs(t[j]) * 1e-6);
                if (Double.isNaN(t[j]) || Double.isNaN(g) || Math.abs(t[j] - g) > tol) {
                    return false;
                }
            }
        }
        return true;
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
