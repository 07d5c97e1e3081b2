package io.strata.jmh.exporting;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.bench.WideCsvDataset;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.exporting.Exporting;
import io.strata.exporting.HostOwnership;
import io.strata.exporting.config.DataSource;
import io.strata.exporting.config.Destination;
import io.strata.exporting.config.ExportingConfig;
import io.strata.exporting.config.TargetConfig;
import io.strata.exporting.position.PositionStore;
import io.strata.engine.netdata.SimplePattern;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import io.strata.engine.thread.StrataThreads;

/**
 * The catch-up after a target outage, measured: an engine holding {@code --hosts} children of
 * {@code --metrics} metrics for {@code --seconds} seconds of the real Netdata dataset (the backlog of an
 * outage of that length), exported from persisted positions by the real exporter, at full speed, to a
 * target: {@code null} (an HTTP receiver in this JVM that reads and discards the body, so that the
 * process's CPU is the exporter's) or {@code victoria-metrics} (Debian's binary, started on 127.0.0.1).
 * Prints samples per second, samples per CPU-second of this process, bytes on the wire per sample,
 * and, as the anchor measured in the same run, the engine's raw tier-0 read of the same data per
 * CPU-second.
 *
 * <pre>
 * java $FLAGS -cp jmh/target/strata-benchmarks.jar io.strata.jmh.exporting.ExportCatchUp \
 *      --hosts 20 --metrics 2000 --seconds 600 --target null [--per-request 100000]
 * </pre>
 */
public final class ExportCatchUp {

    private static final long T0 = 1_790_000_000L;

