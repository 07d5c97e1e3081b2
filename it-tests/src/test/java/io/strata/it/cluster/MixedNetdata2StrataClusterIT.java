package io.strata.it.cluster;

import io.strata.it.netdata.RealNetdata;
import io.strata.it.netdata.RealNetdata2;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A chain of parents of both kinds: a Strata child streams to Strata parent P1, which forwards
 * every host to a real Netdata 2.9.0 parent P2, which forwards every host to Strata parent P3. So a
 * Strata parent forwards to a 2.9.0 parent, and a 2.9.0 parent to a Strata parent. Every per-second
 * chart of the child, over a window of live seconds, is on P2 and P3 with the child's own values.
 */
class MixedNetdata2StrataClusterIT {

    @Test
    void strataForwardsToNetdata2AndNetdata2ForwardsToStrata() throws Exception {
        RealNetdata2.assumeAvailable();
        Path tmp = ClusterLayout.runDirectory("MixedNetdata2StrataClusterIT");
        int p1Port = ClusterLayout.freePort();
        int p2Port = ClusterLayout.freePort();
        int p3Port = ClusterLayout.freePort();
        NodeProcess p3 = ClusterLayout.parent(tmp, "p3", p3Port, List.of());
        NodeProcess p1 = ClusterLayout.parent(tmp, "p1", p1Port, List.of(p2Port));
        NodeProcess child = ClusterLayout.child(tmp, "child", ClusterLayout.freePort(), List.of(p1Port), 6, 4);
        try (p3; p1; child; RealNetdata2 p2 = RealNetdata2.parent(tmp.resolve("p2"), "p2", p2Port, true,
                "127.0.0.1:" + p3Port)) {
            p3.start();
            p2.start(Duration.ofSeconds(300));
            p1.start();
            child.start();
            ClusterApi.Fetcher onP2 = p2::getText;
            ClusterChecks.waitForHosts(p1, List.of("child"), Duration.ofSeconds(60));
            ClusterChecks.waitForHosts(p3, List.of("child"), Duration.ofSeconds(90));
            long t0 = System.currentTimeMillis() / 1000;
            long until = t0 + 10;
            while (System.currentTimeMillis() / 1000 < until + 3) {
                Thread.sleep(200);
            }
            long t1 = until;
            String childUrl = child.url();
            int charts = 0;
            int comparedP2 = 0;
            int comparedP3 = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            for (String chart : ClusterApi.charts(childUrl, null, 1)) {
                double[][] truth = ClusterApi.perSecond(childUrl, null, chart, t0, t1);
                comparedP2 += ClusterChecks.waitForSame("child " + chart + " on the 2.9.0 parent p2", truth, onP2,
                        "child", chart, t0, t1, deadline, false);
                comparedP3 += ClusterChecks.waitForSame("child " + chart + " on Strata parent p3 (from p2)", truth, p3,
                        "child", chart, t0, t1, deadline, false);
                charts++;
            }
            System.out.println("[MixedNetdata2StrataClusterIT] " + charts + " charts over (" + t0 + ", " + t1 + "]: "
                    + comparedP2 + " values on the 2.9.0 parent and " + comparedP3 + " on the Strata parent behind it,"
                    + " equal to the child's");
            assertTrue(charts >= 6 && comparedP2 >= 6 * 4 * (t1 - t0) && comparedP3 == comparedP2,
                    "too little compared: " + charts + " charts, " + comparedP2 + " / " + comparedP3);
        }
    }
}
