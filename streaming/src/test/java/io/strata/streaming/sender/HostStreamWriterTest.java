package io.strata.streaming.sender;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    private static final UUID CHILD = UUID.fromString("5b8185c0-e5a4-11f1-9d33-02fc00000001");
    private static final long CAPS_1_37_1 = 15296; // VCAPS HLABELS CLAIM CLABELS FUNCTIONS REPLICATION BINARY
    private static final long FIRST = 1795263063L;
    private static final long NOW = 1795263131L;
    private static final String[] CPU_DIMS = {"guest_nice", "guest", "steal", "softirq", "irq", "user", "system",
            "nice", "iowait", "idle"};

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

    private static String text(ByteBuf b) {
        try {
            return b.toString(StandardCharsets.UTF_8);
        } finally {
            b.release();
        }
    }

    /** The captured replication answer, parsed: point end time -> values in dimension order. */
    private record Capture(TreeMap<Long, double[]> points, long[][] dimState, double[][] dimValues,
                           long chartCollectedUt, long chartUpdatedUt) {
    }

    private static Capture capture() throws IOException {
        TreeMap<Long, double[]> points = new TreeMap<>();
        long[][] state = new long[CPU_DIMS.length][];
        double[][] values = new double[CPU_DIMS.length][];
        long collected = 0;
        long updated = 0;
        double[] cur = null;
        List<String> dims = List.of(CPU_DIMS);
        for (String line : VectorLines.lines("conn3-system-cpu-replay.txt")) {
            List<String> w = VectorLines.words(line);
            switch (w.get(0)) {
                case "RBEGIN" -> {
                    if (w.size() == 5) {
                        cur = new double[CPU_DIMS.length];
                        points.put(Long.parseLong(w.get(3)), cur);
                    }
                }
                case "RSET" -> cur[dims.indexOf(w.get(1))] = Double.parseDouble(w.get(2));
                case "RDSTATE" -> {
                    int i = dims.indexOf(w.get(1));
                    state[i] = new long[] {Long.parseLong(w.get(2)), Long.parseLong(w.get(3))};
                    values[i] = new double[] {Double.parseDouble(w.get(4)), Double.parseDouble(w.get(5))};
                }
                case "RSSTATE" -> {
                    collected = Long.parseLong(w.get(1));
                    updated = Long.parseLong(w.get(2));
                }
                default -> { }
            }
        }
        return new Capture(points, state, values, collected, updated);
    }

    private static HostStreamWriter.CollectionState state(Capture c) {
        return new HostStreamWriter.CollectionState() {
            @Override
            public long lastCollectedUt(int chartId, int dimIndex) {
                return c.dimState()[dimIndex][0];
            }

            @Override
            public long lastCollectedValue(int chartId, int dimIndex) {
                return c.dimState()[dimIndex][1];
            }

            @Override
            public double lastCalculatedValue(int chartId, int dimIndex) {
                return c.dimValues()[dimIndex][0];
            }

            @Override
            public double lastStoredValue(int chartId, int dimIndex) {
                return c.dimValues()[dimIndex][1];
            }

            @Override
            public long chartLastCollectedUt(int chartId) {
                return c.chartCollectedUt();
            }

            @Override
            public long chartLastUpdatedUt(int chartId) {
                return c.chartUpdatedUt();
            }
        };
    }

    /** Defines the capture's host and system.cpu; returns the chart id. */
    private int defineSystemCpu(StorageEngine e) throws IOException {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String line : VectorLines.lines("child-preamble.txt")) {
            List<String> w = VectorLines.words(line);
            if (w.get(0).equals("LABEL")) {
                labels.put(w.get(1), w.get(3));
            }
        }
        e.metadata().upsertHost(new HostInfo(CHILD, "ndchild", "linux", "Etc/UTC", 1, labels));
        int chart = e.metadata().upsertChart(new ChartInfo(CHILD, "system.cpu", "system.cpu", "Total CPU utilization",
                "percentage", "cpu", "system.cpu", "stacked", 100, 1, "proc.plugin", "/proc/stat",
                Map.of("_collect_plugin", "proc.plugin", "_collect_module", "/proc/stat")));
        for (String d : CPU_DIMS) {
            e.metadata().upsertDimension(new DimensionInfo(CHILD, "system.cpu", d, d, "percentage-of-incremental-row",
                    1, 1, d.equals("idle") ? DimensionInfo.FLAG_HIDDEN : 0));
        }
        return chart;
    }

    /** Stores points from FIRST (values before the gap are made up) and the captured ones after it. */
    private void storeSystemCpu(StorageEngine e, int chart, Capture c) {
        List<Integer> metrics = e.metadata().metrics(chart);
        for (long t = FIRST; t <= NOW; t++) {
            double[] v = c.points().get(t);
            for (int i = 0; i < metrics.size(); i++) {
                double value = v != null ? v[i] : 10 + i + (t % 7) / 10.0;
                e.store(metrics.get(i), t, 1, value, StorageNumber.SN_DEFAULT_FLAGS);
            }
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
