package io.strata.engine.bench;

import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.StorageEngine;
import io.strata.engine.TierScanner;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import io.strata.engine.DiskFormat;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import io.strata.engine.thread.StrataThreads;

/**
 * The in-process engine benchmark behind {@code ./strata bench engine}: {@code writers} threads
 * store {@code seconds} seconds of per-second data for {@code metrics} metrics as fast as they
 * can (time is accelerated, nothing sleeps), the flusher writes it to disk for real, and the run
 * ends when the last point is on disk. Reports points per second, bytes per sample on disk per
 * tier and memory per metric.
 */
public final class EngineBench {

    /** First second written. */
    public static final long T0 = 1_700_000_000L;

    /**
     * @param quotaBytes per tier, the disk quota (rotation) that also sizes its datafiles; a tier
     *                   past the array's end takes its last value
     * @param readers    threads that query random metrics and ranges while the writers run and
     *                   check every value against the dataset
     * @param coldScan   after writing: drop the OS page cache (where permitted), reopen, and scan
     *                   tier 0 from disk in file order
     * @param durationSeconds if positive, the writers stop once this much wall-clock time has
     *                   passed (or at {@code seconds} of data, whichever comes first), as Netdata's
     *                   {@code -W stresstest} runs for a given time; 0 writes all {@code seconds}
     * @param cacheBytes the engine's main cache ({@link EngineConfig#cacheBytes}), as Netdata's
     *                   stress test is given its page cache size; 0 sizes it from the metrics
     */
    public record Options(Path dir, int metrics, int seconds, Dataset dataset, int writers, int dimensionsPerChart,
                          FsyncPolicy fsync, int tiers, long[] quotaBytes, int readers, boolean coldScan,
                          boolean directReads, TierScanner.ScanOptions scan, double durationSeconds, long cacheBytes) {
        /** The options before direct reads and scan options existed: buffered reads, default scan. */
        public Options(Path dir, int metrics, int seconds, Dataset dataset, int writers, int dimensionsPerChart,
                       FsyncPolicy fsync, int tiers, long[] quotaBytes, int readers, boolean coldScan) {
            this(dir, metrics, seconds, dataset, writers, dimensionsPerChart, fsync, tiers, quotaBytes, readers, coldScan,
                    false, COLD_SCAN);
        }

        /** The options without a wall-clock duration: every writer stores all {@code seconds}. */
        public Options(Path dir, int metrics, int seconds, Dataset dataset, int writers, int dimensionsPerChart,
                       FsyncPolicy fsync, int tiers, long[] quotaBytes, int readers, boolean coldScan,
                       boolean directReads, TierScanner.ScanOptions scan) {
            this(dir, metrics, seconds, dataset, writers, dimensionsPerChart, fsync, tiers, quotaBytes, readers, coldScan,
                    directReads, scan, 0);
        }

        /** The options with a cache sized from the metrics. */
        public Options(Path dir, int metrics, int seconds, Dataset dataset, int writers, int dimensionsPerChart,
                       FsyncPolicy fsync, int tiers, long[] quotaBytes, int readers, boolean coldScan,
                       boolean directReads, TierScanner.ScanOptions scan, double durationSeconds) {
            this(dir, metrics, seconds, dataset, writers, dimensionsPerChart, fsync, tiers, quotaBytes, readers, coldScan,
                    directReads, scan, durationSeconds, 0);
        }

        public Options {
            if (scan == null) {
                throw new IllegalArgumentException("scan options are needed");
            }
            if (metrics < 1 || seconds < 1 || writers < 1 || dimensionsPerChart < 1 || tiers < 1 || readers < 0) {
                throw new IllegalArgumentException("metrics, seconds, writers, tiers and dimensions per chart must be "
                        + "positive, readers not negative");
            }
            if (quotaBytes == null || quotaBytes.length == 0) {
                throw new IllegalArgumentException("a quota per tier is needed");
            }
            if (!(durationSeconds >= 0) || Double.isInfinite(durationSeconds)) {
                throw new IllegalArgumentException("the duration must be 0 (none) or a positive number of seconds");
            }
            if (cacheBytes < 0) {
                throw new IllegalArgumentException("the cache size must be 0 (from the metrics) or positive");
            }
        }

        long quota(int tier) {
            return quotaBytes[Math.min(tier, quotaBytes.length - 1)];
        }
    }

