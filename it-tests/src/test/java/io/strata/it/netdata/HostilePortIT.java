package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.engine.meta.MetadataStore;
import io.strata.node.attack.LatencyPoller;
import io.strata.node.attack.PortAttack;
import io.strata.streaming.receiver.ReceiverRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The port under attack beside a real Netdata 1.37.1 child: while the child streams into a Strata
 * parent and a client polls {@code /api/v1/data}, {@link PortAttack} runs idle connections,
 * slowloris (HTTP and STREAM), pipelining clients that never read and a reconnect storm of
 * synthetic children, in turn and then together (CI size; the numbers are at the top). Pass: every
 * second the child holds is on the parent, equal; every poll is answered (and, with
 * {@code -Dstrata.attack.latencyBound=true} on a quiet machine, the poller's p99 stays within 10x its
 * quiet value);
 * every attacker connection is closed by the parent within its deadline; the parent's file
 * descriptors come back; the process stays under an RSS bound. Loopback only, bounded in time.
 */
class HostilePortIT {

    static final int IDLE = 2000;
    static final int SLOWLORIS = 200;
    static final int PIPELINERS = 20;
    static final int PIPELINED_REQUESTS = 200;
    static final int STORM_CHILDREN = 100;
    static final Duration STORM = Duration.ofSeconds(20);
    static final int FIRST_REQUEST_TIMEOUT = 3;
    static final int IDLE_TIMEOUT = 5;
    /** Slack over a deadline for the closing to be seen (timer granularity, a loaded 2-core machine). */
    static final double SLACK_SECONDS = 4;
    static final long RSS_BOUND_BYTES = 3L << 30;
    static final String POLL_PATH = "/host/ndchild/api/v1/data?chart=system.cpu&after=-60&points=60";

    @TempDir
    Path tmp;

    @Test
    void theParentServesTheRealChildWholeWhileItsPortIsAttacked() throws Exception {
        RealNetdata.assumeInstalled();
        String web = "\ttimeout for first request = " + FIRST_REQUEST_TIMEOUT + "\n"
                + "\tdisconnect idle clients after seconds = " + IDLE_TIMEOUT + "\n";
        try (StrataTestParent parent = StrataTestParent.start(tmp.resolve("strata-parent"), true, web);
             RealNetdata child = RealNetdata.child(tmp.resolve("ndchild"), "ndchild", RealNetdata.freePort(),
                     "127.0.0.1:" + parent.port(), true)) {
            child.start(Duration.ofSeconds(600));
            assertTrue(child.waitForLog("established link with negotiated capabilities", Duration.ofSeconds(30)),
                    "the child did not connect: " + child.errorLog());
            long settle = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < settle && parent.stats().samplesCollected.sum() < 20_000) {
                Thread.sleep(200);
            }
            // the child's replication done, so that the quiet polls are quiet
            long replicated = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < replicated && replicating(parent)) {
                Thread.sleep(200);
            }

