package io.strata.node.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.strata.engine.disk.DiskCheck;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code strata disk-check DIR [--json]}: measures the disk that holds DIR ({@link DiskCheck}):
 * sequential write and read rate, random 4 KiB read IOPS and fsync latency, and how many per-second
 * metrics each storage tier can carry on it.
 *
 * <p>Tier capacity, per tier t with step {@code S = grouping^t} s, {@code B} bytes per point, quota
 * {@code Q} bytes and the measured sequential write rate {@code W} bytes/s:
 * {@code metrics_by_write_rate = floor(0.5 * W * S / B)},
 * {@code retention_seconds_per_1000_metrics = Q * S / (1000 * B)},
 * {@code metrics_for_one_day = floor(Q / (B * max(1, 86400 / S)))}.
 */
@Command(name = "disk-check",
        mixinStandardHelpOptions = true,
        description = {
                "Measures the disk that holds DIR: sequential write and read MiB/s (1 MiB I/O), random 4 KiB read "
                        + "IOPS and fsync latency, on a test file it deletes afterwards; then says how many per-second "
                        + "metrics each storage tier can carry.",
                "The page cache is bypassed with O_DIRECT; where that is refused (e.g. tmpfs) the I/O is buffered and "
                        + "the output says so. MB means MiB (1048576 bytes) throughout."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
                "0:measured",
                "1:an I/O error during the measurement",
                "2:usage error, or DIR missing, not a directory or not writable"})
