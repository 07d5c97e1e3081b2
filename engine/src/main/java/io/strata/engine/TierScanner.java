package io.strata.engine;

import io.strata.engine.extent.ExtentReader;
import io.strata.engine.extent.PageDescriptor;
import io.strata.engine.tier.TierStore;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every page of a tier from disk the way a disk likes it: datafile after datafile, extents
 * in file order, neighbouring extents coalesced into reads of up to {@link #READ_AHEAD} bytes, so
 * that a scan runs at the disk's sequential rate rather than at its random-read rate. Used for
 * exports and whole-tier checks; queries of a few metrics go through {@link TierReader} and the
 * caches instead. A damaged extent is skipped and counted, and the scan goes on.
 */
public final class TierScanner {

    private static final Logger log = LoggerFactory.getLogger(TierScanner.class);
    /** Bytes per read: large enough to amortise a seek, small enough to stay in the CPU caches' reach. */
    static final int READ_AHEAD = 8 << 20;

    private TierScanner() {
    }

    /** Totals of a scan. */
    public record Stats(long datafiles, long extents, long pages, long points, long bytesRead, long damagedExtents) {
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

    /** A run of neighbouring extents read at once. */
    private record Run(TierStore.Datafile file, int first, int last, long start, int length) {
    }

    /**
     * Scans {@code store}; a null {@code sink} reads and checks every extent without decoding its
     * pages. While one run is being decoded, the next is read by a helper thread into a second
     * buffer, so the disk is never idle while the CPU works, nor the CPU while the disk does.
     */
    static Stats scan(TierStore store, PageSink sink) throws IOException {
        long extents = 0;
        long pages = 0;
        long points = 0;
        long bytes = 0;
        long damaged = 0;
        int[] pts = new int[Math.max(DiskFormat.pagePoints(0), 4 * DiskFormat.pagePoints(1))];
        ExtentReader reader = new ExtentReader();
        long[] uuid = new long[2];
        java.util.concurrent.ExecutorService io = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "strata-scan-read");
            t.setDaemon(true);
            return t;
        });
        store.readLock().lock();
        try {
            List<TierStore.Datafile> files = store.datafiles();
            List<Run> runs = new java.util.ArrayList<>();
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
                        if (o < end || o + l - start > READ_AHEAD || o - end > 64 * 1024) {
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
            ByteBuffer[] bufs = {aligned(READ_AHEAD + 2 * ALIGN), aligned(READ_AHEAD + 2 * ALIGN)};
            java.util.concurrent.Future<ByteBuffer> next = runs.isEmpty() ? null : io.submit(read(runs.get(0), bufs, 0));
            for (int r = 0; r < runs.size(); r++) {
                ByteBuffer buf;
                try {
                    buf = next.get();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IOException("scan interrupted", ex);
                } catch (java.util.concurrent.ExecutionException ex) {
                    throw ex.getCause() instanceof IOException io2 ? io2 : new IOException(ex.getCause());
                }
                bufs[r & 1] = buf;
                next = r + 1 < runs.size() ? io.submit(read(runs.get(r + 1), bufs, (r + 1) & 1)) : null;
                Run run = runs.get(r);
                var idx = run.file().index();
                bytes += run.length();
                for (int k = run.first(); k <= run.last(); k++) {
                    int off = (int) (idx.extentOffset(k) - run.start());
                    ByteBuffer ext = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
                    ext.limit(off + idx.extentLength(k)).position(off);
                    ext = ext.slice().order(ByteOrder.LITTLE_ENDIAN);
                    try {
                        reader.open(ext, run.file().file.path().toString(), idx.extentOffset(k));
                        for (int p = 0; p < reader.pageCount(); p++) {
                            PageDescriptor pd = reader.descriptor(p);
                            int entries;
                            if (sink == null) {
                                // Integrity only: the extent's checksum was verified by open.
                                entries = pd.entries;
                            } else {
                                entries = pd.type == DiskFormat.PAGE_TYPE_TIER0 ? reader.decodeTier0(p, pts)
                                        : reader.decodeTier1(p, pts);
                                if (!idx.datafileMetric(pd.metric, uuid)) {
                                    // recovery left the page out: its metric is unknown
                                    continue;
                                }
                                sink.page(uuid[0], uuid[1], pd.startTime, pd.updateEvery, entries, pts);
                            }
                            pages++;
                            points += entries;
                        }
                        extents++;
                    } catch (CorruptionException ex) {
                        damaged++;
                        log.warn("scan skipped a damaged extent: {}", ex.getMessage());
                    }
                }
            }
            return new Stats(files.size(), extents, pages, points, bytes, damaged);
        } finally {
            io.shutdownNow();
            store.readLock().unlock();
        }
    }

    /** Block alignment of direct reads: 4 KiB covers the block sizes of the usual file systems. */
    static final int ALIGN = 4096;

    private static ByteBuffer aligned(int capacity) {
        return ByteBuffer.allocateDirect(capacity + ALIGN).alignedSlice(ALIGN);
    }

    /** Reads a run into buffer {@code slot} (grown when a single extent is larger). */
    private static java.util.concurrent.Callable<ByteBuffer> read(Run run, ByteBuffer[] bufs, int slot) {
        return () -> {
            ByteBuffer b = bufs[slot];
            if (b.capacity() < run.length()) {
                b = aligned(run.length());
            }
            b.clear().limit(run.length());
            run.file().file.read(b, run.start());
            b.flip();
            return b.order(ByteOrder.LITTLE_ENDIAN);
        };
    }
}