    public record Result(String dataset, int metrics, int seconds, int writers, long points, long gapPoints,
                         double elapsedSeconds, double pointsPerSecond, Map<Integer, Long> bytesOnDisk,
                         Map<Integer, Double> bytesPerSample, long rssBytes, long rssBaselineBytes, long heapUsedBytes,
                         long pageMemoryBytes, double memoryPerMetricBytes, double memoryPerMetricOverBaselineBytes,
                         int registryBytesPerMetric, long datafiles, double idleMetricBytes, int tiers, int readers,
                         long queryPoints, double queryPointsPerSecond, long readErrors, long queries,
                         long datafilesDeleted, ColdScan coldScan, MemorySplit memory, MemoryOverTime memoryOverTime,
                         double writerCpuNsPerPoint, double flusherCpuNsPerPoint, long pagesFlushed,
                         long pagesEncodedByCollectors) {

        /**
         * The largest of the RSS samples over the RSS before the engine opened, per metric, once
         * every metric's first page has sealed: the figure the memory goal is judged on.
         */
        public double memoryPerMetricPeakOverBaselineBytes() {
            return (double) (memoryOverTime.peakRss() - rssBaselineBytes) / metrics;
        }

        /**
         * The peak over a baseline whose heap is shrunk to what was live in it (the RSS before
         * the engine opened less the heap committed but not live then), per metric: what the
         * figure would be had the JVM held no spare heap before the engine opened. Never smaller
         * than {@link #memoryPerMetricPeakOverBaselineBytes}, so a baseline that happened to
         * hold much spare heap cannot make the engine look frugal.
         */
        public double memoryPerMetricPeakOverShrunkBaselineBytes() {
            long spare = Math.max(0, memory.heapCommittedBaseline() - memory.heapLiveBaseline());
            return (double) (memoryOverTime.peakRss() - Math.max(0, rssBaselineBytes - spare)) / metrics;
        }

        /** The median of the same samples, per metric, over the baseline. */
        public double memoryPerMetricMedianOverBaselineBytes() {
            return (double) (memoryOverTime.medianRss() - rssBaselineBytes) / metrics;
        }
    }

    /** Samples taken during the write phase of a run, every 1/{@value #MEMORY_SAMPLES} of its seconds. */
    public static final int MEMORY_SAMPLES = 20;

    /**
     * Process memory at several moments of the write phase, not at one instant: the hot pages'
     * fill, and so the RSS, changes as pages fill and seal. Sample {@code i} was taken when every
     * writer had stored second {@code second[i]} (a little later: the writers do not wait); the
     * last is the end of the write phase (the instant of {@code rssBytes}).
     *
     * @param second       the writers' progress (seconds stored) at each sample, ascending
     * @param rss          process RSS at each sample
     * @param pageMemory   off-heap hot-page memory at each sample ({@code StorageEngine.pageMemoryBytes})
     * @param heapCommitted Java heap committed at each sample
     * @param countedFrom  samples from this second on count for {@link #peakRss} and
     *                     {@link #medianRss}: the second by which every metric's first page, of
     *                     random capacity, has sealed (or the run's end if it is shorter)
     * @param rssHighWater the kernel's high-water mark of the RSS (VmHWM) at the end of the write
     *                     phase: a peak between samples, or before the engine opened, shows there
     */
    public record MemoryOverTime(int[] second, long[] rss, long[] pageMemory, long[] heapCommitted, int countedFrom,
                                 long rssHighWater) {
        public MemoryOverTime {
            if (second.length == 0 || second.length != rss.length || second.length != pageMemory.length
                    || second.length != heapCommitted.length) {
                throw new IllegalArgumentException("samples need a second, an RSS, a page memory and a heap each");
            }
        }

        public int samples() {
            return second.length;
        }

        private long[] counted(long[] of) {
            int n = 0;
            for (int s : second) {
                if (s >= countedFrom) {
                    n++;
                }
            }
            if (n == 0) {
                return new long[]{of[of.length - 1]};
            }
            long[] c = new long[n];
            int j = 0;
            for (int i = 0; i < second.length; i++) {
                if (second[i] >= countedFrom) {
                    c[j++] = of[i];
                }
            }
            return c;
        }

        /** The largest RSS of the counted samples. */
        public long peakRss() {
            long m = Long.MIN_VALUE;
            for (long v : counted(rss)) {
                m = Math.max(m, v);
            }
            return m;
        }

        /** The median RSS of the counted samples (the lower middle one of an even count). */
        public long medianRss() {
            long[] c = counted(rss);
            Arrays.sort(c);
            return c[(c.length - 1) / 2];
        }

        /** The largest hot-page memory of the counted samples. */
        public long peakPageMemory() {
            long m = Long.MIN_VALUE;
            for (long v : counted(pageMemory)) {
                m = Math.max(m, v);
            }
            return m;
        }
    }

