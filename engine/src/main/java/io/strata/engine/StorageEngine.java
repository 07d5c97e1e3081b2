package io.strata.engine;

import io.strata.engine.cache.PageCache;
import io.strata.engine.page.HotAggregateTable;
import io.strata.engine.query.AggregateSink;
import io.strata.engine.query.QueryResult;
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
import io.strata.engine.io.DiskFullException;
import io.strata.engine.thread.StrataThreads;
import java.util.concurrent.ConcurrentHashMap;
import java.util.UUID;
import java.time.Instant;

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
    /** Tiers 1..N-1; index 0 unused. */
    private final HotAggregateTable[] hotN;
    private final PageMemory[] pageMemory;
    private final Flusher flusher;
    private final PageCache cache;
    private final TierReader reader;
    private final PastWriter past;
    private final PastRunQueue pastQueue;
    /** Past pages whose tier windows may still need a rebuild (null with a single tier). */
    private final PendingRebuildJournal rebuildJournal;
    private final LongAdder queries = new LongAdder();
    private final Thread flusherThread;
    private final ReentrantReadWriteLock memoryLock = new ReentrantReadWriteLock();
    private final LongAdder collectorRecycles = new LongAdder();
    private final LongAdder pointsSealed = new LongAdder();
    private final LongAdder pointsRejected = new LongAdder();
    private final LongAdder readErrors = new LongAdder();
    private volatile boolean closed;
    /** How long {@link #flush} waits for the disk, and {@link #close} for the flusher to stop (tests shorten it). */
    volatile long flushTimeoutMillis = 120_000;
    /** How long {@link #close} waits for the flusher to stop after its last flush (tests shorten it). */
    volatile long closeJoinMillis = 30_000;

    private StorageEngine(EngineConfig cfg, MetricRegistry registry, MetadataStore metadata, RecoveryReport report,
                          TierStore[] tiers, PendingRebuildJournal rebuildJournal) {
        this.cfg = cfg;
        this.rebuildJournal = rebuildJournal;
        this.registry = registry;
        this.metadata = metadata;
        this.report = report;
        this.tiers = tiers;
        long maxAge = cfg.flushMaxAgeMillis() * 1_000_000L;
        this.pageMemory = new PageMemory[tiers.length];
        for (int t = 0; t < tiers.length; t++) {
            // Hot pages grow as they fill, in granules of 1/16 page (64 bytes for tier 2+).
            pageMemory[t] = PageMemory.forPages(DiskFormat.pageBytes(t));
        }
        this.flusher = new Flusher(tiers, memoryLock, pageMemory, maxAge, cfg.nanoClock(),
                cfg.fsync() == FsyncPolicy.NEVER ? () -> { } : () -> {
                    try {
                        metadata.sync();
                        if (rebuildJournal != null) {
                            // a past page's record before the extent that holds the page
                            rebuildJournal.sync();
                        }
                    } catch (IOException e) {
                        throw DiskFullException.naming(cfg.dir(), e);
                    }
                });
        this.hot0 = new HotPageTable(registry, p -> {
            pointsSealed.add(p.entries);
            flusher.accept(p);
        }, pageMemory[0], cfg.seed(), cfg.nanoClock());
        this.hotN = new HotAggregateTable[tiers.length];
        for (int t = 1; t < tiers.length; t++) {
            hotN[t] = new HotAggregateTable(t, cfg.tierGrouping(), registry, flusher::accept, pageMemory[t], cfg.seed(),
                    cfg.nanoClock());
        }
        if (tiers.length > 1) {
            hot0.setLateAggregator(this::aggregateLate);
            for (int t = 1; t + 1 < tiers.length; t++) {
                hotN[t].setUpper(hotN[t + 1]);
            }
        }
        this.cache = new PageCache(cfg.autoCacheBytes(0) * 3 / 4, cfg.autoCacheBytes(0) / 4);
        this.reader = new TierReader(tiers, flusher, hot0, hotN, memoryLock, cache, readErrors);
        this.past = new PastWriter(registry, cfg, reader, flusher, hotN, pointsSealed, rebuildJournal);
        this.pastQueue = new PastRunQueue(past);
        for (int t = 0; t < tiers.length; t++) {
            tiers[t].addDeletionListener(cache::invalidate);
            int tier = t;
            // When rotation leaves a metric nothing on disk, its first time is its oldest dirty page.
            tiers[t].setMemoryFirstTime(m -> {
                DirtyPage[] d = flusher.dirtyPages(tier, m);
                long first = MetricRegistry.NO_TIME;
                if (d != null) {
                    for (DirtyPage p : d) {
                        if (first == MetricRegistry.NO_TIME || p.startTime < first) {
                            first = p.startTime;
                        }
                    }
                }
                return first;
            });
        }
        flusher.setDirtyLimit(cfg.autoCacheBytes(registry.size()));
        flusher.setPressureListener(this::sizeCache);
        flusher.setClockSeconds(cfg.clockSeconds());
        this.futureLimit = futureLimitNow();
        this.flusherThread = StrataThreads.newThread(flusher, "strata-flusher");
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
        PendingRebuildJournal journal = null;
        if (cfg.tiers() > 1) {
            try {
                journal = PendingRebuildJournal.open(cfg.io(), cfg.dir(), cfg.fsync() != FsyncPolicy.NEVER, registry);
            } catch (IOException | RuntimeException ex) {
                for (TierStore t : tiers) {
                    try {
                        t.close();
                    } catch (IOException suppressed) {
                        ex.addSuppressed(suppressed);
                    }
                }
                metadata.close();
                throw ex;
            }
        }
        StorageEngine e = new StorageEngine(cfg, registry, metadata, report, tiers, journal);
        e.flusherThread.start();
        try {
            Backfill.run(registry, cfg, e.reader, e.hotN);
            // after the backfill, which reopens each tier's open window: windows up to it are
            // rebuilt now, the open one once the tier passes it
            e.past.recover();
        } catch (IOException | RuntimeException ex) {
            try {
                e.close();
            } catch (IOException suppressed) {
                ex.addSuppressed(suppressed);
            }
            throw ex;
        }
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
        if (time > futureLimit && inFuture(metric, time, 1)) {
            return false;
        }
        // No shared counter per point: an atomic add here would drain the store buffer on every
        // sample. Points are counted per sealed page instead.
        // The tiers above get the point from the hot page, late and in bursts (aggregateLate).
        if (hot0.store(metric, time, updateEvery, sn) == HotPageTable.STORED) {
            recycleIfMany();
            return true;
        }
        pointsRejected.increment();
        return false;
    }

    /**
     * Points after this time (unsigned seconds) are checked against the clock: the clock plus the
     * future margin when last computed. It only lags the clock, so a point below it is within the
     * margin without reading the clock; a point above it re-reads the clock ({@link #inFuture}).
     */
    private volatile long futureLimit;
    private final LongAdder pointsInFuture = new LongAdder();
    /** Per host GUID (null key: a metric of no known chart), the points refused as too far ahead. */
    private final ConcurrentHashMap<UUID, FutureRefusals> futureByHost =
            new ConcurrentHashMap<>();
    private static final UUID NO_HOST = new UUID(0, 0);
    private static final long FUTURE_LOG_NANOS = 60_000_000_000L;

    /** Points of one host refused because they were too far ahead of the clock; logged per host. */
    private static final class FutureRefusals {
        final LongAdder points = new LongAdder();
        long lastLogNanos;
        long sinceLog;
        boolean logged;
    }

    private long futureLimitNow() {
        long margin = cfg.futureMarginSeconds();
        return margin == 0 ? Long.MAX_VALUE : cfg.clockSeconds().getAsLong() + margin;
    }

    /**
     * Whether {@code time} is more than the future margin ahead of the clock; if so, counts the
     * {@code points} refused for the metric's host, and logs the host's first refusal and then
     * at most one line a minute per host.
     */
    private boolean inFuture(int metric, long time, int points) {
        long limit = futureLimitNow();
        futureLimit = limit;
        if (time <= limit) {
            return false;
        }
        pointsInFuture.add(points);
        UUID host = hostOf(metric);
        FutureRefusals r = futureByHost.computeIfAbsent(host, h -> new FutureRefusals());
        r.points.add(points);
        long now = cfg.nanoClock().getAsLong();
        synchronized (r) {
            r.sinceLog += points;
            if (!r.logged || now - r.lastLogNanos >= FUTURE_LOG_NANOS) {
                long clock = limit - cfg.futureMarginSeconds();
                log.warn("host {}: refused {} point(s) since the last message ({} in all) stamped more than {} s ahead "
                                + "of this node's clock: metric {} at {} ({}), the clock says {} ({}); the host's clock "
                                + "(or a replayed history) is ahead: fix its clock, or raise [db] dbengine max future "
                                + "time for an accelerated load", host == NO_HOST ? "(unknown)" : host, r.sinceLog,
                        r.points.sum(), cfg.futureMarginSeconds(), metric, time, Instant.ofEpochSecond(time),
                        clock, Instant.ofEpochSecond(clock));
                r.logged = true;
                r.lastLogNanos = now;
                r.sinceLog = 0;
            }
        }
        return true;
    }

    private UUID hostOf(int metric) {
        int chart = registry.chartId(metric);
        if (chart < 0) {
            return NO_HOST;
        }
        try {
            return metadata.chart(chart).hostGuid();
        } catch (RuntimeException e) {
            return NO_HOST;
        }
    }

    /** Points refused since open because they were more than the future margin ahead of the clock. */
    public long pointsInFuture() {
        return pointsInFuture.sum();
    }

    /** {@link #pointsInFuture()} of one host (by its machine GUID). */
    public long pointsInFuture(UUID host) {
        FutureRefusals r = futureByHost.get(host);
        return r == null ? 0 : r.points.sum();
    }

    /** How many metrics a batch store touches together before it stores them. */
    private static final int TOUCH_GROUP = 16;
    /** Where batch stores fold what they touched ahead, so that the JIT keeps the loads. */
    @SuppressWarnings("unused")
    private int touchedAhead;

    /**
     * Stores the values of a collection of several metrics at one time (a chart's dimensions, a
     * collector's round): {@code values[valuesFrom + i]} for {@code metrics[metricsFrom + i]},
     * {@code i < count}. The same as {@link #store} for each in turn — the same pages, byte for
     * byte — but each metric's hot-page memory is loaded a few metrics ahead, so that the cache
     * misses of 100 000 metrics stored in turn overlap instead of stalling one store each.
     * Returns how many values were stored (the others were not after their metric's last point).
     */
    public int storeBatch(int[] metrics, int metricsFrom, double[] values, int valuesFrom, int count, long time,
                          int updateEvery, int flags) {
        if (updateEvery <= 0 || time <= 0 || time > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("update_every " + updateEvery + " and time " + time
                    + " must be positive, the time below 2^32");
        }
        if (count < 0 || metricsFrom < 0 || valuesFrom < 0 || metricsFrom + count > metrics.length
                || valuesFrom + count > values.length) {
            throw new IllegalArgumentException("a batch of " + count + " values from " + valuesFrom + " for metrics from "
                    + metricsFrom + " does not fit arrays of " + values.length + " values and " + metrics.length
                    + " metrics");
        }
        if (time > futureLimit && count > 0 && inFuture(metrics[metricsFrom], time, count)) {
            return 0;
        }
        int touched = 0;
        int stored = 0;
        for (int g = 0; g < count; g += TOUCH_GROUP) {
            int end = Math.min(count, g + TOUCH_GROUP);
            // A tight loop of independent loads: the group's cache misses are all in flight at
            // once (a load must complete before it retires, so loads spread between the stores
            // would each stall on their own), and the stores after it hit.
            for (int i = g; i < end; i++) {
                touched += hot0.touch(metrics[metricsFrom + i]);
            }
            for (int i = g; i < end; i++) {
                int sn = StorageNumber.pack(values[valuesFrom + i], flags);
                if (hot0.store(metrics[metricsFrom + i], time, updateEvery, sn) == HotPageTable.STORED) {
                    stored++;
                } else {
                    pointsRejected.increment();
                }
            }
        }
        touchedAhead = touched;
        recycleIfMany();
        return stored;
    }

    /**
     * Retired hot-page blocks past which a collector recycles them itself, when no reader holds
     * page memory at that instant (the flusher recycles once per turn, about a second: a
     * collector storing faster than real time — a replay, a backfill, the benchmark — retires
     * hundreds of megabytes of blocks between two turns, which the process then keeps).
     */
    static final int RECYCLE_RETIRED_ABOVE = 4096;

    private void recycleIfMany() {
        for (PageMemory m : pageMemory) {
            if (m.retiredBlocksRacy() > RECYCLE_RETIRED_ABOVE) {
                tryRecycle();
                return;
            }
        }
    }

    /** Recycles retired blocks if no reader copies page memory now; never waits. */
    private void tryRecycle() {
        if (flusher.tryRecycle()) {
            collectorRecycles.increment();
        }
    }

    /** How many times a collector recycled retired page memory itself (see {@link #RECYCLE_RETIRED_ABOVE}). */
    public long collectorRecycles() {
        return collectorRecycles.sum();
    }

    /** Hands tier-0 points to the tiers above, late and in bursts (see {@link HotAggregateTable#addSlots}). */
    private long aggregateLate(int metric, long page, long start, int updateEvery, int from, int to) {
        return HotAggregateTable.addSlots(hotN, metric, page, start, updateEvery, from, to);
    }

    /**
     * Stores a run of tier-0 points behind {@code metric}'s newest stored point (a hole filled
     * later: a replication answer for seconds before the newest one): {@code sns[from + i]} at
     * {@code firstTime + i × updateEvery}, {@code i < count}, as packed storage numbers
     * ({@link StorageNumber#SN_EMPTY_SLOT} for a slot the run lacks). Only slots where the metric
     * holds no value are filled: a stored value always wins, a stored gap is filled (see
     * {@link PastWriter} for the rule the readers share). Points after the metric's newest one
     * are not stored (they are for {@link #store}); nothing is stored for a metric without any
     * point. The run becomes pages of its own that go to disk like every page, and the windows of
     * the higher tiers that cover it are rebuilt. The same writer as the metric's {@link #store}
     * calls it; it reads the range first, so it costs a query of the range per page.
     *
     * @return the values stored (gaps and held slots not counted)
     * @throws IllegalArgumentException for an {@code updateEvery} that is not positive, a time
     *                                  outside unsigned 32-bit seconds or a range outside {@code sns}
     */
    public int storePast(int metric, long firstTime, int updateEvery, int[] sns, int from, int count)
            throws IOException {
        return past.store(metric, firstTime, updateEvery, sns, from, count);
    }

    /**
     * {@link #storePast} on the engine's past-writer thread, for a caller that must not block on
     * the disk (a receiver on an event loop): the run's points before the metric's newest second
     * are copied and queued (the newest second itself, which a replication answer usually
     * repeats, is left out without a read). Returns false when the
     * queue is full (the run is not stored; counted in {@link #pastRunsRefused()}). {@link #flush}
     * waits for the queued runs.
     *
     * @throws IllegalArgumentException as {@link #storePast}
     */
    public boolean submitPast(int metric, long firstTime, int updateEvery, int[] sns, int from, int count) {
        return pastQueue.submit(metric, firstTime, updateEvery, sns, from, count);
    }

    /** From now on, {@code l} is told of every page {@link #storePast} stores (see {@link PastPageListener}). */
    public void addPastPageListener(PastPageListener l) {
        past.addListener(l);
    }

    public void removePastPageListener(PastPageListener l) {
        past.removeListener(l);
    }

    /** Runs {@link #submitPast} refused since open because runs were waiting already. */
    public long pastRunsRefused() {
        return pastQueue.refused();
    }

    /** Submitted runs whose store failed since open (an I/O error reading their range). */
    public long pastRunsFailed() {
        return pastQueue.failed();
    }

    /** Values stored since open by {@link #storePast} (behind their metric's newest point). */
    public long pastPointsStored() {
        return past.pointsStored();
    }

    /** Values offered to {@link #storePast} since open at slots where their metric already held a value (kept). */
    public long pastPointsHeld() {
        return past.pointsHeld();
    }

    /** Windows of tiers 1+ rebuilt since open over ranges {@link #storePast} filled. */
    public long tierWindowsRebuilt() {
        return past.windowsRebuilt();
    }

    /** Past ranges whose higher-tier windows were still open, waiting to be rebuilt once written. */
    public int pendingTierRebuilds() {
        return past.pendingRebuilds();
    }

    /** Past pages in the pending tier-rebuild journal ({@code past-rebuilds}) now. */
    public int pendingRebuildJournalRecords() {
        return rebuildJournal == null ? 0 : rebuildJournal.size();
    }

    /** Records of the pending tier-rebuild journal found damaged and skipped at open (a foreign file counts 1). */
    public long pendingRebuildJournalRecordsDamaged() {
        return rebuildJournal == null ? 0 : rebuildJournal.damagedAtOpen();
    }

    /** Past pages not recorded in the pending tier-rebuild journal since open (full, or a write failed). */
    public long pendingRebuildsNotRecorded() {
        return rebuildJournal == null ? 0 : rebuildJournal.notRecorded();
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
        try {
            if (!pastQueue.awaitIdle(flushTimeoutMillis)) {
                log.warn("flush: runs behind their metrics' newest points still queued after {} ms", flushTimeoutMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the queued past runs", e);
        }
        past.drainPending();
        hot0.sealAll();
        for (int t = 1; t < hotN.length; t++) {
            hotN[t].sealAll();
        }
        flusher.flush(flushTimeoutMillis);
        metadata.sync();
        // every page is on disk now, the rebuilt windows too: their records can go
        past.compactJournal(true);
    }

    /** Receives the points of a query, in time order. */
    @FunctionalInterface
    public interface Tier0Consumer {
        /** {@code sn} is a storage number; {@link StorageNumber#SN_EMPTY_SLOT} marks a gap. */
        void point(long time, int sn);
    }

    /**
     * Reads the tier-0 points of {@code metric} in {@code [after, before]} (unsigned seconds) as
     * stored, from disk, dirty and hot pages, in time order; returns how many were delivered. A
     * damaged extent is skipped (its points are absent) and counted in {@link #readErrors()}.
     */
    public long queryTier0(int metric, long after, long before, Tier0Consumer out) throws IOException {
        sizeCache();
        long[] delivered = new long[1];
        reader.read(0, metric, after, before, after - 1, (TierReader.StorageNumberSink) (time, step, sn) -> {
            out.point(time, sn);
            delivered[0]++;
        });
        return delivered[0];
    }

    /** Receives tier-0 points a run at a time: {@code sns[from..to)} are at {@code firstTime + i * step}. */
    @FunctionalInterface
    public interface Tier0RunConsumer {
        void points(int[] sns, int from, int to, long firstTime, long step);
    }

    /**
     * {@link #queryTier0(int, long, long, Tier0Consumer)} a page's run at a time: for readers that copy
     * the storage numbers out (a replication answer), one call per page instead of one per point. The
     * array is the engine's; it is valid only during the call. Returns the points delivered.
     */
    public long queryTier0Runs(int metric, long after, long before, Tier0RunConsumer out) throws IOException {
        sizeCache();
        long[] delivered = new long[1];
        reader.read(0, metric, after, before, after - 1, (TierReader.StorageNumberRunSink) (sns, from, to, first, step) -> {
            out.points(sns, from, to, first, step);
            delivered[0] += to - from;
        });
        return delivered[0];
    }

    /**
     * Queries {@code metric} (collected every {@code updateEvery} seconds) over {@code (after,
     * before]} for about {@code points} output points (0: one per collected point): chooses the
     * tier, stitches tiers where one lacks the range, and delivers per output point the sum, min,
     * max, count and anomaly count of what was stored; gaps have count 0. Thread-safe; runs
     * beside collection and flushing.
     */
    public QueryResult query(int metric, int updateEvery, long after, long before, int points, AggregateSink out)
            throws IOException {
        queries.increment();
        sizeCache();
        return QueryExecutor.run(reader, registry, cfg, metric, updateEvery, after, before, points, out);
    }

    /**
     * Reads every page of {@code tier} from disk in file order, whole runs of extents at a time,
     * decoding each page for {@code sink} (whole-tier checks, the cold-scan benchmark); pages as
     * written, overlapping ones unmerged (see {@link TierScanner});
     * with a null sink, every extent is read and its checksum verified, nothing decoded.
     * Pages reach {@code sink} on the calling thread in file order; several reads are in flight
     * ({@link TierScanner.ScanOptions#DEFAULT}).
     * Rotation goes on meanwhile: the datafiles the scan planned stay open until it ends.
     */
    public TierScanner.Stats scanTier(int tier, TierScanner.PageSink sink) throws IOException {
        return TierScanner.scan(tiers[tier], sink);
    }

    /**
     * As {@link #scanTier(int, TierScanner.PageSink)} with the reads in flight, the run size and
     * the delivery chosen: with {@link TierScanner.ScanOptions#parallelSink()} the pages are
     * decoded on every reading thread and {@code sink} must be thread-safe.
     */
    public TierScanner.Stats scanTier(int tier, TierScanner.PageSink sink, TierScanner.ScanOptions options)
            throws IOException {
        return TierScanner.scan(tiers[tier], sink, options);
    }

    private volatile int cacheSizedFor = -1;
    private volatile long cleanSizedFor = -1;

    /**
     * Memory is sized from the number of metrics: the main cache's bound ({@link
     * EngineConfig#autoCacheBytes}) follows the registry. It covers clean and dirty pages: the
     * clean caches get what the dirty pages leave (critical eviction of clean pages when dirty
     * pages grow), and the flusher drops the oldest dirty pages when they alone pass it. Called
     * by queries and on every turn of the flusher; cheap when nothing changed.
     */
    private void sizeCache() {
        int n = registry.size();
        long bound = cfg.autoCacheBytes(n);
        long clean = Math.max(0, bound - flusher.dirtyBytes());
        long was = cleanSizedFor;
        if (n != cacheSizedFor || Math.abs(clean - was) > bound / 16 || (clean == 0 && was != 0)) {
            cacheSizedFor = n;
            cleanSizedFor = clean;
            flusher.setDirtyLimit(bound);
            cache.resize(clean * 3 / 4, clean / 4);
        }
    }

    /** {@link #query} with the update_every of the metric's chart, from the metadata. */
    public QueryResult query(int metric, long after, long before, int points, AggregateSink out) throws IOException {
        int chart = registry.chartId(metric);
        int ue = chart >= 0 ? metadata.chart(chart).updateEvery() : 1;
        return query(metric, ue, after, before, points, out);
    }


    /** The points of {@code metric} in {@code tier} over {@code [after, before]} as the readers merge them (tests). */
    long readTier(int tier, int metric, long after, long before, TierReader.PointSink out) throws IOException {
        return reader.read(tier, metric, after, before, after - 1, out);
    }

    /** Dirty pages whose points queries delivered since open (for tests: pages outside a range are not read). */
    long dirtyPagesReadByQueries() {
        return reader.dirtyPagesRead();
    }

    /** Tier-0 points (gap points included) in pages sealed since open; points of hot pages are not counted yet. */
    public long pointsStored() {
        return pointsSealed.sum();
    }

    /** Points refused because their time was not after the metric's last point. */
    public long pointsRejected() {
        return pointsRejected.sum();
    }

    /** Damaged extents or pages met by queries since open. */
    public long readErrors() {
        return readErrors.sum();
    }

    /**
     * Unexpected failures of the flusher since open (a {@code RuntimeException} or an
     * {@code Error} out of a write, an encoding or a rotation): it survives them, keeps the batch
     * and retries it. Write errors of the disk ({@code IOException}) are not counted here.
     */
    public long flusherFailures() {
        return flusher.unexpectedFailures();
    }

    /** Dirty pages waiting for the flusher. */
    public int pendingPages() {
        return flusher.pendingPages();
    }

    /** Estimated heap bytes of the dirty pages waiting for the flusher. */
    public long dirtyBytes() {
        return flusher.dirtyBytes();
    }

    /**
     * Dirty pages dropped since open by critical eviction: they passed the main cache's bound
     * because the disk did not keep up (or failed); their points are lost.
     */
    public long pagesDropped() {
        return flusher.pagesDropped();
    }

    /** Receives the disk backlog's transitions ({@link #setDiskBacklogListener}). */
    @FunctionalInterface
    public interface DiskBacklogListener {
        /**
         * {@code high}: the pages waiting for the disk passed the main cache's bound (stop
         * reading from receivers' sockets); not {@code high}: they dropped back under 3/4 of it
         * (resume). Called on the flusher's thread or on a collecting thread, once per
         * transition, alternately; must not block nor store into the engine.
         *
         * @param waitingBytes the encoded dirty pages waiting for the disk, in bytes
         * @param boundBytes   the main cache's bound
         */
        void diskBacklog(boolean high, long waitingBytes, long boundBytes);
    }

    /**
     * What happens to dirty pages past the main cache's bound when the disk does not keep up.
     * {@code DROP_OLDEST} (the default, a child, which has nowhere to push back to): the oldest
     * are dropped and counted ({@link #pagesDropped()}), memory stays bounded. {@code KEEP} (a
     * parent): every page is kept until written, and the node stops reading from its receivers
     * while {@link #diskBacklogHigh()} (children buffer, then replication fills what they could
     * not hold), so that memory grows only by what is in flight.
     */
    public enum DirtyPagePolicy { DROP_OLDEST, KEEP }

    public void setDirtyPagePolicy(DirtyPagePolicy policy) {
        flusher.setKeepDirtyPages(policy == DirtyPagePolicy.KEEP);
    }

    /** Tells {@code listener} each time the disk backlog passes the bound and drops back under 3/4 of it. */
    public void setDiskBacklogListener(DiskBacklogListener listener) {
        flusher.setBacklogListener(listener);
    }

    /** The flusher, for tests of this package. */
    Flusher flusher() {
        return flusher;
    }

    /** Whether the pages waiting for the disk are over the bound (and not yet back under 3/4 of it). */
    public boolean diskBacklogHigh() {
        return flusher.backlogHigh();
    }

    /** Points of the {@link #pagesDropped()} pages. */
    public long pointsDropped() {
        return flusher.pointsDropped();
    }

    /** Off-heap bytes of page memory (hot pages, retired and pooled blocks). */
    public long pageMemoryBytes() {
        long b = 0;
        for (PageMemory m : pageMemory) {
            b += m.allocatedBytes();
        }
        return b;
    }

    public PageCache cache() {
        return cache;
    }

    public long pagesFlushed() {
        return flusher.pagesFlushed();
    }

    /**
     * Tier-0 pages the collectors encoded themselves since open, because the flusher had more
     * than {@code Flusher.RAW_BACKLOG_BYTES} of raw pages waiting (normally it encodes them all).
     */
    public long pagesEncodedByCollectors() {
        return flusher.pagesEncodedByCollectors();
    }

    /**
     * Flushes everything and closes the files (SIGTERM's path). Pages that could not be written
     * are reported in the log with their count.
     */
    private volatile boolean released;

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
        try {
            pastQueue.stop(closeJoinMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        flusher.stop();
        try {
            flusherThread.join(closeJoinMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (flusherThread.isAlive()) {
            // A write that hangs (a dead disk, an NFS server gone): the flusher still owns its
            // batch, the page memory its raw pages point into, the tiers' files and the metadata
            // log. Discarding or freeing them under it corrupted its batch (and could make it read
            // freed memory), and closing a tier waited on the write forever. Leave them to it: if
            // the write ever returns, the flusher writes what it holds and stops.
            log.error("closing: the flusher did not stop within {} ms (a write hangs?); its {} page(s), the page "
                    + "memory and the files are left open to it", closeJoinMillis, flusher.pendingPages());
            IOException stuck = new IOException("the flusher did not stop within " + closeJoinMillis
                    + " ms; pages and files left to it");
            if (first != null) {
                stuck.addSuppressed(first);
            }
            // once the write returns and the flusher stops, the rest of the close frees what it held
            Thread finisher = StrataThreads.newDaemonThread(() -> {
                try {
                    flusherThread.join();
                    releaseAfterFlusher(null);
                    log.info("closing: the hung write returned; the flusher stopped and the engine is closed");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (IOException | RuntimeException e) {
                    log.warn("closing after the hung write returned: {}", e.toString());
                }
            }, "strata-close-after-flusher");
            finisher.start();
            throw stuck;
        }
        releaseAfterFlusher(first);
    }

    /** Whether everything the engine held is released (after a close whose flusher hung, only once it stopped). */
    public boolean released() {
        return released;
    }

    /** The part of {@link #close()} that runs once the flusher has stopped. */
    private void releaseAfterFlusher(IOException first) throws IOException {
        int lost = flusher.discardUnwritten();
        if (lost > 0) {
            log.error("closing with {} page(s) that could not be written", lost);
        }
        hot0.freeAll();
        for (int t = 1; t < hotN.length; t++) {
            hotN[t].freeAll();
        }
        for (PageMemory m : pageMemory) {
            m.freePooled();
        }
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
        if (rebuildJournal != null) {
            try {
                rebuildJournal.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        released = true;
        if (first != null) {
            throw first;
        }
    }
}
