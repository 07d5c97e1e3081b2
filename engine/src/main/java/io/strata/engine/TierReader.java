package io.strata.engine;

import io.strata.engine.cache.PageCache;
import io.strata.engine.extent.ExtentReader;
import io.strata.engine.page.DirtyPage;
import io.strata.engine.page.HotAggregateTable;
import io.strata.engine.page.HotPageTable;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.tier.TierStore;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.strata.engine.datafile.DataFile;
import io.strata.engine.log.RepeatedFailureLog;
import io.strata.engine.time.Clocks;

/**
 * Reads the points of one metric in one tier, in time order, from every place they can be: pages
 * on disk (through the page cache, whole extents read at once, in file-offset order), dirty pages
 * waiting for the flusher, and the hot page. Where pages overlap, the point with the larger count
 * wins at each time (see {@link #mergeCluster}). Thread-safe; the scratch space is per thread.
 */
final class TierReader {

    private static final Logger log = LoggerFactory.getLogger(TierReader.class);

    /** At most one line a minute about a datafile whose extents the disk fails to read, then a count. */
    private static final long READ_FAILURE_SUMMARY_MILLIS = 60_000;

    /**
     * Receives tier points; a tier-0 point is an aggregate of one value (count 1), a gap has count
     * 0. {@code step} is the step of the page the point is in.
     */
    @FunctionalInterface
    interface PointSink {
        void point(long time, long step, double sum, double min, double max, int count, int anomalies);
    }

    /** A sink that wants tier-0 points as stored, not as values. */
    interface StorageNumberSink extends PointSink {
        void storageNumber(long time, long step, int sn);

        @Override
        default void point(long time, long step, double sum, double min, double max, int count, int anomalies) {
            throw new UnsupportedOperationException("storage numbers only");
        }
    }

    /**
     * A sink that takes tier-0 storage numbers a page's run at a time: {@code sns[from..to)} are
     * the points at {@code firstTime}, {@code firstTime + step}, ... (one call per page instead of
     * one per point, for readers that copy them out).
     */
    interface StorageNumberRunSink extends StorageNumberSink {
        void storageNumbers(int[] sns, int from, int to, long firstTime, long step);

        @Override
        default void storageNumber(long time, long step, int sn) {
            storageNumbers(new int[] {sn}, 0, 1, time, step);
        }
    }

    private final TierStore[] tiers;
    private final Flusher flusher;
    private final HotPageTable hot0;
    private final HotAggregateTable[] hotN;
    private final ReentrantReadWriteLock memoryLock;
    private final PageCache cache;
    private final LongAdder readErrors;
    private final LongAdder dirtyPagesRead = new LongAdder();
    private final RepeatedFailureLog readFailures = new RepeatedFailureLog(RepeatedFailureLog.forWarn(log),
            READ_FAILURE_SUMMARY_MILLIS, Clocks.wallMillisSupplier());

    private static final class Scratch {
        final List<TierStore.PageRef> refs = new ArrayList<>();
        /** The datafiles of {@link #refs}, kept open until the query is done with them. */
        final List<DataFile> pinned = new ArrayList<>();
        final int[] hot = new int[Math.max(DiskFormat.pagePoints(0), 4 * DiskFormat.pagePoints(1))];
        final int[] dirty = new int[Math.max(DiskFormat.pagePoints(0), 4 * DiskFormat.pagePoints(1))];
        /** Dirty pages that were raw, copied while the memory read lock was held. */
        int[][] rawCopies = new int[2][];
        /** Whether {@code rawCopies[i]} holds dirty page {@code i} (false: it was encoded). */
        boolean[] rawCopied = new boolean[2];
        /** The disk page being delivered, copied from the page cache or decoded. */
        final int[] disk = new int[Math.max(DiskFormat.pagePoints(0), 4 * DiskFormat.pagePoints(1))];
        /** Other pages of the same extent, decoded on their way into the page cache. */
        final int[] decoded = new int[Math.max(DiskFormat.pagePoints(0), 4 * DiskFormat.pagePoints(1))];
        final HotPageTable.HotSnapshot hs = new HotPageTable.HotSnapshot();
        final ExtentReader reader = new ExtentReader();
        long[] keys = new long[64];
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    TierReader(TierStore[] tiers, Flusher flusher, HotPageTable hot0, HotAggregateTable[] hotN,
               ReentrantReadWriteLock memoryLock, PageCache cache, LongAdder readErrors) {
        this.tiers = tiers;
        this.flusher = flusher;
        this.hot0 = hot0;
        this.hotN = hotN;
        this.memoryLock = memoryLock;
        this.cache = cache;
        this.readErrors = readErrors;
    }

