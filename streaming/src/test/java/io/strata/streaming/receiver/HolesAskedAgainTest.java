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
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replication answer leaves a hole (it skips seconds): the receiver remembers it and, after a
 * backoff, asks the same stream again for exactly those seconds ({@code REPLAY_CHART ... "false"
 * <after> <before>}) while the chart streams live; the answer is stored behind the live points and
 * leaves the live collection alone. A stream that never has the hole is asked a bounded number of
 * times, then the hole is given up; a hole is never asked while another request of the chart is in
 * flight. The handshake and the real receiver run on an {@link EmbeddedChannel}; the parser's clock
 * is the test's, moved by hand.
 */
class HolesAskedAgainTest {

    static final String KEY = "11111111-2222-3333-4444-666666666666";
    static final String GUID = "5b8185c0-e5a4-11f1-9d33-02fc00000088";
    static final String CHART = "holes.cpu";
    /** The test's "now", unix seconds. */
    static final long T = 1_795_000_000L;
    /** The value every live collection sends. */
    static final long LIVE = 7;

    @TempDir
    Path dir;
    StorageEngine engine;
    final AtomicLong wallMillis = new AtomicLong(T * 1000);
    final ReceiverStats stats = new ReceiverStats();

    /** A parent's planner: from its newest second (else the child's first) to the child's last, a day back at most. */
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

    private EmbeddedChannel connect() throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")).withFutureMarginSeconds(0));
        String conf = "[" + KEY + "]\n\tenabled = yes\n";
        StreamAuthorizer auth = new StreamAuthorizer(StreamConfig.from(IniFile.parse(conf, "stream.conf")), true,
                Capabilities.NETDATA_1_37_1, UUID.randomUUID().toString(), 0);
        ReceiverContext rc = new ReceiverContext(engine, auth, new ReceiverRegistry(wallMillis::get),
                ReceiverLimits.DEFAULTS, stats, () -> wallMillis.get() * 1000, 600, null).withReplication(s -> PLANNER);
        EmbeddedChannel ch = new EmbeddedChannel(new StreamHandshakeHandler(rc));
        byte[] request = StreamRequest.builder().key(KEY).hostname("child").machineGuid(GUID).hops(1)
                .ver(Capabilities.NETDATA_1_37_1_WITHOUT_COMPRESSION).build().encode();
        ch.writeInbound(Unpooled.wrappedBuffer(request));
        assertTrue(outbound(ch).startsWith("Hit me baby"));
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

    private static String define(long first, long last) {
        return "CHART \"" + CHART + "\" \"\" \"t\" \"u\" \"f\" \"" + CHART + "\" \"line\" 1 1 \"\" \"p\" \"m\"\n"
                + "DIMENSION \"x\" \"x\" \"absolute\" 1 1 \"\"\n"
                + "CHART_DEFINITION_END " + first + " " + last + " " + last + "\n";
    }

    /** The child's value of second {@code t}. */
    private static long value(long t) {
        return t - T + 1000;
    }

    /** One replayed point per second of {@code [from, to]}, as a 1.37.1 sender writes them. */
    private static String points(long from, long to) {
        StringBuilder s = new StringBuilder();
        for (long t = from; t <= to; t++) {
            s.append("RBEGIN '' ").append(t - 1).append(' ').append(t).append(' ').append(T).append('\n')
                    .append("RSET \"x\" ").append(value(t)).append(".0000000 \"\"\n");
        }
        return s.toString();
    }

    /** A whole answer: {@code RBEGIN "<chart>"}, the points, the state lines, {@code REND}. */
    private static String answer(String points, String state, boolean start, long after, long before, long now) {
        return "RBEGIN \"" + CHART + "\"\n" + points + state + "REND 1 " + (T - 100) + " " + now + " " + start + " "
                + after + " " + before + " " + now + "\n";
    }

    /** The collection state a sender that starts streaming hands over, at second {@code at}. */
    private static String state(long at, long value) {
        return "RDSTATE \"x\" " + at * 1_000_000 + " " + value + " " + value + ".0000000 " + value + ".0000000\n"
                + "RSSTATE " + at * 1_000_000 + " " + at * 1_000_000 + "\n";
    }

