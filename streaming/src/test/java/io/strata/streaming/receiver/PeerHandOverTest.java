package io.strata.streaming.receiver;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.StreamRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A host streaming directly to a parent answers the parent's gap with a hole (it lost those
 * seconds): the parent stores nothing after the hole, ends the stream and refuses the host's next
 * direct stream once, so that the host reaches it through a peer that holds the hole — unless the
 * hole is the host's own downtime (it starts where this parent's last caught-up stream of the host
 * ended), the stream is a forwarded copy, or the parent has no peers. The handshake and the
 * receiver run on an {@link EmbeddedChannel}; the registry's wall clock and the parser's clock are
 * the test's, and the peers' answer is given.
 */
class PeerHandOverTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";
    static final String GUID = "5b8185c0-e5a4-11f1-9d33-02fc00000077";
    static final String CHART = "hand.over";
    /** The test's "now", unix seconds. */
    static final long T = 1_795_000_000L;

    @TempDir
    Path dir;
    StorageEngine engine;
    final AtomicLong wallMillis = new AtomicLong(T * 1000);
    ReceiverRegistry registry = new ReceiverRegistry(wallMillis::get);

    /** A planner as a parent's: from its newest second (else the child's first) to the child's last, then live. */
    static final ReceiverReplication PLANNER = () -> new ReceiverReplication.ChartReplication() {
        @Override
        public ReceiverReplication.Request definitionEnded(long parentLast, long childFirst, long childLast,
                                                           int dimensions, long nowSeconds) {
            return new ReceiverReplication.Request(true, parentLast > 0 ? parentLast : childFirst - 1, childLast);
        }

        @Override
        public ReceiverReplication.Request stepEnded(long answeredBefore, long parentLast, long childFirst,
                                                     long childLast, int dimensions, long nowSeconds) {
            return ReceiverReplication.Request.START_STREAMING;
        }
    };

    @AfterEach
    void close() throws Exception {
        if (engine != null) {
            engine.close();
        }
    }

    private ReceiverContext context(boolean peers) throws Exception {
        if (engine == null) {
            engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")).withFutureMarginSeconds(0));
        }
        String conf = "[" + KEY + "]\n\tenabled = yes\n" + (peers ? "\tdefault proxy enabled = yes\n"
                + "\tdefault proxy destination = 127.0.0.1:9\n\tdefault proxy api key = " + KEY + "\n" : "");
        StreamAuthorizer auth = new StreamAuthorizer(StreamConfig.from(IniFile.parse(conf, "stream.conf")), true,
                Capabilities.NETDATA_1_37_1, UUID.randomUUID().toString(), 0);
        return new ReceiverContext(engine, auth, registry, ReceiverLimits.DEFAULTS, new ReceiverStats(),
                () -> wallMillis.get() * 1000, 600, null).withReplication(s -> PLANNER);
    }

    /** Opens a stream of the host with these hops; returns the channel and the parent's reply. */
    private EmbeddedChannel connect(ReceiverContext rc, int hops, StringBuilder reply) {
        EmbeddedChannel ch = new EmbeddedChannel(new StreamHandshakeHandler(rc));
        byte[] request = StreamRequest.builder().key(KEY).hostname("child").machineGuid(GUID).hops(hops)
                .ver(Capabilities.NETDATA_1_37_1_WITHOUT_COMPRESSION).build().encode();
        ch.writeInbound(Unpooled.wrappedBuffer(request));
        reply.append(outbound(ch));
        return ch;
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

    private static void send(EmbeddedChannel ch, String lines) {
        ch.writeInbound(Unpooled.copiedBuffer(lines, StandardCharsets.US_ASCII));
    }

    /** The chart's definition, reporting the child's retention {@code first..last}. */
    private static String define(long first, long last) {
        return "CHART \"" + CHART + "\" \"\" \"t\" \"u\" \"f\" \"" + CHART + "\" \"line\" 1 1 \"\" \"p\" \"m\"\n"
                + "DIMENSION \"x\" \"x\" \"absolute\" 1 1 \"\"\n"
                + "CHART_DEFINITION_END " + first + " " + last + " " + last + "\n";
    }

    /** One replayed point per second of {@code [from, to]}, value = the second's offset from T. */
    private static String points(long from, long to) {
        StringBuilder s = new StringBuilder();
        for (long t = from; t <= to; t++) {
            s.append("RBEGIN \"").append(CHART).append("\" ").append(t - 1).append(' ').append(t).append(' ')
                    .append(to).append('\n').append("RSET \"x\" = ").append(t - T + 1000).append(" \"\"\n");
        }
        return s.toString();
    }

    private static String rend(long first, long last, boolean start, long after, long before) {
        return "REND 1 " + first + " " + last + " " + start + " " + after + " " + before + " " + last + "\n";
    }

    private long lastStored() {
        int metric = engine.registry().lookup(DimensionInfo.metricUuid(UUID.fromString(GUID), CHART, "x"));
        return metric < 0 ? 0 : engine.registry().lastTime(metric, 0);
    }

    /** A stream of the host that stores {@code [from, to]} and goes live, then ends (wall clock at {@code to}). */
    private void caughtUpStream(ReceiverContext rc, long from, long to) {
        wallMillis.set(to * 1000);
        EmbeddedChannel ch = connect(rc, 1, new StringBuilder());
        send(ch, define(from, to));
        send(ch, points(from, to) + rend(from, to, true, from - 1, to));
        assertTrue(ch.isActive());
        ch.close();
        ch.finishAndReleaseAll();
    }

    /** This parent restarted: it remembers no stream of the host; its peers hold the host up to {@code peersNewest}. */
    private ReceiverContext restart(long peersNewest) throws Exception {
        registry = new ReceiverRegistry(wallMillis::get);
        registry.setPeerLookup((destinations, guid) -> {
            assertEquals("127.0.0.1:9", destinations);
            assertEquals(GUID, guid);
            return CompletableFuture.completedFuture(PeerLookup.Answer.held(peersNewest));
        });
        return context(true);
    }

    @Test
    void aParentBackAsksItsPeersFirstAndHandsOverBeforeStoringAnythingAfterAHole() throws Exception {
        caughtUpStream(context(true), T - 100, T - 60);
        // this parent was down from T-60; its peer held the host up to T-20, the host lost T-49..T-20
        ReceiverContext rc = restart(T - 20);
        wallMillis.set(T * 1000);
        StringBuilder reply = new StringBuilder();
        EmbeddedChannel ch = connect(rc, 1, reply);
        assertTrue(reply.toString().startsWith("Hit me baby"), reply.toString());
        send(ch, define(T - 100, T));
        assertTrue(outbound(ch).contains("REPLAY_CHART \"" + CHART + "\" \"true\" " + (T - 60) + " " + T),
                "asked after the peers answered");
        send(ch, points(T - 59, T - 50) + points(T - 19, T) + rend(T - 100, T, true, T - 60, T));
        assertFalse(ch.isActive(), "the stream was not handed over");
        assertEquals(T - 50, lastStored(), "stored after the hole: the peers' copy could never fill it");
        assertEquals(T * 1000, registry.handedOverMillis(GUID));
        ch.finishAndReleaseAll();

        StringBuilder again = new StringBuilder();
        EmbeddedChannel direct = connect(rc, 1, again);
        assertEquals("This GUID is already streaming to this server", again.toString(),
                "the host's next direct stream is refused once");
        direct.finishAndReleaseAll();
        StringBuilder forwarded = new StringBuilder();
        EmbeddedChannel peer = connect(rc, 2, forwarded);
        assertTrue(forwarded.toString().startsWith("Hit me baby"), "a peer's copy: " + forwarded);
        send(peer, define(T - 100, T));
        assertTrue(outbound(peer).contains("REPLAY_CHART \"" + CHART + "\" \"true\" " + (T - 50) + " " + T),
                "the peer is asked from the hole on");
        send(peer, points(T - 49, T) + rend(T - 100, T, true, T - 50, T));
        assertTrue(peer.isActive());
        assertEquals(T, lastStored());
        peer.finishAndReleaseAll();

        StringBuilder later = new StringBuilder();
        EmbeddedChannel directLater = connect(rc, 1, later);
        assertTrue(later.toString().startsWith("Hit me baby"), "refused only once: " + later);
        directLater.finishAndReleaseAll();
    }

    /** The engine's tier-0 seconds of the chart in {@code [from, to]} that hold a value. */
    private long secondsHeld(long from, long to) throws Exception {
        int metric = engine.registry().lookup(DimensionInfo.metricUuid(UUID.fromString(GUID), CHART, "x"));
        long[] held = new long[1];
        engine.queryTier0(metric, from, to, (time, sn) -> {
            if (sn != StorageNumber.SN_EMPTY_SLOT) {
                held[0]++;
            }
        });
        return held[0];
    }

    @Test
    void aPeerThatDidNotAnswerMayHoldTheHoleAndTheParentEndsUpHoldingItOnceThePeerForwardsTheHost()
            throws Exception {
        caughtUpStream(context(true), T - 100, T - 60);
        // this parent was down from T-60; the peer that received the host meanwhile (up to T-20) is
        // unreachable now (stopped, partitioned): the lookup gets no answer within its timeout
        registry = new ReceiverRegistry(wallMillis::get);
        registry.setPeerLookup((destinations, guid) -> new CompletableFuture<>());
        ReceiverContext rc = context(true);
        wallMillis.set(T * 1000);
        EmbeddedChannel ch = connect(rc, 1, new StringBuilder());
        send(ch, define(T - 100, T));
        ch.advanceTimeBy(PeerHandOver.LOOKUP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(outbound(ch).contains("REPLAY_CHART \"" + CHART + "\" \"true\" " + (T - 60) + " " + T),
                "asked after the lookup's timeout");
        // the host lost T-49..T-20 (a SIGKILL: its memory)
        send(ch, points(T - 59, T - 50) + points(T - 19, T) + rend(T - 100, T, true, T - 60, T));
        assertFalse(ch.isActive(), "stored after the hole although a peer that did not answer may hold it");
        assertEquals(T - 50, lastStored());
        ch.finishAndReleaseAll();

        // the peer is reachable again and receives the host, which it forwards here
        EmbeddedChannel refused = connect(rc, 1, new StringBuilder());
        refused.finishAndReleaseAll();
        EmbeddedChannel peer = connect(rc, 2, new StringBuilder());
        send(peer, define(T - 100, T));
        assertTrue(outbound(peer).contains("REPLAY_CHART \"" + CHART + "\" \"true\" " + (T - 50) + " " + T),
                "the peer is asked from the hole on");
        send(peer, points(T - 49, T) + rend(T - 100, T, true, T - 50, T));
        assertTrue(peer.isActive());
        peer.finishAndReleaseAll();
        assertEquals(T, lastStored());
        assertEquals(101, secondsHeld(T - 100, T), "every second a replica holds is held here");
    }

    /** This parent restarted: it remembers no stream of the host; its peers answer {@code answer}. */
    private ReceiverContext restart(PeerLookup.Answer answer) throws Exception {
        registry = new ReceiverRegistry(wallMillis::get);
        registry.setPeerLookup((destinations, guid) -> CompletableFuture.completedFuture(answer));
        return context(true);
    }

    @Test
    void aRetentionStartingAfterTheNewestSecondHeldIsHandedOverWhenAPeerDidNotAnswer() throws Exception {
        caughtUpStream(context(true), T - 100, T - 60);
        // one peer answered that it holds the host up to T-60, another did not answer
        ReceiverContext rc = restart(new PeerLookup.Answer(T - 60, false));
        wallMillis.set(T * 1000);
        EmbeddedChannel ch = connect(rc, 1, new StringBuilder());
        send(ch, define(T - 30, T));
        assertFalse(ch.isActive(), "the stream was not handed over");
        assertFalse(outbound(ch).contains("REPLAY_CHART"), "the host was asked");
        assertEquals(T - 60, lastStored());
        ch.finishAndReleaseAll();
        assertTrue(registry.refuseHandedOver(GUID, 1));
    }

    @Test
    void aPeerThatDidNotAnswerIsNoReasonToMoveAHostThisParentHoldsNothingOf() throws Exception {
        ReceiverContext rc = restart(PeerLookup.Answer.NO_ANSWER);
        EmbeddedChannel ch = connect(rc, 1, new StringBuilder());
        send(ch, define(T - 100, T));
        assertTrue(outbound(ch).contains("REPLAY_CHART"));
        send(ch, points(T - 100, T - 60) + points(T - 19, T) + rend(T - 100, T, true, T - 101, T));
        assertTrue(ch.isActive(), "a new host was moved for a peer that did not answer");
        assertEquals(T, lastStored());
        ch.finishAndReleaseAll();
    }

    @Test
    void aHoleNoPeerHoldsWhenEveryPeerAnsweredIsStoredAsItComes() throws Exception {
        caughtUpStream(context(true), T - 100, T - 60);
        ReceiverContext rc = restart(PeerLookup.Answer.held(T - 60));
        wallMillis.set(T * 1000);
        EmbeddedChannel ch = connect(rc, 1, new StringBuilder());
        send(ch, define(T - 100, T));
        assertTrue(outbound(ch).contains("REPLAY_CHART \"" + CHART + "\" \"true\" " + (T - 60) + " " + T));
        send(ch, points(T - 59, T - 50) + points(T - 19, T) + rend(T - 100, T, true, T - 60, T));
        assertTrue(ch.isActive(), "handed over although every peer said it holds no more");
        assertEquals(T, lastStored());
        ch.finishAndReleaseAll();
    }

    @Test
    void aReplacedParentHandsOverBeforeAskingAnythingWhenItsPeersHoldWhatTheHostCannotSend() throws Exception {
        // an empty disk; the host's retention starts at T-30 (it lost the rest), the peers hold it up to T
        ReceiverContext rc = restart(T);
        EmbeddedChannel ch = connect(rc, 1, new StringBuilder());
        send(ch, define(T - 30, T));
        assertFalse(ch.isActive(), "the stream was not handed over");
        assertFalse(outbound(ch).contains("REPLAY_CHART"), "the host was asked");
        assertEquals(0, lastStored());
        ch.finishAndReleaseAll();
        assertTrue(registry.refuseHandedOver(GUID, 1));
    }

    @Test
    void aHostThatStoredNothingYetCannotSendWhatThePeersHoldEither() throws Exception {
        // the host just came back and lost everything: its chart is defined empty (0 0 now)
        ReceiverContext rc = restart(T - 10);
        EmbeddedChannel ch = connect(rc, 1, new StringBuilder());
        send(ch, "CHART \"" + CHART + "\" \"\" \"t\" \"u\" \"f\" \"" + CHART + "\" \"line\" 1 1 \"\" \"p\" \"m\"\n"
                + "DIMENSION \"x\" \"x\" \"absolute\" 1 1 \"\"\nCHART_DEFINITION_END 0 0 " + T + "\n");
        assertFalse(ch.isActive(), "the stream was not handed over");
        assertFalse(outbound(ch).contains("REPLAY_CHART"), "the host was asked");
        ch.finishAndReleaseAll();
    }

    @Test
    void aHostNoPeerHoldsIsReplicatedAsItComes() throws Exception {
        ReceiverContext rc = restart(-1);
        EmbeddedChannel ch = connect(rc, 1, new StringBuilder());
        send(ch, define(T - 100, T));
        assertTrue(outbound(ch).contains("REPLAY_CHART"));
        send(ch, points(T - 100, T - 60) + points(T - 19, T) + rend(T - 100, T, true, T - 101, T));
        assertTrue(ch.isActive());
        assertEquals(T, lastStored());
        ch.finishAndReleaseAll();
    }

    @Test
    void theRequestsWaitForThePeersFiveSecondsAtMost() throws Exception {
        registry = new ReceiverRegistry(wallMillis::get);
        registry.setPeerLookup((destinations, guid) -> new CompletableFuture<>());
        ReceiverContext rc = context(true);
        EmbeddedChannel ch = connect(rc, 1, new StringBuilder());
        send(ch, define(T - 100, T));
        assertFalse(outbound(ch).contains("REPLAY_CHART"), "asked before the peers answered");
        ch.advanceTimeBy(PeerHandOver.LOOKUP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(outbound(ch).contains("REPLAY_CHART \"" + CHART + "\" \"true\" " + (T - 101) + " " + T),
                "not asked after the timeout");
        assertTrue(ch.isActive());
        ch.finishAndReleaseAll();
    }

    @Test
    void anAnswerThatStartsStreamingLongBeforeItsWindowEndsIsAHoleToo() throws Exception {
        caughtUpStream(context(true), T - 100, T - 60);
        ReceiverContext rc = restart(T);
        wallMillis.set(T * 1000);
        EmbeddedChannel ch = connect(rc, 1, new StringBuilder());
        send(ch, define(T - 100, T));
        // the child holds nothing after T-50 (it just came back): live data would follow at once
        send(ch, points(T - 59, T - 50) + rend(T - 100, T, true, T - 60, T));
        assertFalse(ch.isActive(), "live data would have closed the hole for good");
        assertEquals(T - 50, lastStored());
        ch.finishAndReleaseAll();
    }

    @Test
    void aHoleWhereThisParentsLastCaughtUpStreamEndedIsTheHostsOwnDowntime() throws Exception {
        ReceiverContext rc = context(true);
        StringBuilder reply = new StringBuilder();
        EmbeddedChannel first = connect(rc, 1, reply);
        send(first, define(T - 100, T));
        send(first, points(T - 100, T) + rend(T - 100, T, true, T - 101, T));
        first.close();
        first.finishAndReleaseAll();
        assertEquals(T, registry.caughtUpEndSecond(GUID), "the caught-up stream's end");

        // the child was down T+1..T+29 and comes back
        wallMillis.set((T + 40) * 1000);
        EmbeddedChannel back = connect(rc, 1, new StringBuilder());
        send(back, define(T - 100, T + 40));
        send(back, points(T + 30, T + 40) + rend(T - 100, T + 40, true, T, T + 40));
        assertTrue(back.isActive(), "handed over for the host's own downtime");
        assertEquals(T + 40, lastStored());
        back.finishAndReleaseAll();
    }

    @Test
    void aHoleAfterThisParentLostTheHostIsHandedOverAndAtMostOnceInTenMinutes() throws Exception {
        ReceiverContext rc = context(true);
        EmbeddedChannel first = connect(rc, 1, new StringBuilder());
        send(first, define(T - 100, T));
        send(first, points(T - 100, T) + rend(T - 100, T, true, T - 101, T));
        first.close();
        first.finishAndReleaseAll();

        // this parent lost the host at T; the host lived on elsewhere until T+30, then lost T+11..T+30
        wallMillis.set((T + 60) * 1000);
        EmbeddedChannel back = connect(rc, 1, new StringBuilder());
        send(back, define(T - 100, T + 60));
        send(back, points(T + 1, T + 10) + points(T + 31, T + 60) + rend(T - 100, T + 60, true, T, T + 60));
        assertFalse(back.isActive());
        assertEquals(T + 10, lastStored());
        back.finishAndReleaseAll();
        assertTrue(registry.refuseHandedOver(GUID, 1));

        // the same again within ten minutes: stored, not handed over (bounded work, never a loop)
        wallMillis.set((T + 120) * 1000);
        EmbeddedChannel again = connect(rc, 1, new StringBuilder());
        send(again, define(T - 100, T + 120));
        send(again, points(T + 101, T + 120) + rend(T - 100, T + 120, true, T + 10, T + 120));
        assertTrue(again.isActive());
        assertEquals(T + 120, lastStored());
        again.finishAndReleaseAll();
    }

    @Test
    void aForwardedCopyOrAParentWithoutPeersStoresTheAnswerAsItComes() throws Exception {
        for (boolean peers : new boolean[] {true, false}) {
            registry = new ReceiverRegistry(wallMillis::get);
            ReceiverContext rc = context(peers);
            long base = peers ? T : T + 1000;
            wallMillis.set(base * 1000);
            EmbeddedChannel ch = connect(rc, peers ? 2 : 1, new StringBuilder());
            send(ch, define(base - 100, base));
            send(ch, points(base - 100, base - 60) + points(base - 19, base) + rend(base - 100, base, true, 0, base));
            assertTrue(ch.isActive(), peers ? "a forwarded copy was handed over" : "handed over without peers");
            assertEquals(base, lastStored());
            ch.finishAndReleaseAll();
        }
    }
}
