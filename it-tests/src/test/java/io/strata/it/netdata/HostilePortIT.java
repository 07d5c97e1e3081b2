package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.engine.meta.MetadataStore;
import io.strata.node.attack.PortAttack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

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
            Thread.sleep(5_000);

            Poller poller = new Poller(parent.port());
            Thread pollThread = new Thread(poller, "api-poller");
            pollThread.start();
            // the first polls open the connection and warm the code up: not part of the quiet figure
            Thread.sleep(3_000);
            poller.p99AndReset();
            long quietEnd = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (System.nanoTime() < quietEnd) {
                Thread.sleep(100);
            }
            double quietP99 = poller.p99AndReset();
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
                double turnP99 = poller.p99AndReset();

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
                double togetherP99 = poller.p99AndReset();
                poller.stop();
                pollThread.join(10_000);

                long attackEnd = System.currentTimeMillis() / 1000;
                // the parent's descriptors come back once the attackers are gone
                long fdDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                long fdsAfter = openFds();
                while (fdsAfter > fdsBefore + 16 && System.nanoTime() < fdDeadline) {
                    Thread.sleep(200);
                    fdsAfter = openFds();
                }

                // the child's data came through whole: every second it holds of the attack, on the parent
                Thread.sleep(4_000);
                JsonNode charts = child.get("/api/v1/charts").get("charts");
                MetadataStore meta = parent.engine().metadata();
                int hostId = meta.hostId(UUID.fromString(child.machineGuid()));
                Map<String, Integer> strataCharts = new HashMap<>();
                for (int c : meta.charts(hostId)) {
                    strataCharts.put(meta.chart(c).id(), c);
                }
                long compared = NetdataChildToStrataParentIT.compareValues(child, parent.engine(), meta, charts,
                        strataCharts, attackStart, attackEnd);

                report.add(String.format("poller /api/v1/data p99: quiet %.1f ms, attacks in turn %.1f ms, together"
                        + " %.1f ms; %d polls failed", quietP99, turnP99, togetherP99, poller.failures));
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
                assertEquals(0, poller.failures, "polls failed, e.g. " + poller.failureSamples);
                assertTrue(fdsAfter <= fdsBefore + 16, "file descriptors " + fdsBefore + " -> " + fdsAfter);
                assertTrue(maxRss < RSS_BOUND_BYTES, "RSS " + (maxRss >> 20) + " MiB");
                assertEquals(0, parent.stats().protocolErrors.sum(), "protocol errors on the parent");
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
            Poller poller = new Poller(parentPort);
            Thread pollThread = new Thread(poller, "api-poller");
            pollThread.start();
            Thread.sleep(3_000);
            poller.p99AndReset();
            Thread.sleep(10_000);
            double quietP99 = poller.p99AndReset();
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
            double attackP99 = poller.p99AndReset();
            poller.stop();
            pollThread.join(10_000);
            report.add(String.format("Netdata parent: poller p99 quiet %.1f ms, under the attacks in turn %.1f ms; %d polls"
                    + " failed %s; parent fds %d before, %d after", quietP99, attackP99, poller.failures,
                    poller.failureSamples, fdsBefore, netdataFds(parent)));
            report.forEach(r -> System.out.println("[attack netdata] " + r));
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

    /** Polls {@code /api/v1/data} every 50 ms on one keep-alive connection, recording the latencies. */
    static final class Poller implements Runnable {
        final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        final URI uri;
        final List<Double> millis = Collections.synchronizedList(new ArrayList<>());
        final AtomicBoolean running = new AtomicBoolean(true);
        volatile int failures;

        Poller(int port) {
            uri = URI.create("http://127.0.0.1:" + port + "/host/ndchild/api/v1/data?chart=system.cpu&after=-60&points=60");
        }

        @Override
        public void run() {
            long end = System.nanoTime() + Duration.ofMinutes(10).toNanos();
            while (running.get() && System.nanoTime() < end) {
                long t0 = System.nanoTime();
                try {
                    HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                            .GET().build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() != 200) {
                        failed(r.statusCode() + " " + r.body());
                    }
                } catch (Exception e) {
                    failed(e.toString());
                }
                millis.add((System.nanoTime() - t0) / 1e6);
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        final List<String> failureSamples = Collections.synchronizedList(new ArrayList<>());

        private void failed(String why) {
            failures++;
            if (failureSamples.size() < 5) {
                failureSamples.add(why.length() > 200 ? why.substring(0, 200) : why);
            }
        }

        double p99AndReset() {
            List<Double> copy;
            synchronized (millis) {
                copy = new ArrayList<>(millis);
                millis.clear();
            }
            if (copy.isEmpty()) {
                return 0;
            }
            Collections.sort(copy);
            return copy.get(Math.min(copy.size() - 1, (int) Math.ceil(copy.size() * 0.99) - 1));
        }

        void stop() {
            running.set(false);
        }
    }
}