    /** Takes the samples of {@link MemoryOverTime} as the writers progress (on the thread that waits for them). */
    private static final class MemorySampler {
        private final StorageEngine engine;
        private final AtomicIntegerArray progress;
        private final int seconds;
        private final int[] second = new int[MEMORY_SAMPLES];
        private final long[] rss = new long[MEMORY_SAMPLES];
        private final long[] pageMemory = new long[MEMORY_SAMPLES];
        private final long[] heapCommitted = new long[MEMORY_SAMPLES];
        private int taken;

        MemorySampler(StorageEngine engine, AtomicIntegerArray progress, int seconds) {
            this.engine = engine;
            this.progress = progress;
            this.seconds = seconds;
        }

        /** Takes the next sample if every writer has passed its second (the last one is {@link #end}'s). */
        void poll() {
            if (taken >= MEMORY_SAMPLES - 1) {
                return;
            }
            int target = (int) ((long) seconds * (taken + 1) / MEMORY_SAMPLES);
            int done = Integer.MAX_VALUE;
            for (int w = 0; w < progress.length(); w++) {
                done = Math.min(done, progress.get(w));
            }
            // a writer far ahead passes several targets at once: one sample per second reached
            if (done >= target && done < seconds && (taken == 0 || done > second[taken - 1])) {
                record(done, rssBytes());
            }
        }

        private void record(int at, long rssNow) {
            second[taken] = at;
            rss[taken] = rssNow;
            pageMemory[taken] = engine.pageMemoryBytes();
            heapCommitted[taken] = Runtime.getRuntime().totalMemory();
            taken++;
        }

        /**
         * The last sample, at second {@code reached} (all {@code seconds} unless a duration
         * stopped the writers); {@code rssNow} and {@code rssHighWater} from one read (see
         * {@link #rssAndHighWaterBytes}).
         */
        MemoryOverTime end(int reached, long rssNow, long rssHighWater, int countedFrom) {
            if (taken > 0 && second[taken - 1] >= reached) {
                taken--;
            }
            record(reached, rssNow);
            return new MemoryOverTime(Arrays.copyOf(second, taken), Arrays.copyOf(rss, taken),
                    Arrays.copyOf(pageMemory, taken), Arrays.copyOf(heapCommitted, taken), countedFrom,
                    rssHighWater);
        }
    }

