package io.strata.it.cluster;

import io.strata.it.netdata.RealNetdata;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real Netdata 1.37.1 child whose destination list holds the two Strata parents of a cluster.
 * The first parent is killed with SIGKILL; the child moves to the second; the first comes back
 * and is filled from its peer; both parents then answer the child's own values for every second.
 *
 * <p>One exception, exactly one case: seconds a parent's receiver reported the child did not send
 * ("the child sent no point for X..Y ... its replay answer's state (RSSTATE)" of
 * {@code ReceiverParser}). A 1.37.1 child answering the parent it moved to can read a chart's
 * collection state while its collector is inside {@code rrdset_timed_done()}: that collection is
 * then in neither the answer nor the stream
 * (docs/replication.md, "A 1.37.1 child's collection during its answer"). Most likely the one
 * second parent-a, filled from parent-b, lacked once in many runs with two CPU busy loops beside
 * it ({@code netdata.clients}; that run kept no node logs). Those seconds of those charts are not
 * compared (and are printed).
 */
class NetdataChildFailsOverBetweenStrataParentsIT {

    @Test
    void realChildMovesToTheSecondParentAndTheFirstIsFilledWhenItReturns() throws Exception {
        RealNetdata.assumeInstalled();
        Path tmp = ClusterLayout.runDirectory("NetdataChildFailsOverIT");
        int pa = ClusterLayout.freePort();
        int pb = ClusterLayout.freePort();
        NodeProcess a = ClusterLayout.parent(tmp, "parent-a", pa, List.of(pb));
        NodeProcess b = ClusterLayout.parent(tmp, "parent-b", pb, List.of(pa));
        try (a; b; RealNetdata child = RealNetdata.child(tmp.resolve("ndchild"), "ndchild", RealNetdata.freePort(),
                "127.0.0.1:" + pa + " 127.0.0.1:" + pb, true)) {
            a.start();
            b.start();
            // its lifetime bounds the whole test (its bounded waits add up to about 8 minutes on a
            // loaded machine): the child must still answer when the parents are compared with it
            child.start(Duration.ofSeconds(900));
            String childUrl = "http://127.0.0.1:" + child.webPort();
            for (NodeProcess p : List.of(a, b)) {
                ClusterChecks.waitForHosts(p, List.of("ndchild"), Duration.ofSeconds(90));
            }
            // the child's first seconds: its collectors start one by one
            Thread.sleep(10_000);
            long t0 = System.currentTimeMillis() / 1000;
            Thread.sleep(5_000 + new SplittableRandom().nextInt(5_000));
            int logBeforeKill = child.errorLog().length();
            a.kill9();
            long killed = System.nanoTime();
            boolean moved = false;
            // a link to parent-b established after the kill (the child's own line for it)
            String movedLine = "[send to 127.0.0.1:" + pb + "]: established link";
            while (System.nanoTime() - killed < Duration.ofSeconds(60).toNanos()) {
                String log = child.errorLog();
                if (log.indexOf(movedLine, logBeforeKill) >= 0) {
                    moved = true;
                    break;
                }
                Thread.sleep(100);
            }
            assertTrue(moved, "the real child did not move to parent-b:\n" + child.errorLog());
            System.out.printf("[NetdataChildFailsOverIT] the real child streams to parent-b %.1f s after the kill of"
                    + " parent-a (it tries the next destination as soon as the link is reset)%n",
                    (System.nanoTime() - killed) / 1e9);
            Thread.sleep(15_000);
            a.start();
            long t1 = System.currentTimeMillis() / 1000 - 3;
            // the child streams only to parent-b now: every slot it did not send in the window is logged.
            // Only the 1.37.1 case: a slot a Strata parent's forwarded copy skipped is no child's loss
            Map<String, Set<Long>> skipped = ClusterChecks.skippedByChild("ndchild",
                    ClusterChecks.STATE_READ_DURING_A_COLLECTION, a, b);
            if (!skipped.isEmpty()) {
                System.out.println("[NetdataChildFailsOverIT] not compared, the 1.37.1 child did not send them"
                        + " (reported by the parents' receivers): " + skipped);
            }
            // the seconds the child itself holds: under load its collector can lose an iteration,
            // and a real Netdata then stores a gap, a second no parent can be given
            double[][] cpu = ClusterChecks.withoutSkipped(ClusterApi.perSecond(childUrl, null, "system.cpu", t0, t1),
                    skipped.get("system.cpu"));
            ClusterChecks.waitForCatchUp(a, "ndchild", "system.cpu", t0, t1, cpu, Duration.ofSeconds(120));
            ClusterChecks.waitForCatchUp(b, "ndchild", "system.cpu", t0, t1, cpu, Duration.ofSeconds(30));
            // the other charts are replicated alongside system.cpu, not necessarily before it
            long compareDeadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            int compared = 0;
            int charts = 0;
            for (String chart : ClusterApi.charts(childUrl, null, 1)) {
                double[][] truth;
                try {
                    truth = ClusterChecks.withoutSkipped(ClusterApi.perSecond(childUrl, null, chart, t0, t1),
                            skipped.get(chart));
                } catch (java.io.IOException e) {
                    if (e.getMessage() != null && e.getMessage().contains("answered 404")) {
                        // the real child lists the chart but has no dimension to answer for the
                        // window ("No metrics where matched to query"): nothing to compare with
                        continue;
                    }
                    throw e;
                }
                if (truth.length == 0 || Double.isNaN(truth[0][truth[0].length - 1])) {
                    // a chart born inside the window (the child's query statistics start with our
                    // first query): its very first point is not part of this promise
                    continue;
                }
                try {
                    compared += ClusterChecks.waitForSame("ndchild " + chart + " on parent-a", truth, a, "ndchild",
                            chart, t0, t1, compareDeadline, true);
                    ClusterChecks.waitForSame("ndchild " + chart + " on parent-b", truth, b, "ndchild", chart, t0, t1,
                            compareDeadline, true);
                } catch (AssertionError e) {
                    // what each side did around the failover, for the second the assertion names
                    System.out.println("[NetdataChildFailsOverIT] " + chart + " (window " + t0 + ".." + t1 + ", parent-a"
                            + " killed after " + t0 + ")\n--- parent-b's values\n"
                            + java.util.Arrays.deepToString(ClusterApi.perSecond(b, "ndchild", chart, t0, t1))
                            + "\n--- parent-a's log\n" + a.log() + "\n--- parent-b's log\n" + b.log()
                            + "\n--- the child's error log\n" + child.errorLog());
                    throw e;
                }
                charts++;
            }
            System.out.println("[NetdataChildFailsOverIT] " + charts + " charts, " + compared + " values per parent over "
                    + (t1 - t0) + " s: equal to the real child's own on both parents");
            assertTrue(charts > 50 && compared > charts * (t1 - t0), "too little compared: " + charts + " charts, "
                    + compared + " values");
        }
    }
}
