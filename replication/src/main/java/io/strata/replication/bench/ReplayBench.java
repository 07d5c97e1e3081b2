package io.strata.replication.bench;

import io.netty.channel.EventLoopGroup;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.replication.receiver.ReplicationPlanner;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.replication.child.LocalHostStreamer;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.receiver.ReceivedStreamListener;
import io.strata.streaming.receiver.ReceiverContext;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverRegistry;
import io.strata.streaming.receiver.ReceiverStats;
import io.strata.streaming.server.StreamServer;
import io.strata.streaming.server.Transports;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import io.strata.streaming.config.IniException;
import io.strata.streaming.sender.SenderSession;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import io.strata.engine.time.Clocks;

/**
 * The replay rate between two Strata nodes on loopback: a child engine holding {@code seconds} of
 * history for {@code hosts × metrics} metrics streams each host to an empty parent over TCP, the
 * parent asks every chart's history with {@code REPLAY_CHART}, and the figure is the samples the
 * parent stored by replication divided by the time until the last chart started streaming.
 * Both nodes share this JVM (and the machine's cores), as two processes on one machine would.
 */
public final class ReplayBench {

    public record Options(int hosts, int metricsPerHost, int dimensionsPerChart, int seconds, boolean compression,
                          Path dir, long seed, double timeoutSeconds, int parentThreads, int senderThreads,
                          PrintStream progress) {
    }

    /**
     * @param cpuNanosPerSample CPU time of the whole process (both nodes, all threads, GC) during the
     *                          replay, per sample: what the rate costs, which a shared machine does not blur
     */
    public record Result(long samplesReplayed, long samplesExpected, double seconds, double samplesPerSecond,
                         double prefillSeconds, long bytesReceived, int chartsFinished, int chartsExpected,
                         double cpuNanosPerSample) {
    }

    private static final String KEY = "5bd4c2b4-6a0e-4d3f-9a15-0c1d2e3f4a5b";