    /**
     * Delivers the points of {@code metric} in {@code tier} whose time is in {@code [after, before]}
     * and after {@code notBefore}, in time order; returns the time of the last one delivered, or
     * {@code notBefore} when none was.
     */
    long read(int tier, int metric, long after, long before, long notBefore, PointSink out) throws IOException {
        Scratch sc = SCRATCH.get();
        List<TierStore.PageRef> refs = sc.refs;
        refs.clear();
        long lastTime = notBefore;
        TierStore store = tiers[tier];
        // A page moves hot -> dirty -> indexed, entering each before it leaves the previous:
        // read in that order, it is found at least once (duplicates are dropped by time).
        // The memory read lock is held only while page memory is copied (the hot page, raw dirty
        // pages): retired blocks are recycled under the write lock, and a reader that held the
        // read lock for the whole query (disk reads, decoding, the caller's sink) kept recycling
        // away for seconds with 2 readers, while collectors carved new memory at ~300 MB/s.
        boolean hasHot;
        DirtyPage[] dirty;
        memoryLock.readLock().lock();
        try {
            hasHot = tier == 0 ? hot0.snapshot(metric, sc.hot, sc.hs) : hotN[tier].snapshot(metric, sc.hot, sc.hs);
            dirty = flusher.dirtyPages(tier, metric);
            if (dirty != null) {
                if (sc.rawCopies.length < dirty.length) {
                    int n = Math.max(dirty.length, 2 * sc.rawCopies.length);
                    sc.rawCopies = Arrays.copyOf(sc.rawCopies, n);
                    sc.rawCopied = new boolean[n];
                }
                for (int i = 0; i < dirty.length; i++) {
                    // only the pages the range reaches: the flusher behind, a metric has many
                    // dirty pages, and a short query wants one or two of them
                    sc.rawCopied[i] = false;
                    if (!overlaps(dirty[i], after, before)) {
                        continue;
                    }
                    if (sc.rawCopies[i] == null) {
                        sc.rawCopies[i] = new int[sc.dirty.length];
                    }
                    sc.rawCopied[i] = dirty[i].copyIfRaw(sc.rawCopies[i]);
                }
            }
        } finally {
            memoryLock.readLock().unlock();
        }
        // The tier's read lock is held only to copy the page references and pin their datafiles:
        // held for the whole query (disk reads, decoding, the caller's sink: a slow HTTP client),
        // it stopped the flusher's rollover and rotation, which take the write lock, and with
        // them every write and every other query of the tier.
        List<DataFile> pinned = sc.pinned;
        pinned.clear();
        store.readLock().lock();
        try {
            store.pages(metric, after, before, refs);
            for (int i = 0; i < refs.size(); i++) {
                DataFile f = refs.get(i).file();
                if (pinned.isEmpty() || pinned.get(pinned.size() - 1) != f) {
                    // references come datafile by datafile
                    f.retainRead();
                    pinned.add(f);
                }
            }
        } finally {
            store.readLock().unlock();
        }
        try {
            int nr = refs.size();
            int nd = dirty == null ? 0 : dirty.length;
            int total = nr + nd + (hasHot ? 1 : 0);
            if (sc.keys.length < total) {
                sc.keys = new long[Math.max(total, sc.keys.length * 2)];
            }
            long[] keys = sc.keys;
            for (int i = 0; i < total; i++) {
                long start = i < nr ? refs.get(i).startTime() : i < nr + nd ? dirty[i - nr].startTime : sc.hs.startTime;
                keys[i] = sortKey(start, i);
            }
            Arrays.sort(keys, 0, total);
            for (int k = 0; k < total; k++) {
                int i = index(keys[k]);
                // Pages that overlap (a past range stored behind newer points, a higher tier's
                // window rebuilt over its old point, a page met both dirty and on disk) are merged
                // point by point: at one time the point of the larger count wins (see mergeCluster).
                int m = k;
                long clusterEnd = pageEnd(i, nr, nd, refs, dirty, sc.hs);
                while (m + 1 < total && (keys[m + 1] >>> INDEX_BITS) <= clusterEnd) {
                    m++;
                    clusterEnd = Math.max(clusterEnd, pageEnd(index(keys[m]), nr, nd, refs, dirty, sc.hs));
                }
                if (m > k) {
                    lastTime = mergeCluster(tier, k, m, nr, nd, refs, dirty, sc, keys, total, after, before, lastTime,
                            out);
                    k = m;
                    continue;
                }
                long start;
                long step;
                int n;
                int[] src;
                if (i < nr) {
                    TierStore.PageRef r = refs.get(i);
                    src = diskPage(r, sc, refs, keys, k, total);
                    if (src == null) {
                        continue;
                    }
                    start = r.startTime();
                    step = r.updateEvery();
                    n = r.entries();
                } else if (i < nr + nd) {
                    DirtyPage d = dirty[i - nr];
                    start = d.startTime;
                    step = d.updateEvery;
                    n = d.entries;
                    // a page the range does not reach is skipped before it is decoded (profiles
                    // of 2 writers and 2 readers of random short ranges, the flusher behind, put
                    // two thirds of the readers' time in decoding dirty pages after the range)
                    if (!overlaps(d, after, before) || d.endTime() <= lastTime) {
                        continue;
                    }
                    dirtyPagesRead.increment();
                    if (sc.rawCopied[i - nr]) {
                        src = sc.rawCopies[i - nr];
                    } else {
                        src = sc.dirty;
                        d.points(src); // encoded: decoded from its bytes, which the page keeps
                    }
                } else {
                    start = sc.hs.startTime;
                    step = sc.hs.updateEvery;
                    n = sc.hs.entries;
                    src = sc.hot;
                }
                lastTime = deliver(tier, src, start, step, n, after, before, lastTime, out);
            }
        } finally {
            for (int i = 0; i < pinned.size(); i++) {
                pinned.get(i).releaseRead();
            }
            pinned.clear();
        }
        return lastTime;
    }

