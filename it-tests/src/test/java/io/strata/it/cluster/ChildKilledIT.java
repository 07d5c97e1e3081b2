package io.strata.it.cluster;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A child killed with SIGKILL at a random moment loses at most what it collected in its last
 * second: both parents of the cluster hold every second of it up to one second before the kill,
 * the same on both.
 */
class ChildKilledIT {

    @Test
    void childKilledWithSigkillLosesAtMostItsLastSecond() throws Exception {
        Path tmp = ClusterLayout.runDirectory("ChildKilledIT");
        int pa = ClusterLayout.freePort();
        int pb = ClusterLayout.freePort();
        NodeProcess a = ClusterLayout.parent(tmp, "parent-a", pa, List.of(pb));
        NodeProcess b = ClusterLayout.parent(tmp, "parent-b", pb, List.of(pa));
        NodeProcess c = ClusterLayout.child(tmp, "child-1", ClusterLayout.freePort(), List.of(pa, pb), 8, 4);
        try (a; b; c) {
            a.start();
            b.start();
            c.start();
            for (NodeProcess p : List.of(a, b)) {
                ClusterChecks.waitForHosts(p, List.of("child-1"), Duration.ofSeconds(60));
            }
            List<String> charts = ClusterApi.charts(c, "child-1");
            long t0 = System.currentTimeMillis() / 1000 + 3;
            Thread.sleep(10_000 + new SplittableRandom().nextInt(2_000));
            long killedMillis = System.currentTimeMillis();
            c.kill9();
            long killedSecond = killedMillis / 1000;
            Thread.sleep(3_000);
            int compared = 0;
            long worstLag = 0;
            for (String chart : charts) {
                double[][] onA = ClusterApi.perSecond(a, "child-1", chart, t0, killedSecond + 2);
                double[][] onB = ClusterApi.perSecond(b, "child-1", chart, t0, killedSecond + 2);
                long lastA = lastWithValues(onA);
                long lastB = lastWithValues(onB);
                worstLag = Math.max(worstLag, killedSecond - Math.min(lastA, lastB));
                if (lastA < killedSecond - 1 || lastB < killedSecond - 1) {
                    fail(chart + ": the parents hold the child up to " + lastA + " and " + lastB + "; it was killed at "
                            + killedMillis / 1000.0);
                }
                // up to the last second both hold, both hold every second, the same values
                long upTo = Math.min(lastA, lastB);
                compared += ClusterChecks.same("child-1 " + chart + " on parent-b vs parent-a",
                        ClusterApi.perSecond(a, "child-1", chart, t0, upTo),
                        ClusterApi.perSecond(b, "child-1", chart, t0, upTo));
            }
            System.out.printf("[ChildKilledIT] killed at %.3f; the parents hold it up to %d s before the kill's"
                    + " second at worst; %d values equal on both parents%n", killedMillis / 1000.0, worstLag, compared);
            // the window from t0 to the kill is at least 7 s: each of its seconds of every dimension
            assertTrue(compared >= 8 * 4 * 5, "too few values compared: " + compared);
        }
    }

    private static long lastWithValues(double[][] rows) {
        long last = 0;
        for (double[] r : rows) {
            boolean all = r.length > 1;
            for (int j = 1; j < r.length; j++) {
                all &= !Double.isNaN(r[j]);
            }
            if (all) {
                last = Math.max(last, (long) r[0]);
            }
        }
        return last;
    }
}
