package io.strata.replication.child;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.replication.sender.ReplayAnswer;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverParser;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.replication.receiver.ReplicationPlanner;
import io.strata.streaming.sender.HostStreamWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Strata child's own replication answer and live data, fed to a Strata receiver that already
 * holds the chart up to the child's last second (a parent the host fails over to, which had the
 * host through its peer): every second after the failover is stored.
 */
class ChildReplayToReceiverTest {

    @TempDir
    Path dir;

    private long now;

    @Test
    void theSecondsRightAfterAFailoverAreStored() throws Exception {
        long caps = Capabilities.VCAPS | Capabilities.HLABELS | Capabilities.CLAIM | Capabilities.CLABELS
                | Capabilities.REPLICATION;
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("child")));
             StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("parent")))) {
            UUID guid = UUID.randomUUID();
            HostInfo host = new HostInfo(guid, "c", "linux", "UTC", 1, Map.of());
            childDb.metadata().upsertHost(host);
            LocalCharts local = new LocalCharts(childDb, host);
            LocalCharts.Chart chart = local.define(new ChartInfo(guid, "t.g", "t.g", "g", "v", "f", "t.g", "line", 1, 1,
                    "", "", Map.of()), List.of(new DimensionInfo(guid, "t.g", "d0", "d0", "absolute", 1, 1000, 0)));
            long t = 1_700_000_000L;
            List<String> commands = new ArrayList<>();
            HostStreamWriter wire = new HostStreamWriter(childDb, guid, null, HostStreamWriter.LabelSources.NETDATA, c -> 0,
                    () -> now / 1_000_000L, 60);
            // the first connection: live data for 8 seconds
            now = t * 1_000_000L;
            ReceiverParser first = parser(parentDb, host, commands);
            ByteBuf out = Unpooled.buffer();
            wire.writeHostPreamble(out, caps);
            wire.writeChartDefinition(out, chart.chartId(), caps, t);
            feed(first, out);
            for (int s = 1; s <= 8; s++) {
                collect(local, chart, t + s, s);
                wire.writeCollection(out, chart.chartId(), chart.microsecondsSinceLastCollection(),
                        chart.collected(), chart.updated());
                feed(first, out);
            }
            // the failover: a new connection
            wire.forgetDefinitions();
            now = (t + 8) * 1_000_000L + 300_000;
            ReceiverParser second = parser(parentDb, host, commands);
            commands.clear();
            wire.writeChartDefinition(out, chart.chartId(), caps, t + 8);
            feed(second, out);
            assertEquals(1, commands.size(), "one REPLAY_CHART: " + commands);
            String[] w = commands.get(0).trim().split(" ");
            boolean streams = new ReplayAnswer(wire).write(out, chart.chartId(), w[2].equals("\"true\""),
                    Long.parseLong(w[3]), Long.parseLong(w[4]), t + 8, local);
            String answer = out.toString(StandardCharsets.UTF_8);
            feed(second, out);
            assertTrue(streams, "the child starts streaming: " + answer);
            for (int s = 9; s <= 11; s++) {
                collect(local, chart, t + s, s);
                wire.writeCollection(out, chart.chartId(), chart.microsecondsSinceLastCollection(),
                        chart.collected(), chart.updated());
                feed(second, out);
            }
            int metric = parentDb.metadata().metrics(parentDb.metadata().chartId(guid, "t.g")).get(0);
            List<String> got = new ArrayList<>();
            parentDb.queryTier0(metric, t, t + 20, (time, sn) -> got.add((time - t) + "=" + StorageNumber.unpack(sn)));
            List<String> expected = new ArrayList<>();
            for (int s = 2; s <= 11; s++) {
                expected.add(s + "=" + (double) s);
            }
            assertEquals(expected, got.subList(Math.max(0, got.size() - expected.size()), got.size()),
                    "answer was:\n" + answer + "\ncommands " + commands);
        }
    }

    private void collect(LocalCharts local, LocalCharts.Chart chart, long second, long value) {
        now = second * 1_000_000L + 5_000;
        local.collect(chart, new long[] {value * 1000}, null, now);
    }

    private ReceiverParser parser(StorageEngine db, HostInfo host, List<String> commands) {
        return new ReceiverParser(db, host, commands::add, ReplicationPlanner.NETDATA_DEFAULTS, true,
                ReceiverLimits.DEFAULTS, new ReceiverStats(), () -> now, null);
    }

    private static void feed(ReceiverParser p, ByteBuf out) throws Exception {
        String text = out.toString(StandardCharsets.UTF_8);
        out.clear();
        for (String l : text.split("\n")) {
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }
}