            try (LatencyPoller poller = poller(parent.port())) {
                // the first polls open the connection and warm the code up: not part of the quiet figure
                Thread.sleep(3_000);
                poller.window();
                Thread.sleep(10_000);
                LatencyPoller.Window quiet = poller.window();
                double quietP99 = quiet.p99Millis();
                long fdsBefore = openFds();
                long attackStart = System.currentTimeMillis() / 1000;

                InetSocketAddress target = new InetSocketAddress("127.0.0.1", parent.port());
                List<String> report = new ArrayList<>();
                Duration wait = Duration.ofSeconds(60);
                long maxRss = 0;
                try (PortAttack a = new PortAttack(target, 10, 8)) {
                    PortAttack.Figures idle = a.idle(IDLE, wait);
                    report.add(idle.toString());
                    maxRss = Math.max(maxRss, rss());
                    checkClosedWithin(idle, FIRST_REQUEST_TIMEOUT + SLACK_SECONDS);

                    PortAttack.Figures slowHttp = a.slowloris(SLOWLORIS, false, wait);
                    report.add(slowHttp.toString());
                    // the protocol is known at the first byte; the request deadline runs from there
                    checkClosedWithin(slowHttp, FIRST_REQUEST_TIMEOUT + 1 + SLACK_SECONDS);
                    PortAttack.Figures slowStream = a.slowloris(SLOWLORIS, true, wait);
                    report.add(slowStream.toString());
                    checkClosedWithin(slowStream, FIRST_REQUEST_TIMEOUT + SLACK_SECONDS);
                    maxRss = Math.max(maxRss, rss());

                    String data = "/host/ndchild/api/v1/data?chart=system.cpu&after=-600&points=600&group=median";
                    Duration notReading = Duration.ofSeconds(IDLE_TIMEOUT + 5);
                    PortAttack.Figures pipe = a.pipelinersThatNeverRead(PIPELINERS, PIPELINED_REQUESTS, data, notReading,
                            wait);
                    report.add(pipe.toString());
                    // answers not taken for the idle timeout close the connection: once the client reads, it gets
                    // what was in flight and the end (kept open, it would get all the answers and stay open)
                    checkClosedWithin(pipe, notReading.toSeconds() + SLACK_SECONDS);
                    maxRss = Math.max(maxRss, rss());

                    PortAttack.Figures storm = a.reconnectStorm(STORM_CHILDREN, RealNetdata.API_KEY, STORM, 1);
                    report.add(storm + " " + PortAttack.classify(storm.replies()));
                    assertTrue(PortAttack.classify(storm.replies()).getOrDefault("accepted", 0) > 0,
                            "no synthetic child was accepted: " + storm.replies());
                    maxRss = Math.max(maxRss, rss());
                    double turnP99 = poller.window().p99Millis();

                    // all together
                    ExecutorService pool = Executors.newFixedThreadPool(5);
                    List<Future<PortAttack.Figures>> together = new ArrayList<>();
                    try (PortAttack b = new PortAttack(target, 30, 8)) {
                        together.add(pool.submit(() -> b.idle(IDLE, wait)));
                        together.add(pool.submit(() -> b.slowloris(SLOWLORIS, false, wait)));
                        together.add(pool.submit(() -> b.slowloris(SLOWLORIS, true, wait)));
                        together.add(pool.submit(() -> b.pipelinersThatNeverRead(PIPELINERS, PIPELINED_REQUESTS, data,
                                Duration.ofSeconds(IDLE_TIMEOUT + 5), wait)));
                        together.add(pool.submit(() -> b.reconnectStorm(STORM_CHILDREN, RealNetdata.API_KEY, STORM, 2)));
                        for (Future<PortAttack.Figures> f : together) {
                            PortAttack.Figures fig = f.get();
                            report.add("together: " + fig);
                            assertEquals(0, fig.stillOpen(), fig.toString());
                            maxRss = Math.max(maxRss, rss());
                        }
                    } finally {
                        pool.shutdownNow();
                    }
                    double togetherP99 = poller.window().p99Millis();
                    int pollsFailed = poller.totalFailures();
                    poller.close();

                    long attackEnd = System.currentTimeMillis() / 1000;
                    // the parent's descriptors come back once the attackers are gone
                    long fdDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    long fdsAfter = openFds();
                    while (fdsAfter > fdsBefore + 16 && System.nanoTime() < fdDeadline) {
                        Thread.sleep(200);
                        fdsAfter = openFds();
                    }

                    // the child's data came through whole: every second it holds of the attack, on the parent
                    // (compared again, within a deadline, while the last seconds are still on their way)
                    long compared = compareOnceArrived(child, parent, attackStart, attackEnd);

                    report.add(String.format("poller /api/v1/data p99: quiet %.1f ms, attacks in turn %.1f ms, together"
                            + " %.1f ms; %d polls failed", quietP99, turnP99, togetherP99, pollsFailed));
                    report.add("file descriptors: " + fdsBefore + " before, " + fdsAfter + " after; max RSS "
                            + (maxRss >> 20) + " MiB; child points compared over the attack (" + (attackEnd - attackStart)
                            + " s): " + compared + ", all equal");
                    report.forEach(r -> System.out.println("[attack] " + r));

                    // The latency ratio is a figure of the machine as much as of the parent: on a machine whose
                    // cores other processes keep busy (CI beside other builds), quiet and attacked polls are
                    // both at the scheduler's mercy. Held where asked (a quiet machine); always printed, and
                    // the polls must all be answered (above: no failed poll) in every run.
                    if (Boolean.getBoolean("strata.attack.latencyBound")) {
                        double bound = Math.max(10 * quietP99, 250);
                        assertTrue(turnP99 <= bound && togetherP99 <= bound, "poller p99 " + turnP99 + " / "
                                + togetherP99 + " ms over " + bound + " ms (10x quiet " + quietP99 + ")");
                    }
                    assertEquals(0, pollsFailed, "polls failed");
                    assertTrue(fdsAfter <= fdsBefore + 16, "file descriptors " + fdsBefore + " -> " + fdsAfter);
                    assertTrue(maxRss < RSS_BOUND_BYTES, "RSS " + (maxRss >> 20) + " MiB");
                    assertEquals(0, parent.stats().protocolErrors.sum(), "protocol errors on the parent");
                }
            }
        }
    }

    /**
     * The same attacks, in turn, against a real Netdata 1.37.1 parent with its default [web] settings
     * (a real child streaming into it), for the figures of docs/benchmarks.md. On demand only
     * ({@code -Dstrata.attack.netdata=true}): Netdata holds an idle connection for 60 s, so this takes
     * minutes. It asserts nothing about Netdata; it prints what Netdata did.
     */
    @Test
    void theSameAttacksAgainstARealNetdataParent() throws Exception {
        boolean asked = Boolean.getBoolean("strata.attack.netdata");
        if (!asked) {
            System.out.println("SKIPPED: figures for docs/benchmarks.md; run with -Dstrata.attack.netdata=true");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(asked, "not asked for");
        RealNetdata.assumeInstalled();
        int parentPort = RealNetdata.freePort();
        try (RealNetdata parent = RealNetdata.parent(tmp.resolve("ndparent"), "ndparent", parentPort, true);
             RealNetdata child = RealNetdata.child(tmp.resolve("ndchild"), "ndchild", RealNetdata.freePort(),
                     "127.0.0.1:" + parentPort, true)) {
            parent.start(Duration.ofSeconds(900));
            child.start(Duration.ofSeconds(900));
            assertTrue(child.waitForLog("established link with negotiated capabilities", Duration.ofSeconds(60)),
                    "the child did not connect: " + child.errorLog());
            Thread.sleep(15_000);
            try (LatencyPoller poller = poller(parentPort)) {
                Thread.sleep(3_000);
                poller.window();
                Thread.sleep(10_000);
                double quietP99 = poller.window().p99Millis();
                List<String> report = new ArrayList<>();
                Duration wait = Duration.ofSeconds(75);
                long fdsBefore = netdataFds(parent);
                try (PortAttack a = new PortAttack(new InetSocketAddress("127.0.0.1", parentPort), 10, 8)) {
                    report.add(a.idle(IDLE, wait).toString());
                    report.add(a.slowloris(SLOWLORIS, false, wait).toString());
                    report.add(a.slowloris(SLOWLORIS, true, wait).toString());
                    report.add(a.pipelinersThatNeverRead(PIPELINERS, PIPELINED_REQUESTS,
                            "/host/ndchild/api/v1/data?chart=system.cpu&after=-600&points=600&group=median",
                            Duration.ofSeconds(IDLE_TIMEOUT + 5), wait).toString());
                    PortAttack.Figures storm = a.reconnectStorm(STORM_CHILDREN, RealNetdata.API_KEY, STORM, 1);
                    report.add(storm + " " + PortAttack.classify(storm.replies()));
                }
                LatencyPoller.Window attack = poller.window();
                report.add(String.format("Netdata parent: poller p99 quiet %.1f ms, under the attacks in turn %.1f ms; %d polls"
                        + " failed %s; parent fds %d before, %d after", quietP99, attack.p99Millis(), poller.totalFailures(),
                        attack.failureSamples(), fdsBefore, netdataFds(parent)));
                report.forEach(r -> System.out.println("[attack netdata] " + r));
            }
        }
    }

    /** Whether a stream into {@code parent} still replicates a chart. */
    static boolean replicating(StrataTestParent parent) {
        for (ReceiverRegistry.Active a : parent.node().receivers().snapshot().values()) {
            if (a.chartsReplicating() > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The child's points of {@code (after, before]} compared with the parent's; a difference is
     * compared again until 30 s have passed (the child's last seconds may still be on their way), then
     * fails.
     */
    static long compareOnceArrived(RealNetdata child, StrataTestParent parent, long after, long before)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            JsonNode charts = child.get("/api/v1/charts").get("charts");
            MetadataStore meta = parent.engine().metadata();
            int hostId = meta.hostId(UUID.fromString(child.machineGuid()));
            Map<String, Integer> strataCharts = new HashMap<>();
            for (int c : meta.charts(hostId)) {
                strataCharts.put(meta.chart(c).id(), c);
            }
            try {
                return NetdataChildToStrataParentIT.compareValues(child, parent.engine(), meta, charts, strataCharts,
                        after, before);
            } catch (AssertionError notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                Thread.sleep(500);
            }
        }
    }

    /** Open descriptors of the netdata process of {@code n} (found by its command line), -1 if not found. */
    static long netdataFds(RealNetdata n) {
        String conf = n.base().resolve("etc/netdata.conf").toString();
        try (var procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                if (!p.getFileName().toString().matches("[0-9]+")) {
                    continue;
                }
                try {
                    String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), java.nio.charset.StandardCharsets.UTF_8);
                    if (cmd.startsWith(RealNetdata.BINARY.toString()) && cmd.contains(conf)) {
                        try (var fds = Files.list(p.resolve("fd"))) {
                            return fds.count();
                        }
                    }
                } catch (java.io.IOException gone) {
                    // the process ended meanwhile
                }
            }
        } catch (java.io.IOException e) {
            return -1;
        }
        return -1;
    }

    /** Every connection of the attack was closed by the parent, the last within {@code seconds}. */
    static void checkClosedWithin(PortAttack.Figures f, double seconds) {
        assertEquals(0, f.stillOpen(), f.toString());
        assertEquals(f.connected(), f.closedByServer(), f.toString());
        assertTrue(f.secondsToCloseMax() <= seconds, f + " (deadline " + seconds + " s)");
    }

    static long openFds() throws java.io.IOException {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    static long rss() throws java.io.IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return 0;
    }

    /** The polling client: {@code /api/v1/data} of the real child's system.cpu every 50 ms, one keep-alive connection. */
    static LatencyPoller poller(int port) {
        return new LatencyPoller(URI.create("http://127.0.0.1:" + port + POLL_PATH), Duration.ofMillis(50),
                Duration.ofMinutes(10)).start();
    }
}