public final class DiskCheckCommand implements Callable<Integer> {

    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;
    static final String NAME = "strata disk-check";

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "a directory on the disk to measure (a test file is made there)")
    Path dir;

    @Option(names = "--json", description = "print one JSON object instead of text")
    boolean json;

    @Option(names = "--size-mb", paramLabel = "MB", defaultValue = "1024",
            description = "test file size in MiB (default ${DEFAULT-VALUE}); shrunk, with a note, to half of DIR's free space")
    long sizeMb;

    @Option(names = "--buffered", description = "do not try O_DIRECT: buffered I/O through the page cache")
    boolean buffered;

    @Option(names = "--seq-max-seconds", paramLabel = "S", defaultValue = "60",
            description = "bound of each sequential phase in seconds (default ${DEFAULT-VALUE})")
    double seqMaxSeconds;

    @Option(names = "--random-seconds", paramLabel = "S", defaultValue = "5",
            description = "duration of the random-read phase in seconds (default ${DEFAULT-VALUE})")
    double randomSeconds;

    @Option(names = "--random-max-reads", paramLabel = "N", defaultValue = "1000000",
            description = "at most this many random reads (default ${DEFAULT-VALUE})")
    long randomMaxReads;

    @Option(names = "--queue-depth", paramLabel = "N", defaultValue = "1",
            description = "random-read threads, one read in flight each (default ${DEFAULT-VALUE})")
    int queueDepth;

    @Option(names = "--fsyncs", paramLabel = "N", defaultValue = "200",
            description = "write-4-KiB-and-fdatasync pairs timed (default ${DEFAULT-VALUE})")
    int fsyncs;

    @Option(names = "--fsync-max-seconds", paramLabel = "S", defaultValue = "20",
            description = "bound of the fsync phase in seconds (default ${DEFAULT-VALUE})")
    double fsyncMaxSeconds;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the data and offsets (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--tiers", paramLabel = "N", defaultValue = "3",
            description = "storage tiers 0..N-1 (default ${DEFAULT-VALUE}, at most 5)")
    int tiers;

    @Option(names = "--tier-grouping", paramLabel = "G", defaultValue = "60",
            description = "points of tier t-1 per point of tier t; tier t's step is G^t s (default ${DEFAULT-VALUE})")
    int grouping;

    @Option(names = "--quota-mb", paramLabel = "Q0,Q1,...", split = ",",
            description = "disk quota of each tier in MiB (default 1024 each; the last value stands for later tiers)")
    long[] quotaMb;

    @Option(names = "--bytes-per-point", paramLabel = "B0,B1,...", split = ",",
            description = "bytes on disk per point of each tier (default 0.46,4,8 as measured for this engine; "
                    + "the last value stands for later tiers)")
    double[] bytesPerPoint;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            DiskCheck.Options options;
            try {
                long[] quota = null;
                if (quotaMb != null) {
                    quota = new long[quotaMb.length];
                    for (int i = 0; i < quotaMb.length; i++) {
                        if (quotaMb[i] < 1 || quotaMb[i] > (Long.MAX_VALUE >> 20)) {
                            throw new IllegalArgumentException("--quota-mb values must be positive, got " + quotaMb[i]);
                        }
                        quota[i] = quotaMb[i] << 20;
                    }
                }
                if (sizeMb < 1 || sizeMb > (Long.MAX_VALUE >> 21)) {
                    throw new IllegalArgumentException("--size-mb must be positive, got " + sizeMb);
                }
                DiskCheck.TierModel model = DiskCheck.TierModel.of(tiers, grouping, quota, bytesPerPoint);
                options = new DiskCheck.Options(dir, sizeMb << 20, !buffered, true, seqMaxSeconds, randomSeconds,
                        randomMaxReads, queueDepth, fsyncs, fsyncMaxSeconds, seed, model);
            } catch (IllegalArgumentException e) {
                err.println(NAME + ": " + e.getMessage());
                return USAGE;
            }
            DiskCheck.Result r;
            try {
                r = DiskCheck.run(options);
            } catch (DiskCheck.UnusableDirectoryException e) {
                err.println(NAME + ": " + e.getMessage());
                return USAGE;
            } catch (IOException e) {
                err.println(NAME + ": " + dir + ": the measurement failed: " + e);
                return FAILED;
            }
            if (json) {
                out.println(toJson(r));
            } else {
                printText(out, r);
            }
            return OK;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /**
     * {@code v} rounded to {@code decimals} places (to 3 significant digits if that would make a
     * positive value 0), as a number Jackson writes without an exponent.
     */
    static BigDecimal round(double v, int decimals) {
        BigDecimal b = BigDecimal.valueOf(v);
        BigDecimal r = b.setScale(decimals, RoundingMode.HALF_UP);
        if (r.signum() == 0 && v > 0) {
            r = b.round(new MathContext(3, RoundingMode.HALF_UP));
        }
        return r.stripTrailingZeros();
    }

    static String toJson(DiskCheck.Result r) {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);
        ObjectNode o = mapper.createObjectNode();
        o.put("dir", r.dir().toString());
        o.put("file_system", r.fileSystem());
        o.put("seq_write_mb_s", round(r.seqWriteMibPerSecond(), 1));
        o.put("seq_read_mb_s", round(r.seqReadMibPerSecond(), 1));
        o.put("rand_read_iops", round(r.randReadIops(), 1));
        o.put("fsync_ms", round(r.fsyncMedianMs(), 3));
        o.put("fsync_p99_ms", round(r.fsyncP99Ms(), 3));
        o.put("file_bytes", r.fileBytes());
        o.put("page_cache_bypassed", r.pageCacheBypassed());
        o.put("mb", "MiB, 1048576 bytes");
        o.put("requested_file_bytes", r.requestedBytes());
        o.put("free_bytes", r.freeBytes());
        o.put("ram_bytes", r.ramBytes());
        o.put("block_size", r.blockSize());
        o.put("seq_io_bytes", DiskCheck.SEQ_BLOCK);
        o.put("seq_write_seconds", round(r.seqWriteSeconds(), 3));
        o.put("seq_read_bytes", r.seqReadBytes());
        o.put("seq_read_seconds", round(r.seqReadSeconds(), 3));
        o.put("rand_read_bytes", r.smallIoBytes());
        o.put("rand_reads", r.randReads());
        o.put("rand_read_seconds", round(r.randReadSeconds(), 3));
        o.put("queue_depth", r.queueDepth());
        o.put("fsyncs", r.fsyncs());
        o.put("fsync_write_bytes", r.smallIoBytes());
        o.put("write_rate_derating", r.writeRateDerating());
        ObjectNode f = o.putObject("formulas");
        f.put("legend", "W = seq write bytes/s, S = tier step s, B = bytes per point, Q = quota bytes");
        f.put("metrics_by_write_rate", "floor(" + r.writeRateDerating() + " * W * S / B)");
        f.put("retention_seconds_per_1000_metrics", "Q * S / (1000 * B)");
        f.put("metrics_for_one_day", "floor(Q / (B * max(1, 86400 / S)))");
        ArrayNode tiers = o.putArray("tiers");
        for (DiskCheck.TierCapacity t : r.tiers()) {
            ObjectNode j = tiers.addObject();
            j.put("tier", t.tier());
            j.put("step_seconds", t.stepSeconds());
            j.put("bytes_per_point", round(t.bytesPerPoint(), 6));
            j.put("quota_bytes", t.quotaBytes());
            j.put("metric_bytes_per_second", round(t.metricBytesPerSecond(), 9));
            j.put("metrics_by_write_rate", t.metricsByWriteRate());
            j.put("retention_seconds_per_1000_metrics", round(t.retentionSecondsPer1000Metrics(), 1));
            j.put("metrics_for_one_day", t.metricsForOneDay());
        }
        ArrayNode notes = o.putArray("notes");
        r.notes().forEach(notes::add);
        try {
            return mapper.writeValueAsString(o);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialize the disk-check result", e);
        }
    }

    static void printText(PrintWriter out, DiskCheck.Result r) {
        out.printf(Locale.ROOT, "disk-check  %s (%s, %s free, block %d B)%n", r.dir(), r.fileSystem(),
                DiskCheck.human(r.freeBytes()), r.blockSize());
        out.printf(Locale.ROOT, "test file   %s, %s%n", DiskCheck.human(r.fileBytes()),
                r.pageCacheBypassed() ? "O_DIRECT: page cache bypassed"
                        : "buffered I/O: page cache NOT bypassed");
        out.println();
        out.printf(Locale.ROOT, "%-18s %14s  %s%n", "measure", "result", "how");
        out.printf(Locale.ROOT, "%-18s %9.1f MB/s  1 MiB writes of %s, then fsync, in %.2f s%n", "sequential write",
                r.seqWriteMibPerSecond(), DiskCheck.human(r.fileBytes()), r.seqWriteSeconds());
        out.printf(Locale.ROOT, "%-18s %9.1f MB/s  1 MiB reads of %s in %.2f s%n", "sequential read",
                r.seqReadMibPerSecond(), DiskCheck.human(r.seqReadBytes()), r.seqReadSeconds());
        out.printf(Locale.ROOT, "%-18s %9.0f IOPS  %,d reads of %d B at random offsets, queue depth %d, in %.2f s%n",
                "random read", r.randReadIops(), r.randReads(), r.smallIoBytes(), r.queueDepth(), r.randReadSeconds());
        out.printf(Locale.ROOT, "%-18s %9.3f ms    median (p99 %.3f ms) of %d x write %d B in place + fdatasync%n",
                "fsync", r.fsyncMedianMs(), r.fsyncP99Ms(), r.fsyncs(), r.smallIoBytes());
        out.println();
        out.printf(Locale.ROOT, "per-second metrics each tier can carry (write rate derated to %.0f %%):%n",
                r.writeRateDerating() * 100);
        out.printf(Locale.ROOT, "%-4s %10s %9s %10s %22s %28s %18s%n", "tier", "step", "B/point", "quota",
                "metrics by write rate", "retention per 1000 metrics", "metrics for 1 day");
        for (DiskCheck.TierCapacity t : r.tiers()) {
            out.printf(Locale.ROOT, "%-4d %10s %9s %10s %,22d %28s %,18d%n", t.tier(), duration(t.stepSeconds()),
                    trim(t.bytesPerPoint()), DiskCheck.human(t.quotaBytes()), t.metricsByWriteRate(),
                    String.format(Locale.ROOT, "%,.0f s (%s)", t.retentionSecondsPer1000Metrics(),
                            duration(t.retentionSecondsPer1000Metrics())), t.metricsForOneDay());
        }
        out.println("formulas (W = sequential write bytes/s, S = tier step s, B = bytes per point, Q = quota bytes):");
        out.printf(Locale.ROOT, "  metrics by write rate      = floor(%s * W * S / B)%n", trim(r.writeRateDerating()));
        out.println("  retention per 1000 metrics = Q * S / (1000 * B)");
        out.println("  metrics for 1 day          = floor(Q / (B * max(1, 86400 / S)))");
        list(out, r.notes());
    }

    private static void list(PrintWriter out, List<String> notes) {
        if (notes.isEmpty()) {
            return;
        }
        out.println("notes:");
        for (String n : notes) {
            out.println("  - " + n);
        }
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.4f", v);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    /** Seconds as "1 s", "1 min", "1 h", "27.0 d", "1.2 y". */
    static String duration(double seconds) {
        if (seconds < 60) {
            return trim(Math.round(seconds * 10) / 10.0) + " s";
        }
        if (seconds < 3600) {
            return trim(Math.round(seconds / 60 * 10) / 10.0) + " min";
        }
        if (seconds < 86_400) {
            return trim(Math.round(seconds / 3600 * 10) / 10.0) + " h";
        }
        if (seconds < 365 * 86_400.0) {
            return trim(Math.round(seconds / 86_400 * 10) / 10.0) + " d";
        }
        return trim(Math.round(seconds / (365.25 * 86_400) * 10) / 10.0) + " y";
    }
}
