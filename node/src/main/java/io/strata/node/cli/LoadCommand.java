package io.strata.node.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.load.LoadGenerator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code strata load}: a fleet of synthetic children streaming to a parent with the real 1.37.1
 * protocol (or, with {@code --form interpolated}, 2.x's BEGIN2/SET2/END2 where the parent grants it);
 * prints the samples sent per second, and with {@code --parent-pid} the parent's CPU.
 */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = "Stream synthetic children into a parent and report the samples sent per second.")
public final class LoadCommand implements Callable<Integer> {

    @Option(names = "--parent", required = true, paramLabel = "HOST:PORT", description = "The parent to load.")
    String parent;
    @Option(names = "--children", defaultValue = "10", description = "Children (connections). Default ${DEFAULT-VALUE}.")
    int children;
    @Option(names = "--metrics-per-child", defaultValue = "1000",
            description = "Metrics (dimensions) per child. Default ${DEFAULT-VALUE}.")
    int metricsPerChild;
    @Option(names = "--dimensions-per-chart", defaultValue = "10",
            description = "Dimensions per chart. Default ${DEFAULT-VALUE}.")
    int dimensionsPerChart;
    @Option(names = "--seconds", defaultValue = "30", description = "Duration of the run. Default ${DEFAULT-VALUE}.")
    double seconds;
    @Option(names = "--compression", defaultValue = "on", description = "on|off|zstd: offer LZ4; zstd: offer ZSTD "
            + "and LZ4 (a parent that has ZSTD takes it). Default ${DEFAULT-VALUE}.")
    String compression;
    @Option(names = "--form", defaultValue = "text", description = "text|interpolated: text writes BEGIN/SET/END "
            + "(1.37.1); interpolated offers INTERPOLATED and IEEE754 and, where the parent grants them, writes "
            + "BEGIN2/SET2/END2 with base64 numbers as a 2.x child does (else text, said in the result). "
            + "Default ${DEFAULT-VALUE}.")
    String form;
    @Option(names = "--api-key", defaultValue = "11111111-2222-3333-4444-555555555555",
            description = "API key of the parent's stream.conf. Default ${DEFAULT-VALUE}.")
    String apiKey;
    @Option(names = "--rate", defaultValue = "0",
            description = "Collections per second per child; 0 = as fast as the parent takes them (accelerated "
                    + "time, every collection still claims one second: a parent refuses points more than [db] dbengine max "
                    + "future time ahead of its clock, 1 day by default). Default ${DEFAULT-VALUE}.")
    double rate;
    @Option(names = "--seed", defaultValue = "1", description = "Seed of the values and machine GUIDs.")
    long seed;
    @Option(names = "--parent-pid", description = "PID of the parent process: report its CPU seconds during the run.")
    Long parentPid;
    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        int colon = parent.lastIndexOf(':');
        if (colon <= 0) {
            System.err.println("strata load: --parent must be HOST:PORT, got " + parent);
            return 2;
        }
        boolean lz4;
        boolean zstd = false;
        if (compression.equals("on")) {
            lz4 = true;
        } else if (compression.equals("zstd")) {
            lz4 = true;
            zstd = true;
        } else if (compression.equals("off")) {
            lz4 = false;
        } else {
            System.err.println("strata load: --compression must be on, off or zstd, got " + compression);
            return 2;
        }
        if (!form.equals("text") && !form.equals("interpolated")) {
            System.err.println("strata load: --form must be text or interpolated, got " + form);
            return 2;
        }
        LoadGenerator.Options o;
        try {
            o = new LoadGenerator.Options(parent.substring(0, colon), Integer.parseInt(parent.substring(colon + 1)),
                    children, metricsPerChild, dimensionsPerChart, seconds, lz4, apiKey, rate, seed, zstd,
                    form.equals("interpolated"));
        } catch (IllegalArgumentException e) {
            System.err.println("strata load: " + e.getMessage());
            return 2;
        }
        double cpu0 = parentPid != null ? cpuSeconds(parentPid) : 0;
        LoadGenerator.Result r = new LoadGenerator().run(o);
        double cpu = parentPid != null ? cpuSeconds(parentPid) - cpu0 : Double.NaN;
        if (parentPid != null) {
            // what the parent still had in its socket buffers is part of the same work: wait until it is idle
            for (int i = 0; i < 60; i++) {
                Thread.sleep(500);
                double now = cpuSeconds(parentPid) - cpu0;
                boolean idle = now - cpu < 0.1;
                cpu = now;
                if (idle) {
                    break;
                }
            }
        }
        if (json) {
            ObjectMapper m = new ObjectMapper();
            ObjectNode n = m.createObjectNode();
            n.put("samples_sent", r.samplesSent());
            n.put("samples_per_second", Math.round(r.samplesPerSecond()));
            n.put("seconds", r.seconds());
            n.put("children", children);
            n.put("children_accepted", r.childrenAccepted());
            n.put("metrics_per_child", metricsPerChild);
            n.put("compression", lz4);
            n.put("compression_offered", compression);
            n.put("form", r.form());
            n.put("capabilities", Capabilities.names(r.capabilities()));
            n.put("collections", r.collections());
            n.put("uncompressed_bytes", r.uncompressedBytes());
            n.put("wire_bytes", r.wireBytes());
            if (parentPid != null) {
                n.put("parent_cpu_seconds", cpu);
                n.put("samples_per_parent_cpu_second", Math.round(r.samplesSent() / cpu));
            }
            n.putPOJO("refusals", r.refusals());
            n.putPOJO("errors", r.errors().subList(0, Math.min(20, r.errors().size())));
            System.out.println(m.writeValueAsString(n));
        } else {
            System.out.printf("%d children (%d accepted) x %d metrics, %.1f s: %d samples sent, %.0f samples/s%n",
                    children, r.childrenAccepted(), metricsPerChild, r.seconds(), r.samplesSent(), r.samplesPerSecond());
            System.out.printf("form %s, capabilities %s%n", r.form(), Capabilities.names(r.capabilities()));
            System.out.printf("%d bytes on the wire (%.3f per sample), %d bytes of text%n", r.wireBytes(),
                    (double) r.wireBytes() / Math.max(1, r.samplesSent()), r.uncompressedBytes());
            if (parentPid != null) {
                System.out.printf("parent CPU %.2f s: %.0f samples per parent CPU-second%n", cpu, r.samplesSent() / cpu);
            }
            r.refusals().forEach(x -> System.out.println("refused: " + x));
            r.errors().stream().limit(20).forEach(x -> System.out.println("error: " + x));
        }
        return r.errors().isEmpty() && r.refusals().isEmpty() ? 0 : 1;
    }

    /** utime + stime of a process, from /proc (clock ticks of 1/100 s, Linux's USER_HZ). */
    static double cpuSeconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    }
}
