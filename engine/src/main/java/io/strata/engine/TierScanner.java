package io.strata.engine;

import io.strata.engine.extent.ExtentReader;
import io.strata.engine.extent.PageDescriptor;
import io.strata.engine.tier.TierStore;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.strata.engine.thread.StrataThreads;

/**
 * Reads every page of a tier from disk the way a disk likes it: datafile after datafile, extents
 * in file order, neighbouring extents coalesced into runs of up to {@link ScanOptions#runBytes}
 * bytes, several runs read at once in offset order, so that a scan runs at the disk's sequential
 * rate rather than at its random-read rate. For whole-tier reads (the cold-scan benchmark);
 * queries go through {@link TierReader} and the caches instead. Pages are delivered as written,
 * unmerged: where two pages overlap (a page stored behind newer ones, a tier 1+ replacement page)
 * both are delivered, and a sink that needs one point per slot applies the readers' rule itself
 * (the larger count wins; on equal counts the page with the earlier start, see
 * {@link TierReader#sortKey}). A damaged extent is skipped
 * and counted, and the scan goes on; a failed read ends the scan with its {@link IOException}.
 *
 * <p>Why a queue of reads: one read in flight leaves the device idle between the end of one read
 * and the issue of the next, and a virtual disk (or an SSD) only reaches its sequential rate with
 * a few requests outstanding. With O_DIRECT there is no kernel read-ahead to hide that gap, so the
 * queue is the read-ahead.
 */
public final class TierScanner {

    private static final Logger log = LoggerFactory.getLogger(TierScanner.class);
    /** Block alignment of direct reads: 4 KiB covers the block sizes of the usual file systems. */
    static final int ALIGN = 4096;

    private TierScanner() {
    }

    /** Totals of a scan. */
    public record Stats(long datafiles, long extents, long pages, long points, long bytesRead, long damagedExtents) {
    }

    /**
     * How a scan reads and delivers.
     *
     * @param readsInFlight runs read at the same time (1..16), each on a thread of the scan's own
     *                      pool; the reads are issued in offset order
     * @param parallelSink  false: pages reach the sink on the calling thread, in file order (the
     *                      reads still go ahead in parallel; decoding is on the caller). true:
     *                      each run is checked, decoded and delivered on the thread that read it,
     *                      so decoding uses every core; the sink is then called from up to
     *                      {@code readsInFlight} threads at once and must be thread-safe. A run's
     *                      pages arrive in file order on one thread; runs may arrive in any order.
     * @param runBytes      largest read (64 KiB..64 MiB): neighbouring extents are coalesced up to it
     */
    public record ScanOptions(int readsInFlight, boolean parallelSink, int runBytes) {
        /** Four 4 MiB reads in flight, pages delivered in file order on the caller. */
        public static final ScanOptions DEFAULT = new ScanOptions(4, false, 4 << 20);

        public ScanOptions {
            if (readsInFlight < 1 || readsInFlight > 16) {
                throw new IllegalArgumentException("reads in flight must be 1..16, got " + readsInFlight);
            }
            if (runBytes < (64 << 10) || runBytes > (64 << 20)) {
                throw new IllegalArgumentException("run bytes must be 64 KiB..64 MiB, got " + runBytes);
            }
        }

        public ScanOptions withParallelSink(boolean parallel) {
            return new ScanOptions(readsInFlight, parallel, runBytes);
        }

        public ScanOptions withReadsInFlight(int n) {
            return new ScanOptions(n, parallelSink, runBytes);
        }
    }

    /** Receives each page of the scan, decoded; {@code points} is valid only during the call. */
    @FunctionalInterface
    public interface PageSink {
        /**
         * @param points tier 0: storage numbers; tier 1+: 4 ints per point (see
         *               {@link io.strata.engine.page.PageCodecTier1})
         */
        void page(long uuidMsb, long uuidLsb, long startTime, int step, int entries, int[] points);
    }

    /** A run of neighbouring extents read at once: extents {@code first..last} of {@code file}. */
    record Run(TierStore.Datafile file, int first, int last, long start, int length) {
    }

    /** What one run yielded (one object per run of megabytes, not per page). */
    private static final class RunTotals {
        long extents;
        long pages;
        long points;
        long damaged;
        /** Ordered mode: the run's bytes, for the caller to decode. */
        ByteBuffer buffer;
    }