    public Result run(Options o) throws IOException, InterruptedException, IniException {
        int chartsPerHost = o.metricsPerHost() / o.dimensionsPerChart();
        int chartsExpected = chartsPerHost * o.hosts();
        long samplesExpected = (long) chartsExpected * o.dimensionsPerChart() * o.seconds();
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(o.dir().resolve("child")));
             StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(o.dir().resolve("parent")))) {
            long prefillStart = System.nanoTime();
            List<LocalCharts> hosts = prefill(childDb, o, chartsPerHost);
            double prefillSeconds = (System.nanoTime() - prefillStart) / 1e9;

            StreamConfig conf = StreamConfig.from(IniFile.parse("[" + KEY + "]\n\tenabled = yes\n"
                    + "\tseconds to replicate = " + (o.seconds() + 3600) + "\n", "stream.conf"));
            StreamAuthorizer auth = new StreamAuthorizer(conf, o.compression(), Capabilities.NETDATA_1_37_1,
                    UUID.randomUUID().toString(), 0);
            ReceiverStats stats = new ReceiverStats();
            LongAdder finished = new LongAdder();
            ReceivedStreamListener listener = stream -> new ReceivedStreamListener.Observer() {
                @Override
                public void chartReplicationFinished(int chartId) {
                    finished.increment();
                }
            };
            ReceiverContext rc = new ReceiverContext(parentDb, auth, new ReceiverRegistry(), ReceiverLimits.DEFAULTS,
                    stats, ReceiverContext.wallClockMicros(), 600, null).withListener(listener)
                    .withReplication(ReplicationPlanner.FROM_SETTINGS);
            EventLoopGroup senderLoops = Transports.group(o.senderThreads());
            try (StreamServer server = new StreamServer(rc, null, null, o.parentThreads())) {
                int port = server.bind(new InetSocketAddress("127.0.0.1", 0)).getPort();
                StreamConfig.SenderSettings settings = StreamConfig.from(IniFile.parse("[stream]\n\tenabled = yes\n"
                        + "\tdestination = 127.0.0.1:" + port + "\n\tapi key = " + KEY + "\n"
                        + "\tenable compression = " + (o.compression() ? "yes" : "no") + "\n", "stream.conf"))
                        .sender();
                List<LocalHostStreamer> streamers = new ArrayList<>();
                ThreadCpu threadCpu = new ThreadCpu();
                threadCpu.byKind();
                long cpuStart = processCpuNanos();
                long start = System.nanoTime();
                for (LocalCharts host : hosts) {
                    LocalHostStreamer s = new LocalHostStreamer(host, settings, 1, senderLoops);
                    streamers.add(s);
                    s.start();
                }
                long deadline = start + (long) (o.timeoutSeconds() * 1e9);
                long nextReport = start;
                while (finished.sum() < chartsExpected && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                    if (o.progress() != null && System.nanoTime() >= nextReport) {
                        nextReport += 500_000_000L;
                        long pending = 0;
                        int queued = 0;
                        for (LocalHostStreamer st : streamers) {
                            SenderSession ss = st.sender().session();
                            if (ss != null) {
                                pending += ss.pendingBytes();
                                queued += ss.queuedEvents();
                            }
                        }
                        o.progress().printf("%6.2f s: %d charts finished, %d samples replayed, %d bytes received;"
                                        + " senders: %d bytes pending, %d commands queued; %s%n",
                                (System.nanoTime() - start) / 1e9, finished.sum(), stats.samplesReplayed.sum(),
                                stats.bytesReceived.sum(), pending, queued, threadCpu.busiest());
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                long cpu = processCpuNanos() - cpuStart;
                if (o.progress() != null) {
                    o.progress().println("CPU by thread over the replay: " + threadCpu.byKind());
                }
                for (LocalHostStreamer s : streamers) {
                    s.close();
                }
                long replayed = stats.samplesReplayed.sum();
                return new Result(replayed, samplesExpected, seconds, replayed / seconds, prefillSeconds,
                        stats.bytesReceived.sum(), (int) finished.sum(), chartsExpected,
                        cpu / (double) Math.max(1, replayed));
            } finally {
                Transports.stop(senderLoops);
            }
        }
    }

    private static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
    }

    /** The threads that used the most CPU since the previous call. */
    private static final class ThreadCpu {
        private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        private final Map<Long, Long> last = new HashMap<>();
        private final Map<Long, Long> lastByKind = new HashMap<>();

        /** CPU since the previous call, summed by thread name without its numbers. */
        String byKind() {
            Map<String, Long> kinds = new TreeMap<>();
            for (long id : mx.getAllThreadIds()) {
                long cpu = mx.getThreadCpuTime(id);
                Long before = lastByKind.put(id, cpu);
                ThreadInfo ti = mx.getThreadInfo(id);
                if (ti != null && cpu > 0) {
                    kinds.merge(ti.getThreadName().replaceAll("[0-9]+\\]?$", "#"), cpu - (before == null ? 0 : before),
                            Long::sum);
                }
            }
            StringBuilder sb = new StringBuilder();
            kinds.entrySet().stream().filter(k -> k.getValue() > 10_000_000L)
                    .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                    .forEach(k -> sb.append(k.getKey()).append('=').append(k.getValue() / 1_000_000L).append("ms "));
            return sb.toString().trim();
        }

        String busiest() {
            List<String> out = new ArrayList<>();
            List<long[]> deltas = new ArrayList<>();
            for (long id : mx.getAllThreadIds()) {
                long cpu = mx.getThreadCpuTime(id);
                Long before = last.put(id, cpu);
                if (before != null && cpu - before > 20_000_000L) {
                    deltas.add(new long[] {id, cpu - before});
                }
            }
            deltas.sort((a, b) -> Long.compare(b[1], a[1]));
            for (int i = 0; i < Math.min(4, deltas.size()); i++) {
                ThreadInfo ti = mx.getThreadInfo(deltas.get(i)[0]);
                out.add((ti == null ? "?" : ti.getThreadName()) + "=" + deltas.get(i)[1] / 1_000_000L + "ms");
            }
            return String.join(" ", out);
        }
    }

    /** Each host's charts, collected once a second for {@code seconds} seconds ending a second ago. */
    private static List<LocalCharts> prefill(StorageEngine db, Options o, int chartsPerHost) {
        List<LocalCharts> hosts = new ArrayList<>();
        long end = Clocks.wallMillis() / 1000 - 1;
        SplittableRandom rnd = new SplittableRandom(o.seed());
        for (int h = 0; h < o.hosts(); h++) {
            UUID guid = UUID.nameUUIDFromBytes(("strata-replay-bench-" + o.seed() + "-" + h)
                    .getBytes(StandardCharsets.UTF_8));
            hosts.add(history(db, new HostInfo(guid, "replay-child-" + h, "linux", "Etc/UTC", 1, Map.of()),
                    chartsPerHost, o.dimensionsPerChart(), o.seconds(), end, rnd));
        }
        return hosts;
    }

    /**
     * A host of {@code charts} charts of {@code dims} dimensions, collected once a second for
     * {@code seconds} seconds up to {@code end}: a slow random walk in thousandths, the shape of most
     * system metrics.
     */
    static LocalCharts history(StorageEngine db, HostInfo info, int charts, int dims, int seconds, long end,
                               SplittableRandom rnd) {
        UUID guid = info.machineGuid();
        db.metadata().upsertHost(info);
        LocalCharts local = new LocalCharts(db, info);
        List<LocalCharts.Chart> defined = new ArrayList<>();
        for (int c = 0; c < charts; c++) {
            String id = "replay.chart" + c;
            List<DimensionInfo> ds = new ArrayList<>(dims);
            for (int d = 0; d < dims; d++) {
                ds.add(new DimensionInfo(guid, id, "d" + d, "d" + d, "absolute", 1, 1000, 0));
            }
            defined.add(local.define(new ChartInfo(guid, id, id, "replay", "value", "replay", "replay.chart",
                    "line", 1000 + c, 1, "strata", "bench", Map.of()), ds));
        }
        long[][] values = new long[charts][dims];
        for (long t = end - seconds + 1; t <= end; t++) {
            for (int c = 0; c < charts; c++) {
                long[] v = values[c];
                for (int d = 0; d < dims; d++) {
                    v[d] = Math.max(0, v[d] + rnd.nextInt(2001) - 1000);
                }
                local.collect(defined.get(c), v, null, t * 1_000_000L + 1000);
            }
        }
        return local;
    }
}
