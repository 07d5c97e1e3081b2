package io.strata.node.runtime;

import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.time.Clocks;
import io.strata.node.config.NodeConfig;
import io.strata.replication.peer.HoleRepair;
import io.strata.replication.peer.PeerRangeClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two parent nodes in this process on 127.0.0.1: parent B holds a host's chart whole; parent A lacks
 * 100 s of it in the middle (behind seconds it stores after them, which no stream request reaches).
 * A's hole repair asks its peers (a peer that is down first, then B) through B's peer replay
 * endpoint and stores what B holds: every second equal to B's raw storage numbers, tiers 1 and 2
 * over the range answered alike. A value A holds is never replaced by a peer's; a hole no peer
 * holds is asked a bounded number of times and nothing is stored for it; the endpoint refuses a
 * peer without the API key.
 */
class PeerHoleRepairTest {

    static final String KEY = "33333333-4444-5555-6666-7777777700bb";
    static final String OTHER_KEY = "33333333-4444-5555-6666-7777777700cc";
    static final UUID CHILD = UUID.fromString("44444444-5555-6666-7777-8888888800dd");
    static final String CHART = "test.repaired";
    static final String HELD_CHART = "test.held";
    static final int HOLE = 100;
    static final int SPAN = 600;

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aParentFillsAHoleItsPeerHoldsWithThePeersValuesAndTiersAgree() throws Exception {
        // the data crosses an hour boundary after the hole: its tier-1 minutes and tier-2 hour are final
        long hour = (Clocks.wallMillis() / 1000 - 300) / 3600 * 3600;
        long t0 = hour - 1000;
        long end = hour + 200;
        long holeFrom = hour - 600;
        long holeTo = holeFrom + HOLE - 1;
        int downPort = closedPort();
        try (StrataNode b = parent("parent-b", null);
             StrataNode a = parent("parent-a", "127.0.0.1:" + downPort + " 127.0.0.1:" + port(b))) {
            int[] bm = define(b.engine(), CHART, 2);
            int[] am = define(a.engine(), CHART, 2);
            store(b.engine(), bm, t0, end, -1, -1);
            store(a.engine(), am, t0, end, holeFrom, holeTo);
            b.engine().flush();
            a.engine().flush();
            assertTrue(differs(a.engine(), am, b.engine(), bm, t0, end), "A lacks the hole before the repair");

            HoleRepair repair = a.holeRepair();
            assertNotNull(repair, "a parent with peers runs the hole repair");
            assertEquals(2, repair.peers().size());
            HoleRepair.Round round = repair.runRound();
            assertEquals(2L * HOLE, round.samplesFilled(), round.toString());
            assertEquals(1, repair.peerRequestsFailed(), "the peer that is down was asked once and then skipped");
            a.engine().flush();

            assertTiersEqual(a.engine(), am, b.engine(), bm, t0, end);
            for (int tier = 1; tier <= 2; tier++) {
                String q = "/host/" + CHILD + "/api/v1/data?chart=" + CHART + "&after=" + (hour - 3600) + "&before="
                        + end + "&tier=" + tier + "&format=csv&options=seconds&group=average";
                String fromA = get(a, q).body();
                String fromB = get(b, q).body();
                assertTrue(fromA.contains("\n" + hour + ","), "tier " + tier + " has its point at " + hour + ": " + fromA);
                assertEquals(fromB, fromA, "tier " + tier + " over the range");
            }

            // nothing is left to ask: the next round asks no peer
            HoleRepair.Round again = repair.runRound();
            assertEquals(0, again.holesFound(), again.toString());
            assertEquals(1, repair.peerRequestsFailed());
        }
    }

