package io.strata.streaming.sender;

import static io.strata.streaming.sender.SystemCpuReplayCapture.*;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HostStreamWriter against a real engine in a temporary directory. The system.cpu data of the 1.37.1
 * capture (vector 03: a child answering REPLAY_CHART after a 30 s gap) is stored in the engine,
 * and the answer must be the captured one, byte for byte.
 */
class HostStreamWriterTest {

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

    @Test
    void writesTheCapturedPreambleAndCollection() throws Exception {
        StorageEngine e = open();
        int chart = defineSystemCpu(e);
        HostStreamWriter child = new HostStreamWriter(e, CHILD);

        ByteBuf out = Unpooled.buffer();
        child.writeHostPreamble(out, CAPS_1_37_1);
        List<String> got = List.of(text(out).split("\n"));
        List<String> want = VectorLines.lines("child-preamble.txt");
        assertEquals(want.get(0), got.get(0), "CLAIMED_ID first");
        assertEquals("OVERWRITE labels", got.get(got.size() - 1));
        assertEquals(new java.util.TreeSet<>(want), new java.util.TreeSet<>(got),
                "every label with the source a 1.37.1 agent sends");
        assertEquals(want.size(), got.size());

        ByteBuf none = Unpooled.buffer();
        child.writeHostPreamble(none, 64 /* VCAPS only */);
        assertEquals("", text(none));

        ByteBuf def = Unpooled.buffer();
        child.writeChartDefinition(def, chart, CAPS_1_37_1, NOW);
        def.release();
        // BEGIN "system.cpu" 845994 ... from vector 01
        long[] values = {0, 0, 144, 155, 0, 11151, 5453, 228, 6346, 37537};
        ByteBuf data = Unpooled.buffer();
        child.writeCollection(data, chart, 845994, values, null);
        assertEquals(VectorLines.resource("child-system-cpu-collection.txt"), text(data));

        ByteBuf raw = Unpooled.buffer();
        HostStreamWriter.writeCollection(raw, "system.cpu", 845994, CPU_DIMS, values, CPU_DIMS.length);
        assertEquals(VectorLines.resource("child-system-cpu-collection.txt"), text(raw));
    }

    @Test
    void withoutReplicationBeginSendsZeroDuringTheClockResyncWindow() throws Exception {
        StorageEngine e = open();
        UUID h = UUID.randomUUID();
        int chart = syntheticChart(e, h, 2);
        AtomicLong clock = new AtomicLong(1000);
        HostStreamWriter child = new HostStreamWriter(e, h, "claim-1", HostStreamWriter.LabelSources.NETDATA, id -> 0, clock::get, 60);

        ByteBuf def = Unpooled.buffer();
        child.writeChartDefinition(def, chart, 0, 1000);
        assertFalse(text(def).contains("CHART_DEFINITION_END"), "no REPLICATION, no CHART_DEFINITION_END");
        ByteBuf out = Unpooled.buffer();
        child.writeCollection(out, chart, 2_000_123, new long[] {5, -6}, new boolean[] {true, false});
        clock.set(1000 + 60);
        child.writeCollection(out, chart, 2_000_123, new long[] {7, 8}, null);
        clock.set(1000 + 60 + 1);
        child.writeCollection(out, chart, 2_000_123, new long[] {9, 10}, null);
        assertEquals("""
                BEGIN "test.c" 0
                SET "a" = 5
                END
                BEGIN "test.c" 0
                SET "a" = 7
                SET "b" = 8
                END
                BEGIN "test.c" 2000123
                SET "a" = 9
                SET "b" = 10
                END
                """, text(out));

        ByteBuf claim = Unpooled.buffer();
        child.writeHostPreamble(claim, 256);
        assertEquals("CLAIMED_ID " + h + " claim-1\n", text(claim));
    }

    @Test
    void misuseIsRefusedWithAPreciseMessage() throws Exception {
        StorageEngine e = open();
        UUID h = UUID.randomUUID();
        int chart = syntheticChart(e, h, 2);
        HostStreamWriter other = new HostStreamWriter(e, UUID.randomUUID());
        ByteBuf out = Unpooled.buffer();
        try {
            IllegalArgumentException wrongHost = assertThrows(IllegalArgumentException.class,
                    () -> other.writeChartDefinition(out, chart, CAPS_1_37_1, 1000));
            assertTrue(wrongHost.getMessage().contains("belongs to host " + h), wrongHost.getMessage());
            assertThrows(IllegalStateException.class, () -> other.writeHostPreamble(out, CAPS_1_37_1));
            assertThrows(IllegalArgumentException.class, () -> other.writeChartDefinition(out, 999, CAPS_1_37_1, 1));

            HostStreamWriter child = new HostStreamWriter(e, h);
            IllegalStateException undefined = assertThrows(IllegalStateException.class,
                    () -> child.writeCollection(out, chart, 1, new long[2], null));
            assertTrue(undefined.getMessage().contains("not defined on this connection"));
            child.writeChartDefinition(out, chart, CAPS_1_37_1, 1000);
            assertTrue(child.isDefined(chart));
            assertThrows(IllegalArgumentException.class, () -> child.writeCollection(out, chart, 1, new long[1], null));
            child.forgetDefinitions();
            assertFalse(child.isDefined(chart));
        } finally {
            out.release();
        }
    }

    /** Host h, chart "test.c" (update every 1) with dimensions a, b, ...; returns the chart id. */
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
}
