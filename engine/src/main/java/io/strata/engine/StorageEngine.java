package io.strata.engine;

import io.strata.engine.extent.ExtentReader;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.DirtyPage;
import io.strata.engine.page.HotPageTable;
import io.strata.engine.page.PageMemory;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.recovery.RecoveryReport;
import io.strata.engine.registry.MetricRegistry;
import io.strata.engine.tier.TierStore;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One DBENGINE instance holding the metrics of many hosts: the metric registry, the metadata of
 * hosts, charts and dimensions, hot pages per metric, the flusher, and the datafiles of each tier.
 *
 * <p>Threads: any number of collecting threads call {@link #store} (one thread per metric at a
 * time); one flushing thread writes; any number of readers call {@link #queryTier0}.
 */
public final class StorageEngine implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(StorageEngine.class);

    private final EngineConfig cfg;
    private final MetricRegistry registry;
    private final MetadataStore metadata;
    private final RecoveryReport report;
    private final TierStore[] tiers;
    private final HotPageTable hot0;
    private final PageMemory pageMemory0 = new PageMemory(DiskFormat.TIER0_PAGE_BYTES);
    private final Flusher flusher;
    private final Thread flusherThread;
    private final ReentrantReadWriteLock memoryLock = new ReentrantReadWriteLock();
    private final LongAdder pointsStored = new LongAdder();
    private final LongAdder pointsRejected = new LongAdder();
    private volatile boolean closed;

    private StorageEngine(EngineConfig cfg, MetricRegistry registry, MetadataStore metadata, RecoveryReport report,
                          TierStore[] tiers) {
        this.cfg = cfg;
        this.registry = registry;
        this.metadata = metadata;
        this.report = report;
        this.tiers = tiers;
        long maxAge = cfg.flushMaxAgeMillis() * 1_000_000L;
        this.flusher = new Flusher(tiers, memoryLock, pageMemory0, maxAge, cfg.nanoClock(),
                cfg.fsync() == FsyncPolicy.NEVER ? () -> { } : metadata::sync);
        this.hot0 = new HotPageTable(registry, flusher::accept, pageMemory0, cfg.seed(), cfg.nanoClock());
        this.flusherThread = new Thread(flusher, "strata-flusher");
        this.flusherThread.setDaemon(true);
    }

    /**
     * Opens (creating when missing) the database in {@code cfg.dir()}: reloads the metadata,
     * recovers every tier (see {@link #recoveryReport()} for what was found) and starts the
     * flusher. Never refuses to start over damaged data; fails only when the directory cannot be
     * used at all.
     */
    public static StorageEngine open(EngineConfig cfg) throws IOException {
        cfg.io().createDirectories(cfg.dir());
        RecoveryReport report = new RecoveryReport();
        MetricRegistry registry = new MetricRegistry(cfg.tiers());
        MetadataStore metadata = MetadataStore.open(cfg.io(), cfg.dir(), registry, report);
        TierStore[] tiers = new TierStore[cfg.tiers()];
        try {
            for (int t = 0; t < tiers.length; t++) {
                tiers[t] = TierStore.open(cfg, t, registry, report);
            }
        } catch (IOException | RuntimeException e) {
            for (TierStore t : tiers) {
                if (t != null) {
                    try {
                        t.close();
                    } catch (IOException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
            }
            metadata.close();
            throw e;
        }
        for (RecoveryReport.Finding f : report.findings()) {
            log.warn("recovery: {}", f);
        }
        for (String n : report.notes()) {
            log.info("recovery: {}", n);
        }
        StorageEngine e = new StorageEngine(cfg, registry, metadata, report, tiers);
        e.flusherThread.start();
        return e;
    }

    public MetricRegistry registry() {
        return registry;
    }

    public MetadataStore metadata() {
        return metadata;
    }

    /** What opening the database found and repaired. */
    public RecoveryReport recoveryReport() {
        return report;
    }

    public EngineConfig config() {
        return cfg;
    }

    public TierStore tier(int t) {
        return tiers[t];
    }

    /**
     * Stores a collected value of {@code metric} at unsigned second {@code time}. NaN or infinite
     * values store a gap. {@code flags} are storage-number user flags
     * ({@link StorageNumber#SN_FLAG_RESET}, {@link StorageNumber#SN_FLAG_NOT_ANOMALOUS}).
     * Returns false when the time is not after the metric's last stored point.
     */
    public boolean store(int metric, long time, int updateEvery, double value, int flags) {
        return storeStorageNumber(metric, time, updateEvery, StorageNumber.pack(value, flags));
    }

    /**
     * Stores an already packed storage number (replication stores what the sender had).
     *
     * @throws IllegalArgumentException for an {@code updateEvery} that is not positive or a time
     *                                  outside unsigned 32-bit seconds (what pages can hold)
     */
    public boolean storeStorageNumber(int metric, long time, int updateEvery, int sn) {
        if (updateEvery <= 0 || time <= 0 || time > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("metric " + metric + ": update_every " + updateEvery + " and time "
                    + time + " must be positive, the time below 2^32");
        }
        if (hot0.store(metric, time, updateEvery, sn) == HotPageTable.STORED) {
            pointsStored.increment();
            return true;
        }
        pointsRejected.increment();
        return false;
    }

    /** Stores a gap (a missed collection) at {@code time}. */
    public boolean storeGap(int metric, long time, int updateEvery) {
        return storeStorageNumber(metric, time, updateEvery, StorageNumber.SN_EMPTY_SLOT);
    }

    /**
     * Seals every hot page and waits until all dirty pages are on disk. Collectors must not store
     * meanwhile (shutdown, checkpoints in tests and benchmarks).
     */
    public void flush() throws IOException {
        hot0.sealAll();
        flusher.flush(120_000);
        metadata.sync();
    }

    /** Receives the points of a query, in time order. */
    @FunctionalInterface
    public interface Tier0Consumer {
        /** {@code sn} is a storage number; {@link StorageNumber#SN_EMPTY_SLOT} marks a gap. */
        void point(long time, int sn);
    }

    /**
     * Reads the tier-0 points of {@code metric} in {@code [after, before]} (unsigned seconds) from
     * disk, dirty and hot pages, in time order; returns how many were delivered. A damaged extent
     * is skipped (its points are absent) and counted in {@link #readErrors()}.
     */
    public long queryTier0(int metric, long after, long before, Tier0Consumer out) throws IOException {
        List<TierStore.PageRef> refs = new ArrayList<>();
        int[] points = new int[DiskFormat.pagePoints(0)];
        long delivered = 0;
        long lastTime = -1;
        TierStore t0 = tiers[0];
        memoryLock.readLock().lock();
        t0.readLock().lock();
        try {
            t0.pages(metric, after, before, refs);
            DirtyPage[] dirty = flusher.dirtyPages(metric);
            HotPageTable.HotSnapshot hs = new HotPageTable.HotSnapshot();
            int[] hotPoints = new int[DiskFormat.pagePoints(0)];
            boolean hasHot = hot0.snapshot(metric, hotPoints, hs);
            // Sources in start order: disk pages, then dirty, then hot; overlaps are dropped by time.
            int nd = dirty == null ? 0 : dirty.length;
            int total = refs.size() + nd + (hasHot ? 1 : 0);
            long[] keys = new long[total];
            for (int i = 0; i < total; i++) {
                long start = i < refs.size() ? refs.get(i).startTime()
                        : i < refs.size() + nd ? dirty[i - refs.size()].startTime : hs.startTime;
                keys[i] = (start << 20) | i;
            }
            java.util.Arrays.sort(keys);
            ExtentReader reader = new ExtentReader();
            TierStore.PageRef openExtent = null;
            for (long k : keys) {
                int i = (int) (k & ((1 << 20) - 1));
                long start;
                int ue;
                int n;
                int[] src;
                if (i < refs.size()) {
                    TierStore.PageRef r = refs.get(i);
                    if (openExtent == null || openExtent.file() != r.file() || openExtent.extentOffset() != r.extentOffset()) {
                        ByteBuffer ext = r.file().read(r.extentOffset(), r.extentLength());
                        try {
                            reader.open(ext, r.file().path().toString(), r.extentOffset());
                            openExtent = r;
                        } catch (CorruptionException e) {
                            readErrors.increment();
                            openExtent = null;
                            log.warn("query skipped a damaged extent: {}", e.getMessage());
                            continue;
                        }
                    }
                    try {
                        n = reader.decodeTier0(r.slot(), points);
                    } catch (CorruptionException e) {
                        readErrors.increment();
                        log.warn("query skipped a damaged page: {}", e.getMessage());
                        continue;
                    }
                    start = r.startTime();
                    ue = r.updateEvery();
                    src = points;
                } else if (i < refs.size() + nd) {
                    DirtyPage d = dirty[i - refs.size()];
                    start = d.startTime;
                    ue = d.updateEvery;
                    n = d.entries;
                    io.strata.engine.page.PageCodecTier0.decode(d.encoded, 0, d.encoded.length, points, n);
                    src = points;
                } else {
                    start = hs.startTime;
                    ue = hs.updateEvery;
                    n = hs.entries;
                    src = hotPoints;
                }
                for (int s = 0; s < n; s++) {
                    long tm = start + (long) s * ue;
                    if (tm < after || tm <= lastTime) {
                        continue;
                    }
                    if (tm > before) {
                        break;
                    }
                    out.point(tm, src[s]);
                    lastTime = tm;
                    delivered++;
                }
            }
        } finally {
            t0.readLock().unlock();
            memoryLock.readLock().unlock();
        }
        return delivered;
    }

    private final LongAdder readErrors = new LongAdder();

    /** Points stored since open. */
    public long pointsStored() {
        return pointsStored.sum();
    }

    /** Points refused because their time was not after the metric's last point. */
    public long pointsRejected() {
        return pointsRejected.sum();
    }

    /** Damaged extents or pages met by queries since open. */
    public long readErrors() {
        return readErrors.sum();
    }

    /** Dirty pages waiting for the flusher. */
    public int pendingPages() {
        return flusher.pendingPages();
    }

    /** Off-heap bytes of page memory (hot pages, retired and pooled blocks). */
    public long pageMemoryBytes() {
        return pageMemory0.allocatedBytes();
    }

    public long pagesFlushed() {
        return flusher.pagesFlushed();
    }

    /**
     * Flushes everything and closes the files (SIGTERM's path). Pages that could not be written
     * are reported in the log with their count.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        IOException first = null;
        try {
            flush();
        } catch (IOException e) {
            first = e;
        }
        flusher.stop();
        try {
            flusherThread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int lost = flusher.discardUnwritten();
        if (lost > 0) {
            log.error("closing with {} page(s) that could not be written", lost);
        }
        hot0.freeAll();
        pageMemory0.freePooled();
        for (TierStore t : tiers) {
            try {
                t.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        try {
            metadata.close();
        } catch (IOException e) {
            if (first == null) {
                first = e;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