    /** Per scanning thread: the extent reader and decode arrays (none of them thread-safe). */
    private static final class Decoder {
        final ExtentReader reader = new ExtentReader();
        final int[] points = new int[Math.max(DiskFormat.pagePoints(0), 4 * DiskFormat.pagePoints(1))];
        final long[] uuid = new long[2];
    }

    /** As {@link #scan(TierStore, PageSink, ScanOptions)} with {@link ScanOptions#DEFAULT}. */
    static Stats scan(TierStore store, PageSink sink) throws IOException {
        return scan(store, sink, ScanOptions.DEFAULT);
    }

    /**
     * Scans {@code store}; a null {@code sink} reads and checks every extent (both checksums)
     * without decoding its pages, the checks on the reading threads. The tier's read lock is held
     * only to plan the reads and pin the datafiles (and their journal v2 mappings) against
     * rotation: a slow sink does not hold up the flusher's rollover and rotation.
     */
    static Stats scan(TierStore store, PageSink sink, ScanOptions opt) throws IOException {
        List<TierStore.Datafile> files;
        List<Run> runs;
        store.readLock().lock();
        try {
            files = store.datafiles();
            runs = plan(files, opt.runBytes());
            for (TierStore.Datafile d : files) {
                d.file.retainRead();
            }
        } finally {
            store.readLock().unlock();
        }
        try {
            RunTotals total = new RunTotals();
            long bytes = 0;
            for (Run r : runs) {
                bytes += r.length();
            }
            if (!runs.isEmpty()) {
                run(runs, sink, opt, total);
            }
            return new Stats(files.size(), total.extents, total.pages, total.points, bytes, total.damaged);
        } finally {
            for (TierStore.Datafile d : files) {
                d.file.releaseRead();
            }
        }
    }

    /**
     * Groups each datafile's extents, in file order, into runs of neighbours (a hole of up to
     * 64 KiB between two extents is read through rather than split on) of at most
     * {@code runBytes}; an extent larger than that is a run of its own.
     */
    static List<Run> plan(List<TierStore.Datafile> files, int runBytes) throws IOException {
        List<Run> runs = new ArrayList<>();
        for (TierStore.Datafile d : files) {
            var idx = d.index();
            int n = idx.extentCount();
            int e = 0;
            while (e < n) {
                long start = idx.extentOffset(e);
                int last = e;
                long end = start + idx.extentLength(e);
                while (last + 1 < n) {
                    long o = idx.extentOffset(last + 1);
                    long l = idx.extentLength(last + 1);
                    if (o < end || o + l - start > runBytes || o - end > 64 * 1024) {
                        break;
                    }
                    last++;
                    end = o + l;
                }
                if (d.file.directReads()) {
                    // O_DIRECT reads straight into the buffer when the run is block-aligned
                    // (the file's tail excepted): widen it to whole blocks
                    long size = d.file.size();
                    start &= -(long) ALIGN;
                    end = Math.min(size, (end + ALIGN - 1) & -(long) ALIGN);
                }
                runs.add(new Run(d, e, last, start, (int) (end - start)));
                e = last + 1;
            }
        }
        return runs;
    }