    public static void main(String[] args) throws Exception {
        int hosts = 20;
        int metrics = 2000;
        int seconds = 600;
        String target = "null";
        int perRequest = 100_000;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--hosts" -> hosts = Integer.parseInt(args[i + 1]);
                case "--metrics" -> metrics = Integer.parseInt(args[i + 1]);
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--target" -> target = args[i + 1];
                case "--per-request" -> perRequest = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Path dir = Files.createTempDirectory("strata-export-bench");
        try {
            run(dir, hosts, metrics, seconds, target, perRequest);
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void run(Path dir, int hosts, int metrics, int seconds, String target, int perRequest)
            throws Exception {
        WideCsvDataset data;
        try (InputStream raw = ExportCatchUp.class.getResourceAsStream("/datasets/netdata-child-1h.csv.gz")) {
            data = WideCsvDataset.read("netdata-child-1h.csv.gz", new GZIPInputStream(raw, 1 << 16));
        }
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")).withTiers(1)
                .withQuota(0, 8L << 30))) {
            List<UUID> guids = new ArrayList<>();
            int[] ids = new int[hosts * metrics];
            for (int h = 0; h < hosts; h++) {
                UUID guid = UUID.nameUUIDFromBytes(("bench-host-" + h).getBytes());
                guids.add(guid);
                engine.metadata().upsertHost(new HostInfo(guid, "bench-host-" + h, "linux", "UTC", 1, Map.of()));
                for (int m = 0; m < metrics; m++) {
                    String chart = "bench.chart_" + (m / 10);
                    if (m % 10 == 0) {
                        engine.metadata().upsertChart(new ChartInfo(guid, chart, chart, "bench", "KiB/s", "bench",
                                "bench.context_" + (m / 10 % 50), "line", 1000, 1, "bench", "", Map.of()));
                    }
                    ids[h * metrics + m] = engine.metadata().upsertDimension(new DimensionInfo(guid, chart,
                            "dim" + (m % 10), "dim" + (m % 10), "absolute", 1, 1, 0));
                }
            }
            double[] row = new double[ids.length];
            for (int s = 0; s < seconds; s++) {
                for (int i = 0; i < ids.length; i++) {
                    row[i] = data.value(i, s);
                }
                for (int i = 0; i < ids.length; i++) {
                    if (!Double.isNaN(row[i])) {
                        engine.store(ids[i], T0 + s, 1, row[i], 0);
                    }
                }
            }
            engine.flush();
            System.out.printf("stored %d hosts x %d metrics x %d s (%d points)%n", hosts, metrics, seconds,
                    (long) ids.length * seconds);

            // the anchor: the engine's raw tier-0 read of the same data, one metric at a time
            long[] points = new long[1];
            long cpu0 = os.getProcessCpuTime();
            long wall0 = System.nanoTime();
            for (int id : ids) {
                engine.queryTier0Runs(id, T0, T0 + seconds, (sns, a, b, first, step) -> points[0] += b - a);
            }
            double readCpu = (os.getProcessCpuTime() - cpu0) / 1e9;
            double readWall = (System.nanoTime() - wall0) / 1e9;
            System.out.printf("anchor: tier-0 read %d points in %.2f s wall, %.2f CPU-s: %.2f M points per CPU-second%n",
                    points[0], readWall, readCpu, points[0] / readCpu / 1e6);

            int port;
            HttpServer nullTarget = null;
            ExecutorService receiverThreads = null;
            Process vm = null;
            if (target.equals("null")) {
                nullTarget = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
                nullTarget.createContext("/api/v1/write", ex -> {
                    ex.getRequestBody().readAllBytes();
                    ex.sendResponseHeaders(204, -1);
                    ex.close();
                });
                receiverThreads = StrataThreads.newFixedThreadPool(2, r -> StrataThreads.newDaemonThread(r, "export-bench-target"));
                nullTarget.setExecutor(receiverThreads);
                nullTarget.start();
                port = nullTarget.getAddress().getPort();
            } else {
                try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    port = s.getLocalPort();
                }
                vm = new ProcessBuilder("/usr/bin/victoria-metrics", "-httpListenAddr=127.0.0.1:" + port,
                        "-storageDataPath=" + dir.resolve("vm"), "-retentionPeriod=100y")
                        .redirectErrorStream(true).redirectOutput(dir.resolve("vm.log").toFile()).start();
                waitForPort(port);
            }
            try {
                TargetConfig cfg = new TargetConfig("bench", false, List.of(new Destination("127.0.0.1", port)),
                        "/api/v1/write", "", "", DataSource.AVERAGE, "netdata", "bench", 1, 10, 60_000, true,
                        SimplePattern.parse("*"), SimplePattern.parse("*"), true, false, perRequest, Integer.MAX_VALUE);
                PositionStore positions = PositionStore.open(dir.resolve("positions"), "bench");
                for (UUID g : guids) {
                    positions.commit(g, T0 - 1); // the outage began before the first stored second
                }
                SimpleMeterRegistry meters = new SimpleMeterRegistry();
                HostOwnership all = new HostOwnership() {
                    @Override
                    public boolean exports(UUID host) {
                        return true;
                    }

                    @Override
                    public boolean filling(UUID host) {
                        return false;
                    }
                };
                long expected = 0;
                for (int id : ids) {
                    expected += engine.queryTier0Runs(id, T0, T0 + seconds, (sns, a, b, f, st) -> { });
                }
                try (Exporting exporting = Exporting.start(new ExportingConfig(true, List.of(cfg), List.of()), engine,
                        UUID.randomUUID(), all, dir.resolve("positions"), meters)) {
                    // hosts received from children start after a short settle: measure from the first request
                    while (sent(meters) == 0) {
                        Thread.sleep(5);
                    }
                    long s0 = (long) sent(meters);
                    double b0 = meters.get("strata.exporting.bytes.sent").counter().count();
                    long c0 = os.getProcessCpuTime();
                    long w0 = System.nanoTime();
                    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
                    while (sent(meters) < expected && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    double wall = (System.nanoTime() - w0) / 1e9;
                    double cpu = (os.getProcessCpuTime() - c0) / 1e9;
                    long n = (long) sent(meters) - s0;
                    double bytes = meters.get("strata.exporting.bytes.sent").counter().count() - b0;
                    double protobuf = meters.get("strata.exporting.protobuf.bytes").counter().count();
                    System.out.printf("export to %s, %d samples a request: %d samples in %.2f s: %.3f M samples/s; %.2f CPU-s of this"
                                    + " process: %.3f M samples per CPU-second (%.2f of the anchor's read rate);"
                                    + " %.3f bytes/sample on the wire (snappy), %.2f protobuf bytes/sample%n",
                            target, perRequest, n, wall, n / wall / 1e6, cpu, n / cpu / 1e6, (n / cpu) / (points[0] / readCpu),
                            bytes / n, protobuf / sent(meters));
                    if (sent(meters) < expected) {
                        System.out.println("INCOMPLETE: " + (long) sent(meters) + " of " + expected);
                    }
                }
            } finally {
                if (nullTarget != null) {
                    nullTarget.stop(0);
                    receiverThreads.shutdownNow();
                }
                if (vm != null) {
                    vm.destroy();
                    vm.waitFor(60, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static double sent(SimpleMeterRegistry meters) {
        return meters.get("strata.exporting.samples.sent").counter().count();
    }

    private static void waitForPort(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("victoria-metrics did not open " + port);
    }
}
