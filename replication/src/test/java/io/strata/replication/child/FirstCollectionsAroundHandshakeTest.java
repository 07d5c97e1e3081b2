package io.strata.replication.child;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.replication.receiver.ReplicationPlanner;
import io.strata.replication.sender.ReplayAnswer;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverParser;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.sender.ChildStream;
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
 * A child whose first collections happen around the handshake (a loaded machine: the connection
 * took seconds to establish): the chart is defined on the connection, and its live data is
 * withheld until the parent's {@code REPLAY_CHART} is answered (§6.1), so whatever the child
 * collected between its definition and its answer must reach the parent in the answer. The
 * parent must end up with every point the child holds, from the child's first.
 */
class FirstCollectionsAroundHandshakeTest {

    private static final long CAPS = Capabilities.VCAPS | Capabilities.HLABELS | Capabilities.CLAIM
            | Capabilities.CLABELS | Capabilities.REPLICATION;
    private static final long T = 1_795_733_190L;

    @TempDir
    Path dir;

    /** The one clock of both sides, in µs. */
    private long now;

    /**
     * The chart exists but has stored nothing when the connection comes up ({@code
     * CHART_DEFINITION_END 0 0 now}); the parent answers {@code "true" 0 0}; two points are
     * collected before the child reads that request.
     */
    @Test
    void pointsCollectedWhileTheDefinitionOfAnEmptyChartWaitsForItsAnswerReachTheParent() throws Exception {
        run(0, 2);
    }

    /** The chart's first point was stored before the definition; more follow while the request travels. */
    @Test
    void pointsCollectedBeforeAndAfterTheDefinitionReachTheParent() throws Exception {
        run(1, 2);
    }

    /** Nothing is collected while the request travels: the answer starts streaming at once. */
    @Test
    void anEmptyChartWhoseAnswerComesBeforeItsFirstPointStreamsItFromTheFirst() throws Exception {
        run(0, 0);
    }

    /**
     * @param storedBefore points the child stores before the chart's definition is written
     * @param storedDuring points it stores between the definition and its answer to REPLAY_CHART
     */
    private void run(int storedBefore, int storedDuring) throws Exception {
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("child")));
             StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("parent")))) {
            UUID guid = UUID.randomUUID();
            HostInfo host = new HostInfo(guid, "child-1", "linux", "UTC", 1, Map.of());
            childDb.metadata().upsertHost(host);
            LocalCharts local = new LocalCharts(childDb, host);
            LocalCharts.Chart chart = local.define(new ChartInfo(guid, "strata.synthetic_0", "strata.synthetic_0",
                    "g", "value", "synthetic", "strata.synthetic_gauge", "line", 1, 1, "", "", Map.of()),
                    List.of(new DimensionInfo(guid, "strata.synthetic_0", "d0", "dim0", "absolute", 1, 1000, 0)));
            ChildStream wire = new ChildStream(childDb, guid, null, ChildStream.LabelSources.NETDATA, c -> 0,
                    () -> now / 1_000_000L, 60);
            List<String> commands = new ArrayList<>();
            ReceiverParser parent = new ReceiverParser(parentDb, host, commands::add,
                    ReplicationPlanner.NETDATA_DEFAULTS, true, ReceiverLimits.DEFAULTS, new ReceiverStats(),
                    () -> now, null);

            // the collector's first collection initialises the chart and stores nothing (Netdata's rule)
            long second = T;
            collect(local, chart, second);
            for (int i = 0; i < storedBefore; i++) {
                collect(local, chart, ++second);
            }
            // the connection is established: the host and the chart's definition
            now = second * 1_000_000L + 840_000;
            ByteBuf out = Unpooled.buffer();
            wire.writeHostPreamble(out, CAPS);
            wire.writeChartDefinition(out, chart.chartId(), CAPS, now / 1_000_000L);
            String definition = out.toString(StandardCharsets.UTF_8);
            feed(parent, out);
            assertEquals(1, commands.size(), "one REPLAY_CHART: " + commands);
            // collections before the request reaches the child: stored locally, their BEGIN/SET
            // withheld (the chart is replicating), as ChildStreamer does
            for (int i = 0; i < storedDuring; i++) {
                collect(local, chart, ++second);
            }
            now = second * 1_000_000L + 300_000;
            String[] w = commands.get(0).trim().split(" ");
            boolean streams = new ReplayAnswer(wire).write(out, chart.chartId(), w[2].equals("\"true\""),
                    Long.parseLong(w[3]), Long.parseLong(w[4]), now / 1_000_000L, local);
            String answer = out.toString(StandardCharsets.UTF_8);
            feed(parent, out);
            assertTrue(streams, "the child starts streaming: " + answer);
            // live data from then on
            for (int i = 0; i < 3; i++) {
                collect(local, chart, ++second);
                wire.writeCollection(out, chart.chartId(), chart.microsecondsSinceLastCollection(),
                        chart.collected(), chart.updated());
                feed(parent, out);
            }

            List<String> held = points(childDb, childDb.metadata().metrics(chart.chartId()).get(0));
            List<String> got = points(parentDb, parentDb.metadata().metrics(
                    parentDb.metadata().chartId(guid, "strata.synthetic_0")).get(0));
            assertEquals(storedBefore + storedDuring + 3, held.size(), "the child's own points: " + held);
            assertEquals(held, got, "the parent holds every point of the child\ndefinition:\n" + definition
                    + "request: " + commands + "\nanswer:\n" + answer);
        }
    }

    private void collect(LocalCharts local, LocalCharts.Chart chart, long second) {
        now = second * 1_000_000L + 5_000;
        local.collect(chart, new long[] {(second - T) * 1000 + 7}, null, now);
    }

    private static List<String> points(StorageEngine db, int metric) throws Exception {
        List<String> out = new ArrayList<>();
        db.queryTier0(metric, T - 10, T + 100, (time, sn) -> out.add((time - T) + "=" + StorageNumber.unpack(sn)));
        return out;
    }

    private static void feed(ReceiverParser p, ByteBuf out) throws Exception {
        String text = out.toString(StandardCharsets.UTF_8);
        out.clear();
        for (String l : text.split("\n")) {
            if (l.isEmpty()) {
                continue;
            }
            byte[] b = l.getBytes(StandardCharsets.UTF_8);
            p.line(b, 0, b.length);
        }
    }
}