    /** A live collection at second {@code t} (the parser's clock moves there); returns what the parent sent. */
    private String live(EmbeddedChannel ch, long t) {
        wallMillis.set(t * 1000);
        send(ch, "BEGIN \"" + CHART + "\" 1000000\nSET \"x\" = " + LIVE + "\nEND\n");
        assertTrue(ch.isActive(), "the stream goes on");
        return outbound(ch);
    }

    private static String holeRequest(long after, long before) {
        return "REPLAY_CHART \"" + CHART + "\" \"false\" " + after + " " + before + "\n";
    }

    /** The stream's start: T-100..T-61 and T-50..T-1 answered, T-60..T-51 skipped; live from T. */
    private EmbeddedChannel streamWithAHole() throws Exception {
        EmbeddedChannel ch = connect();
        send(ch, define(T - 100, T - 1));
        assertEquals("REPLAY_CHART \"" + CHART + "\" \"true\" " + (T - 101) + " " + (T - 1) + "\n", outbound(ch));
        send(ch, answer(points(T - 100, T - 61) + points(T - 50, T - 1), state(T - 1, value(T - 1)), true,
                T - 101, T - 1, T - 1));
        assertEquals(1, stats.holesRemembered.sum(), "the skipped seconds are remembered");
        return ch;
    }

    /** The chart's stored tier-0 values by second in {@code [from, to]} (empty slots left out). */
    private TreeMap<Long, Double> stored(long from, long to) throws Exception {
        engine.flush(); // the past path's runs are stored on the engine's own thread: flush waits for them
        int metric = engine.registry().lookup(DimensionInfo.metricUuid(UUID.fromString(GUID), CHART, "x"));
        TreeMap<Long, Double> out = new TreeMap<>();
        engine.queryTier0(metric, from, to, (time, sn) -> {
            if (!StorageNumber.isEmpty(sn)) {
                out.put(time, StorageNumber.unpack(sn));
            }
        });
        return out;
    }

    @Test
    void aHoleIsAskedAgainAfterTheBackoffAndItsAnswerIsStoredBehindTheLiveData() throws Exception {
        EmbeddedChannel ch = streamWithAHole();
        for (long t = T; t < T + 4; t++) {
            assertEquals("", live(ch, t), "nothing asked before the backoff (5 s) has passed");
        }
        assertEquals(holeRequest(T - 61, T - 51), live(ch, T + 5), "exactly the hole, of the same stream");
        assertEquals("", live(ch, T + 6), "one request of the hole at a time");
        // the sender reached its newest point and says "true", with its live collection state (here a
        // time ahead of ours): the chart streams already, the state must not move its collection
        send(ch, answer(points(T - 60, T - 51), state(T + 100, 999), true, T - 61, T - 51, T + 6));
        for (long t = T + 7; t <= T + 10; t++) {
            assertEquals("", live(ch, t), "the hole is filled: nothing more asked");
        }

        TreeMap<Long, Double> held = stored(T - 100, T + 10);
        for (long t = T - 100; t < T; t++) {
            assertEquals((double) value(t), held.get(t), "second " + t + " (T" + (t - T) + ") of " + held);
        }
        // a collection stores the slot it closes: the ones of T+7..T+10 store T+6..T+9
        for (long t = T + 6; t < T + 10; t++) {
            assertEquals((double) LIVE, held.get(t), "live second T+" + (t - T) + " after the hole's answer: " + held);
        }
        assertEquals(1, stats.holesAsked.sum());
        assertEquals(1, stats.holesFilled.sum());
        assertEquals(0, stats.holesGivenUp.sum());
        ch.finishAndReleaseAll();
    }