    /** The time of the last slot of page {@code i} of the sorted keys (disk refs, then dirty pages, then the hot page). */
    private static long pageEnd(int i, int nr, int nd, List<TierStore.PageRef> refs, DirtyPage[] dirty,
                                HotPageTable.HotSnapshot hs) {
        if (i < nr) {
            return refs.get(i).endTime();
        }
        if (i < nr + nd) {
            return dirty[i - nr].endTime();
        }
        return hs.startTime + (long) (hs.entries - 1) * hs.updateEvery;
    }

    /**
     * Delivers the points of the overlapping pages {@code keys[k..m]} in time order. Where several
     * pages hold a point at the same time, the one with the larger count wins (tier 0: a value
     * beats a gap; tier 1+: the window that aggregated more points, so a window rebuilt after a
     * past range was filled beats the one written before); on equal counts, the page first in the
     * sort order (earlier start, then disk before dirty before hot). The outcome depends on the
     * points only, never on where or when a page was written, so it is the same before and after
     * a restart. The rare path: the pages are copied out of the scratch space.
     */
    private long mergeCluster(int tier, int k, int m, int nr, int nd, List<TierStore.PageRef> refs, DirtyPage[] dirty,
                              Scratch sc, long[] keys, int total, long after, long before, long lastTime,
                              PointSink out) throws IOException {
        int c = m - k + 1;
        int[][] pts = new int[c][];
        long[] start = new long[c];
        long[] step = new long[c];
        int[] n = new int[c];
        int[] cur = new int[c];
        for (int p = 0; p < c; p++) {
            int i = index(keys[k + p]);
            if (i < nr) {
                TierStore.PageRef r = refs.get(i);
                int[] src = diskPage(r, sc, refs, keys, k + p, total);
                if (src == null) {
                    continue;
                }
                pts[p] = Arrays.copyOf(src, pageInts(r));
                start[p] = r.startTime();
                step[p] = r.updateEvery();
                n[p] = r.entries();
            } else if (i < nr + nd) {
                DirtyPage d = dirty[i - nr];
                if (!overlaps(d, after, before)) {
                    continue;
                }
                dirtyPagesRead.increment();
                if (sc.rawCopied[i - nr]) {
                    pts[p] = sc.rawCopies[i - nr];
                } else {
                    pts[p] = new int[sc.dirty.length];
                    d.points(pts[p]);
                }
                start[p] = d.startTime;
                step[p] = d.updateEvery;
                n[p] = d.entries;
            } else {
                pts[p] = sc.hot;
                start[p] = sc.hs.startTime;
                step[p] = sc.hs.updateEvery;
                n[p] = sc.hs.entries;
            }
        }
        StorageNumberSink raw = out instanceof StorageNumberSink r ? r : null;
        long from = Math.max(after, lastTime + 1);
        for (int p = 0; p < c; p++) {
            if (n[p] > 0 && from > start[p]) {
                cur[p] = (int) Math.min(n[p], (from - start[p] + step[p] - 1) / step[p]);
            }
        }
        while (true) {
            long next = Long.MAX_VALUE;
            for (int p = 0; p < c; p++) {
                if (cur[p] < n[p]) {
                    next = Math.min(next, start[p] + cur[p] * step[p]);
                }
            }
            if (next == Long.MAX_VALUE || next > before) {
                return lastTime;
            }
            int best = -1;
            int bestCount = -1;
            for (int p = 0; p < c; p++) {
                if (cur[p] < n[p] && start[p] + cur[p] * step[p] == next) {
                    int count = count(tier, pts[p], cur[p]);
                    if (count > bestCount) {
                        best = p;
                        bestCount = count;
                    }
                }
            }
            deliverOne(tier, pts[best], cur[best], next, step[best], raw, out);
            lastTime = next;
            for (int p = 0; p < c; p++) {
                if (cur[p] < n[p] && start[p] + cur[p] * step[p] == next) {
                    cur[p]++;
                }
            }
        }
    }

