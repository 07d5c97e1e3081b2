package io.strata.streaming.sender;

import io.netty.buffer.ByteBuf;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The system.cpu chart of the 1.37.1 capture (vector 03: a child answering REPLAY_CHART after a
 * 30 s gap), for the tests of what a child writes from its engine: the host and chart defined as
 * the capture's child had them, its points stored, and the collection state of its answer. Shared
 * by the stream writer's tests and the replay answer's (replication, through this module's test-jar).
 */
public final class SystemCpuReplayCapture {

    public static final UUID CHILD = UUID.fromString("5b8185c0-e5a4-11f1-9d33-02fc00000001");
    public static final long CAPS_1_37_1 = 15296; // VCAPS HLABELS CLAIM CLABELS FUNCTIONS REPLICATION BINARY
    public static final long FIRST = 1795263063L;
    public static final long NOW = 1795263131L;
    public static final String[] CPU_DIMS = {"guest_nice", "guest", "steal", "softirq", "irq", "user", "system",
            "nice", "iowait", "idle"};

    public static String text(ByteBuf b) {
        try {
            return b.toString(StandardCharsets.UTF_8);
        } finally {
            b.release();
        }
    }

    /** The captured replication answer, parsed: point end time -> values in dimension order. */
    public record Capture(TreeMap<Long, double[]> points, long[][] dimState, double[][] dimValues,
                           long chartCollectedUt, long chartUpdatedUt) {
    }

    public static Capture capture() throws IOException {
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

    public static HostStreamWriter.CollectionState state(Capture c) {
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
    public static int defineSystemCpu(StorageEngine e) throws IOException {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String line : VectorLines.lines("child-preamble.txt")) {
            List<String> w = VectorLines.words(line);
            if (w.get(0).equals("LABEL")) {
                labels.put(w.get(1), w.get(3));
            }
        }
        e.metadata().upsertHost(new HostInfo(CHILD, "ndchild", "linux", "Etc/UTC", 1, labels));
        // in the order the real child sent them (the engine keeps the order it is given; Map.of's
        // order changes from one JVM to the next)
        Map<String, String> chartLabels = new LinkedHashMap<>();
        chartLabels.put("_collect_plugin", "proc.plugin");
        chartLabels.put("_collect_module", "/proc/stat");
        int chart = e.metadata().upsertChart(new ChartInfo(CHILD, "system.cpu", "system.cpu", "Total CPU utilization",
                "percentage", "cpu", "system.cpu", "stacked", 100, 1, "proc.plugin", "/proc/stat", chartLabels));
        for (String d : CPU_DIMS) {
            e.metadata().upsertDimension(new DimensionInfo(CHILD, "system.cpu", d, d, "percentage-of-incremental-row",
                    1, 1, d.equals("idle") ? DimensionInfo.FLAG_HIDDEN : 0));
        }
        return chart;
    }

    /** Stores points from FIRST (values before the gap are made up) and the captured ones after it. */
    public static void storeSystemCpu(StorageEngine e, int chart, Capture c) {
        List<Integer> metrics = e.metadata().metrics(chart);
        for (long t = FIRST; t <= NOW; t++) {
            double[] v = c.points().get(t);
            for (int i = 0; i < metrics.size(); i++) {
                double value = v != null ? v[i] : 10 + i + (t % 7) / 10.0;
                e.store(metrics.get(i), t, 1, value, StorageNumber.SN_DEFAULT_FLAGS);
            }
        }
    }

    private SystemCpuReplayCapture() {
    }
}