    @Test
    void anAnswerThatStopsAtTheFirstEmptySecondShrinksTheHoleAndTheRestIsAskedAfterThatSecond() throws Exception {
        EmbeddedChannel ch = streamWithAHole();
        live(ch, T);
        assertEquals(holeRequest(T - 61, T - 51), live(ch, T + 5));
        // 1.37.1: the answer ends at the first second the sender holds nothing of (T-55), REND "false"
        send(ch, answer(points(T - 60, T - 56), "", false, T - 61, T - 51, T + 5));
        assertEquals("", live(ch, T + 9));
        assertEquals(holeRequest(T - 55, T - 51), live(ch, T + 10), "the rest, after the second the sender lacks");
        send(ch, answer(points(T - 54, T - 51), "", false, T - 55, T - 51, T + 10));
        assertEquals("", live(ch, T + 100));

        TreeMap<Long, Double> held = stored(T - 100, T - 1);
        List<Long> missing = new ArrayList<>();
        for (long t = T - 100; t < T; t++) {
            if (!held.containsKey(t)) {
                missing.add(t);
            } else {
                assertEquals((double) value(t), held.get(t), "second " + t);
            }
        }
        assertEquals(List.of(T - 55), missing, "only the second the sender lacks");
        assertEquals(2, stats.holesAsked.sum());
        assertEquals(1, stats.holesFilled.sum());
        ch.finishAndReleaseAll();
    }

    @Test
    void aStreamThatNeverHasTheHoleIsAskedABoundedNumberOfTimesWithBackoffThenItIsGivenUp() throws Exception {
        EmbeddedChannel ch = streamWithAHole();
        long due = T + StreamHoles.BACKOFF_SECONDS[0];
        long after = T - 61;
        for (int attempt = 0; attempt < StreamHoles.MAX_ANSWERS_WITHOUT_POINTS; attempt++) {
            assertEquals("", live(ch, due - 1), "attempt " + (attempt + 1) + " waits for its backoff");
            assertEquals(holeRequest(after, T - 51), live(ch, due), "attempt " + (attempt + 1));
            send(ch, answer("", "", false, after, T - 51, due));
            // each answer without a point shows one more second the stream lacks
            after++;
            due += StreamHoles.BACKOFF_SECONDS[Math.min(attempt + 1, StreamHoles.BACKOFF_SECONDS.length - 1)];
        }
        assertEquals(1, stats.holesGivenUp.sum(), "given up after " + StreamHoles.MAX_ANSWERS_WITHOUT_POINTS);
        assertEquals("", live(ch, due + 3600), "not asked any more");
        assertEquals(StreamHoles.MAX_ANSWERS_WITHOUT_POINTS, stats.holesAsked.sum());
        assertEquals(0, stats.holesFilled.sum());
        ch.finishAndReleaseAll();
    }

    @Test
    void aHoleIsNotAskedWhileAnotherRequestOfTheChartIsInFlightNorAnotherWhileItIs() throws Exception {
        EmbeddedChannel ch = streamWithAHole();
        live(ch, T);
        live(ch, T + 1);
        // the chart is redefined when the hole is due: its replication request goes out, unanswered
        wallMillis.set((T + 5) * 1000);
        send(ch, define(T - 100, T + 4));
        String out = outbound(ch);
        assertTrue(out.startsWith("REPLAY_CHART \"" + CHART + "\" \"true\" "), out);
        assertFalse(out.contains("\"false\""), "the hole waits for the chart's replication: " + out);
        assertEquals(0, stats.holesAsked.sum());
        // its answer starts the stream; the hole goes out at once (its backoff has passed)
        send(ch, answer("", state(T + 4, LIVE), true, T + 1, T + 4, T + 5));
        assertEquals(holeRequest(T - 61, T - 51), outbound(ch));
        // redefined again while the hole's request is in flight: the chart's request waits for its answer
        wallMillis.set((T + 6) * 1000);
        send(ch, define(T - 100, T + 5));
        assertEquals("", outbound(ch), "one request of a chart in flight at a time");
        send(ch, answer(points(T - 60, T - 51), "", false, T - 61, T - 51, T + 6));
        assertTrue(outbound(ch).startsWith("REPLAY_CHART \"" + CHART + "\" \"true\" "),
                "the chart's request after the hole's answer");
        assertEquals(1, stats.holesFilled.sum());
        TreeMap<Long, Double> held = stored(T - 100, T - 1);
        assertEquals(100, held.size(), "every second of T-100..T-1: " + held);
        ch.finishAndReleaseAll();
    }
}