    @Test
    void aValueTheParentHoldsIsNeverReplacedByAPeersValue() throws Exception {
        long t0 = Clocks.wallMillis() / 1000 - SPAN - 5;
        long holeFrom = t0 + 300;
        long holeTo = holeFrom + HOLE - 1;
        try (StrataNode b = parent("parent-b", null);
             StrataNode a = parent("parent-a", "127.0.0.1:" + port(b))) {
            int[] bm = define(b.engine(), HELD_CHART, 2);
            int[] am = define(a.engine(), HELD_CHART, 2);
            store(b.engine(), bm, t0, t0 + SPAN - 1, -1, -1);
            // A holds dimension 0 through the hole with values of its own, and lacks dimension 1 there
            for (long t = t0; t < t0 + SPAN; t++) {
                a.engine().store(am[0], t, 1, t >= holeFrom && t <= holeTo ? -7.5 : value(0, t),
                        StorageNumber.SN_DEFAULT_FLAGS);
                if (t < holeFrom || t > holeTo) {
                    a.engine().store(am[1], t, 1, value(1, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            b.engine().flush();
            a.engine().flush();

            HoleRepair.Round round = a.holeRepair().runRound();
            assertEquals(HOLE, round.samplesFilled(), "only the slots A lacked: " + round);
            a.engine().flush();
            long[] own = tier0(a.engine(), am[0], holeFrom, holeTo);
            for (int i = 0; i < HOLE; i++) {
                assertEquals(StorageNumber.pack(-7.5, StorageNumber.SN_DEFAULT_FLAGS), (int) own[i],
                        "A's own value at " + (holeFrom + i));
            }
            assertEquals(toList(tier0(b.engine(), bm[1], holeFrom, holeTo)), toList(tier0(a.engine(), am[1], holeFrom,
                    holeTo)), "dimension 1 filled with B's values");
        }
    }

    @Test
    void aHoleNoPeerHoldsIsAskedABoundedNumberOfTimesAndNothingIsStored() throws Exception {
        long t0 = Clocks.wallMillis() / 1000 - SPAN - 5;
        long holeFrom = t0 + 100;
        long holeTo = holeFrom + 29;
        try (StrataNode b = parent("parent-b", null);
             StrataNode a = parent("parent-a", "127.0.0.1:" + port(b))) {
            int[] bm = define(b.engine(), CHART, 1);
            int[] am = define(a.engine(), CHART, 1);
            // the host's own downtime: neither parent holds it
            store(b.engine(), bm, t0, t0 + SPAN - 1, holeFrom, holeTo);
            store(a.engine(), am, t0, t0 + SPAN - 1, holeFrom, holeTo);
            b.engine().flush();
            a.engine().flush();

            AtomicLong clock = new AtomicLong(Clocks.wallMillis());
            HoleRepair.Settings settings = new HoleRepair.Settings(3600, 60, 100, 10, 3);
            HoleRepair.Peer peer = new HoleRepair.Peer("127.0.0.1", port(b), KEY);
            AtomicLong asked = new AtomicLong();
            PeerRangeClient client = new PeerRangeClient(Duration.ofSeconds(5));
            HoleRepair repair = new HoleRepair(a.engine(), a.machineGuid(), List.of(peer),
                    (p, host, chart, after, before) -> {
                        asked.incrementAndGet();
                        return client.fetch(p, host, chart, after, before);
                    }, settings, clock::get);
            try {
                for (int r = 0; r < 12; r++) {
                    repair.runRound();
                    // past every backoff: 60 s × 2^attempts is at most 8 minutes here
                    clock.addAndGet(Duration.ofMinutes(9).toMillis());
                    // the window moves with the clock: keep it over the data
                    if (clock.get() / 1000 - 3600 > holeFrom - 60) {
                        break;
                    }
                }
            } finally {
                repair.close();
            }
            assertEquals(3, asked.get(), "asked in as many rounds as the bound, then given up");
            assertEquals(3, repair.holesAsked());
            assertEquals(1, repair.holesUnfillable());
            assertEquals(0, repair.samplesFilled());
            a.engine().flush();
            for (long sn : tier0(a.engine(), am[0], holeFrom, holeTo)) {
                assertTrue(StorageNumber.isEmpty((int) sn), "nothing stored in a hole no one holds");
            }
        }
    }

    @Test
    void theEndpointAnswersOnlyAPeerWithAnApiKeyThatLetsTheHostIn() throws Exception {
        long t0 = Clocks.wallMillis() / 1000 - SPAN - 5;
        try (StrataNode b = parent("parent-b", null)) {
            int[] bm = define(b.engine(), CHART, 3);
            store(b.engine(), bm, t0, t0 + SPAN - 1, -1, -1);
            b.engine().flush();
            String path = "/host/" + CHILD + "/api/v1/replay_chart?chart=" + CHART + "&after=" + (t0 - 1)
                    + "&before=" + (t0 + SPAN - 1);
            HttpResponse<String> none = get(b, path);
            assertEquals(403, none.statusCode());
            assertEquals("You are not allowed to access this resource.", none.body());
            assertEquals(403, get(b, path, OTHER_KEY).statusCode(), "a key stream.conf does not enable");
            assertEquals(404, get(b, "/host/" + UUID.randomUUID() + "/api/v1/replay_chart?chart=" + CHART
                    + "&after=1&before=2", KEY).statusCode());
            assertEquals(400, get(b, "/host/" + CHILD + "/api/v1/replay_chart?chart=" + CHART
                    + "&after=5&before=5", KEY).statusCode());

            HttpResponse<String> ok = get(b, path, KEY);
            assertEquals(200, ok.statusCode(), ok.body());
            String[] lines = ok.body().split("\n");
            assertEquals("RBEGIN \"" + CHART + "\"", lines[0]);
            assertTrue(lines[1].startsWith("RBEGIN '' " + (t0 - 1) + " " + t0 + " "), lines[1]);
            assertTrue(lines[2].startsWith("RSET \"d0\" "), lines[2]);
            assertEquals(1 + SPAN * 4 + 1, lines.length, "a point and its three RSET lines per second, then REND");
            assertTrue(lines[lines.length - 1].startsWith("REND 1 " + t0 + " " + (t0 + SPAN - 1) + " false "
                    + (t0 - 1) + " " + (t0 + SPAN - 1) + " "), lines[lines.length - 1]);

            // bounded: a longer range is answered a page of slots at a time, REND saying where it stopped
            HttpResponse<String> longer = get(b, "/host/" + CHILD + "/api/v1/replay_chart?chart=" + CHART + "&after="
                    + (t0 - 5000) + "&before=" + (t0 + SPAN - 1), KEY);
            String[] l = longer.body().split("\n");
            assertTrue(l[l.length - 1].contains(" false " + (t0 - 5000) + " " + (t0 - 5000 + 1024) + " "),
                    l[l.length - 1]);
        }
    }

    @Test
    void aPeerWhoseAnswerIsNotAReplayAnswerIsSkippedAndNothingOfItIsStored() throws Exception {
        long t0 = Clocks.wallMillis() / 1000 - SPAN - 5;
        long holeFrom = t0 + 100;
        long holeTo = holeFrom + 19;
        try (StrataNode a = parent("parent-a", null)) {
            int[] am = define(a.engine(), CHART, 1);
            store(a.engine(), am, t0, t0 + SPAN - 1, holeFrom, holeTo);
            a.engine().flush();
            AtomicLong clock = new AtomicLong(Clocks.wallMillis());
            AtomicLong asked = new AtomicLong();
            byte[] html = "<html>Unsupported v1 API command: replay_chart</html>".getBytes(StandardCharsets.US_ASCII);
            HoleRepair repair = new HoleRepair(a.engine(), a.machineGuid(),
                    List.of(new HoleRepair.Peer("127.0.0.1", 1, KEY)), (p, host, chart, after, before) -> {
                        asked.incrementAndGet();
                        return new HoleRepair.PeerAnswer(200, html, html.length);
                    }, new HoleRepair.Settings(3600, 60, 100, 10, 3), clock::get);
            try {
                repair.runRound();
                assertEquals(1, asked.get());
                assertEquals(1, repair.peerRequestsFailed());
                // the peer is skipped for a while: a round a minute later asks nobody
                clock.addAndGet(Duration.ofMinutes(1).toMillis() - 1);
                repair.runRound();
                assertEquals(1, asked.get());
                // and asked again after its backoff
                clock.addAndGet(Duration.ofMinutes(10).toMillis());
                repair.runRound();
                assertEquals(2, asked.get());
            } finally {
                repair.close();
            }
            assertEquals(0, repair.samplesFilled());
            a.engine().flush();
            for (long sn : tier0(a.engine(), am[0], holeFrom, holeTo)) {
                assertTrue(StorageNumber.isEmpty((int) sn));
            }
        }
    }

    @Test
    void roundsRunOnTheRepairsOwnThreadUntilItIsClosed() throws Exception {
        long t0 = Clocks.wallMillis() / 1000 - SPAN - 5;
        try (StrataNode b = parent("parent-b", null);
             StrataNode a = parent("parent-a", "127.0.0.1:" + port(b))) {
            int[] bm = define(b.engine(), CHART, 1);
            int[] am = define(a.engine(), CHART, 1);
            store(b.engine(), bm, t0, t0 + SPAN - 1, -1, -1);
            store(a.engine(), am, t0, t0 + SPAN - 1, t0 + 50, t0 + 59);
            b.engine().flush();
            a.engine().flush();
            HoleRepair repair = new HoleRepair(a.engine(), a.machineGuid(),
                    List.of(new HoleRepair.Peer("127.0.0.1", port(b), KEY)), new PeerRangeClient(Duration.ofSeconds(5)),
                    new HoleRepair.Settings(3600, 1, 100, 10, 3), Clocks::wallMillis);
            try {
                repair.start();
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (repair.samplesFilled() < 10 || repair.rounds() < 2) {
                    assertTrue(System.nanoTime() < deadline, "no scheduled round filled the hole within 60 s");
                    Thread.sleep(50);
                }
            } finally {
                repair.close();
            }
            long rounds = repair.rounds();
            a.engine().flush();
            assertEquals(toList(tier0(b.engine(), bm[0], t0, t0 + SPAN - 1)),
                    toList(tier0(a.engine(), am[0], t0, t0 + SPAN - 1)));
            assertEquals(rounds, repair.rounds(), "no round after close");
        }
    }

    @Test
    void aListenerWithoutTheStreamingModeRefusesTheEndpoint() throws Exception {
        Path conf = Files.createDirectories(tmp.resolve("dashboard-only"));
        Files.writeString(conf.resolve("netdata.conf"), "[global]\n\thostname = dashboard-only\n[db]\n"
                + "\tstorage tiers = 1\n[web]\n\tbind to = 127.0.0.1:0=dashboard\n"
                + "[directories]\n\tcache = " + conf.resolve("cache") + "\n\tlib = " + conf.resolve("lib") + "\n");
        Files.writeString(conf.resolve("stream.conf"), "[stream]\n\tenabled = no\n\n[" + KEY + "]\n\tenabled = yes\n");
        try (StrataNode b = NodeRoles.start(NodeConfig.load(conf), null)) {
            define(b.engine(), CHART, 1);
            HttpResponse<String> r = get(b, "/host/" + CHILD + "/api/v1/replay_chart?chart=" + CHART
                    + "&after=1&before=2", KEY);
            assertEquals(403, r.statusCode());
            assertEquals("You are not allowed to access this resource.", r.body());
            assertEquals(200, get(b, "/api/v1/info").statusCode(), "the dashboard is served");
        }
    }

    // ---- the cluster --------------------------------------------------------------------------

    /** A parent accepting {@link #KEY}; with {@code peers}, forwarding to them (its peers for the repair). */
    private StrataNode parent(String name, String peers) throws Exception {
        Path conf = Files.createDirectories(tmp.resolve(name));
        Files.writeString(conf.resolve("netdata.conf"), "[global]\n\thostname = " + name + "\n[db]\n"
                + "\tstorage tiers = 3\n\trepair holes every seconds = 3600\n\trepair holes window seconds = 7200\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + conf.resolve("cache") + "\n\tlib = " + conf.resolve("lib") + "\n");
        Files.writeString(conf.resolve("stream.conf"), "[stream]\n\tenabled = no\n\n[" + KEY + "]\n\tenabled = yes\n"
                + (peers == null ? "" : "\tdefault proxy enabled = yes\n\tdefault proxy destination = " + peers
                + "\n\tdefault proxy api key = " + KEY + "\n"));
        return NodeRoles.start(NodeConfig.load(conf), null);
    }

    private static int port(StrataNode n) {
        return n.listening().get(0).getPort();
    }

    /** A port nothing listens on (bound and closed again). */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static int[] define(StorageEngine e, String chart, int dims) {
        e.metadata().upsertHost(new HostInfo(CHILD, "child", "linux", "UTC", 1, Map.of()));
        e.metadata().upsertChart(ChartInfo.of(CHILD, chart, 1));
        int[] m = new int[dims];
        for (int d = 0; d < dims; d++) {
            m[d] = e.metadata().upsertDimension(DimensionInfo.of(CHILD, chart, "d" + d));
        }
        return m;
    }

    static double value(int dim, long t) {
        return (t % 997) * 1.25 + dim * 1000.0 + (t % 7) / 8.0;
    }

    /** Every second of {@code [from, to]} but those of {@code [skipFrom, skipTo]}. */
    private static void store(StorageEngine e, int[] metrics, long from, long to, long skipFrom, long skipTo) {
        for (long t = from; t <= to; t++) {
            if (t >= skipFrom && t <= skipTo) {
                continue;
            }
            for (int d = 0; d < metrics.length; d++) {
                assertTrue(e.store(metrics[d], t, 1, value(d, t), StorageNumber.SN_DEFAULT_FLAGS));
            }
        }
    }

    /** The raw storage number of each second of {@code [from, to]} (SN_EMPTY_SLOT where none is stored). */
    private static long[] tier0(StorageEngine e, int metric, long from, long to) throws IOException {
        long[] out = new long[(int) (to - from + 1)];
        Arrays.fill(out, StorageNumber.SN_EMPTY_SLOT);
        e.queryTier0(metric, from, to, (time, sn) -> {
            if (time >= from && time <= to && (StorageNumber.isEmpty((int) out[(int) (time - from)])
                    || !StorageNumber.isEmpty(sn))) {
                out[(int) (time - from)] = sn;
            }
        });
        return out;
    }

    private static List<Long> toList(long[] a) {
        return Arrays.stream(a).boxed().toList();
    }

    private static boolean differs(StorageEngine a, int[] am, StorageEngine b, int[] bm, long from, long to)
            throws IOException {
        for (int d = 0; d < am.length; d++) {
            if (!toList(tier0(a, am[d], from, to)).equals(toList(tier0(b, bm[d], from, to)))) {
                return true;
            }
        }
        return false;
    }

    private static void assertTiersEqual(StorageEngine a, int[] am, StorageEngine b, int[] bm, long from, long to)
            throws IOException {
        for (int d = 0; d < am.length; d++) {
            long[] fromB = tier0(b, bm[d], from, to);
            for (long sn : fromB) {
                assertTrue(!StorageNumber.isEmpty((int) sn), "B holds every second");
            }
            assertEquals(toList(fromB), toList(tier0(a, am[d], from, to)), "dimension " + d + ": A holds B's values");
        }
    }

    private HttpResponse<String> get(StrataNode n, String path) throws Exception {
        return get(n, path, null);
    }

    private HttpResponse<String> get(StrataNode n, String path, String key) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(n) + path))
                .timeout(Duration.ofSeconds(20));
        if (key != null) {
            r.header("Authorization", "Bearer " + key);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }
}
