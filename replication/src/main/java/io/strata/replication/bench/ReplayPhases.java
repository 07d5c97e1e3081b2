package io.strata.replication.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.replication.child.LocalHostStreamer;
import io.strata.replication.receiver.ReplicationPlanner;
import io.strata.replication.sender.ReplayAnswer;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverParser;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.sender.HostStreamWriter;
import io.strata.streaming.wire.Lz4StreamFrameEncoder;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import io.strata.engine.time.Clocks;

/**
 * The CPU cost of each step of a replay, one thread, no sockets: the child's answers from its
 * engine, their LZ4 compression, and the parent's parsing and storing of them. Prints nanoseconds
 * per sample for each step, so that the end-to-end rate of {@link ReplayBench} can be explained.
 */
public final class ReplayPhases {

    /** Nanoseconds of thread CPU per sample, the best of rounds 1.. (round 0 warms up). */
    public record Costs(double answer, double lz4, double parseAndStore, double engineStoreAlone) {
    }

    /**
     * Runs {@code rounds} rounds over one host of {@code metrics} metrics in charts of {@code dims}
     * dimensions with {@code seconds} of history, printing each round to {@code log}.
     */
    public static Costs run(int metrics, int dims, int seconds, int rounds, Path dir, PrintStream log)
            throws Exception {
        if (rounds < 2) {
            throw new IllegalArgumentException("at least 2 rounds: the first one only warms up");
        }
        int charts = metrics / dims;
        long caps = LocalHostStreamer.CHILD_CAPABILITIES;
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("child")))) {
            UUID guid = UUID.randomUUID();
            HostInfo host = new HostInfo(guid, "phases", "linux", "UTC", 1, Map.of());
            long end = Clocks.wallMillis() / 1000 - 1;
            long first = end - seconds + 1;
            LocalCharts local = ReplayBench.history(childDb, host, charts, dims, seconds, end, new SplittableRandom(42));
            List<LocalCharts.Chart> cs = local.charts();
            long samples = (long) charts * dims * seconds;
            // thread CPU time, not wall time: the machine is shared and a preempted phase is not slower
            ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
            double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
            for (int round = 0; round < rounds; round++) {
                HostStreamWriter wire = new HostStreamWriter(childDb, guid);
                ReplayAnswer replay = new ReplayAnswer(wire);
                List<String> commands = new ArrayList<>();
                long nowSeconds = Clocks.wallMillis() / 1000;
                try (StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("parent" + round)))) {
                    ReceiverStats stats = new ReceiverStats();
                    ReceiverParser parser = new ReceiverParser(parentDb, host, commands::add,
                            ReplicationPlanner.NETDATA_DEFAULTS, true, ReceiverLimits.DEFAULTS, stats,
                            () -> Clocks.wallMillis() * 1000L, null);
                    ByteBuf defs = Unpooled.buffer();
                    wire.writeHostPreamble(defs, caps);
                    for (LocalCharts.Chart c : cs) {
                        wire.writeChartDefinition(defs, c.chartId(), caps, nowSeconds);
                    }
                    feed(parser, defs);

                    long t0 = cpu.getCurrentThreadCpuTime();
                    ByteBuf answers = Unpooled.directBuffer(64 << 20);
                    for (String command : commands) {
                        String[] w = command.trim().split(" ");
                        int chartId = childDb.metadata().chartId(guid, w[1].replace("\"", ""));
                        replay.write(answers, chartId, w[2].equals("\"true\""), Long.parseLong(w[3]),
                                Long.parseLong(w[4]), nowSeconds + 5, local);
                    }
                    long t1 = cpu.getCurrentThreadCpuTime();
                    EmbeddedChannel lz4 = new EmbeddedChannel(new Lz4StreamFrameEncoder(true));
                    long compressed = 0;
                    ByteBuf copy = answers.retainedDuplicate();
                    while (copy.isReadable()) {
                        ByteBuf piece = copy.readRetainedSlice(Math.min(copy.readableBytes(), 64 * 1024));
                        lz4.writeOutbound(piece);
                        ByteBuf o;
                        while ((o = lz4.readOutbound()) != null) {
                            compressed += o.readableBytes();
                            o.release();
                        }
                    }
                    copy.release();
                    long t2 = cpu.getCurrentThreadCpuTime();
                    int bytes = answers.readableBytes();
                    feed(parser, answers);
                    parser.publishStats();
                    long t3 = cpu.getCurrentThreadCpuTime();
                    // the engine alone, in the answer's order (chart by chart, second by second)
                    UUID other = UUID.randomUUID();
                    parentDb.metadata().upsertHost(new HostInfo(other, "engine-only", "linux", "UTC", 1, Map.of()));
                    int[][] ids = new int[charts][dims];
                    for (int c = 0; c < charts; c++) {
                        String id = "replay.chart" + c;
                        parentDb.metadata().upsertChart(new ChartInfo(other, id, id, "replay", "value", "replay",
                                "replay.chart", "line", 1000 + c, 1, "strata", "bench", Map.of()));
                        for (int d = 0; d < dims; d++) {
                            ids[c][d] = parentDb.metadata().upsertDimension(new DimensionInfo(other, id, "d" + d,
                                    "d" + d, "absolute", 1, 1000, 0));
                        }
                    }
                    SplittableRandom values2 = new SplittableRandom(7);
                    long t4 = cpu.getCurrentThreadCpuTime();
                    for (int c = 0; c < charts; c++) {
                        double[] v = new double[dims];
                        for (long t = first; t <= end; t++) {
                            for (int d = 0; d < dims; d++) {
                                v[d] = Math.max(0, v[d] + (values2.nextInt(2001) - 1000) / 1000.0);
                                parentDb.store(ids[c][d], t, 1, v[d], 0);
                            }
                        }
                    }
                    long t5 = cpu.getCurrentThreadCpuTime();
                    if (round > 0) {
                        best[3] = Math.min(best[3], (t5 - t4) / (double) samples);
                    }
                    long replayed = stats.samplesReplayed.sum();
                    log.printf("round %d: %d samples (%d replayed), %d bytes (%.1f B/sample), lz4 %d bytes;"
                                    + " answer %.0f ns/sample, lz4 %.0f, parse+store %.0f; total %.0f ns/sample (thread CPU)%n",
                            round, samples, replayed, bytes, bytes / (double) samples, compressed,
                            (t1 - t0) / (double) samples, (t2 - t1) / (double) samples, (t3 - t2) / (double) samples,
                            (t3 - t0) / (double) samples);
                    if (round > 0) {
                        best[0] = Math.min(best[0], (t1 - t0) / (double) samples);
                        best[1] = Math.min(best[1], (t2 - t1) / (double) samples);
                        best[2] = Math.min(best[2], (t3 - t2) / (double) samples);
                    }
                }
            }
            return new Costs(best[0], best[1], best[2], best[3]);
        }
    }

    private static void feed(ReceiverParser p, ByteBuf buf) throws Exception {
        byte[] b = new byte[buf.readableBytes()];
        buf.readBytes(b);
        buf.release();
        int s = 0;
        for (int i = 0; i < b.length; i++) {
            if (b[i] == '\n') {
                p.line(b, s, i);
                s = i + 1;
            }
        }
    }
}