    /**
     * Where the process memory of a run went, at the moment its RSS is taken (the last point
     * stored, before the final flush), beside the same figures before the engine opened.
     *
     * @param heapCommitted       bytes of Java heap the JVM holds (committed), now and before
     * @param heapLive            heap in use after a full collection, before the engine opened and after
     *                            the final flush
     * @param directBuffers       NIO direct buffers (extent and scan buffers), now and before
     */
    public record MemorySplit(long heapCommitted, long heapCommittedBaseline, long heapLive, long heapLiveBaseline,
                              long directBuffers, long directBuffersBaseline) {
        static long[] now(boolean collect) {
            long live = collect ? settledHeap() : -1;
            long committed = Runtime.getRuntime().totalMemory();
            long direct = 0;
            for (var pool : ManagementFactory.getPlatformMXBeans(
                    BufferPoolMXBean.class)) {
                if (pool.getName().equals("direct")) {
                    direct = pool.getMemoryUsed();
                }
            }
            return new long[]{committed, live, direct};
        }
    }

    /**
     * A scan of tier 0 from disk after the write phase.
     *
     * @param pageCacheDropped whether the OS page cache was dropped first (needs root); if not,
     *                         the figure is a warm one and says so
     */
    public record ColdScan(boolean pageCacheDropped, long bytes, long points, double seconds, double readOnlySeconds,
                           boolean directReads, int readsInFlight, int runBytes) {
        /** Reading and decoding every page. */
        public double megabytesPerSecond() {
            return bytes / seconds / (1 << 20);
        }

        /** Reading every extent in file order and verifying its checksum, decoding nothing: the I/O path. */
        public double readMegabytesPerSecond() {
            return bytes / readOnlySeconds / (1 << 20);
        }

        public double pointsPerSecond() {
            return points / seconds;
        }
    }

    private EngineBench() {
    }

