package io.strata.engine.tier;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.datafile.DataFile;
import io.strata.engine.datafile.OpenPageIndex;
import io.strata.engine.datafile.PageIndex;
import io.strata.engine.extent.ExtentWriter;
import io.strata.engine.io.FileIo;
import io.strata.engine.journal.JournalV1Writer;
import io.strata.engine.journal.JournalV2;
import io.strata.engine.page.DirtyPage;
import io.strata.engine.recovery.DatafileRecovery;
import io.strata.engine.recovery.RecoveryReport;
import io.strata.engine.registry.MetricRegistry;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.IntToLongFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.strata.engine.extent.DatafileMetrics;
import io.strata.engine.extent.PageDescriptor;
import java.nio.file.Files;
import java.util.concurrent.atomic.LongAdder;

/**
 * The datafiles of one tier: recovers them on open, appends extents to the newest (with its
 * journal v1 transaction), closes a full datafile by writing its journal v2 and begins the next,
 * and finds the pages of a metric for readers.
 *
 * <p>Writes come from the flushing thread only. Readers take the read lock while they hold page
 * references; the write lock is taken only to change the list of datafiles or swap an index.
 *
 * <p>Rotation and retention ({@link TierRetention}, {@code docs/format/datafile.md} "Rotation"): the
 * tier keeps a running count of the bytes of its datafiles and journals; when a new datafile
 * begins, the oldest datafiles are deleted while the tier is over its quota, and
 * {@link #enforceRetention} also deletes those older than the maximum age. Writing, rotation and
 * closing are serialised by this object's monitor.
 */
