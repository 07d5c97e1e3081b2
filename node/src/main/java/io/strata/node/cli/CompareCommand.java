package io.strata.node.cli;

import io.strata.node.compare.CompareReport;
import io.strata.node.compare.CompareSettings;
import io.strata.node.compare.Comparison;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code strata compare}: a real Netdata 1.37.1 parent, then a Strata parent, under the same load
 * of the load generator paced in real time, on this machine; one table of both and their ratios.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {"Run a real Netdata 1.37.1 parent and then a Strata parent under the same real-time load "
                + "on this machine, and print both and their ratios (Strata/Netdata).",
                "Netdata is skipped, saying why, where /usr/sbin/netdata is absent."})
public final class CompareCommand implements Callable<Integer> {

    @Option(names = "--children", defaultValue = "100", description = "Children (connections). Default ${DEFAULT-VALUE}.")
    int children;
    @Option(names = "--charts", defaultValue = "50", description = "Charts per child. Default ${DEFAULT-VALUE}.")
    int charts;
    @Option(names = "--dimensions", defaultValue = "8", description = "Dimensions per chart. Default ${DEFAULT-VALUE}.")
    int dimensions;
    @Option(names = "--rate", defaultValue = "1",
            description = "Collections per second per child, in real time. Default ${DEFAULT-VALUE}.")
    double rate;
    @Option(names = "--seconds", defaultValue = "60", description = "The measured window. Default ${DEFAULT-VALUE}.")
    int seconds;
    @Option(names = "--warmup", defaultValue = "30",
            description = "Seconds of load after every child connected, before the window. Default ${DEFAULT-VALUE}.")
    int warmup;
    @Option(names = "--compression", defaultValue = "on", description = "on|off: offer LZ4. Default ${DEFAULT-VALUE}.")
    String compression;
    @Option(names = "--sample-hosts", defaultValue = "8",
            description = "Hosts whose data is read back for gaps and lag. Default ${DEFAULT-VALUE}.")
    int sampleHosts;
    @Option(names = "--sample-charts", defaultValue = "3",
            description = "Charts of each sampled host read back. Default ${DEFAULT-VALUE}.")
    int sampleCharts;
    @Option(names = "--dir", paramLabel = "DIR",
            description = "Scratch directory of both parents, kept afterwards. Default: a temporary one, removed.")
    Path dir;
    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        boolean lz4;
        if (compression.equals("on")) {
            lz4 = true;
        } else if (compression.equals("off")) {
            lz4 = false;
        } else {
            System.err.println("strata compare: --compression must be on or off, got " + compression);
            return 2;
        }
        if (!Files.isDirectory(Path.of("/proc/self/task"))) {
            System.err.println("strata compare: needs Linux's /proc to read the parents' CPU and memory");
            return 2;
        }
        boolean temporary = dir == null;
        Path scratch = temporary ? Files.createTempDirectory("strata-compare-") : dir.toAbsolutePath();
        CompareSettings s;
        try {
            s = new CompareSettings(children, charts, dimensions, rate, seconds, warmup, lz4, scratch,
                    Math.max(1, sampleHosts), Math.max(1, sampleCharts));
        } catch (IllegalArgumentException e) {
            System.err.println("strata compare: " + e.getMessage());
            return 2;
        }
        try {
            Comparison.Result r = new Comparison(s, System.err).run();
            System.out.print(json ? CompareReport.json(r) + "\n" : CompareReport.table(r));
            return 0;
        } catch (IOException e) {
            System.err.println("strata compare: " + e.getMessage());
            return 1;
        } finally {
            if (temporary) {
                deleteTree(scratch);
            }
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // a file that cannot go stays in the temporary directory
                }
            });
        } catch (IOException ignored) {
            // nothing more to remove
        }
    }
}