    public static Result run(Options o) throws IOException, InterruptedException {
        if (Files.isDirectory(o.dir()) && !isEmptyDirectory(o.dir())) {
            throw new IOException(o.dir() + ": not empty; the benchmark writes into an empty directory");
        }
        System.gc();
        // G1 gives the memory of a heap shrunk by a full collection back to the OS on a thread of
        // its own, after the collection: an RSS read at once still holds it, and a run's figure
        // over that baseline came out smaller by whatever had not been given back yet
        long rssBaseline = settledRssBytes();
        // after the RSS: the collections that settle the live heap would also shrink the RSS
        long[] before = MemorySplit.now(true);
        EngineConfig cfg = config(o);
        long points;
        int reached;
        long[] gaps = new long[o.writers()];
        // CPU time of each writer thread over its loop: on a shared machine the wall-clock rate
        // moves with the load, the CPU time per point much less
        long[] writerCpuNanos = new long[o.writers()];
        long flusherCpuNanos;
        double elapsed;
        long rss;
        MemorySplit split;
        MemoryOverTime overTime;
        long heap;
        long pageMem;
        Map<Integer, Long> bytes = new LinkedHashMap<>();
        Map<Integer, Double> perSample = new LinkedHashMap<>();
        long datafiles = 0;
        double idleBytes;
        Readers readers = null;
        long deleted = 0;
        long pagesFlushed;
        long pagesEncodedByCollectors;
        StorageEngine e = StorageEngine.open(cfg);
        try {
            long heapBefore = settledHeap();
            int[] ids = define(e, o.metrics(), o.dimensionsPerChart());
            // a node syncs the metadata every second: the definitions are not held until the end
            e.metadata().sync();
            // what a defined metric costs before (and after) it is collected: registry, hot-page
            // table slots and metadata, all on the heap
            idleBytes = (double) (settledHeap() - heapBefore) / o.metrics();
            // writers own whole charts, so that a chart's dimensions fill their pages together
            int charts = (o.metrics() + o.dimensionsPerChart() - 1) / o.dimensionsPerChart();
            Thread[] threads = new Thread[o.writers()];
            int[][] ranges = new int[o.writers()][];
            AtomicIntegerArray progress = new AtomicIntegerArray(o.writers());
            CyclicBarrier start = new CyclicBarrier(o.writers() + 1);
            AtomicBoolean stop = new AtomicBoolean();
            Throwable[] failure = new Throwable[1];
            for (int w = 0; w < o.writers(); w++) {
                int from = Math.min(o.metrics(), (int) ((long) charts * w / o.writers()) * o.dimensionsPerChart());
                int to = Math.min(o.metrics(), (int) ((long) charts * (w + 1) / o.writers()) * o.dimensionsPerChart());
                int wi = w;
                ranges[w] = new int[]{from, to};
                threads[w] = StrataThreads.newThread(() -> {
                    try {
                        start.await();
                        long cpu0 = threadCpuNanos();
                        gaps[wi] = write(e, o.dataset(), ids, from, to, o.seconds(), progress, wi, stop);
                        writerCpuNanos[wi] = threadCpuNanos() - cpu0;
                    } catch (Throwable t) {
                        synchronized (failure) {
                            failure[0] = t;
                        }
                    }
                }, "bench-writer-" + w);
                threads[w].start();
            }
            try {
                start.await();
            } catch (BrokenBarrierException ex) {
                throw new IllegalStateException(ex);
            }
            long t0 = System.nanoTime();
            long flusherCpu0 = flusherCpuNanos();
            if (o.readers() > 0) {
                readers = new Readers(e, o.dataset(), ids, ranges, progress, o.readers());
                readers.start();
            }
            MemorySampler sampler = new MemorySampler(e, progress, o.seconds());
            long deadline = o.durationSeconds() > 0 ? t0 + (long) (o.durationSeconds() * 1e9) : Long.MAX_VALUE;
            for (Thread t : threads) {
                while (t.isAlive()) {
                    // a writer stores a second of 100 000 metrics in ~20 ms: a millisecond's wait
                    // takes each sample within a few per cent of a second of its moment
                    t.join(1);
                    sampler.poll();
                    if (System.nanoTime() - deadline >= 0) {
                        stop.set(true);
                    }
                }
            }
            if (readers != null) {
                readers.stop();
            }
            if (failure[0] != null) {
                throw new IOException("a writer failed: " + failure[0], failure[0]);
            }
            // memory of the collected state: hot pages full of points, dirty pages in flight
            long[] rssAndPeak = rssAndHighWaterBytes();
            rss = rssAndPeak[0];
            long stored = 0;
            reached = o.seconds();
            for (int w = 0; w < o.writers(); w++) {
                stored += (long) progress.get(w) * (ranges[w][1] - ranges[w][0]);
                reached = Math.min(reached, progress.get(w));
            }
            points = stored;
            overTime = sampler.end(reached, rss, rssAndPeak[1], Math.min(o.seconds(), DiskFormat.pagePoints(0)));
            long[] after = MemorySplit.now(false);
            heap = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
            pageMem = e.pageMemoryBytes();
            e.flush();
            elapsed = (System.nanoTime() - t0) / 1e9;
            flusherCpuNanos = flusherCpuNanos() - flusherCpu0;
            pagesFlushed = e.pagesFlushed();
            pagesEncodedByCollectors = e.pagesEncodedByCollectors();
            // the live heap after a collection: taken after the clock stopped, and after the
            // final flush (which only empties the dirty-page queue)
            after[1] = settledHeap();
            split = new MemorySplit(after[0], before[0], after[1], before[1], after[2], before[2]);
            for (int t = 0; t < cfg.tiers(); t++) {
                deleted += e.tier(t).datafilesDeleted();
            }
        } finally {
            if (readers != null) {
                readers.stop();
            }
            e.close();
        }
        for (int t = 0; t < cfg.tiers(); t++) {
            long b = 0;
            try (var s = Files.list(cfg.tierDir(t))) {
                for (Path p : s.toList()) {
                    b += Files.size(p);
                    if (p.getFileName().toString().endsWith(".ndf")) {
                        datafiles++;
                    }
                }
            }
            bytes.put(t, b);
            double tierPoints = (double) points / cfg.tierStep(t, 1);
            perSample.put(t, b / tierPoints);
        }
        long g = 0;
        for (long x : gaps) {
            g += x;
        }
        ColdScan scan = o.coldScan() ? coldScan(cfg, o.scan()) : null;
        return new Result(o.dataset().name(), o.metrics(), reached, o.writers(), points, g, elapsed,
                points / elapsed, bytes, perSample, rss, rssBaseline, heap, pageMem, (double) rss / o.metrics(),
                (double) (rss - rssBaseline) / o.metrics(), MetricRegistry.bytesPerMetric(cfg.tiers()), datafiles,
                idleBytes, cfg.tiers(), o.readers(), readers == null ? 0 : readers.points(),
                readers == null ? 0 : readers.pointsPerSecond(), readers == null ? 0 : readers.errors(),
                readers == null ? 0 : readers.queries(), deleted, scan, split, overTime, (double) sum(writerCpuNanos) / points,
                (double) flusherCpuNanos / points, pagesFlushed, pagesEncodedByCollectors);
    }

