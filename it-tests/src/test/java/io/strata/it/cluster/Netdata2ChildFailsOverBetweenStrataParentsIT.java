package io.strata.it.cluster;

import io.strata.it.netdata.RealNetdata;
import io.strata.it.netdata.RealNetdata2;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real Netdata 2.9.0 child whose destination list holds the two Strata parents of a cluster
 * (each forwards every host to the other). The parent it streams to (A) is killed with SIGKILL;
 * the child moves to the other (B: 2.9.0 asks both {@code stream_info} first, A does not answer, B
 * holds the child); A comes back and is filled from B; then both parents answer the child's own
 * values for every second of a window that spans the kill, the move and A's absence.
 *
 * <p>Which parent is A is the child's choice: on its first connection neither parent knows it
 * (both answer {@code stream_info} with 404), and 2.9.0 shuffles parents whose newest data lie
 * within 120 s of each other, so it picks either.
 *
 * <p>One exception, exactly one case: seconds a parent's receiver reported that the child sent
 * neither in the replay answer that started a chart's live stream nor live after it ("the child
 * sent no point for X..Y" of {@code ReceiverParser}). 2.9.0 loses such a collection on the child
 * itself: {@code rrdset_timed_done()} decides whether to stream it before it waits for the chart's
 * {@code data_collection_lock}, which the replication answer holds while it covers the chart up to
 * the collection before (docs/replication.md, "A 2.9.0 child's first live point"). Seen once in
 * many runs, under CPU load, for one chart and one second right after the move. Those seconds of
 * those charts are not compared (and are printed); every other second is.
 */
class Netdata2ChildFailsOverBetweenStrataParentsIT {

    private static final String LINK = "established link with negotiated capabilities";

    @Test
    void netdata2ChildMovesToTheSecondParentAndTheFirstIsFilledWhenItReturns() throws Exception {
        RealNetdata2.assumeAvailable();
        Path tmp = ClusterLayout.runDirectory("Netdata2ChildFailsOverIT");
        int pa = ClusterLayout.freePort();
        int pb = ClusterLayout.freePort();
        NodeProcess first = ClusterLayout.parent(tmp, "parent-1", pa, List.of(pb));
        NodeProcess second = ClusterLayout.parent(tmp, "parent-2", pb, List.of(pa));
        try (first; second; RealNetdata2 child = RealNetdata2.child(tmp.resolve("nd2child"), "nd2child",
                RealNetdata.freePort(), "127.0.0.1:" + pa + " 127.0.0.1:" + pb, true)) {
            first.start();
            second.start();
            // its lifetime bounds the whole test
            child.start(Duration.ofSeconds(400));
            String childUrl = "http://127.0.0.1:" + child.webPort();
            // a 2.x child waits about 18 s after its start before it first connects
            assertTrue(child.waitForLog(LINK, Duration.ofSeconds(90)), "the child did not connect: " + child.log());
            boolean toFirst = child.logLines(LINK).get(0).contains("[to 127.0.0.1:" + pa + "]");
            NodeProcess a = toFirst ? first : second;
            NodeProcess b = toFirst ? second : first;
            System.out.println("[Netdata2ChildFailsOverIT] the 2.9.0 child chose " + a + " of its list " + first
                    + " " + second);
            for (NodeProcess p : List.of(a, b)) {
                ClusterChecks.waitForHosts(p, List.of("nd2child"), Duration.ofSeconds(90));
            }
            long t0 = System.currentTimeMillis() / 1000;
            awaitSeconds(5);
            int links = child.logLines(LINK).size();
            a.kill9();
            long killed = System.nanoTime();
            long deadline = killed + Duration.ofSeconds(90).toNanos();
            String toB = "[to 127.0.0.1:" + b.port + "]: " + LINK;
            boolean moved = false;
            while (System.nanoTime() < deadline && !moved) {
                List<String> lines = child.logLines(LINK);
                moved = lines.size() > links && lines.get(lines.size() - 1).contains(toB);
                Thread.sleep(100);
            }
            assertTrue(moved, "the 2.9.0 child did not move to " + b + ":\n" + String.join("\n",
                    child.logLines("STREAM")));
            System.out.printf("[Netdata2ChildFailsOverIT] the 2.9.0 child streams to %s %.1f s after the kill"
                    + " of %s%n", b, (System.nanoTime() - killed) / 1e9, a);
            // A stays away a while: its catch-up from B is then more than a second or two
            awaitSeconds(10);
            a.start();
            long t1 = System.currentTimeMillis() / 1000 - 3;
            // the child streams only to B now: every slot it skipped in the window is in the logs already
            Map<String, Set<Long>> skipped = ClusterChecks.skippedByChild("nd2child",
                    ClusterChecks.FIRST_LIVE_POINT_LATE, a, b);
            if (!skipped.isEmpty()) {
                System.out.println("[Netdata2ChildFailsOverIT] not compared, the 2.9.0 child did not send them"
                        + " (reported by the parents' receivers): " + skipped);
            }
            // the seconds the child itself holds: under load its collector can lose an iteration
            double[][] cpu = ClusterChecks.withoutSkipped(ClusterApi.perSecond(childUrl, null, "system.cpu", t0, t1),
                    skipped.get("system.cpu"));
            ClusterChecks.waitForCatchUp(a, "nd2child", "system.cpu", t0, t1, cpu, Duration.ofSeconds(90));
            ClusterChecks.waitForCatchUp(b, "nd2child", "system.cpu", t0, t1, cpu, Duration.ofSeconds(30));
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
                        // listed, but nothing to answer for the window
                        continue;
                    }
                    throw e;
                }
                if (truth.length == 0 || Double.isNaN(truth[0][truth[0].length - 1])) {
                    // a chart born inside the window: its very first point is not part of this promise
                    continue;
                }
                compared += ClusterChecks.waitForSame("nd2child " + chart + " on " + a, truth, a, "nd2child",
                        chart, t0, t1, compareDeadline, true);
                ClusterChecks.waitForSame("nd2child " + chart + " on " + b, truth, b, "nd2child", chart, t0, t1,
                        compareDeadline, true);
                charts++;
            }
            System.out.println("[Netdata2ChildFailsOverIT] " + charts + " charts, " + compared + " values per parent"
                    + " over " + (t1 - t0) + " s: equal to the 2.9.0 child's own on both parents");
            assertTrue(charts > 50 && compared > charts * (t1 - t0), "too little compared: " + charts + " charts, "
                    + compared + " values");
        }
    }

    /** Until the wall clock has moved on {@code seconds} (the child collects meanwhile). */
    private static void awaitSeconds(long seconds) throws InterruptedException {
        long until = System.currentTimeMillis() / 1000 + seconds;
        while (System.currentTimeMillis() / 1000 < until) {
            Thread.sleep(200);
        }
    }
}