    /** The count of slot {@code s}: tier 0, 1 for a value and 0 for a gap; tier 1+, the window's stored count. */
    static int count(int tier, int[] src, int s) {
        if (tier == 0) {
            return src[s] == StorageNumber.SN_EMPTY_SLOT ? 0 : 1;
        }
        return src[4 * s + 3] & 0xFFFF;
    }

    private static void deliverOne(int tier, int[] src, int s, long tm, long step, StorageNumberSink raw,
                                   PointSink out) {
        if (tier == 0 && out instanceof StorageNumberRunSink runs) {
            runs.storageNumbers(src, s, s + 1, tm, step);
        } else {
            point(tier, src, s, tm, step, raw, out);
        }
    }

    /** Whether dirty page {@code d} holds a time in {@code [after, before]}. */
    static boolean overlaps(DirtyPage d, long after, long before) {
        return d.startTime <= before && d.endTime() >= after;
    }

    /** Dirty pages whose points queries delivered since open (copied or decoded for it). */
    long dirtyPagesRead() {
        return dirtyPagesRead.sum();
    }

    /**
     * The sort key of page {@code i} starting at {@code start}: by start time, then by place (disk,
     * dirty, hot). Start times are unsigned 32-bit seconds and indexes below 2^31, so the key is
     * {@code start << 31 | i}, positive (a key of {@code start << 20 | i} mixed the index into the
     * start time past 2^20 pages, and a read of more pages than that was mis-ordered).
     */
    static long sortKey(long start, int i) {
        return (start << INDEX_BITS) | i;
    }

    static int index(long key) {
        return (int) (key & ((1L << INDEX_BITS) - 1));
    }

    private static final int INDEX_BITS = 31;

    private static long deliver(int tier, int[] src, long start, long step, int n, long after, long before,
                                long lastTime, PointSink out) {
        // Skip straight to the first slot in range instead of walking the page.
        int s = 0;
        long from = Math.max(after, lastTime + 1);
        if (from > start) {
            s = (int) Math.min(n, (from - start + step - 1) / step);
        }
        if (tier == 0 && out instanceof StorageNumberRunSink runs) {
            if (s >= n || start + s * step > before) {
                return lastTime;
            }
            int to = (int) Math.min(n, (before - start) / step + 1);
            runs.storageNumbers(src, s, to, start + s * step, step);
            return start + (to - 1) * step;
        }
        StorageNumberSink raw = out instanceof StorageNumberSink r ? r : null;
        for (; s < n; s++) {
            long tm = start + s * step;
            if (tm > before) {
                break;
            }
            point(tier, src, s, tm, step, raw, out);
            lastTime = tm;
        }
        return lastTime;
    }

    private static void point(int tier, int[] src, int s, long tm, long step, StorageNumberSink raw, PointSink out) {
        if (raw != null && tier == 0) {
            raw.storageNumber(tm, step, src[s]);
        } else if (tier == 0) {
            int sn = src[s];
            if (sn == StorageNumber.SN_EMPTY_SLOT) {
                out.point(tm, step, 0, 0, 0, 0, 0);
            } else {
                double v = StorageNumber.unpack(sn);
                out.point(tm, step, v, v, v, 1, (sn & StorageNumber.SN_FLAG_NOT_ANOMALOUS) == 0 ? 1 : 0);
            }
        } else {
            int w3 = src[4 * s + 3];
            int count = w3 & 0xFFFF;
            if (count == 0) {
                out.point(tm, step, 0, 0, 0, 0, 0);
            } else {
                out.point(tm, step, Float.intBitsToFloat(src[4 * s]), Float.intBitsToFloat(src[4 * s + 1]),
                        Float.intBitsToFloat(src[4 * s + 2]), count, w3 >>> 16);
            }
        }
    }