    private static void run(List<Run> runs, PageSink sink, ScanOptions opt, RunTotals total) throws IOException {
        boolean ordered = sink != null && !opt.parallelSink();
        int threads = Math.min(opt.readsInFlight(), runs.size());
        // Ordered delivery holds one more buffer: the run being decoded by the caller, while
        // the pool keeps readsInFlight reads going.
        int slots = ordered ? threads + 1 : threads;
        ByteBuffer[] buffers = new ByteBuffer[slots];
        @SuppressWarnings("unchecked")
        Future<RunTotals>[] pending = new Future[slots];
        ThreadLocal<Decoder> decoders = ThreadLocal.withInitial(Decoder::new);
        ExecutorService pool = StrataThreads.newFixedThreadPool(threads, r -> {
            Thread t = StrataThreads.newThread(r, "strata-scan-read");
            t.setDaemon(true);
            return t;
        });
        int submitted = 0;
        try {
            for (; submitted < runs.size() && submitted < slots; submitted++) {
                pending[submitted] = submit(pool, runs.get(submitted), buffers, submitted % slots, ordered, sink,
                        decoders);
            }
            Decoder mine = ordered ? decoders.get() : null;
            for (int r = 0; r < runs.size(); r++) {
                int slot = r % slots;
                RunTotals t = await(pending[slot]);
                pending[slot] = null;
                if (ordered) {
                    buffers[slot] = t.buffer;
                    check(runs.get(r), t.buffer, sink, mine, t);
                    t.buffer = null;
                }
                total.extents += t.extents;
                total.pages += t.pages;
                total.points += t.points;
                total.damaged += t.damaged;
                if (submitted < runs.size()) {
                    pending[slot] = submit(pool, runs.get(submitted), buffers, slot, ordered, sink, decoders);
                    submitted++;
                }
            }
        } finally {
            // No shutdownNow: interrupting a thread inside FileChannel.read closes the channel,
            // which is the datafile's and shared with queries. Reads not started are cancelled;
            // those under way are bounded (one run each) and waited for.
            for (Future<RunTotals> f : pending) {
                if (f != null) {
                    f.cancel(false);
                }
            }
            pool.shutdown();
            try {
                if (!pool.awaitTermination(60, TimeUnit.SECONDS)) {
                    log.warn("scan: reads still running 60 s after the scan ended");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static Future<RunTotals> submit(ExecutorService pool, Run run, ByteBuffer[] buffers, int slot,
                                            boolean ordered, PageSink sink, ThreadLocal<Decoder> decoders) {
        ByteBuffer buf = buffers[slot];
        if (buf == null || buf.capacity() < run.length()) {
            buf = aligned(run.length());
            buffers[slot] = buf;
        }
        ByteBuffer b = buf;
        return pool.submit(() -> {
            b.clear().limit(run.length());
            run.file().file.read(b, run.start());
            b.flip();
            b.order(ByteOrder.LITTLE_ENDIAN);
            RunTotals t = new RunTotals();
            if (ordered) {
                t.buffer = b;
            } else {
                check(run, b, sink, decoders.get(), t);
            }
            return t;
        });
    }

    private static RunTotals await(Future<RunTotals> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException("scan interrupted", ex);
        } catch (ExecutionException ex) {
            Throwable c = ex.getCause();
            if (c instanceof IOException io) {
                throw new IOException("scan: " + io.getMessage(), io);
            }
            if (c instanceof RuntimeException re) {
                throw re;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new IOException("scan failed", c);
        }
    }

    /** Checks every extent of a run held in {@code buf} and, with a sink, decodes and delivers its pages. */
    private static void check(Run run, ByteBuffer buf, PageSink sink, Decoder d, RunTotals t) {
        var idx = run.file().index();
        ExtentReader reader = d.reader;
        String path = run.file().file.path().toString();
        for (int k = run.first(); k <= run.last(); k++) {
            int off = (int) (idx.extentOffset(k) - run.start());
            ByteBuffer ext = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            ext.limit(off + idx.extentLength(k)).position(off);
            ext = ext.slice().order(ByteOrder.LITTLE_ENDIAN);
            try {
                reader.open(ext, path, idx.extentOffset(k));
                for (int p = 0; p < reader.pageCount(); p++) {
                    PageDescriptor pd = reader.descriptor(p);
                    int entries;
                    if (sink == null) {
                        // Integrity only: the extent's checksums were verified by open.
                        entries = pd.entries;
                    } else {
                        entries = pd.type == DiskFormat.PAGE_TYPE_TIER0 ? reader.decodeTier0(p, d.points)
                                : reader.decodeTier1(p, d.points);
                        if (!idx.datafileMetric(pd.metric, d.uuid)) {
                            // recovery left the page out: its metric is unknown
                            continue;
                        }
                        sink.page(d.uuid[0], d.uuid[1], pd.startTime, pd.updateEvery, entries, d.points);
                    }
                    t.pages++;
                    t.points += entries;
                }
                t.extents++;
            } catch (CorruptionException ex) {
                t.damaged++;
                log.warn("scan skipped a damaged extent: {}", ex.getMessage());
            }
        }
    }

    private static ByteBuffer aligned(int capacity) {
        return ByteBuffer.allocateDirect(capacity + 2 * ALIGN).alignedSlice(ALIGN);
    }
}
