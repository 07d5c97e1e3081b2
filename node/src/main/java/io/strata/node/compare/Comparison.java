package io.strata.node.compare;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import io.strata.engine.thread.StrataThreads;

/**
 * Strata against Netdata 1.37.1 on this machine under the same load: a Netdata parent first, then
 * a Strata parent, one after the other, each on a fresh scratch directory and port. A parent
 * still running when this JVM is told to stop is stopped by a shutdown hook.
 */
public final class Comparison {

    /** Both parts; {@code netdata} is null with {@code netdataSkipped} saying why. */
    public record Result(CompareSettings settings, ParentMeasurement strata, ParentMeasurement netdata,
                         String netdataSkipped, String machine, String loadAverageAtStart) {
    }

    private final CompareSettings s;
    private final PrintStream progress;
    private volatile ParentUnderTest running;

    public Comparison(CompareSettings s, PrintStream progress) {
        this.s = s;
        this.progress = progress;
    }

    public Result run() throws IOException, InterruptedException {
        Files.createDirectories(s.scratch());
        String load = loadAverage();
        Thread hook = StrataThreads.newThread(() -> {
            ParentUnderTest p = running;
            if (p != null) {
                try {
                    p.close();
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "compare-stop-parent");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            ParentRun run = new ParentRun(s, progress);
            int limit = s.warmup() + s.seconds() + 600;
            String skipped = NetdataParent.unavailable();
            ParentMeasurement netdata = null;
            if (skipped == null) {
                netdata = measure(run, new NetdataParent(s.scratch().resolve("netdata"), freePort(), limit,
                        s.compression()));
            } else {
                progress.println("netdata: skipped: " + skipped);
            }
            ParentMeasurement strata = measure(run, new StrataParent(s.scratch().resolve("strata"), freePort(),
                    s.compression(), s.children()));
            return new Result(s, strata, netdata, skipped, machine(), load);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running already
            }
        }
    }

    private ParentMeasurement measure(ParentRun run, ParentUnderTest parent) throws IOException, InterruptedException {
        running = parent;
        try (parent) {
            return run.measure(parent);
        } finally {
            running = null;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    static String machine() {
        String cpu = "unknown processor";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException ignored) {
            // the processor's name is only for the record
        }
        long memKb = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    memKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // likewise
        }
        return Runtime.getRuntime().availableProcessors() + " CPUs (" + cpu + "), "
                + (memKb >> 20) + " GiB, Java " + System.getProperty("java.version") + ", "
                + System.getProperty("os.name") + " " + System.getProperty("os.version");
    }
}
