package io.strata.node.cli;

import io.strata.engine.FsyncPolicy;
import io.strata.engine.TierScanner;
import io.strata.engine.bench.Dataset;
import io.strata.engine.bench.EngineBench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import java.util.Arrays;

/**
 * {@code strata bench engine}: writes S seconds of per-second data for N metrics into a real
 * engine on disk as fast as it can and reports the write rate, bytes per sample per tier and
 * memory per metric.
 */
@Command(name = "engine", mixinStandardHelpOptions = true,
        description = "In-process engine write benchmark: time accelerated, flushing to disk for real.")
public final class BenchEngineCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--metrics", description = "Metrics written (default ${DEFAULT-VALUE}).", defaultValue = "10000")
    int metrics;

    @Option(names = "--seconds", description = "Seconds of data per metric (default ${DEFAULT-VALUE}); with --duration, "
            + "the most written.", defaultValue = "600")
    int seconds;

    @Option(names = "--duration", description = "Wall-clock seconds the writers run for, as Netdata's -W stresstest "
            + "does; they stop earlier at --seconds of data. 0: write all --seconds (default ${DEFAULT-VALUE}).",
            defaultValue = "0")
    double duration;

    @Option(names = "--dir", description = "Database directory, empty or absent (default: a temporary one, deleted after).")
    Path dir;

    @Option(names = "--dataset", description = "random-walk, counters, netdata-stresstest (the values of Netdata's "
            + "-W stresstest, charts of 128 dimensions), or a wide CSV file (plain or .gz) of real values "
            + "(default ${DEFAULT-VALUE}).",
            defaultValue = "random-walk")
    String dataset;

    @Option(names = "--writers", description = "Writer threads (default ${DEFAULT-VALUE}).", defaultValue = "1")
    int writers;

    @Option(names = "--dimensions-per-chart", description = "Metrics per chart (default ${DEFAULT-VALUE}).", defaultValue = "10")
    int perChart;

    @Option(names = "--fsync", description = "never, per-extent or per-datafile (default ${DEFAULT-VALUE}).", defaultValue = "per-datafile")
    String fsync;

    @Option(names = "--quota-mb", split = ",", description = "Disk quota in MiB per tier, Q0,Q1,...: rotation keeps "
            + "each tier under it, and it sizes the datafiles; a missing tier takes the last value (default ${DEFAULT-VALUE}).",
            defaultValue = "1024")
    long[] quotaMb;

    @Option(names = "--cache-mb", description = "The engine's main cache in MiB (clean pages, extents and dirty pages "
            + "waiting for the disk), as Netdata's -W stresstest is given a page cache size; 0 sizes it from the "
            + "metrics (default ${DEFAULT-VALUE}).", defaultValue = "0")
    long cacheMb;

    @Option(names = "--tiers", description = "Storage tiers, 1..5 (default ${DEFAULT-VALUE}).", defaultValue = "3")
    int tiers;

    @Option(names = "--readers", description = "Reader threads querying random metrics and ranges while the writers "
            + "run, checking every value (default ${DEFAULT-VALUE}).", defaultValue = "0")
    int readers;

    @Option(names = "--cold-scan", description = "After writing, drop the OS page cache (needs root), reopen and scan "
            + "tier 0 from disk in file order.")
    boolean coldScan;

    @Option(names = "--scan-only", description = "Write nothing: scan tier 0 of the database a run left in --dir "
            + "(same --tiers and --quota-mb), dropping the OS page cache first as --cold-scan does.")
    boolean scanOnly;

    @Option(names = "--direct-reads", description = "Read datafiles with O_DIRECT (bypassing the OS page cache) where "
            + "the file system allows it.")
    boolean directReads;

    @Option(names = "--scan-reads", description = "Cold scan: reads in flight, 1..16 (default ${DEFAULT-VALUE}).",
            defaultValue = "4")
    int scanReads;

    @Option(names = "--scan-run-mb", description = "Cold scan: largest read in MiB, 1..64 (default ${DEFAULT-VALUE}).",
            defaultValue = "4")
    int scanRunMb;

    @Option(names = "--scan-ordered", description = "Cold scan: decode on one thread in file order instead of on the "
            + "reading threads.")
    boolean scanOrdered;

    @Option(names = "--seed", description = "Seed of the synthetic datasets (default ${DEFAULT-VALUE}).", defaultValue = "42")
    long seed;

    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (metrics < 1 || seconds < 1 || writers < 1 || perChart < 1 || tiers < 1 || tiers > 5 || readers < 0
                || Arrays.stream(quotaMb).anyMatch(q -> q < 1)) {
            err.println("strata bench engine: --metrics, --seconds, --writers, --dimensions-per-chart and --quota-mb must be "
                    + "positive, --tiers 1..5, --readers not negative");
            return 2;
        }
        if (cacheMb < 0 || cacheMb > (1L << 30)) {
            err.println("strata bench engine: --cache-mb must be 0 (from the metrics) or a positive number of MiB");
            return 2;
        }
        if (!(duration >= 0) || Double.isInfinite(duration)) {
            err.println("strata bench engine: --duration must be 0 (none) or a positive number of seconds");
            return 2;
        }
        if (scanReads < 1 || scanReads > 16 || scanRunMb < 1 || scanRunMb > 64) {
            err.println("strata bench engine: --scan-reads must be 1..16, --scan-run-mb 1..64");
            return 2;
        }
        if (scanOnly && dir == null) {
            err.println("strata bench engine: --scan-only needs the --dir of an earlier run");
            return 2;
        }
        TierScanner.ScanOptions scan = new TierScanner.ScanOptions(scanReads, !scanOrdered, scanRunMb << 20);
        long[] quotaBytes = Arrays.stream(quotaMb).map(q -> q << 20).toArray();
        FsyncPolicy policy;
        Dataset ds;
        try {
            policy = FsyncPolicy.parse(fsync);
            ds = Dataset.named(dataset, seed);
        } catch (IllegalArgumentException | IOException e) {
            err.println("strata bench engine: " + e.getMessage());
            return 2;
        }
        if (scanOnly) {
            EngineBench.ColdScan c;
            try {
                c = EngineBench.scanExisting(new EngineBench.Options(dir, metrics, seconds, ds, writers, perChart, policy,
                        tiers, quotaBytes, readers, true, directReads, scan));
            } catch (IOException e) {
                err.println("strata bench engine: " + e.getMessage());
                return 1;
            }
            if (json) {
                ObjectMapper mapper = new ObjectMapper();
                ObjectNode o = mapper.createObjectNode();
                putColdScan(o, c);
                out.println(mapper.writeValueAsString(o));
            } else {
                printColdScan(out, c);
            }
            out.flush();
            return 0;
        }
        boolean temporary = dir == null;
        Path d = temporary ? Files.createTempDirectory("strata-bench-") : dir;
        EngineBench.Result r;
        EngineBench.Options options = new EngineBench.Options(d, metrics, seconds, ds, writers, perChart, policy, tiers,
                quotaBytes, readers, coldScan, directReads, scan, duration, cacheMb << 20);
        try {
            r = EngineBench.run(options);
        } catch (IOException e) {
            err.println("strata bench engine: " + e.getMessage());
            return 1;
        } finally {
            if (temporary) {
                deleteTree(d);
            }
        }
        if (json) {
            ObjectMapper mapper = new ObjectMapper();
            ObjectNode o = mapper.createObjectNode();
            o.put("dataset", r.dataset());
            o.put("metrics", r.metrics());
            o.put("seconds", r.seconds());
            o.put("writers", r.writers());
            o.put("duration_seconds", duration);
            o.put("cache_bytes", EngineBench.config(options).autoCacheBytes(metrics));
            o.put("points", r.points());
            o.put("gap_points", r.gapPoints());
            o.put("elapsed_seconds", r.elapsedSeconds());
            o.put("points_per_second", r.pointsPerSecond());
            o.put("writer_cpu_ns_per_point", r.writerCpuNsPerPoint());
            o.put("flusher_cpu_ns_per_point", r.flusherCpuNsPerPoint());
            o.put("pages_flushed", r.pagesFlushed());
            o.put("pages_encoded_by_collectors", r.pagesEncodedByCollectors());
            ObjectNode bps = o.putObject("bytes_per_sample");
            ObjectNode bod = o.putObject("bytes_on_disk");
            for (Map.Entry<Integer, Double> e : r.bytesPerSample().entrySet()) {
                bps.put(String.valueOf(e.getKey()), e.getValue());
                bod.put(String.valueOf(e.getKey()), r.bytesOnDisk().get(e.getKey()));
            }
            o.put("datafiles", r.datafiles());
            o.put("memory_per_metric_bytes", r.memoryPerMetricBytes());
            o.put("memory_per_metric_over_baseline_bytes", r.memoryPerMetricOverBaselineBytes());
            // over the write phase, from the second every first page has sealed: the goal's figure
            o.put("memory_per_metric_peak_over_baseline_bytes", r.memoryPerMetricPeakOverBaselineBytes());
            o.put("memory_per_metric_median_over_baseline_bytes", r.memoryPerMetricMedianOverBaselineBytes());
            // the same peak over a baseline without the heap the JVM held spare then (never smaller)
            o.put("memory_per_metric_peak_over_shrunk_baseline_bytes", r.memoryPerMetricPeakOverShrunkBaselineBytes());
            EngineBench.MemoryOverTime mt = r.memoryOverTime();
            o.put("memory_samples_from_second", mt.countedFrom());
            o.put("page_memory_peak_bytes", mt.peakPageMemory());
            o.put("rss_high_water_bytes", mt.rssHighWater());
            var samples = o.putArray("memory_samples");
            for (int i = 0; i < mt.samples(); i++) {
                samples.addObject().put("second", mt.second()[i]).put("rss_bytes", mt.rss()[i])
                        .put("page_memory_bytes", mt.pageMemory()[i]).put("heap_committed_bytes", mt.heapCommitted()[i]);
            }
            o.put("rss_bytes", r.rssBytes());
            o.put("rss_baseline_bytes", r.rssBaselineBytes());
            o.put("heap_used_bytes", r.heapUsedBytes());
            o.put("page_memory_bytes", r.pageMemoryBytes());
            o.put("registry_bytes_per_metric", r.registryBytesPerMetric());
            EngineBench.MemorySplit ms = r.memory();
            o.put("heap_committed_bytes", ms.heapCommitted());
            o.put("heap_committed_baseline_bytes", ms.heapCommittedBaseline());
            o.put("heap_live_bytes", ms.heapLive());
            o.put("heap_live_baseline_bytes", ms.heapLiveBaseline());
            o.put("direct_buffer_bytes", ms.directBuffers());
            o.put("direct_buffer_baseline_bytes", ms.directBuffersBaseline());
            o.put("idle_metric_bytes", r.idleMetricBytes());
            o.put("tiers", r.tiers());
            o.put("readers", r.readers());
            o.put("queries", r.queries());
            o.put("query_points", r.queryPoints());
            o.put("query_points_per_second", r.queryPointsPerSecond());
            o.put("read_errors", r.readErrors());
            o.put("datafiles_deleted", r.datafilesDeleted());
            if (r.coldScan() != null) {
                putColdScan(o, r.coldScan());
            }
            out.println(mapper.writeValueAsString(o));
        } else {
            out.printf("dataset              %s%n", r.dataset());
            if (duration > 0) {
                out.printf("metrics, points      %d metrics, %d points (%d gaps) in %.1f s of writing, %d writer(s); "
                        + "the slowest at second %d%n", r.metrics(), r.points(), r.gapPoints(), duration, r.writers(),
                        r.seconds());
            } else {
                out.printf("metrics x seconds    %d x %d = %d points (%d gaps), %d writer(s)%n", r.metrics(), r.seconds(),
                        r.points(), r.gapPoints(), r.writers());
            }
            out.printf("elapsed              %.3f s (until the last extent was on disk)%n", r.elapsedSeconds());
            out.printf("write rate           %,.0f points/s%n", r.pointsPerSecond());
            for (Map.Entry<Integer, Double> e : r.bytesPerSample().entrySet()) {
                out.printf("tier %d on disk       %,d bytes, %.4f bytes/point%n", e.getKey(),
                        r.bytesOnDisk().get(e.getKey()), e.getValue());
            }
            out.printf("memory per metric    %,.0f bytes (process RSS %,d / metrics); %,.0f over the RSS before the engine opened%n",
                    r.memoryPerMetricBytes(), r.rssBytes(), r.memoryPerMetricOverBaselineBytes());
            out.printf("  of which           heap %,d, page memory %,d, registry %d bytes/metric%n", r.heapUsedBytes(),
                    r.pageMemoryBytes(), r.registryBytesPerMetric());
            out.printf("  over the run       peak %,.0f, median %,.0f bytes/metric over the baseline (%d samples, from second %d); "
                            + "page memory peak %,d%n", r.memoryPerMetricPeakOverBaselineBytes(),
                    r.memoryPerMetricMedianOverBaselineBytes(), r.memoryOverTime().samples(),
                    r.memoryOverTime().countedFrom(), r.memoryOverTime().peakPageMemory());
            out.printf("a defined metric     %,.0f bytes of heap before it is collected (registry and metadata)%n",
                    r.idleMetricBytes());
            if (r.readers() > 0) {
                out.printf("readers              %d: %,d queries, %,d points checked, %,.0f points/s, %d read error(s)%n",
                        r.readers(), r.queries(), r.queryPoints(), r.queryPointsPerSecond(), r.readErrors());
            }
            out.printf("rotation             %d datafile(s) deleted%n", r.datafilesDeleted());
            if (r.coldScan() != null) {
                printColdScan(out, r.coldScan());
            }
        }
        out.flush();
        return 0;
    }

    private static void putColdScan(ObjectNode o, EngineBench.ColdScan c) {
        o.put("cold_scan_mb_s", c.readMegabytesPerSecond());
        o.put("cold_scan_decode_mb_s", c.megabytesPerSecond());
        o.put("cold_scan_points_per_second", c.pointsPerSecond());
        o.put("cold_scan_bytes", c.bytes());
        o.put("cold_scan_page_cache_dropped", c.pageCacheDropped());
        o.put("cold_scan_direct_reads", c.directReads());
        o.put("cold_scan_reads_in_flight", c.readsInFlight());
        o.put("cold_scan_run_bytes", c.runBytes());
    }

    private static void printColdScan(PrintWriter out, EngineBench.ColdScan c) {
        out.printf("tier-0 scan          %,.1f MiB/s reading and checking extents; %,.1f MiB/s, %,.0f points/s "
                + "decoding them too (%s; %s reads, %d in flight of up to %d MiB)%n", c.readMegabytesPerSecond(),
                c.megabytesPerSecond(), c.pointsPerSecond(),
                c.pageCacheDropped() ? "page cache dropped first" : "page cache NOT dropped: warm figure",
                c.directReads() ? "O_DIRECT" : "buffered", c.readsInFlight(), c.runBytes() >> 20);
    }

    static void deleteTree(Path d) throws IOException {
        if (!Files.exists(d)) {
            return;
        }
        try (Stream<Path> s = Files.walk(d)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
