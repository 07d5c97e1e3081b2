package io.strata.it.cluster;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every node in its own network namespace: two parents forwarding to each other, two children
 * listing both. One parent is cut off from its peer and its children without a word (its switch
 * port goes down: packets vanish) for longer than the 30 s after which a silent receiver may be
 * replaced; the children notice within their {@code timeout seconds} and move to the other
 * parent; the partition heals and the cut-off parent is filled from its peer. Both parents then
 * hold every second of both children, equal to the children's own values.
 */
class ParentPartitionedIT {

    static final int PORT = 19999;
    static final int TIMEOUT_SECONDS = 10;

    @Test
    void parentCutOffFromPeersAndChildrenThenHealedLosesNoSample() throws Exception {
        String why = NetnsLab.unavailable();
        if (why != null) {
            System.out.println("SKIPPED: " + why);
        }
        Assumptions.assumeTrue(why == null, why);
        Path tmp = ClusterLayout.runDirectory("ParentPartitionedIT");
        try (NetnsLab lab = new NetnsLab()) {
            String nsA = lab.host("pa");
            String nsB = lab.host("pb");
            String nsC1 = lab.host("c1");
            String nsC2 = lab.host("c2");
            String nsQ = lab.host("q");
            String a4 = lab.address(nsA);
            String b4 = lab.address(nsB);
            NodeProcess a = ClusterLayout.parent(tmp, "parent-a", a4, PORT, List.of(b4 + ":" + PORT), TIMEOUT_SECONDS)
                    .inNamespace(lab, nsA, a4, nsQ);
            NodeProcess b = ClusterLayout.parent(tmp, "parent-b", b4, PORT, List.of(a4 + ":" + PORT), TIMEOUT_SECONDS)
                    .inNamespace(lab, nsB, b4, nsQ);
            List<String> parents = List.of(a4 + ":" + PORT, b4 + ":" + PORT);
            NodeProcess c1 = ClusterLayout.child(tmp, "child-1", lab.address(nsC1), PORT, parents, 8, 4,
                    TIMEOUT_SECONDS).inNamespace(lab, nsC1, lab.address(nsC1), nsQ);
            NodeProcess c2 = ClusterLayout.child(tmp, "child-2", lab.address(nsC2), PORT, parents, 8, 4,
                    TIMEOUT_SECONDS).inNamespace(lab, nsC2, lab.address(nsC2), nsQ);
            try (a; b; c1; c2) {
                a.start();
                b.start();
                c1.start();
                c2.start();
                for (NodeProcess p : List.of(a, b)) {
                    ClusterChecks.waitForHosts(p, List.of("child-1", "child-2"), Duration.ofSeconds(60));
                }
                long t0 = System.currentTimeMillis() / 1000 + 3;
                Thread.sleep(6_000);
                lab.cut(nsA);
                long cut = System.nanoTime();
                // the children notice the silence and move; the survivor fills the seconds of the move
                long tb = System.currentTimeMillis() / 1000 + 20;
                for (NodeProcess c : List.of(c1, c2)) {
                    int at = c.waitForLog("[send to " + b4 + ":" + PORT + "]: established link", 0,
                            Duration.ofSeconds(60));
                    assertTrue(at >= 0, c.name + " did not move to parent-b: " + c.tail(20));
                }
                System.out.printf("[ParentPartitionedIT] both children stream to parent-b %.1f s after parent-a was cut"
                        + " off (timeout seconds = %d)%n", (System.nanoTime() - cut) / 1e9, TIMEOUT_SECONDS);
                Thread.sleep(Math.max(0, tb * 1000 - System.currentTimeMillis() + 3000));
                for (NodeProcess c : List.of(c1, c2)) {
                    for (String chart : ClusterApi.charts(c, c.name)) {
                        ClusterChecks.same(c.name + " " + chart + " on parent-b during the partition",
                                ClusterApi.perSecond(c, c.name, chart, t0, tb),
                                ClusterApi.perSecond(b, c.name, chart, t0, tb));
                    }
                }
                long quiet = Duration.ofSeconds(40).toNanos() - (System.nanoTime() - cut);
                Thread.sleep(Math.max(0, quiet / 1_000_000));
                lab.heal(nsA);
                System.out.printf("[ParentPartitionedIT] healed after %.0f s%n", (System.nanoTime() - cut) / 1e9);
                Thread.sleep(5_000);
                long t1 = System.currentTimeMillis() / 1000 - 3;
                for (NodeProcess c : List.of(c1, c2)) {
                    ClusterChecks.waitForCatchUp(a, c.name, ClusterApi.charts(c, c.name).get(0), t0, t1,
                            Duration.ofSeconds(90));
                }
                int compared = 0;
                for (NodeProcess c : List.of(c1, c2)) {
                    for (String chart : ClusterApi.charts(c, c.name)) {
                        double[][] truth = ClusterApi.perSecond(c, c.name, chart, t0, t1);
                        compared += ClusterChecks.same(c.name + " " + chart + " on parent-a", truth,
                                ClusterApi.perSecond(a, c.name, chart, t0, t1));
                        ClusterChecks.same(c.name + " " + chart + " on parent-b", truth,
                                ClusterApi.perSecond(b, c.name, chart, t0, t1));
                    }
                }
                System.out.println("[ParentPartitionedIT] compared " + compared + " values per parent over " + (t1 - t0)
                        + " s: none missing, none different");
                assertTrue(compared >= 2 * 8 * 4 * (t1 - t0 - 2), "too few values compared: " + compared);
            }
        }
    }
}