    /**
     * The decoded points of a page on disk, in the scratch space, copied from the page cache or
     * else decoded from its whole extent; every other page of that extent wanted by this query is
     * decoded into the cache too, so that an extent is read once. Null when the extent or page is
     * damaged or the disk fails the extent's read (counted, logged); an interrupted read or a closed
     * datafile is thrown.
     */
    private int[] diskPage(TierStore.PageRef r, Scratch sc, List<TierStore.PageRef> refs, long[] keys, int k,
                           int total) throws IOException {
        int wanted = pageInts(r);
        if (wanted > sc.disk.length) {
            readErrors.increment();
            readFailures.failed(r.file().path().toString(), "query skipped a page of " + r.entries() + " entries in "
                    + r.file().path() + " at " + r.extentOffset() + ": more than a page holds");
            return null;
        }
        if (cache.copyPage(r.file(), r.extentOffset(), r.slot(), sc.disk) >= 0) {
            return sc.disk;
        }
        PageCache.Extent ext;
        try {
            ext = cache.acquireExtent(r.file(), r.extentOffset(), r.extentLength());
        } catch (ClosedChannelException | InterruptedIOException e) {
            // the reader was interrupted or the engine closed: the query stops, the disk is fine
            throw e;
        } catch (IOException e) {
            // The disk failed this extent's read (EIO): its pages are skipped as a damaged extent's
            // are, and the query goes on with the next page, as 1.37.1 fills the pages of an extent
            // it cannot read with empty slots and goes on. A failure thrown out of here ended the
            // whole read: a replication answer lost every point after the page in its window, and a
            // query of /api/v1/data its whole window.
            readErrors.increment();
            readFailures.failed(r.file().path().toString(), "query skipped an extent the disk could not read: "
                    + r.file().path() + " @" + r.extentOffset() + " (" + r.extentLength() + " bytes): " + e);
            return null;
        }
        try {
            return decodeWanted(r, ext, sc, refs, keys, k, total);
        } finally {
            // the reader is done with the extent's bytes: every page wanted is decoded
            cache.release(ext);
        }
    }

    private static int pageInts(TierStore.PageRef r) {
        return r.type() == DiskFormat.PAGE_TYPE_TIER0 ? r.entries() : 4 * r.entries();
    }

    private int[] decodeWanted(TierStore.PageRef r, PageCache.Extent ext, Scratch sc, List<TierStore.PageRef> refs,
                               long[] keys, int k, int total) {
        ExtentReader reader = sc.reader;
        try {
            reader.open(ext.bytes(), r.file().path().toString(), r.extentOffset());
        } catch (CorruptionException e) {
            readErrors.increment();
            readFailures.failed(r.file().path().toString(), "query skipped a damaged extent: " + e.getMessage());
            return null;
        }
        int[] result = null;
        // Decode this page and the later pages of the same extent this query wants.
        for (int j = k; j < total; j++) {
            int i = index(keys[j]);
            if (i >= refs.size()) {
                continue;
            }
            TierStore.PageRef q = refs.get(i);
            if (q.file() != r.file() || q.extentOffset() != r.extentOffset()) {
                continue;
            }
            int n = pageInts(q);
            if (j > k && (n > sc.decoded.length || cache.containsPage(q.file(), q.extentOffset(), q.slot()))) {
                continue;
            }
            int[] pts = j == k ? sc.disk : sc.decoded;
            try {
                if (q.type() == DiskFormat.PAGE_TYPE_TIER0) {
                    reader.decodeTier0(q.slot(), pts);
                } else {
                    reader.decodeTier1(q.slot(), pts);
                }
            } catch (CorruptionException e) {
                readErrors.increment();
                readFailures.failed(q.file().path().toString(), "query skipped a damaged page: " + e.getMessage());
                continue;
            }
            cache.putPage(q.file(), q.extentOffset(), q.slot(), pts, n);
            if (j == k) {
                result = pts;
            }
        }
        return result;
    }
}
