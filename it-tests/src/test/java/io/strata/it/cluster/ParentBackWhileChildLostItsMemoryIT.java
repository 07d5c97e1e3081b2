package io.strata.it.cluster;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Found by {@code strata chaos} (seed 9, 2 minutes, 3 children): parent-a is killed; the child
 * moves to parent-b, which holds the seconds of parent-a's absence; the child is killed (its own
 * engine loses what it held in memory, those seconds among them); parent-a comes back, then the
 * child, which streams to parent-a first (its first destination). parent-a asks only the child for
 * what it lacks, the child no longer has it. parent-a, which has no caught-up stream of the child since
 * it started, stores nothing after the hole in the child's answer and hands the child over to its
 * peer (docs/replication.md, "A parent refilled from its peers"): the child moves to parent-b, which
 * forwards it to parent-a, which gets the hole from parent-b in time order.
 */
class ParentBackWhileChildLostItsMemoryIT {

    @Test
    void aParentBackWhileTheChildLostSecondsFromItsMemoryGetsThemFromItsPeer() throws Exception {
        Path tmp = ClusterLayout.runDirectory("ParentBackWhileChildLostItsMemoryIT");
        int pa = ClusterLayout.freePort();
        int pb = ClusterLayout.freePort();
        NodeProcess a = ClusterLayout.parent(tmp, "parent-a", pa, List.of(pb));
        NodeProcess b = ClusterLayout.parent(tmp, "parent-b", pb, List.of(pa));
        NodeProcess c = ClusterLayout.child(tmp, "child-1", ClusterLayout.freePort(), List.of(pa, pb), 2, 2);
        try (a; b; c) {
            a.start();
            b.start();
            c.start();
            for (NodeProcess p : List.of(a, b)) {
                ClusterChecks.waitForHosts(p, List.of("child-1"), Duration.ofSeconds(60));
            }
            Thread.sleep(3_000);
            int logFrom = c.log().length();
            a.kill9();
            long aKilled = System.currentTimeMillis() / 1000;
            assertTrue(c.waitForLog("[send to 127.0.0.1:" + pb + "]: established link", logFrom,
                    Duration.ofSeconds(30)) >= 0, "the child did not move to parent-b:\n" + c.tail(20));
            Thread.sleep(10_000);
            // the seconds since parent-a's kill are on parent-b and in the child's memory only
            c.kill9();
            long cKilled = System.currentTimeMillis() / 1000;
            a.start();
            c.start();
            ClusterChecks.waitForHosts(a, List.of("child-1"), Duration.ofSeconds(60));
            ClusterChecks.waitForHosts(b, List.of("child-1"), Duration.ofSeconds(60));
            String chart = ClusterApi.charts(b, "child-1").get(0);
            long from = aKilled + 1;
            long to = cKilled - 2;
            double[][] onB = ClusterApi.perSecond(b, "child-1", chart, from, to);
            // parent-b holds the window; parent-a must get it (from parent-b: the child lost it)
            ClusterChecks.waitForCatchUp(b, "child-1", chart, from, to, Duration.ofSeconds(5));
            ClusterChecks.waitForCatchUp(a, "child-1", chart, from, to, Duration.ofSeconds(60));
            ClusterChecks.same("child-1 " + chart + " on parent-a against parent-b", onB,
                    ClusterApi.perSecond(a, "child-1", chart, from, to));
        }
    }
}
