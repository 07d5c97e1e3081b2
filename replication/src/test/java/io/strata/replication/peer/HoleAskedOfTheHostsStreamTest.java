package io.strata.replication.peer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.replication.child.LocalHostStreamer;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.StreamRequest;
import io.strata.streaming.receiver.ReceiverContext;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverRegistry;
import io.strata.streaming.receiver.ReceiverReplication;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.receiver.StreamHandshakeHandler;
import io.strata.streaming.sender.Destination;
import io.strata.streaming.sender.SenderSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parent lost 60 s of a host's chart behind its newest second (a SIGKILL, then a refill from a
 * peer that lacked them too); the host streams to it directly again, and its sender still holds
 * those seconds. No peer holds them (the one peer answers 404). A round of the hole repair hands the
 * hole to the host's stream (on the stream's event loop), the receiver asks the sender {@code
 * REPLAY_CHART "<chart>" "false" <after> <before>} for exactly it, and the answer leaves the parent
 * holding every second with the sender's values. The receiver runs the real handshake on an {@link
 * EmbeddedChannel}; the sender is a real Strata child ({@link LocalHostStreamer} over its own engine),
 * or scripted (answering from its values of every second, or lacking the hole) where the test needs
 * to say what it holds. A hole the stream keeps already is not kept twice, and a stream is handed a
 * hole once.
 */
class HoleAskedOfTheHostsStreamTest {

    static final String KEY = "11111111-2222-3333-4444-777777777777";
    static final UUID HOST = UUID.fromString("5b8185c0-e5a4-11f1-9d33-02fc00000099");
    static final String CHART = "holes.child";
    /** The test's "now", unix seconds. */
    static final long T = 1_795_000_000L;
    static final long FIRST = T - 600;
    static final long HOLE_FROM = T - 360;
    static final long HOLE_TO = T - 301;
    static final Pattern REPLAY = Pattern.compile("REPLAY_CHART \"([^\"]+)\" \"(true|false)\" (\\d+) (\\d+)");

    @TempDir
    Path dir;
    StorageEngine engine;
    final AtomicLong wallMillis = new AtomicLong(T * 1000);
    final ReceiverStats stats = new ReceiverStats();

    /** From the parent's newest second (else the child's first) to the child's last; then live. */
    static final ReceiverReplication PLANNER = new ReceiverReplication() {
        @Override
        public ChartReplication chart() {
            return new ChartReplication() {
                @Override
                public Request definitionEnded(long parentLast, long childFirst, long childLast, int dimensions,
                                               long nowSeconds) {
                    return new Request(true, parentLast > 0 ? parentLast : childFirst - 1, childLast);
                }

                @Override
                public Request stepEnded(long answeredBefore, long parentLast, long childFirst, long childLast,
                                         int dimensions, long nowSeconds) {
                    return Request.START_STREAMING;
                }
            };
        }

        @Override
        public long secondsToReplicate() {
            return 86_400;
        }
    };

    @AfterEach
    void close() throws Exception {
        if (engine != null) {
            engine.close();
        }
    }

    /** The sender's (the child's) value of second {@code t}. */
    static long value(long t) {
        return (t - FIRST) * 3 + 11;
    }

    /** Whether the scripted sender lacks HOLE_FROM..HOLE_TO too (it answers no point there). */
    boolean senderLacksTheHole;
    final AtomicLong peerAsked = new AtomicLong();

