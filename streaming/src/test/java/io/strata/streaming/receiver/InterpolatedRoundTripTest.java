package io.strata.streaming.receiver;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.sender.HostStreamWriter;
import io.strata.engine.page.StorageNumber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A child's collections written as BEGIN2/SET2/END2 ({@link HostStreamWriter#writeInterpolated})
 * and read by the parent's {@link ReceiverParser}: the parent stores every point the child stored,
 * bit for bit, at the same seconds with the same flags, with IEEE754 (base64) and without (hex and
 * decimals). Collections fall between slot boundaries and one skips a slot, so that the child's
 * interpolation stores 0, 1 and 2 slots per collection; the parent must not interpolate again.
 */
class InterpolatedRoundTripTest {

    @TempDir
    Path dir;

    private static final UUID GUID = UUID.fromString("0b5a0a6e-7c3e-4d0e-9b1f-2a3b4c5d6e7f");
    private static final String CHART = "app.requests";
    private static final long T0 = 1_732_600_000L;

    @Test
    void theParentStoresWhatTheChildStoredWithIeee754() throws Exception {
        roundTrip(Capabilities.NETDATA_1_37_1 | Capabilities.INTERPOLATED_IEEE754, "child754", "parent754");
    }

    @Test
    void theParentStoresWhatTheChildStoredWithHexAndDecimals() throws Exception {
        roundTrip(Capabilities.NETDATA_1_37_1 | Capabilities.INTERPOLATED, "childHex", "parentHex");
    }

    private void roundTrip(long caps, String childDir, String parentDir) throws Exception {
        try (StorageEngine child = open(childDir); StorageEngine parent = open(parentDir)) {
            LocalCharts local = new LocalCharts(child, new HostInfo(GUID, "child", "linux", "UTC", 1, Map.of()));
            LocalCharts.Chart chart = local.define(ChartInfo.of(GUID, CHART, 1), List.of(
                    new DimensionInfo(GUID, CHART, "gauge", "gauge", "absolute", 3, 7, 0),
                    new DimensionInfo(GUID, CHART, "counter", "counter", "incremental", 1, 1, 0)));
            int chartId = chart.chartId();
            HostStreamWriter writer = new HostStreamWriter(child, GUID);
            ByteBuf wire = Unpooled.buffer();
            try {
                writer.writeChartDefinition(wire, chartId, caps & ~Capabilities.REPLICATION, T0);
                long counter = 1_000_000;
                // µs offsets into the second: collections between boundaries, one second skipped
                long[] at = {300_000, 1_250_000, 2_400_000, 3_100_000, 5_200_000, 6_050_000, 7_990_000, 8_500_000};
                for (int i = 0; i < at.length; i++) {
                    counter += 1_000 + 37L * i;
                    local.collect(chart, new long[] {100 + 13L * i, counter}, null, T0 * 1_000_000L + at[i]);
                    writer.writeInterpolated(wire, chartId, caps, T0 + 9, chart.collected(), chart.stored());
                }
                String text = wire.toString(StandardCharsets.UTF_8);
                if (Capabilities.has(caps, Capabilities.IEEE754)) {
                    assertTrue(Pattern.compile("(?m)^BEGIN2 \"app\\.requests\" #B #BnRWD[A-I] #BnRWDJ$")
                            .matcher(text).find(), text);
                    assertTrue(text.contains("SET2 \"gauge\" "), text);
                    assertTrue(text.contains(" @"), "values as base64 doubles: " + text);
                } else {
                    assertTrue(Pattern.compile("(?m)^BEGIN2 \"app\\.requests\" 0x1 0x674560C[0-9A-F] 0x674560C9$")
                            .matcher(text).find(), text);
                }
                ReceiverParser p = new ReceiverParser(parent, new HostInfo(GUID, "child", "linux", "UTC", 1, null),
                        line -> { }, ReceiverReplication.NONE, false, ReceiverLimits.DEFAULTS, new ReceiverStats(),
                        () -> (T0 + 10) * 1_000_000L, null);
                for (String line : text.split("\n")) {
                    byte[] b = line.getBytes(StandardCharsets.UTF_8);
                    p.line(b, 0, b.length);
                }
            } finally {
                wire.release();
            }
            List<String> stored = points(child);
            assertTrue(stored.size() >= 10, "the child stored too little to compare: " + stored);
            assertEquals(stored, points(parent));
        }
    }

    private StorageEngine open(String name) throws IOException {
        return StorageEngine.open(EngineConfig.defaults(dir.resolve(name)).withFsync(FsyncPolicy.NEVER));
    }

    /**
     * Every stored value of the chart: dimension, second, storage number (value and flags) as hex.
     * Gaps are left out: 2.x does not send them in SET2 (a parent keeps them as missing).
     */
    private static List<String> points(StorageEngine engine) throws IOException {
        MetadataStore meta = engine.metadata();
        List<String> out = new ArrayList<>();
        for (int metric : meta.metrics(meta.chartId(GUID, CHART))) {
            String dim = meta.dimension(metric).id();
            engine.queryTier0(metric, T0 - 5, T0 + 20, (t, sn) -> {
                if (!StorageNumber.isEmpty(sn)) {
                    out.add(dim + "@" + t + "=" + Integer.toHexString(sn));
                }
            });
        }
        return out;
    }
}