public final class TierStore implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(TierStore.class);

    private final int tier;
    private final EngineConfig cfg;
    private final FileIo io;
    private final Path dir;
    private final MetricRegistry registry;
    final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** Oldest first; changed only under the write lock, by the writer. */
    final List<Datafile> files = new ArrayList<>();
    /** The datafile being written; null after a close whose successor could not be begun yet. */
    Datafile current;
    private final TierRetention retention;
    private JournalV1Writer journal;
    private int nextFileno = 1;
    /** The highest file number seen at open, kept or not (a datafile of another format version). */
    private int highestFileno;
    private boolean journalBroken;
    private volatile long extentsWritten;
    private volatile long writeFailures;

    /** A datafile and the index of its pages (journal v2 once closed, in memory while open). */
    public static final class Datafile {
        public final DataFile file;
        volatile PageIndex index;
        /**
         * The in-memory page index while the datafile is written, or when it has no journal v2;
         * null once the journal v2 replaced it (it held 21 bytes a page and 3 ints a metric:
         * kept for every closed datafile, it made the heap grow with the data written).
         */
        OpenPageIndex open;
        /** The metric table of the datafile being written; null once it is closed or recovered. */
        DatafileMetrics metrics;
        /** Bytes of the datafile and its journals in the tier's running count (writer only). */
        long accounted;
        /** Earliest page start and latest point of the pages it holds; NO_TIME when none. */
        volatile long firstTime = MetricRegistry.NO_TIME;
        volatile long lastTime = MetricRegistry.NO_TIME;

        Datafile(DataFile file, PageIndex index, OpenPageIndex open) {
            this.file = file;
            this.index = index;
            this.open = open;
            this.metrics = null;
        }

        Datafile(DataFile file, OpenPageIndex open, DatafileMetrics metrics) {
            this.file = file;
            this.index = open;
            this.open = open;
            this.metrics = metrics;
        }

        public PageIndex index() {
            return index;
        }

        /** The earliest page start it holds (unsigned seconds), or {@link MetricRegistry#NO_TIME}. */
        public long firstTime() {
            return firstTime;
        }

        /** The time of the newest point it holds, or {@link MetricRegistry#NO_TIME}. */
        public long lastTime() {
            return lastTime;
        }

        void widen(long first, long last) {
            if (firstTime == MetricRegistry.NO_TIME || first < firstTime) {
                firstTime = first;
            }
            if (last > lastTime) {
                lastTime = last;
            }
        }
    }

    /** A page found for a reader; valid while the reader holds {@link #readLock()}. */
    public record PageRef(DataFile file, long extentOffset, int extentLength, int slot, long startTime,
                          int updateEvery, int entries, int type) {
        public long endTime() {
            return startTime + (long) (entries - 1) * updateEvery;
        }
    }

    private TierStore(int tier, EngineConfig cfg, MetricRegistry registry) {
        this.tier = tier;
        this.cfg = cfg;
        this.io = cfg.io();
        this.dir = cfg.tierDir(tier);
        this.registry = registry;
        this.retention = new TierRetention(this, tier, cfg, io, dir, registry);
    }

    /**
     * Opens the tier: recovers every datafile, rotates the tier down to its quota when it is over
     * it (logged), then begins a new datafile for writing.
     */
    public static TierStore open(EngineConfig cfg, int tier, MetricRegistry registry, RecoveryReport report)
            throws IOException {
        TierStore t = new TierStore(tier, cfg, registry);
        t.recover(report);
        t.nextFileno = Math.max(t.highestFileno, t.files.isEmpty() ? 0 : t.files.get(t.files.size() - 1).file.fileno()) + 1;
        for (Datafile d : t.files) {
            t.retention.recount(d);
        }
        t.retention.atOpen();
        t.beginDatafile();
        return t;
    }

    private void recover(RecoveryReport report) throws IOException {
        io.createDirectories(dir);
        cleanLeftovers(report);
        for (Path p : io.list(dir)) {
            String name = p.getFileName().toString();
            if (name.endsWith(".tmp")) {
                io.delete(p);
                report.note(p + ": leftover of an interrupted write, deleted");
                continue;
            }
            int fileno = DiskFormat.parseDatafileNumber(name, tier);
            if (fileno < 0) {
                continue;
            }
            Path v1 = dir.resolve(DiskFormat.journalV1Name(tier, fileno));
            Path v2 = dir.resolve(DiskFormat.journalV2Name(tier, fileno));
            if (io.size(p) <= DiskFormat.DATAFILE_SUPERBLOCK_SIZE) {
                // Created but never given an extent (a stop, or a kill, right after creation):
                // there is nothing in it to keep or to lose.
                io.delete(p);
                io.delete(v1);
                io.delete(v2);
                report.note(p + ": a datafile without extents, deleted");
                continue;
            }
            int version = DataFile.superblockVersion(io, p, DiskFormat.DATAFILE_MAGIC);
            if (version > 0 && version != DiskFormat.DATAFILE_VERSION) {
                // An intact superblock of another format version: not ours to read or repair.
                highestFileno = Math.max(highestFileno, fileno);
                report.add(p.toString(), 8, "datafile of format version " + version + ", this engine reads version "
                        + DiskFormat.DATAFILE_VERSION, "left untouched and not used (its points are not readable)");
                continue;
            }
            DataFile df;
            try {
                df = DataFile.open(io, p, tier, fileno);
            } catch (CorruptionException e) {
                df = DataFile.openUnchecked(io, p, tier, fileno);
                df.rewriteSuperblock();
                report.add(p.toString(), e.offset(), e.problem(), "superblock rewritten (it holds only magic, "
                        + "version, tier and file number); extents are read from offset " + DiskFormat.DATAFILE_SUPERBLOCK_SIZE);
            }
            directReads(df);
            if (io.exists(v2)) {
                try {
                    JournalV2 j2 = JournalV2.open(io, v2, tier, fileno, df.size());
                    Datafile d = new Datafile(df, j2, null);
                    long[] range = learn(j2);
                    d.widen(range[0], range[1]);
                    files.add(d);
                    continue;
                } catch (CorruptionException e) {
                    report.note(v2 + ": " + e.problem() + "; rebuilt from journal v1");
                    io.delete(v2);
                } catch (IOException | RuntimeException e) {
                    report.note(v2 + ": unreadable (" + e + "); rebuilt from journal v1");
                }
            }
            DatafileRecovery.Outcome o = DatafileRecovery.rebuild(io, df, v1, registry, report, true);
            long[] range = learn(o.index());
            if (o.extents() == 0) {
                df.close();
                io.delete(p);
                io.delete(v1);
                continue;
            }
            log.info("tier {} datafile {}: recovered {} extent(s) ({} not journaled, {} damaged)", tier, fileno,
                    o.extents(), o.recoveredUnjournaled(), o.damagedExtents());
            PageIndex idx = o.index();
            try {
                JournalV2.write(io, dir, tier, fileno, df.size(), o.index(), registry);
                idx = JournalV2.open(io, v2, tier, fileno, df.size());
            } catch (IOException | CorruptionException e) {
                report.note(v2 + ": could not be written (" + e.getMessage() + "); the index stays in memory");
            }
            Datafile d = new Datafile(df, idx, idx instanceof OpenPageIndex op ? op : null);
            d.widen(range[0], range[1]);
            files.add(d);
        }
    }

    /**
     * Removes what interrupted work leaves: directories of a journal rebuild, and journals whose
     * datafile is gone (a datafile is deleted before its journals).
     */
    private void cleanLeftovers(RecoveryReport report) throws IOException {
        try (var s = Files.newDirectoryStream(dir, ".rebuild-*")) {
            for (Path d : s) {
                for (Path f : io.list(d)) {
                    io.delete(f);
                }
                io.delete(d);
                report.note(d + ": leftover of an interrupted journal rebuild, deleted");
            }
        }
        for (Path p : io.list(dir)) {
            String name = p.getFileName().toString();
            if (!name.startsWith("journalfile-" + tier + "-")) {
                continue;
            }
            String df = name.replace("journalfile-", DiskFormat.DATAFILE_PREFIX)
                    .replace(DiskFormat.JOURNAL_V2_SUFFIX, DiskFormat.DATAFILE_SUFFIX)
                    .replace(DiskFormat.JOURNAL_V1_SUFFIX, DiskFormat.DATAFILE_SUFFIX);
            if (df.endsWith(DiskFormat.DATAFILE_SUFFIX) && !io.exists(dir.resolve(df))) {
                io.delete(p);
                report.note(p + ": journal without its datafile, deleted");
            }
        }
    }

    /** Widens the registry times of the metrics in {@code idx}; returns its time range {first, last}. */
    private long[] learn(PageIndex idx) {
        long[] range = {MetricRegistry.NO_TIME, MetricRegistry.NO_TIME};
        idx.forEachMetric((msb, lsb, first, last, pages) -> {
            int id = registry.register(msb, lsb, -1);
            registry.extend(id, tier, first, last);
            if (range[0] == MetricRegistry.NO_TIME || first < range[0]) {
                range[0] = first;
            }
            range[1] = Math.max(range[1], last);
        });
        return range;
    }

    private void beginDatafile() throws IOException {
        // Rotation point: the datafile just closed counts, the next one does not exist yet.
        enforceQuota();
        int fileno = nextFileno;
        DataFile df = DataFile.create(io, dir, tier, fileno);
        directReads(df);
        JournalV1Writer j;
        try {
            j = JournalV1Writer.create(io, dir, tier, fileno);
        } catch (IOException e) {
            df.close();
            io.delete(df.path());
            throw e;
        }
        OpenPageIndex idx = new OpenPageIndex(registry);
        Datafile d = new Datafile(df, idx, new DatafileMetrics());
        lock.writeLock().lock();
        try {
            files.add(d);
            current = d;
            rebuildRanges();
            journal = j;
            journalBroken = false;
            nextFileno = fileno + 1;
        } finally {
            lock.writeLock().unlock();
        }
        retention.grew(d, df.size() + j.size());
    }

    private boolean directReadsRefused;

    /** Reads of {@code df} bypass the OS page cache when configured and allowed (logged once when not). */
    private void directReads(DataFile df) {
        if (!cfg.directReads() || directReadsRefused) {
            return;
        }
        if (!df.useDirectReads(io)) {
            directReadsRefused = true;
            log.warn("tier {}: direct I/O (O_DIRECT) refused for {}; reads of this tier stay buffered", tier,
                    df.path());
        }
    }

    /** Deletes the oldest datafiles while over quota; a failure never stops the writer. */
    private void enforceQuota() {
        try {
            retention.enforce(0, false);
        } catch (RuntimeException e) {
            log.error("tier {}: rotation failed: {}", tier, e.toString(), e);
        }
    }

    /**
     * Writes {@code pages[from, to)} as one extent. On failure nothing is indexed and the caller
     * keeps the pages to try again; the datafile is left at a clean extent boundary.
     */
    public synchronized void write(ExtentWriter w, List<DirtyPage> pages, int from, int to) throws IOException {
        if (current == null) {
            beginDatafile();
        }
        ByteBuffer ext = w.build(pages, from, to, current.metrics);
        if (current.file.size() + ext.limit() > cfg.datafileMaxBytes(tier) && current.open.extentCount() > 0) {
            current.metrics.rollback();
            closeCurrent();
            beginDatafile();
            // the metric numbers belong to the datafile: build it again for the new one
            ext = w.build(pages, from, to, current.metrics);
        }
        int len = ext.limit();
        long journalBefore = journal.size();
        long offset;
        try {
            offset = current.file.append(ext);
        } catch (IOException | RuntimeException | Error e) {
            // whatever failed (the disk, or a bug below), the metric numbers of this extent are
            // not in the file: the retry numbers them again
            current.metrics.rollback();
            writeFailures++;
            throw e;
        }
        if (cfg.fsync() == FsyncPolicy.PER_EXTENT) {
            try {
                current.file.sync();
            } catch (IOException e) {
                // After a failed fsync the page cache cannot be trusted to reach the disk: undo
                // the append, so that the retry writes the extent once, journaled.
                writeFailures++;
                current.metrics.rollback();
                try {
                    current.file.truncate(offset);
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
        current.metrics.commit();
        if (!journalBroken) {
            try {
                journal.append(offset, len, w.table(), w.firstNewNumber());
                if (cfg.fsync() == FsyncPolicy.PER_EXTENT) {
                    journal.sync();
                }
            } catch (IOException e) {
                // The extent is whole in the datafile, so it is kept and indexed; the journal is
                // rewritten from the datafile when the datafile closes, and recovery finds the
                // extent by scanning should we crash first.
                journalBroken = true;
                log.warn("tier {}: journal v1 append failed ({}); it will be rewritten when datafile {} closes",
                        tier, e.getMessage(), current.file.fileno());
            }
        }
        PageDescriptor[] ds = w.table().pages;
        int n = w.pageCount();
        // widened before the pages are indexed: a reader never prunes a datafile whose index
        // already holds pages of its range
        for (int i = 0; i < n; i++) {
            current.widen(ds[i].startTime, ds[i].endTime());
        }
        current.open.addExtent(offset, len, ds, n);
        retention.grew(current, len + journal.size() - journalBefore);
        extentsWritten++;
    }

    /** Closes the current datafile (sync, journal v2) and begins the next. */
    public synchronized void rollover() throws IOException {
        closeCurrent();
        beginDatafile();
    }

    /**
     * Closes the current datafile: sync, journal v2, index swap. A failed sync leaves it open
     * (and throws); after the journal is closed the datafile is never written again, whatever
     * happens to its journal v2.
     */
    private void closeCurrent() throws IOException {
        Datafile d = current;
        if (d == null) {
            return;
        }
        // Whatever the policy, the datafile reaches the device before the journal v2 that
        // describes it exists: a v2 is trusted without reading the extents it points to.
        d.file.sync();
        if (cfg.fsync() != FsyncPolicy.NEVER) {
            journal.sync();
        }
        journal.close();
        lock.writeLock().lock();
        try {
            current = null;
            journal = null;
            rebuildRanges();
        } finally {
            lock.writeLock().unlock();
        }
        Path v1 = dir.resolve(DiskFormat.journalV1Name(tier, d.file.fileno()));
        if (journalBroken) {
            DatafileRecovery.rebuild(io, d.file, v1, registry, new RecoveryReport(), true);
        }
        if (d.open.extentCount() == 0) {
            retention.removeEmpty(d);
            return;
        }
        Path v2 = dir.resolve(DiskFormat.journalV2Name(tier, d.file.fileno()));
        try {
            JournalV2.write(io, dir, tier, d.file.fileno(), d.file.size(), d.open, registry);
            JournalV2 j2 = JournalV2.open(io, v2, tier, d.file.fileno(), d.file.size());
            lock.writeLock().lock();
            try {
                d.index = j2;
                d.open = null;
                d.metrics = null;
            } finally {
                lock.writeLock().unlock();
            }
        } catch (IOException | CorruptionException e) {
            // Readers keep using the in-memory index; the next start rebuilds journal v2 from v1.
            log.warn("tier {}: journal v2 of datafile {} not written: {}", tier, d.file.fileno(), e.getMessage());
            d.metrics = null;
            try {
                io.delete(v2);
            } catch (IOException ignored) {
                // nothing more to do: an invalid v2 is detected and rebuilt at open
            }
        }
        retention.recount(d);
    }

    /** Finds the pages of {@code metric} overlapping {@code [after, before]}; hold {@link #readLock()}. */
    public void pages(int metric, long after, long before, List<PageRef> out) {
        long msb = registry.uuidMsb(metric);
        long lsb = registry.uuidLsb(metric);
        int searched = 0;
        // Pruned by the datafiles' time ranges before any index is touched, and without visiting
        // every datafile: the closed ones are found by two binary searches in their ranges
        // (ClosedRanges), so a query of the last hour costs the same with 10 datafiles or 1 000.
        ClosedRanges r = closedRanges;
        for (int i = r.from(after), to = r.to(before); i < to; i++) {
            if (r.last[i] >= after && r.first[i] <= before) {
                search(r.files[i], metric, msb, lsb, after, before, out);
                searched++;
            }
        }
        Datafile d = current;
        if (d != null && d.lastTime != MetricRegistry.NO_TIME && d.lastTime >= after && d.firstTime <= before) {
            search(d, metric, msb, lsb, after, before, out);
            searched++;
        }
        indexesSearched.add(searched);
    }

    private static void search(Datafile d, int metric, long msb, long lsb, long after, long before,
                               List<PageRef> out) {
        DataFile f = d.file;
        d.index.pages(metric, msb, lsb, after, before,
                (off, len, slot, start, ue, entries, type) -> out.add(new PageRef(f, off, len, slot, start, ue, entries, type)));
    }

    /**
     * The time ranges of the closed datafiles (every datafile but the one being written), oldest
     * first, with the running maximum of their newest points and the running minimum (from the
     * end) of their earliest starts: datafiles are only roughly in time order, but those two are
     * monotonic, so the datafiles that may meet a range are a slice found by binary search.
     * Rebuilt under the write lock whenever the list of datafiles changes; a closed datafile's
     * range never changes.
     */
    static final class ClosedRanges {
        static final ClosedRanges EMPTY = new ClosedRanges(new Datafile[0]);
        final Datafile[] files;
        final long[] first;
        final long[] last;
        final long[] maxLast;
        final long[] minFirstFromEnd;

        ClosedRanges(Datafile[] files) {
            int n = files.length;
            this.files = files;
            first = new long[n];
            last = new long[n];
            maxLast = new long[n];
            minFirstFromEnd = new long[n];
            for (int i = 0; i < n; i++) {
                boolean none = files[i].lastTime == MetricRegistry.NO_TIME;
                first[i] = none ? Long.MAX_VALUE : files[i].firstTime;
                last[i] = none ? -1 : files[i].lastTime;
                maxLast[i] = Math.max(i == 0 ? -1 : maxLast[i - 1], last[i]);
            }
            for (int i = n - 1; i >= 0; i--) {
                minFirstFromEnd[i] = Math.min(i == n - 1 ? Long.MAX_VALUE : minFirstFromEnd[i + 1], first[i]);
            }
        }

        /** The first datafile whose newest point, or an earlier one's, is at or after {@code after}. */
        int from(long after) {
            int lo = 0;
            int hi = files.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (maxLast[mid] >= after) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            return lo;
        }

        /** One past the last datafile whose earliest start, or a later one's, is at or before {@code before}. */
        int to(long before) {
            int lo = 0;
            int hi = files.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (minFirstFromEnd[mid] <= before) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }

    private volatile ClosedRanges closedRanges = ClosedRanges.EMPTY;

    /** Rebuilds {@link #closedRanges} from {@link #files}; under the write lock (or before readers exist). */
    void rebuildRanges() {
        List<Datafile> closed = new ArrayList<>(files.size());
        for (Datafile d : files) {
            if (d != current) {
                closed.add(d);
            }
        }
        closedRanges = new ClosedRanges(closed.toArray(new Datafile[0]));
    }

    private final LongAdder indexesSearched = new LongAdder();

    /** Datafile indexes searched by readers since open (those pruned by time range are not counted). */
    public long indexesSearched() {
        return indexesSearched.sum();
    }

    public ReentrantReadWriteLock.ReadLock readLock() {
        return lock.readLock();
    }

    /** The datafiles, oldest first, with their indexes; hold {@link #readLock()} while using them. */
    public List<Datafile> datafiles() {
        return List.copyOf(files);
    }

    public int tier() {
        return tier;
    }

    public Path dir() {
        return dir;
    }

    public long extentsWritten() {
        return extentsWritten;
    }

    public long writeFailures() {
        return writeFailures;
    }

    // ---- rotation and retention (TierRetention) -------------------------------------------------------

    /**
     * Deletes the oldest datafiles (each with its journals) while the tier is over its quota
     * ({@code cfg.quotaBytes(tier)}, 0 = none) or while the oldest one is expired: the newest point
     * it holds is older than {@code nowSeconds - cfg.maxAgeSeconds(tier)} (0 = no maximum age).
     * Never deletes the datafile being written. Deletions left over by an earlier I/O error are
     * retried first; while a datafile cannot be deleted nothing more is rotated.
     *
     * <p>{@code nowSeconds} is passed in: the engine passes its clock ({@code
     * EngineConfig.clockSeconds}), never the newest time it stored, so that a point stamped in the
     * future (a child's bad clock, a replayed history) cannot expire the tier's history. Any
     * thread may call it (it waits for a write in progress), but not while holding {@link
     * #readLock()}.
     *
     * @return how many datafiles were deleted from the disk by this call
     */
    public synchronized int enforceRetention(long nowSeconds) {
        try {
            return retention.enforce(nowSeconds, true);
        } catch (RuntimeException e) {
            log.error("tier {}: retention failed: {}", tier, e.toString(), e);
            return 0;
        }
    }

    /**
     * Adds a listener called, on the writer's thread, after a datafile is removed from the list of
     * datafiles (no reader holds a page reference into it any more) and before it is closed and
     * deleted; caches drop its entries. Also called for a datafile closed without extents.
     */
    public void addDeletionListener(Consumer<DataFile> listener) {
        retention.addListener(listener);
    }

    /**
     * Gives the earliest time of a metric's points of this tier still in memory (hot or dirty
     * pages), or {@link MetricRegistry#NO_TIME}; called on the writer's thread when rotation
     * deletes the last datafile holding a metric, to set its registry first time. Without it, the
     * first time of such a metric becomes a lower bound (one second after its last point in the
     * deleted datafile) when the registry shows newer points, else {@link MetricRegistry#NO_TIME}.
     */
    public void setMemoryFirstTime(IntToLongFunction earliestInMemory) {
        retention.setMemoryFirstTime(earliestInMemory);
    }

    /** Datafiles deleted by rotation (quota or age) since open. */
    public long datafilesDeleted() {
        return retention.datafilesDeleted();
    }

    /** Deletions (datafile or journal) that failed with an I/O error since open; each is retried. */
    public long deleteFailures() {
        return retention.deleteFailures();
    }

    /** Datafiles removed from the tier whose deletion failed and waits for a retry. */
    public int datafilesPendingDeletion() {
        return retention.datafilesPending();
    }

    /**
     * The running count of the bytes of the tier's datafiles and journals, including files whose
     * deletion failed and is pending: what the quota is checked against. Equal to
     * {@link #bytesOnDisk()} when no other file is in the directory.
     */
    public long accountedBytes() {
        return retention.bytes();
    }

    /** Bytes of every file in the tier directory (lists it). */
    public long bytesOnDisk() throws IOException {
        long total = 0;
        for (Path p : io.list(dir)) {
            total += io.size(p);
        }
        return total;
    }

    /** Forces the current datafile and journal to the device. */
    public void sync() throws IOException {
        if (current != null) {
            current.file.sync();
            journal.sync();
        }
    }

    @Override
    public synchronized void close() throws IOException {
        IOException first = null;
        try {
            closeCurrent();
        } catch (IOException e) {
            first = e;
        }
        try {
            retention.retryPending();
        } catch (RuntimeException e) {
            log.warn("tier {}: pending deletions not retried at close: {}", tier, e.toString());
        }
        lock.writeLock().lock();
        try {
            for (Datafile d : files) {
                try {
                    if (d.index instanceof JournalV2 j2) {
                        j2.close();
                    }
                    d.file.close();
                } catch (IOException e) {
                    if (first == null) {
                        first = e;
                    }
                }
            }
            files.clear();
            rebuildRanges();
        } finally {
            lock.writeLock().unlock();
        }
        if (first != null) {
            throw first;
        }
    }
}
