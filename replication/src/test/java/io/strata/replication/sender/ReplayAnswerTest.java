package io.strata.replication.sender;

import static io.strata.streaming.sender.SystemCpuReplayCapture.*;
import io.strata.streaming.sender.SystemCpuReplayCapture.Capture;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.sender.HostStreamWriter;
import io.strata.streaming.sender.VectorLines;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HostStreamWriter against a real engine in a temporary directory. The system.cpu data of the 1.37.1
 * capture (vector 03: a child answering REPLAY_CHART after a 30 s gap) is stored in the engine,
 * and the answer must be the captured one, byte for byte.
 */
class ReplayAnswerTest {

    @TempDir
    Path dir;
    private StorageEngine engine;

    private StorageEngine open() throws IOException {
        engine = StorageEngine.open(EngineConfig.defaults(dir).withFsync(FsyncPolicy.NEVER));
        return engine;
    }

    @AfterEach
    void close() throws IOException {
        if (engine != null) {
            engine.close();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void answersTheCapturedReplayChartByteForByte(boolean flushed) throws Exception {
        StorageEngine e = open();
        int chart = defineSystemCpu(e);
        Capture c = capture();
        assertEquals(31, c.points().size());
        storeSystemCpu(e, chart, c);
        if (flushed) {
            e.flush();
        }
        HostStreamWriter child = new HostStreamWriter(e, CHILD, null, HostStreamWriter.LabelSources.NETDATA, id -> 0, () -> NOW,
                HostStreamWriter.DEFAULT_CLOCK_RESYNC_ITERATIONS);

        ByteBuf def = Unpooled.buffer();
        child.writeChartDefinition(def, chart, CAPS_1_37_1, NOW);
        List<String> expected = new ArrayList<>(VectorLines.lines("conn3-system-cpu-definition.txt"));
        // the capture's last time is st->last_updated one second before; ours is the engine's last
        // point, and our first is the start of the oldest point's interval (a deviation)
        expected.set(expected.size() - 1, "CHART_DEFINITION_END 1795263062 1795263131 1795263131");
        assertEquals(String.join("\n", expected) + "\n", text(def));

        // REPLAY_CHART "system.cpu" "true" 1795263100 1795263130, as the real parent asked
        ByteBuf out = Unpooled.buffer();
        boolean streaming = new ReplayAnswer(child).write(out, chart, true, 1795263100L, 1795263130L, NOW, state(c));
        assertTrue(streaming);
        assertEquals(VectorLines.resource("conn3-system-cpu-replay.txt"), text(out));
    }

    private static int syntheticChart(StorageEngine e, UUID h, int dims) {
        e.metadata().upsertHost(new HostInfo(h, "synthetic", "linux", "UTC", 1, Map.of()));
        int chart = e.metadata().upsertChart(ChartInfo.of(h, "test.c", 1));
        for (int i = 0; i < dims; i++) {
            e.metadata().upsertDimension(DimensionInfo.of(h, "test.c", String.valueOf((char) ('a' + i))));
        }
        return chart;
    }

    private static HostStreamWriter.CollectionState fixedState(long updatedUt) {
        return new HostStreamWriter.CollectionState() {
            @Override
            public long lastCollectedUt(int chartId, int dimIndex) {
                return updatedUt + 100 + dimIndex;
            }

            @Override
            public long lastCollectedValue(int chartId, int dimIndex) {
                return 42 + dimIndex;
            }

            @Override
            public double lastCalculatedValue(int chartId, int dimIndex) {
                return 0.5;
            }

            @Override
            public double lastStoredValue(int chartId, int dimIndex) {
                return 0.25;
            }

            @Override
            public long chartLastCollectedUt(int chartId) {
                return updatedUt + 200;
            }

            @Override
            public long chartLastUpdatedUt(int chartId) {
                return updatedUt;
            }
        };
    }

    /**
     * a: 1000..1010, an empty slot at 1005 and a counter reset at 1007; b: only from 1003.
     * Times are small, so every window and clock is under our control.
     */
    @Test
    void answersInARowOverOtherRangesAreThoseOfAFreshStream() throws Exception {
        // the cursors of one answer are kept for the next: a shorter or longer range (several
        // windows), or gaps, must not see what the previous answer left in them
        StorageEngine e = open();
        UUID h = UUID.randomUUID();
        int wide = syntheticChart(e, h, 2);
        List<Integer> m = e.metadata().metrics(wide);
        for (long t = 1000; t <= 3100; t++) {
            e.store(m.get(0), t, 1, t % 97, StorageNumber.SN_DEFAULT_FLAGS);
            if (t % 5 != 0) {
                e.store(m.get(1), t, 1, t % 13, StorageNumber.SN_DEFAULT_FLAGS);
            }
        }
        ReplayAnswer kept = new ReplayAnswer(
                new HostStreamWriter(e, h, null, HostStreamWriter.LabelSources.NETDATA, id -> 0, () -> 3200L, 60));
        long[][] asks = {{999, 3100}, {1500, 1510}, {2000, 2700}, {1000, 1001}, {999, 3100}};
        for (long[] ask : asks) {
            ByteBuf reused = Unpooled.buffer();
            ByteBuf fresh = Unpooled.buffer();
            kept.write(reused, wide, false, ask[0], ask[1], 3200, fixedState(3100_000_000L));
            new ReplayAnswer(new HostStreamWriter(e, h, null, HostStreamWriter.LabelSources.NETDATA, id -> 0, () -> 3200L, 60))
                    .write(fresh, wide, false, ask[0], ask[1], 3200, fixedState(3100_000_000L));
            assertEquals(fresh.toString(java.nio.charset.StandardCharsets.UTF_8),
                    reused.toString(java.nio.charset.StandardCharsets.UTF_8), "(" + ask[0] + ", " + ask[1] + "]");
            assertTrue(reused.readableBytes() > 100, "an answer with points");
        }
    }

    @Test
    void replaysGapsResetsAndMissingDimensionsAsTheCSenderDoes() throws Exception {
        StorageEngine e = open();
        UUID h = UUID.randomUUID();
        int chart = syntheticChart(e, h, 2);
        List<Integer> m = e.metadata().metrics(chart);
        for (long t = 1000; t <= 1010; t++) {
            if (t == 1005) {
                e.storeGap(m.get(0), t, 1);
            } else {
                int flags = StorageNumber.SN_DEFAULT_FLAGS | (t == 1007 ? StorageNumber.SN_FLAG_RESET : 0);
                e.store(m.get(0), t, 1, t - 1000, flags);
            }
            if (t >= 1003) {
                e.store(m.get(1), t, 1, (t - 1000) * 1.5, StorageNumber.SN_DEFAULT_FLAGS);
            }
        }
        HostStreamWriter child = new HostStreamWriter(e, h, null, HostStreamWriter.LabelSources.NETDATA, id -> 0, () -> 1011L, 60);
        ByteBuf out = Unpooled.buffer();
        boolean streaming = new ReplayAnswer(child).write(out, chart, false, 1000, 1008, 1011, fixedState(1010_000_000L));
        assertFalse(streaming, "before (1008) is not the chart's last time (1010)");
        // 1001, 1002: b has no point yet; C's cover test (start <= t <= end) makes b's first point
        // (1002, 1003] also answer for 1002. 1005: a's empty slot prints as C prints NaN.
        assertEquals("""
                RBEGIN "test.c"
                RBEGIN '' 1000 1001 1011
                RSET "a" 1.0000000 ""
                RSET "b" NAN "E"
                RBEGIN '' 1001 1002 1011
                RSET "a" 2.0000000 ""
                RSET "b" 4.5000000 ""
                RBEGIN '' 1002 1003 1011
                RSET "a" 3.0000000 ""
                RSET "b" 4.5000000 ""
                RBEGIN '' 1003 1004 1011
                RSET "a" 4.0000000 ""
                RSET "b" 6.0000000 ""
                RBEGIN '' 1004 1005 1011
                RSET "a" nan ""
                RSET "b" 7.5000000 ""
                RBEGIN '' 1005 1006 1011
                RSET "a" 6.0000000 ""
                RSET "b" 9.0000000 ""
                RBEGIN '' 1006 1007 1011
                RSET "a" 7.0000000 "R"
                RSET "b" 10.5000000 ""
                RBEGIN '' 1007 1008 1011
                RSET "a" 8.0000000 ""
                RSET "b" 12.0000000 ""
                REND 1 1000 1010 false 1000 1008 1011
                """, text(out));
    }

    @Test
    void startStreamingExtendsTheWindowAndSendsTheCollectionState() throws Exception {
        StorageEngine e = open();
        UUID h = UUID.randomUUID();
        int chart = syntheticChart(e, h, 1);
        int a = e.metadata().metrics(chart).get(0);
        for (long t = 1000; t <= 1003; t++) {
            e.store(a, t, 1, t - 1000, StorageNumber.SN_DEFAULT_FLAGS);
        }
        e.flush();
        HostStreamWriter child = new HostStreamWriter(e, h, null, HostStreamWriter.LabelSources.NETDATA, id -> 0, () -> 1004L, 60);
        ByteBuf out = Unpooled.buffer();
        // the parent asks from before the child's retention to its own now: after is clamped to
        // the second before the first point (999; 1.37.1 clamps to 1000 and never sends the first
        // point), before extended to the chart's last update (1003)
        assertTrue(new ReplayAnswer(child).write(out, chart, true, 900, 1001, 1004, fixedState(1003_000_000L)));
        assertEquals("""
                RBEGIN "test.c"
                RBEGIN '' 999 1000 1004
                RSET "a" 0.0000000 ""
                RBEGIN '' 1000 1001 1004
                RSET "a" 1.0000000 ""
                RBEGIN '' 1001 1002 1004
                RSET "a" 2.0000000 ""
                RBEGIN '' 1002 1003 1004
                RSET "a" 3.0000000 ""
                RDSTATE "a" 1003000100 42 0.5000000 0.2500000
                RSSTATE 1003000200 1003000000
                REND 1 1000 1003 true 900 1003 1004
                """, text(out));

        ByteBuf empty = Unpooled.buffer();
        assertTrue(new ReplayAnswer(child).write(empty, chart, true, 0, 0, 1004, fixedState(1003_000_000L)));
        assertEquals("""
                RBEGIN "test.c"
                RDSTATE "a" 1003000100 42 0.5000000 0.2500000
                RSSTATE 1003000200 1003000000
                REND 1 1000 1003 true 0 0 1004
                """, text(empty));
    }

    @Test
    void aClockThatMovedWhileAnsweringWithholdsStreaming() throws Exception {
        StorageEngine e = open();
        UUID h = UUID.randomUUID();
        int chart = syntheticChart(e, h, 1);
        int a = e.metadata().metrics(chart).get(0);
        for (long t = 1000; t <= 1003; t++) {
            e.store(a, t, 1, 1, StorageNumber.SN_DEFAULT_FLAGS);
        }
        HostStreamWriter child = new HostStreamWriter(e, h, null, HostStreamWriter.LabelSources.NETDATA, id -> 0, () -> 1005L, 60);
        ByteBuf out = Unpooled.buffer();
        assertFalse(new ReplayAnswer(child).write(out, chart, true, 1002, 1003, 1004, fixedState(0)));
        String s = text(out);
        assertFalse(s.contains("RDSTATE") || s.contains("RSSTATE"), s);
        // chart last updated 0: the engine's last time (1003) is used
        assertTrue(s.endsWith("REND 1 1000 1003 false 1002 1003 1005\n"), s);
    }

    @Test
    void futurePointsEndTheAnswer() throws Exception {
        StorageEngine e = open();
        UUID h = UUID.randomUUID();
        int chart = syntheticChart(e, h, 1);
        int a = e.metadata().metrics(chart).get(0);
        for (long t = 1000; t <= 1010; t++) {
            e.store(a, t, 1, 1, StorageNumber.SN_DEFAULT_FLAGS);
        }
        // the child's clock says 1004: points past 1004 + update_every + 1 are not sent
        HostStreamWriter child = new HostStreamWriter(e, h, null, HostStreamWriter.LabelSources.NETDATA, id -> 0, () -> 1004L, 60);
        ByteBuf out = Unpooled.buffer();
        new ReplayAnswer(child).write(out, chart, false, 1000, 1010, 1004, fixedState(1010_000_000L));
        String s = text(out);
        assertTrue(s.contains("RBEGIN '' 1005 1006 1004\n"), s);
        assertFalse(s.contains("RBEGIN '' 1006 1007"), s);
        // last time (1010) lies beyond now + 2: clamped to now
        assertTrue(s.endsWith("REND 1 1000 1004 true 1000 1010 1004\n"), s);
    }

    @Test
    void aLongWindowIsReadInPieces() throws Exception {
        StorageEngine e = open();
        UUID h = UUID.randomUUID();
        int chart = syntheticChart(e, h, 1);
        int a = e.metadata().metrics(chart).get(0);
        long first = 100_000;
        int n = 5000; // several cursor windows of 1024 points
        for (long t = first; t < first + n; t++) {
            e.store(a, t, 1, t % 100, StorageNumber.SN_DEFAULT_FLAGS);
        }
        e.flush();
        long last = first + n - 1;
        HostStreamWriter child = new HostStreamWriter(e, h, null, HostStreamWriter.LabelSources.NETDATA, id -> 0, () -> last, 60);
        ByteBuf out = Unpooled.buffer();
        assertTrue(new ReplayAnswer(child).write(out, chart, true, first, last, last, fixedState(last * 1_000_000)));
        String[] lines = text(out).split("\n");
        // RBEGIN "id", (n - 1) points of 2 lines, RDSTATE, RSSTATE, REND
        assertEquals(1 + 2 * (n - 1) + 3, lines.length);
        Map<Long, String> byTime = new HashMap<>();
        for (int i = 1; i + 1 < lines.length && lines[i].startsWith("RBEGIN ''"); i += 2) {
            byTime.put(Long.parseLong(lines[i].split(" ")[3]), lines[i + 1]);
        }
        assertEquals(n - 1, byTime.size());
        for (long t = first + 1; t <= last; t++) {
            assertEquals("RSET \"a\" " + (t % 100) + ".0000000 \"\"", byTime.get(t), "point " + t);
        }
    }
}
