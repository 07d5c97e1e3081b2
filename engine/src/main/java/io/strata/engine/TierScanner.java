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

    /** Scans {@code store}; a null {@code sink} reads and checks every extent without decoding its pages. */
    static Stats scan(TierStore store, PageSink sink) throws IOException {
        long datafiles = 0;
        long extents = 0;
        long pages = 0;
        long points = 0;
        long bytes = 0;
        long damaged = 0;
        int[] pts = new int[Math.max(DiskFormat.pagePoints(0), 4 * DiskFormat.pagePoints(1))];
        ByteBuffer buf = ByteBuffer.allocateDirect(READ_AHEAD).order(ByteOrder.LITTLE_ENDIAN);
        ExtentReader reader = new ExtentReader();
        store.readLock().lock();
        try {
            List<TierStore.Datafile> files = store.datafiles();
            for (TierStore.Datafile d : files) {
                datafiles++;
                var idx = d.index();
                int n = idx.extentCount();
                int e = 0;
                while (e < n) {
                    // Coalesce a run of extents that are adjacent (or nearly) into one read.
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
                    int len = (int) (end - start);
                    if (len > buf.capacity()) {
                        buf = ByteBuffer.allocateDirect(len).order(ByteOrder.LITTLE_ENDIAN);
                    }
                    buf.clear().limit(len);
                    d.file.read(buf, start);
                    bytes += len;
                    for (int k = e; k <= last; k++) {
                        int off = (int) (idx.extentOffset(k) - start);
                        ByteBuffer ext = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
                        ext.limit(off + idx.extentLength(k)).position(off);
                        ext = ext.slice().order(ByteOrder.LITTLE_ENDIAN);
                        try {
                            reader.open(ext, d.file.path().toString(), idx.extentOffset(k));
                            if (sink == null) {
                                // Integrity only: the extent's checksum was verified by open.
                                for (int p = 0; p < reader.pageCount(); p++) {
                                    points += reader.descriptor(p).entries;
                                }
                                pages += reader.pageCount();
                                extents++;
                                continue;
                            }
                            for (int p = 0; p < reader.pageCount(); p++) {
                                PageDescriptor pd = reader.descriptor(p);
                                int entries = pd.type == DiskFormat.PAGE_TYPE_TIER0 ? reader.decodeTier0(p, pts)
                                        : reader.decodeTier1(p, pts);
                                sink.page(pd.uuidMsb, pd.uuidLsb, pd.startTime, pd.updateEvery, entries, pts);
                                pages++;
                                points += entries;
                            }
                            extents++;
                        } catch (CorruptionException ex) {
                            damaged++;
                            log.warn("scan skipped a damaged extent: {}", ex.getMessage());
                        }
                    }
                    e = last + 1;
                }
            }
        } finally {
            store.readLock().unlock();
        }
        return new Stats(datafiles, extents, pages, points, bytes, damaged);
    }
}
