package io.strata.it.cluster;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An active-active cluster of two parents (each forwards what it receives to the other) and two
 * children listing both, every node its own JVM. One parent is killed with SIGKILL at a random
 * moment: the children move to the other parent, and when the killed one comes back it is filled
 * from its peer, so that both parents hold every second the children collected, equal to the
 * children's own values.
 */
class ParentKilledIT {

    static final int CHARTS = 8;
    static final int DIMENSIONS = 4;

    @Test
    void parentKilledWithSigkillLosesNoSampleAndIsFilledFromItsPeer() throws Exception {
        // kept after the run (under target/): the nodes' logs are the story of a failure
        Path tmp = ClusterLayout.runDirectory("ParentKilledIT");
        int pa = ClusterLayout.freePort();
        int pb = ClusterLayout.freePort();
        NodeProcess a = ClusterLayout.parent(tmp, "parent-a", pa, List.of(pb));
        NodeProcess b = ClusterLayout.parent(tmp, "parent-b", pb, List.of(pa));
        List<NodeProcess> children = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            children.add(ClusterLayout.child(tmp, "child-" + i, ClusterLayout.freePort(), List.of(pa, pb), CHARTS,
                    DIMENSIONS));
        }
        try (a; b; NodeProcess c1 = children.get(0); NodeProcess c2 = children.get(1)) {
            a.start();
            b.start();
            long tStart = System.currentTimeMillis() / 1000 + 1;
            c1.start();
            c2.start();
            for (NodeProcess p : List.of(a, b)) {
                ClusterChecks.waitForHosts(p, List.of("child-1", "child-2"), Duration.ofSeconds(60));
            }
            long t0 = System.currentTimeMillis() / 1000 + 3;
            Thread.sleep(5_000 + new SplittableRandom().nextInt(5_000));

            int[] logFrom = {c1.log().length(), c2.log().length()};
            long killed = System.nanoTime();
            a.kill9();
            List<Double> failoverSeconds = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                NodeProcess c = children.get(i);
                int at = c.waitForLog("[send to 127.0.0.1:" + pb + "]: established link", logFrom[i],
                        Duration.ofSeconds(30));
                assertTrue(at >= 0, c.name + " did not move to parent-b: " + c.tail(30));
                failoverSeconds.add((System.nanoTime() - killed) / 1e9);
            }
            System.out.println("[ParentKilledIT] children streaming to parent-b after the kill of parent-a: "
                    + failoverSeconds + " s (upper bounds: the log is polled every 50 ms)");

            // the survivor holds everything: what came through the dead parent, the seconds of the
            // failover, which it replicated from the children, and a few seconds streamed to it since;
            // waited for (replication of some charts may lag behind others), not slept on
            long tb = System.currentTimeMillis() / 1000 + 3;
            awaitSecond(tb + 3);
            long survivorDeadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            for (NodeProcess c : children) {
                for (String chart : ClusterApi.charts(c, c.name)) {
                    ClusterChecks.waitForSame(c.name + " " + chart + " on parent-b while parent-a is down",
                            ClusterApi.perSecond(c, c.name, chart, t0, tb), b, c.name, chart, t0, tb,
                            survivorDeadline, false);
                }
            }
            a.start();
            long t1 = System.currentTimeMillis() / 1000 - 3;
            // the returning parent asks its peer for what it missed
            for (NodeProcess c : children) {
                ClusterChecks.waitForCatchUp(a, c.name, ClusterApi.charts(c, c.name).get(0), t0, t1,
                        Duration.ofSeconds(90));
            }
            int compared = 0;
            int sameBytes = 0;
            for (NodeProcess c : children) {
                for (String chart : ClusterApi.charts(c, c.name)) {
                    double[][] truth = ClusterApi.perSecond(c, c.name, chart, t0, t1);
                    double[][] onA = ClusterApi.perSecond(a, c.name, chart, t0, t1);
                    double[][] onB = ClusterApi.perSecond(b, c.name, chart, t0, t1);
                    compared += ClusterChecks.same(c.name + " " + chart + " on parent-a", truth, onA);
                    ClusterChecks.same(c.name + " " + chart + " on parent-b", truth, onB);
                    // and everything before, from the child's first second
                    double[][] early = ClusterApi.perSecond(c, c.name, chart, tStart, t0 + 1);
                    ClusterChecks.same(c.name + " " + chart + " from its start on parent-a", early,
                            ClusterApi.perSecond(a, c.name, chart, tStart, t0 + 1), true);
                    ClusterChecks.same(c.name + " " + chart + " from its start on parent-b", early,
                            ClusterApi.perSecond(b, c.name, chart, tStart, t0 + 1), true);
                    // the same query to either parent: the same bytes
                    for (String q : List.of("&points=" + (t1 - t0) + "&format=json", "&points=20&format=csv&group=max",
                            "&points=10&format=datatable&options=percentage")) {
                        String path = "/host/" + c.name + "/api/v1/data?chart=" + chart + "&after=" + t0 + "&before="
                                + t1 + q;
                        org.junit.jupiter.api.Assertions.assertEquals(a.fetch(path), b.fetch(path),
                                "parent-a and parent-b answer " + path + " differently");
                        sameBytes++;
                    }
                }
            }
            System.out.println("[ParentKilledIT] compared " + compared + " values per parent over " + (t1 - t0)
                    + " s: none missing, none different; " + sameBytes + " queries answered byte for byte the same by"
                    + " both parents");
            assertTrue(compared >= 2L * CHARTS * DIMENSIONS * (t1 - t0 - 2), "too few values compared: " + compared);
        }
    }

    /** Until the wall clock has reached {@code second} (the children collect meanwhile). */
    private static void awaitSecond(long second) throws InterruptedException {
        while (System.currentTimeMillis() / 1000 < second) {
            Thread.sleep(100);
        }
    }
}