    private static long sum(long[] a) {
        long s = 0;
        for (long x : a) {
            s += x;
        }
        return s;
    }

    /** CPU time of the calling thread, 0 where the JVM does not measure it. */
    private static long threadCpuNanos() {
        var mx = ManagementFactory.getThreadMXBean();
        return mx.isCurrentThreadCpuTimeSupported() ? mx.getCurrentThreadCpuTime() : 0;
    }

    /** CPU time of the engine's flushing thread ("strata-flusher"), 0 where it cannot be measured. */
    private static long flusherCpuNanos() {
        var mx = ManagementFactory.getThreadMXBean();
        if (!mx.isThreadCpuTimeSupported()) {
            return 0;
        }
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("strata-flusher")) {
                return Math.max(0, mx.getThreadCpuTime(t.getId()));
            }
        }
        return 0;
    }

    /**
     * The scan options of the benchmark: four 4 MiB reads in flight, pages decoded on the reading
     * threads (both cores) rather than in file order on one.
     */
    public static final TierScanner.ScanOptions COLD_SCAN = TierScanner.ScanOptions.DEFAULT.withParallelSink(true);

    /** The engine configuration a run of {@code o} writes and scans with. */
    public static EngineConfig config(Options o) {
        EngineConfig cfg = EngineConfig.defaults(o.dir()).withFsync(o.fsync()).withTiers(o.tiers())
                .withDatafileMaxBytes(EngineConfig.MAX_DATAFILE_BYTES).withDirectReads(o.directReads())
                // its own timeline from T0, faster than the clock: no point is "in the future"
                .withFutureMarginSeconds(0).withCacheBytes(o.cacheBytes());
        for (int t = 0; t < o.tiers(); t++) {
            cfg = cfg.withQuota(t, o.quota(t));
        }
        return cfg;
    }

    /**
     * Scans tier 0 of a database a run left in {@code o.dir()} (nothing is written): the cold-scan
     * figures alone, so that variants (reads in flight, direct reads) can alternate on the same
     * data.
     */
    public static ColdScan scanExisting(Options o) throws IOException {
        if (!Files.isDirectory(o.dir())) {
            throw new IOException(o.dir() + ": no database to scan");
        }
        return coldScan(config(o), o.scan());
    }

    /**
     * Reopens the database and scans tier 0 twice, the OS page cache dropped before each: reading
     * and checking every extent, then also decoding every page. The cache is dropped after the
     * engine opened, because opening runs backfill, which reads the newest tier-0 pages.
     */
    private static ColdScan coldScan(EngineConfig cfg, TierScanner.ScanOptions opt) throws IOException {
        double readOnly;
        boolean dropped;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            dropped = dropPageCache();
            long t0 = System.nanoTime();
            e.scanTier(0, null, opt);
            readOnly = (System.nanoTime() - t0) / 1e9;
        }
        try (StorageEngine e = StorageEngine.open(cfg)) {
            dropped &= dropPageCache();
            long t0 = System.nanoTime();
            var st = e.scanTier(0, (msb, lsb, start, step, entries, pts) -> { }, opt);
            double s = (System.nanoTime() - t0) / 1e9;
            return new ColdScan(dropped, st.bytesRead(), st.points(), s, readOnly, cfg.directReads(),
                    opt.readsInFlight(), opt.runBytes());
        }
    }

    /** Writes back dirty pages and drops the clean ones from the OS page cache; false where not permitted. */
    static boolean dropPageCache() {
        try {
            new ProcessBuilder("sync").inheritIO().start().waitFor();
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "1");
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static int[] define(StorageEngine e, int metrics, int perChart) {
        UUID host = UUID.nameUUIDFromBytes("strata-bench-host".getBytes(StandardCharsets.UTF_8));
        e.metadata().upsertHost(new HostInfo(host, "bench", "linux", "UTC", 1, Map.of()));
        int[] ids = new int[metrics];
        for (int m = 0; m < metrics; m++) {
            String chart = "bench.chart" + (m / perChart);
            if (m % perChart == 0) {
                e.metadata().upsertChart(ChartInfo.of(host, chart, 1));
            }
            ids[m] = e.metadata().upsertDimension(DimensionInfo.of(host, chart, "d" + (m % perChart)));
        }
        return ids;
    }

    /**
     * The hot loop: one second at a time over the writer's metrics, until {@code seconds} or
     * {@code stop}. Returns gap points stored.
     */
    private static long write(StorageEngine e, Dataset ds, int[] ids, int from, int to, int seconds,
                              AtomicIntegerArray progress, int writer, AtomicBoolean stop) {
        double[] row = new double[to - from];
        long gaps = 0;
        for (int s = 0; s < seconds && !stop.get(); s++) {
            ds.fill(s, from, to, row);
            long t = T0 + s;
            for (double v : row) {
                if (v != v) {
                    gaps++;
                }
            }
            // a collector's round: all of the writer's metrics at one time, in one batch
            e.storeBatch(ids, from, row, 0, to - from, t, 1, StorageNumber.SN_DEFAULT_FLAGS);
            progress.lazySet(writer, s + 1);
        }
        return gaps;
    }

    /** Heap in use after garbage collection has settled. */
    static long settledHeap() {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }

    /**
     * The RSS once it stops falling after a collection: read every 50 ms until it has fallen by
     * less than 1 MiB over the last 500 ms, for at most 5 s.
     */
    static long settledRssBytes() throws InterruptedException {
        long[] recent = new long[10];
        long rss = rssBytes();
        for (int i = 0; i < 100; i++) {
            recent[i % recent.length] = rss;
            if (i >= recent.length && recent[(i + 1) % recent.length] - rss < (1 << 20)) {
                return rss;
            }
            Thread.sleep(50);
            rss = rssBytes();
        }
        return rss;
    }

    /** Resident set size of this process, from /proc/self/status; 0 where there is none. */
    public static long rssBytes() {
        return statusKilobytes("VmRSS:")[0] * 1024;
    }

    /**
     * The RSS and its high-water mark ({@code {VmRSS, VmHWM}} in bytes) from one read of
     * /proc/self/status, where the kernel reports the high-water mark as at least the RSS it
     * reports. Two reads do not keep that order: the kernel records the mark only at some moments
     * (memory being unmapped), from per-CPU counters it sums approximately there and exactly for
     * the file, so a mark read after an RSS fell can be below that RSS.
     */
    public static long[] rssAndHighWaterBytes() {
        long[] kb = statusKilobytes("VmRSS:", "VmHWM:");
        return new long[]{kb[0] * 1024, kb[1] * 1024};
    }

    /** The kilobytes of each field of /proc/self/status, in one read; 0 for a field missing or unreadable. */
    private static long[] statusKilobytes(String... fields) {
        long[] out = new long[fields.length];
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                for (int i = 0; i < fields.length; i++) {
                    if (line.startsWith(fields[i])) {
                        out[i] = Long.parseLong(line.trim().split("\\s+")[1]);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return new long[fields.length];
        }
        return out;
    }

    private static boolean isEmptyDirectory(Path dir) throws IOException {
        try (var entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }
}
