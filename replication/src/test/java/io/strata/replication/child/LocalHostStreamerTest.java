package io.strata.replication.child;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.sender.Destination;
import io.strata.streaming.sender.SenderSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A child's replication state on an {@link EmbeddedChannel} with a fixed clock: a chart's live data
 * waits for the parent's {@code REPLAY_CHART}, the answer comes from the local engine and starts it,
 * and a new connection starts over.
 */
class LocalHostStreamerTest {

    private static final UUID HOST = UUID.fromString("0d9f6e3c-5b1a-4f7e-9a51-000000000002");
    private static final long NOW = 1_700_000_100L;
    /** What a 1.37.1 parent grants our child: all it offers but the 2.x data forms. */
    private static final long FROM_1_37_1 = LocalHostStreamer.CHILD_CAPABILITIES & ~Capabilities.INTERPOLATED_IEEE754;

    @TempDir
    Path dir;

    private StorageEngine engine;
    private LocalCharts local;
    private LocalCharts.Chart chart;
    private LocalHostStreamer streamer;
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private SenderSession session;

    @BeforeEach
    void setUp() throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir));
        local = new LocalCharts(engine, new HostInfo(HOST, "child", "linux", "UTC", 1, Map.of()));
        chart = local.define(ChartInfo.of(HOST, "test.c", 1), List.of(DimensionInfo.of(HOST, "test.c", "a")));
        for (long t = NOW - 10; t <= NOW; t++) {
            local.collect(chart, new long[] {t % 10}, null, t * 1_000_000L);
        }
        StreamConfig.SenderSettings settings = new StreamConfig.SenderSettings(true, "127.0.0.1:19999", "key", 60,
                19999, 1 << 20, 5, 60, false, "*", "", "", false);
        streamer = new LocalHostStreamer(local, settings, 1, null, Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC));
        session = SenderSession.over("child", channel, Destination.parse("127.0.0.1:19999", 19999),
                LocalHostStreamer.CHILD_CAPABILITIES, 1 << 20);
    }

    @AfterEach
    void tearDown() throws Exception {
        streamer.close();
        channel.finishAndReleaseAll();
        engine.close();
    }

    private String written() {
        StringBuilder sb = new StringBuilder();
        ByteBuf b;
        while ((b = channel.readOutbound()) != null) {
            sb.append(b.toString(StandardCharsets.UTF_8));
            b.release();
        }
        return sb.toString();
    }

    private void command(String line) {
        byte[] b = line.getBytes(StandardCharsets.US_ASCII);
        streamer.onParentCommand(session, b, b.length);
    }

    @Test
    void liveDataWaitsForTheReplayAnswerThatStartsItAndANewConnectionStartsOver() {
        streamer.onConnected(session, FROM_1_37_1);
        String defined = written();
        // the chart's retention (its first collection sets the baseline and stores nothing; the first
        // point's interval starts a second before it), the clock's second
        assertTrue(defined.contains("CHART_DEFINITION_END " + (NOW - 10) + " " + NOW + " " + NOW + "\n"), defined);
        assertEquals(0, streamer.chartsStreaming());

        streamer.collected(List.of(chart));
        assertEquals("", written(), "no live data before the parent asked for the chart's history");

        command("REPLAY_CHART \"test.c\" \"true\" " + (NOW - 3) + " " + NOW);
        String answer = written();
        assertEquals(3, answer.split("RBEGIN '' ", -1).length - 1, answer);
        assertTrue(answer.endsWith(" true " + (NOW - 3) + " " + NOW + " " + NOW + "\n"), answer);
        assertEquals(1, streamer.chartsStreaming());

        streamer.collected(List.of(chart));
        assertEquals("", written(), "the collection the answer holds is not streamed again");
        local.collect(chart, new long[] {1}, null, (NOW + 1) * 1_000_000L);
        streamer.collected(List.of(chart));
        assertTrue(written().startsWith("BEGIN \"test.c\" "), "live data once the answer started it");

        streamer.onDisconnected("test");
        assertEquals(0, streamer.chartsStreaming());
        streamer.onConnected(session, FROM_1_37_1);
        assertTrue(written().contains("CHART \"test.c\""), "defined again on the new connection");
        streamer.collected(List.of(chart));
        assertEquals("", written(), "and waits for its REPLAY_CHART again");
    }

    @Test
    void anAnswerLargerThanTheWholeSendBufferIsSentAlone() {
        // a wide chart over a replication step can answer more bytes than a small buffer holds; refused,
        // it would be computed and refused again on every connection, and the gap never filled
        SenderSession small = SenderSession.over("child", channel, Destination.parse("127.0.0.1:19999", 19999),
                LocalHostStreamer.CHILD_CAPABILITIES, 256);
        streamer.onConnected(small, FROM_1_37_1);
        written();
        byte[] b = ("REPLAY_CHART \"test.c\" \"true\" " + (NOW - 10) + " " + NOW).getBytes(StandardCharsets.US_ASCII);
        streamer.onParentCommand(small, b, b.length);
        String answer = written();
        assertTrue(answer.length() > 256, "the answer is larger than the buffer: " + answer.length() + " bytes");
        assertTrue(answer.endsWith(" true " + (NOW - 10) + " " + NOW + " " + NOW + "\n"), answer);
        assertTrue(small.isOpen(), "closed: " + small.closeReason());
        assertEquals(1, streamer.chartsStreaming());
    }

    @Test
    void aNetdata2ParentGetsTheReplayAnswerAndLiveDataInTheInterpolatedForms() {
        streamer.onConnected(session, LocalHostStreamer.CHILD_CAPABILITIES);
        written();
        command("REPLAY_CHART \"test.c\" \"true\" " + (NOW - 3) + " " + NOW);
        String answer = written();
        // NOW - 3 = 1700000097 = #BlU/Fh, NOW - 1 = #BlU/Fj, NOW = #BlU/Fk; values as IEEE754 base64 doubles, flags unquoted
        assertTrue(answer.contains("RBEGIN '' #BlU/Fj #BlU/Fk #BlU/Fk\nRSET \"a\" @"), answer);
        assertTrue(answer.contains("\nRSSTATE #"), answer);
        assertTrue(answer.endsWith(" true #BlU/Fh #BlU/Fk #BlU/Fk\n"), answer);
        assertEquals(1, streamer.chartsStreaming());

        // live: what the collection stored, at its slot (NOW + 1 = #BlU/Fl; the wall clock is NOW); the
        // value is the collected one (#), not anomalous (A)
        local.collect(chart, new long[] {7}, null, (NOW + 1) * 1_000_000L);
        streamer.collected(List.of(chart));
        assertEquals("BEGIN2 \"test.c\" #B #BlU/Fl #BlU/Fk\nSET2 \"a\" #H # A\nEND2\n", written());
    }

    @Test
    void aFunctionIsAnsweredAsNotFound() {
        streamer.onConnected(session, FROM_1_37_1);
        written();
        command("FUNCTION tx-2 10 \"processes\"");
        String answer = written();
        assertTrue(answer.startsWith("FUNCTION_RESULT_BEGIN \"tx-2\" 404 \"application/json\" 0\n"), answer);
    }
}