    /**
     * The parent's own copy of the chart ({@code FIRST..parentTo}, without the hole), then the host's
     * stream: defined, its replication answered, live for T+1..T+3. Returns the chart's metric.
     */
    private int parentAndStream(ReceiverRegistry registry, long parentTo, EmbeddedChannel[] channel) throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")).withFutureMarginSeconds(0));
        engine.metadata().upsertHost(new HostInfo(HOST, "child", "linux", "UTC", 1, Map.of()));
        engine.metadata().upsertChart(ChartInfo.of(HOST, CHART, 1));
        int metric = engine.metadata().upsertDimension(DimensionInfo.of(HOST, CHART, "x"));
        for (long t = FIRST; t <= parentTo; t++) {
            if (t < HOLE_FROM || t > HOLE_TO) {
                assertTrue(engine.store(metric, t, 1, value(t), StorageNumber.SN_DEFAULT_FLAGS));
            }
        }
        engine.flush();
        EmbeddedChannel ch = connect(registry);
        channel[0] = ch;
        send(ch, "CHART \"" + CHART + "\" \"\" \"t\" \"u\" \"f\" \"" + CHART + "\" \"line\" 1 1 \"\" \"p\" \"m\"\n"
                + "DIMENSION \"x\" \"x\" \"absolute\" 1 1 \"\"\n"
                + "CHART_DEFINITION_END " + FIRST + " " + T + " " + T + "\n");
        answerRequests(ch, outbound(ch), true);
        for (long t = T + 1; t <= T + 3; t++) {
            answerRequests(ch, live(ch, t), false);
        }
        return metric;
    }

    /** The hole repair of the parent: one peer, which answers 404 (it holds nothing of the host). */
    private HoleRepair repair(ReceiverRegistry registry) {
        byte[] notFound = "not found".getBytes(StandardCharsets.US_ASCII);
        HoleRepair repair = new HoleRepair(engine, UUID.randomUUID(),
                List.of(new HoleRepair.Peer("127.0.0.1", 1, KEY)), (p, host, chart, after, b) -> {
                    peerAsked.incrementAndGet();
                    return new HoleRepair.PeerAnswer(404, notFound, notFound.length);
                }, new HoleRepair.Settings(3600, 60, 100, 10, 3), wallMillis::get);
        repair.askStreams(registry);
        return repair;
    }

    @Test
    void aHoleNoPeerHoldsIsAskedOfTheHostsOwnStreamAndFilledWithTheSendersValues() throws Exception {
        ReceiverRegistry registry = new ReceiverRegistry(wallMillis::get);
        EmbeddedChannel[] channel = new EmbeddedChannel[1];
        try {
            // the parent holds FIRST..T-10 but the hole; the stream replicates from T-10
            int metric = parentAndStream(registry, T - 10, channel);
            EmbeddedChannel ch = channel[0];
            assertEquals(0, stats.holesRemembered.sum(), "the stream's own answers left no hole");
            TreeMap<Long, Double> before = stored(metric);
            assertTrue(!before.containsKey(HOLE_FROM) && !before.containsKey(HOLE_TO), "the parent lacks the hole");

            HoleRepair repair = repair(registry);
            try {
                HoleRepair.Round round = repair.runRound();
                assertEquals(1, round.holesFound(), round.toString());
                assertEquals(1, peerAsked.get(), "the peer was asked first");
                assertEquals(1, repair.holesAskedOfStream(), "the hole no peer holds was handed to the stream");
                ch.runPendingTasks();
                // the receiver asks after its next socket read: exactly the hole, "false"
                String asked = live(ch, T + 4);
                assertEquals("REPLAY_CHART \"" + CHART + "\" \"false\" " + (HOLE_FROM - 1) + " " + HOLE_TO + "\n",
                        asked);
                answerRequests(ch, asked, true);
                for (long t = T + 5; t <= T + 8; t++) {
                    assertEquals("", live(ch, t), "the hole is filled: nothing more asked");
                }
                assertEquals(1, stats.holesFilled.sum());

                // nothing is left: the next round finds no hole and asks no one
                wallMillis.addAndGet(600_000);
                engine.flush(); // the answer's run is stored on the engine's past-writer thread
                HoleRepair.Round again = repair.runRound();
                assertEquals(0, again.holesFound(), again + "; held: " + missing(stored(metric, T + 10)));
                assertEquals(1, repair.holesAskedOfStream());
            } finally {
                repair.close();
            }
            TreeMap<Long, Double> held = stored(metric);
            // up to T-1: a live collection stores the slot it closes, the seconds from T on are live ones
            for (long t = FIRST; t < T; t++) {
                assertEquals(StorageNumber.unpack(StorageNumber.pack(value(t), StorageNumber.SN_DEFAULT_FLAGS)), held.get(t),
                        "second " + t + " (T" + (t - T) + ")");
            }
        } finally {
            if (channel[0] != null) {
                channel[0].finishAndReleaseAll();
            }
        }
    }

    @Test
    void aHoleTheStreamAsksAlreadyIsNotAskedTwiceAndASenderThatLacksItIsAskedOnce() throws Exception {
        senderLacksTheHole = true;
        ReceiverRegistry registry = new ReceiverRegistry(wallMillis::get);
        EmbeddedChannel[] channel = new EmbeddedChannel[1];
        try {
            // the parent holds FIRST..T-400: the stream's replication answer skips the hole, which its
            // receiver keeps to ask again after its backoff
            parentAndStream(registry, T - 400, channel);
            EmbeddedChannel ch = channel[0];
            assertEquals(1, stats.holesRemembered.sum(), "the answer's skip is kept by the stream");
            HoleRepair repair = repair(registry);
            try {
                HoleRepair.Round round = repair.runRound();
                assertEquals(1, round.holesFound(), round.toString());
                assertEquals(1, repair.holesAskedOfStream());
                ch.runPendingTasks();
                assertEquals(1, stats.holesRemembered.sum(), "the stream holds it already: not kept twice");
                assertEquals("", live(ch, T + 4), "nothing asked before the stream's own backoff");
                String asked = live(ch, T + 5);
                assertEquals("REPLAY_CHART \"" + CHART + "\" \"false\" " + (HOLE_FROM - 1) + " " + HOLE_TO + "\n",
                        asked, "asked once");
                answerRequests(ch, asked, true);

                // the sender lacks it: the next round asks the peer again, not the same stream
                wallMillis.addAndGet(600_000);
                engine.flush();
                HoleRepair.Round again = repair.runRound();
                assertEquals(1, again.holesFound(), again.toString());
                assertEquals(2, peerAsked.get());
                assertEquals(1, repair.holesAskedOfStream(), "a stream is handed a hole once");
                ch.runPendingTasks();
                assertEquals(1, stats.holesRemembered.sum());
            } finally {
                repair.close();
            }
        } finally {
            if (channel[0] != null) {
                channel[0].finishAndReleaseAll();
            }
        }
    }

    /**
     * The same with a real Strata child: its {@link LocalHostStreamer} streams its collected chart
     * (every second FIRST..T in its engine) to the parent's receiver; the parent's own copy lacks
     * the hole; the stream's replication asks only from the parent's newest second. After a repair
     * round the parent holds every second of the child's engine.
     */
    @Test
    void aStrataChildIsAskedForTheHoleAndTheParentHoldsItsValues() throws Exception {
        Clock clock = new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(wallMillis.get());
            }
        };
        ReceiverRegistry registry = new ReceiverRegistry(wallMillis::get);
        EmbeddedChannel childChannel = new EmbeddedChannel();
        EmbeddedChannel ch = null;
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("child"))
                .withFutureMarginSeconds(0))) {
            LocalCharts local = new LocalCharts(childDb, new HostInfo(HOST, "child", "linux", "UTC", 1, Map.of()));
            LocalCharts.Chart chart = local.define(ChartInfo.of(HOST, CHART, 1),
                    List.of(DimensionInfo.of(HOST, CHART, "x")));
            for (long t = FIRST - 1; t <= T; t++) {
                local.collect(chart, new long[] {value(t)}, null, t * 1_000_000L);
            }
            childDb.flush();
            int childMetric = childDb.metadata().metrics(childDb.metadata().chartId(HOST, CHART)).get(0);
            TreeMap<Long, Double> childHolds = stored(childDb, childMetric, FIRST, T - 1);
            assertEquals(T - FIRST, childHolds.size(), "the child holds every second");

            // the parent's own copy: the child's values FIRST..T-10, without the hole
            engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")).withFutureMarginSeconds(0));
            engine.metadata().upsertHost(new HostInfo(HOST, "child", "linux", "UTC", 1, Map.of()));
            engine.metadata().upsertChart(ChartInfo.of(HOST, CHART, 1));
            int metric = engine.metadata().upsertDimension(DimensionInfo.of(HOST, CHART, "x"));
            for (long t = FIRST; t <= T - 10; t++) {
                if (t < HOLE_FROM || t > HOLE_TO) {
                    assertTrue(engine.store(metric, t, 1, childHolds.get(t), StorageNumber.SN_DEFAULT_FLAGS));
                }
            }
            engine.flush();

            ch = connect(registry);
            StreamConfig.SenderSettings settings = new StreamConfig.SenderSettings(true, "127.0.0.1:19999", "key", 60,
                    19999, 1 << 20, 5, 60, false, "*", "", "", false);
            try (LocalHostStreamer streamer = new LocalHostStreamer(local, settings, 1, null, clock)) {
                SenderSession session = SenderSession.over("child", childChannel,
                        Destination.parse("127.0.0.1:19999", 19999), Capabilities.NETDATA_1_37_1_WITHOUT_COMPRESSION,
                        1 << 20);
                streamer.onConnected(session, Capabilities.NETDATA_1_37_1_WITHOUT_COMPRESSION);
                pump(childChannel, ch, streamer, session);
                for (long t = T + 1; t <= T + 3; t++) {
                    childLive(local, chart, streamer, t);
                    pump(childChannel, ch, streamer, session);
                }
                assertEquals(0, stats.holesRemembered.sum(), "the stream's own answers left no hole");
                assertTrue(!stored(engine, metric, FIRST, T).containsKey(HOLE_FROM), "the parent lacks the hole");

                HoleRepair repair = repair(registry);
                try {
                    repair.runRound();
                    ch.runPendingTasks();
                    for (long t = T + 4; t <= T + 8; t++) {
                        childLive(local, chart, streamer, t);
                        pump(childChannel, ch, streamer, session);
                    }
                } finally {
                    repair.close();
                }
                assertEquals(childHolds, stored(engine, metric, FIRST, T - 1), "every second, the child's values");
                assertEquals(1, repair.holesAskedOfStream());
                assertEquals(1, stats.holesAsked.sum());
                assertEquals(1, stats.holesFilled.sum());
            }
        } finally {
            childChannel.finishAndReleaseAll();
            if (ch != null) {
                ch.finishAndReleaseAll();
            }
        }
    }

    /** The child collects second {@code t} and streams it (the clocks move there). */
    private void childLive(LocalCharts local, LocalCharts.Chart chart, LocalHostStreamer streamer, long t) {
        wallMillis.set(t * 1000);
        local.collect(chart, new long[] {value(t)}, null, t * 1_000_000L);
        streamer.collected(List.of(chart));
    }

    /** Moves the child's bytes to the parent and the parent's commands to the child until both are quiet. */
    private static void pump(EmbeddedChannel child, EmbeddedChannel parent, LocalHostStreamer streamer,
                             SenderSession session) {
        for (int round = 0; round < 100; round++) {
            String fromChild = outbound(child);
            if (!fromChild.isEmpty()) {
                send(parent, fromChild);
            }
            String fromParent = outbound(parent);
            for (String line : fromParent.split("\n")) {
                if (!line.isEmpty()) {
                    byte[] b = line.getBytes(StandardCharsets.US_ASCII);
                    streamer.onParentCommand(session, b, b.length);
                }
            }
            if (fromChild.isEmpty() && fromParent.isEmpty()) {
                return;
            }
        }
        throw new AssertionError("the child and the parent kept talking");
    }

    private static TreeMap<Long, Double> stored(StorageEngine db, int metric, long from, long to) throws Exception {
        db.flush();
        TreeMap<Long, Double> out = new TreeMap<>();
        db.queryTier0(metric, from, to, (time, sn) -> {
            if (!StorageNumber.isEmpty(sn) && time >= from && time <= to) {
                out.put(time, StorageNumber.unpack(sn));
            }
        });
        return out;
    }

    private EmbeddedChannel connect(ReceiverRegistry registry) throws Exception {
        StreamAuthorizer auth = new StreamAuthorizer(StreamConfig.from(IniFile.parse("[" + KEY + "]\n\tenabled = yes\n",
                "stream.conf")), true, Capabilities.NETDATA_1_37_1, UUID.randomUUID().toString(), 0);
        ReceiverContext rc = new ReceiverContext(engine, auth, registry, ReceiverLimits.DEFAULTS, stats,
                () -> wallMillis.get() * 1000, 600, null).withReplication(s -> PLANNER);
        EmbeddedChannel ch = new EmbeddedChannel(new StreamHandshakeHandler(rc));
        byte[] request = StreamRequest.builder().key(KEY).hostname("child").machineGuid(HOST.toString()).hops(1)
                .ver(Capabilities.NETDATA_1_37_1_WITHOUT_COMPRESSION).build().encode();
        ch.writeInbound(Unpooled.wrappedBuffer(request));
        assertTrue(outbound(ch).startsWith("Hit me baby"));
        return ch;
    }

    /**
     * The scripted sender: answers each {@code REPLAY_CHART} of {@code commands} with a point per
     * second of its window (it holds every second), as a 1.37.1 sender writes them; a {@code "true"}
     * request starts streaming.
     */
    private void answerRequests(EmbeddedChannel ch, String commands, boolean expectRequest) {
        Matcher m = REPLAY.matcher(commands);
        boolean any = false;
        while (m.find()) {
            any = true;
            boolean start = m.group(2).equals("true");
            long after = Long.parseLong(m.group(3));
            long before = Long.parseLong(m.group(4));
            long now = wallMillis.get() / 1000;
            StringBuilder s = new StringBuilder("RBEGIN \"" + m.group(1) + "\"\n");
            for (long t = Math.max(after + 1, FIRST); t <= before; t++) {
                if (senderLacksTheHole && t >= HOLE_FROM && t <= HOLE_TO) {
                    continue;
                }
                s.append("RBEGIN '' ").append(t - 1).append(' ').append(t).append(' ').append(now).append('\n')
                        .append("RSET \"x\" ").append(value(t)).append(".0000000 \"\"\n");
            }
            if (start) {
                s.append("RDSTATE \"x\" ").append(before * 1_000_000).append(' ').append(value(before)).append(' ')
                        .append(value(before)).append(".0000000 ").append(value(before)).append(".0000000\n")
                        .append("RSSTATE ").append(before * 1_000_000).append(' ').append(before * 1_000_000).append('\n');
            }
            s.append("REND 1 ").append(FIRST).append(' ').append(now).append(' ').append(start).append(' ')
                    .append(after).append(' ').append(before).append(' ').append(now).append('\n');
            send(ch, s.toString());
        }
        assertEquals(expectRequest, any, "requests: " + commands);
    }

    /** A live collection of second {@code t} (the clocks move there); returns what the parent sent. */
    private String live(EmbeddedChannel ch, long t) {
        wallMillis.set(t * 1000);
        send(ch, "BEGIN \"" + CHART + "\" 1000000\nSET \"x\" = " + value(t) + "\nEND\n");
        assertTrue(ch.isActive(), "the stream goes on");
        return outbound(ch);
    }

    private static void send(EmbeddedChannel ch, String lines) {
        ch.writeInbound(Unpooled.copiedBuffer(lines, StandardCharsets.US_ASCII));
    }

    private static String outbound(EmbeddedChannel ch) {
        StringBuilder out = new StringBuilder();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            out.append(b.toString(StandardCharsets.US_ASCII));
            b.release();
        }
        return out.toString();
    }

    private static List<Long> missing(TreeMap<Long, Double> held) {
        List<Long> out = new ArrayList<>();
        for (long t = FIRST; t <= held.lastKey(); t++) {
            if (!held.containsKey(t)) {
                out.add(t - T);
            }
        }
        return out;
    }

    /** The chart's stored tier-0 values by second, FIRST..T (empty slots left out). */
    private TreeMap<Long, Double> stored(int metric) throws Exception {
        return stored(metric, T);
    }

    private TreeMap<Long, Double> stored(int metric, long to) throws Exception {
        engine.flush(); // the past path's runs are stored on the engine's own thread: flush waits for them
        TreeMap<Long, Double> out = new TreeMap<>();
        engine.queryTier0(metric, FIRST, to, (time, sn) -> {
            if (!StorageNumber.isEmpty(sn)) {
                out.put(time, StorageNumber.unpack(sn));
            }
        });
        return out;
    }
}
