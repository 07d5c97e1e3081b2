package io.strata.node.cli;

import io.strata.replication.bench.ReplayBench;
import io.strata.replication.bench.ReplayPhases;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code strata bench replay}: the replay rate between two Strata nodes on loopback (a child
 * engine with history streaming to an empty parent, which fills every chart by replication), and
 * with {@code --phases} the CPU cost per sample of each step of it.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Replication rate between two Strata nodes on 127.0.0.1 (samples per second).")
public final class BenchReplayCommand implements Callable<Integer> {

    @Option(names = "--hosts", defaultValue = "20", description = "Children (one connection each). Default ${DEFAULT-VALUE}.")
    int hosts;
    @Option(names = "--metrics-per-host", defaultValue = "2000", description = "Default ${DEFAULT-VALUE}.")
    int metricsPerHost;
    @Option(names = "--dimensions-per-chart", defaultValue = "10", description = "Default ${DEFAULT-VALUE}.")
    int dimensionsPerChart;
    @Option(names = "--seconds", defaultValue = "600",
            description = "History each metric has on the child, all of it replicated. Default ${DEFAULT-VALUE}.")
    int seconds;
    @Option(names = "--compression", defaultValue = "on", description = "on|off: LZ4 on the stream. Default ${DEFAULT-VALUE}.")
    String compression;
    @Option(names = "--parent-threads", description = "Event loops of the parent (default: as a node, max(2, cores)).")
    Integer parentThreads;
    @Option(names = "--sender-threads", defaultValue = "1", description = "Event loops of the children. Default ${DEFAULT-VALUE}.")
    int senderThreads;
    @Option(names = "--dir", description = "Where the two engines go (default: a temporary directory, removed after).")
    Path dir;
    @Option(names = "--timeout", defaultValue = "600", description = "Seconds before giving up. Default ${DEFAULT-VALUE}.")
    double timeout;
    @Option(names = "--progress", description = "Print progress every half second.")
    boolean progress;
    @Option(names = "--phases", description = "Instead: thread CPU per sample of each step, one host, no sockets.")
    boolean phases;
    @Option(names = "--rounds", defaultValue = "6", description = "Rounds of --phases (the first warms up). Default ${DEFAULT-VALUE}.")
    int rounds;
    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;
    @Option(names = "--warmup", defaultValue = "true", negatable = true,
            description = "First a smaller replay in the same JVM, not measured, so that the figure is not the JIT"
                    + " compiler's. Default ${DEFAULT-VALUE}.")
    boolean warmup;

    @Override
    public Integer call() throws Exception {
        if (!compression.equals("on") && !compression.equals("off")) {
            System.err.println("strata bench replay: --compression must be on or off, got " + compression);
            return 2;
        }
        Path work = dir != null ? dir : Files.createTempDirectory("strata-bench-replay");
        try {
            if (phases) {
                ReplayPhases.Costs c = ReplayPhases.run(metricsPerHost, dimensionsPerChart, seconds, rounds, work,
                        json ? System.err : System.out);
                if (json) {
                    System.out.printf(Locale.ROOT, "{\"answer_ns_per_sample\":%.1f,\"lz4_ns_per_sample\":%.1f,"
                                    + "\"parse_and_store_ns_per_sample\":%.1f,\"engine_store_ns_per_sample\":%.1f}%n",
                            c.answer(), c.lz4(), c.parseAndStore(), c.engineStoreAlone());
                } else {
                    System.out.printf(Locale.ROOT, "thread CPU per sample, best of rounds 1..%d: answer %.0f ns,"
                                    + " LZ4 %.0f ns, parse and store %.0f ns (of which the engine's store alone %.0f ns)%n",
                            rounds - 1, c.answer(), c.lz4(), c.parseAndStore(), c.engineStoreAlone());
                }
                return 0;
            }
            int threads = parentThreads != null ? parentThreads : Math.max(2, Runtime.getRuntime().availableProcessors());
            if (warmup) {
                new ReplayBench().run(new ReplayBench.Options(Math.max(1, hosts / 2), metricsPerHost, dimensionsPerChart,
                        seconds, compression.equals("on"), work.resolve("warmup"), 41, timeout, threads,
                        senderThreads, null));
            }
            ReplayBench.Result r = new ReplayBench().run(new ReplayBench.Options(hosts, metricsPerHost,
                    dimensionsPerChart, seconds, compression.equals("on"), work.resolve("measured"), 42, timeout,
                    threads, senderThreads, progress ? System.err : null));
            if (json) {
                System.out.printf(Locale.ROOT, "{\"samples_replayed\":%d,\"samples_expected\":%d,\"seconds\":%.3f,"
                                + "\"samples_per_second\":%.0f,\"charts_finished\":%d,\"charts_expected\":%d,"
                                + "\"bytes_received\":%d,\"prefill_seconds\":%.2f,\"cpu_ns_per_sample\":%.1f}%n", r.samplesReplayed(),
                        r.samplesExpected(), r.seconds(), r.samplesPerSecond(), r.chartsFinished(), r.chartsExpected(),
                        r.bytesReceived(), r.prefillSeconds(), r.cpuNanosPerSample());
            } else {
                System.out.printf(Locale.ROOT, "replayed %,d of %,d samples (%d of %d charts) in %.2f s: %.2f M samples/s"
                                + " (%.0f ns of process CPU per sample; %.1f bytes of text per sample; child history"
                                + " written in %.1f s)%n",
                        r.samplesReplayed(), r.samplesExpected(), r.chartsFinished(), r.chartsExpected(), r.seconds(),
                        r.samplesPerSecond() / 1e6, r.cpuNanosPerSample(), r.bytesReceived() / (double) Math.max(1, r.samplesReplayed()),
                        r.prefillSeconds());
            }
            return r.chartsFinished() == r.chartsExpected() ? 0 : 1;
        } finally {
            if (dir == null) {
                try (Stream<Path> files = Files.walk(work)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }
}
