package io.strata.engine.journal;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.datafile.OpenPageIndex;
import io.strata.engine.datafile.PageIndex;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo;
import io.strata.engine.io.MappedRegion;
import io.strata.engine.registry.MetricRegistry;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Journal v2: the memory-mapped index of the pages and extents of each metric in one closed
 * datafile ({@code docs/format/journal-v2.md}), read through Chronicle Bytes.
 *
 * <pre>
 * +------------------+ 0
 * | header (128 B)   |  magic, version, tier, fileno, counts, datafile size, time range,
 * |                  |  section offsets, file length, crc32c of bytes 0..123 at 124
 * +------------------+ extents_at
 * | extents x 16 B   |  offset u64, length u32, pages u16, rsvd u16
 * +------------------+ metrics_at
 * | metrics x 32 B   |  uuid msb/lsb, first page u32, pages u32, first time u32, last time u32;
 * |                  |  sorted by uuid (unsigned msb, then lsb) for binary search
 * +------------------+ pages_at
 * | pages x 20 B     |  start u32, update_every u32, entries u16, type u8, rsvd u8,
 * |                  |  extent index u32, index in extent u16, rsvd u16; grouped by metric,
 * |                  |  each metric's pages in time order
 * +------------------+ length - 4
 * | crc32c u32       |  of bytes 128 .. length-4
 * +------------------+
 * </pre>
 * Readers may use an instance from any thread while it is open.
 */
public final class JournalV2 implements PageIndex, Closeable {

    private final MappedRegion map;
    private final Path path;
    private final int tier;
    private final int fileno;
    private final int extents;
    private final int metrics;
    private final int pages;
    private final long datafileSize;
    private final long extentsAt;
    private final long metricsAt;
    private final long pagesAt;
    private final long points;

    private JournalV2(MappedRegion map, Path path) {
        this.map = map;
        this.path = path;
        this.tier = map.readInt(12);
        this.fileno = map.readInt(16);
        this.extents = map.readInt(20);
        this.metrics = map.readInt(24);
        this.pages = map.readInt(28);
        this.datafileSize = map.readLong(32);
        this.extentsAt = map.readLong(48);
        this.metricsAt = map.readLong(56);
        this.pagesAt = map.readLong(64);
        long pts = 0;
        for (int p = 0; p < pages; p++) {
            pts += Short.toUnsignedInt(map.readShort(pagesAt + (long) p * DiskFormat.JOURNAL_V2_PAGE_ENTRY_SIZE + 8));
        }
        this.points = pts;
    }

    // ---- writing --------------------------------------------------------------------------

    /**
     * Writes the journal v2 of a datafile: to a temporary file, synced, then renamed, so that a
     * journal v2 either exists whole or not at all.
     */
    public static void write(FileIo io, Path dir, int tier, int fileno, long datafileSize, OpenPageIndex src,
                             MetricRegistry registry) throws IOException {
        int ex = src.extentCount();
        // metrics with pages, sorted by uuid
        int slots = src.metricSlots();
        int[] ms = new int[slots];
        int nm = 0;
        int np = 0;
        for (int m = 0; m < slots; m++) {
            int p = src.firstPage(m);
            if (p >= 0) {
                ms[nm++] = m;
                for (; p >= 0; p = src.nextPage(p)) {
                    np++;
                }
            }
        }
        long[] keys = new long[nm * 2];
        Integer[] order = new Integer[nm];
        for (int i = 0; i < nm; i++) {
            keys[2 * i] = registry.uuidMsb(ms[i]);
            keys[2 * i + 1] = registry.uuidLsb(ms[i]);
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> {
            int c = Long.compareUnsigned(keys[2 * a], keys[2 * b]);
            return c != 0 ? c : Long.compareUnsigned(keys[2 * a + 1], keys[2 * b + 1]);
        });
        long extentsAt = DiskFormat.JOURNAL_V2_HEADER_SIZE;
        long metricsAt = extentsAt + (long) ex * DiskFormat.JOURNAL_V2_EXTENT_ENTRY_SIZE;
        long pagesAt = metricsAt + (long) nm * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE;
        long length = pagesAt + (long) np * DiskFormat.JOURNAL_V2_PAGE_ENTRY_SIZE + 4;
        if (length > Integer.MAX_VALUE - 16) {
            throw new IOException("journal v2 of " + length + " bytes is too large");
        }
        ByteBuffer b = ByteBuffer.allocate((int) length).order(ByteOrder.LITTLE_ENDIAN);
        long first = Long.MAX_VALUE;
        long last = 0;
        for (int e = 0; e < ex; e++) {
            int at = (int) (extentsAt + (long) e * DiskFormat.JOURNAL_V2_EXTENT_ENTRY_SIZE);
            b.putLong(at, src.extentOffset(e));
            b.putInt(at + 8, src.extentLength(e));
            b.putShort(at + 12, (short) src.extentPages(e));
        }
        int pageNo = 0;
        for (int i = 0; i < nm; i++) {
            int k = order[i];
            int m = ms[k];
            int firstPage = pageNo;
            long mf = Long.MAX_VALUE;
            long ml = 0;
            for (int p = src.firstPage(m); p >= 0; p = src.nextPage(p)) {
                int at = (int) (pagesAt + (long) pageNo * DiskFormat.JOURNAL_V2_PAGE_ENTRY_SIZE);
                long start = src.pageStart(p);
                int ue = src.pageUpdateEvery(p);
                int entries = src.pageEntries(p);
                b.putInt(at, (int) start);
                b.putInt(at + 4, ue);
                b.putShort(at + 8, (short) entries);
                b.put(at + 10, (byte) src.pageType(p));
                b.putInt(at + 12, src.pageExtent(p));
                b.putShort(at + 16, (short) src.pageSlot(p));
                mf = Math.min(mf, start);
                ml = Math.max(ml, start + (long) (entries - 1) * ue);
                pageNo++;
            }
            int at = (int) (metricsAt + (long) i * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE);
            b.putLong(at, keys[2 * k]);
            b.putLong(at + 8, keys[2 * k + 1]);
            b.putInt(at + 16, firstPage);
            b.putInt(at + 20, pageNo - firstPage);
            b.putInt(at + 24, (int) mf);
            b.putInt(at + 28, (int) ml);
            first = Math.min(first, mf);
            last = Math.max(last, ml);
        }
        b.putLong(0, DiskFormat.JOURNAL_V2_MAGIC);
        b.putInt(8, DiskFormat.JOURNAL_V2_VERSION);
        b.putInt(12, tier);
        b.putInt(16, fileno);
        b.putInt(20, ex);
        b.putInt(24, nm);
        b.putInt(28, np);
        b.putLong(32, datafileSize);
        b.putInt(40, nm == 0 ? 0 : (int) first);
        b.putInt(44, (int) last);
        b.putLong(48, extentsAt);
        b.putLong(56, metricsAt);
        b.putLong(64, pagesAt);
        b.putLong(72, length);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, 124);
        b.putInt(124, (int) crc.getValue());
        crc.reset();
        crc.update(b.array(), DiskFormat.JOURNAL_V2_HEADER_SIZE, (int) length - 4 - DiskFormat.JOURNAL_V2_HEADER_SIZE);
        b.putInt((int) length - 4, (int) crc.getValue());

        Path target = dir.resolve(DiskFormat.journalV2Name(tier, fileno));
        Path tmp = dir.resolve(DiskFormat.journalV2Name(tier, fileno) + ".tmp");
        io.delete(tmp);
        try (FileHandle h = io.open(tmp, FileIo.OpenMode.CREATE_NEW)) {
            h.writeFully(b, 0);
            h.sync();
        } catch (IOException e) {
            try {
                io.delete(tmp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        io.rename(tmp, target);
        io.syncDirectory(dir);
    }

    // ---- reading --------------------------------------------------------------------------

    /**
     * Maps and checks a journal v2: header, checksum and that it indexes a datafile of
     * {@code datafileSize} bytes. Throws {@link CorruptionException} when it cannot be trusted
     * (the caller rebuilds it from journal v1).
     */
    public static JournalV2 open(FileIo io, Path path, int tier, int fileno, long datafileSize)
            throws IOException, CorruptionException {
        MappedRegion map = io.mapReadOnly(path);
        try {
            String f = path.toString();
            long size = map.size();
            if (size < DiskFormat.JOURNAL_V2_HEADER_SIZE + 4) {
                throw new CorruptionException(f, 0, "journal v2 of " + size + " bytes is shorter than its header");
            }
            byte[] hdr = new byte[DiskFormat.JOURNAL_V2_HEADER_SIZE];
            map.read(0, hdr, 0, hdr.length);
            ByteBuffer h = ByteBuffer.wrap(hdr).order(ByteOrder.LITTLE_ENDIAN);
            CRC32C crc = new CRC32C();
            crc.update(hdr, 0, 124);
            if (h.getLong(0) != DiskFormat.JOURNAL_V2_MAGIC) {
                throw new CorruptionException(f, 0, "bad journal v2 magic");
            }
            if ((int) crc.getValue() != h.getInt(124)) {
                throw new CorruptionException(f, 0, "journal v2 header checksum mismatch");
            }
            if (h.getInt(8) != DiskFormat.JOURNAL_V2_VERSION || h.getInt(12) != tier || h.getInt(16) != fileno) {
                throw new CorruptionException(f, 0, "journal v2 names version " + h.getInt(8) + " tier " + h.getInt(12)
                        + " file " + h.getInt(16));
            }
            long length = h.getLong(72);
            int ex = h.getInt(20);
            int nm = h.getInt(24);
            int np = h.getInt(28);
            long extentsAt = h.getLong(48);
            long metricsAt = h.getLong(56);
            long pagesAt = h.getLong(64);
            if (length != size || ex < 0 || nm < 0 || np < 0
                    || extentsAt != DiskFormat.JOURNAL_V2_HEADER_SIZE
                    || metricsAt != extentsAt + (long) ex * DiskFormat.JOURNAL_V2_EXTENT_ENTRY_SIZE
                    || pagesAt != metricsAt + (long) nm * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE
                    || length != pagesAt + (long) np * DiskFormat.JOURNAL_V2_PAGE_ENTRY_SIZE + 4) {
                throw new CorruptionException(f, 0, "journal v2 section sizes do not add up to its " + size + " bytes");
            }
            if (h.getLong(32) != datafileSize) {
                throw new CorruptionException(f, 0, "journal v2 indexes a datafile of " + h.getLong(32)
                        + " bytes, the datafile has " + datafileSize);
            }
            crc.reset();
            byte[] chunk = new byte[64 * 1024];
            long pos = DiskFormat.JOURNAL_V2_HEADER_SIZE;
            long end = size - 4;
            while (pos < end) {
                int n = (int) Math.min(chunk.length, end - pos);
                map.read(pos, chunk, 0, n);
                crc.update(chunk, 0, n);
                pos += n;
            }
            if ((int) crc.getValue() != map.readInt(end)) {
                throw new CorruptionException(f, end, "journal v2 checksum mismatch");
            }
            return new JournalV2(map, path);
        } catch (CorruptionException | RuntimeException e) {
            map.close();
            throw e;
        }
    }

    private int findMetric(long msb, long lsb) {
        int lo = 0;
        int hi = metrics - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long at = metricsAt + (long) mid * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE;
            int c = Long.compareUnsigned(map.readLong(at), msb);
            if (c == 0) {
                c = Long.compareUnsigned(map.readLong(at + 8), lsb);
            }
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    @Override
    public void pages(int metricId, long msb, long lsb, long after, long before, PageVisitor v) {
        int m = findMetric(msb, lsb);
        if (m < 0) {
            return;
        }
        long mat = metricsAt + (long) m * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE;
        int first = map.readInt(mat + 16);
        int n = map.readInt(mat + 20);
        for (int i = 0; i < n; i++) {
            long at = pagesAt + (long) (first + i) * DiskFormat.JOURNAL_V2_PAGE_ENTRY_SIZE;
            long start = Integer.toUnsignedLong(map.readInt(at));
            int ue = map.readInt(at + 4);
            int entries = Short.toUnsignedInt(map.readShort(at + 8));
            long end = start + (long) (entries - 1) * ue;
            if (end < after || start > before) {
                continue;
            }
            int e = map.readInt(at + 12);
            if (e < 0 || e >= extents) {
                continue;
            }
            long eat = extentsAt + (long) e * DiskFormat.JOURNAL_V2_EXTENT_ENTRY_SIZE;
            v.page(map.readLong(eat), map.readInt(eat + 8), Short.toUnsignedInt(map.readShort(at + 16)), start, ue,
                    entries, map.readByte(at + 10));
        }
    }

    @Override
    public void forEachMetric(MetricVisitor v) {
        for (int m = 0; m < metrics; m++) {
            long at = metricsAt + (long) m * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE;
            v.metric(map.readLong(at), map.readLong(at + 8), Integer.toUnsignedLong(map.readInt(at + 24)),
                    Integer.toUnsignedLong(map.readInt(at + 28)), map.readInt(at + 20));
        }
    }

    /** Offset and length of extent {@code e}, for verification: {@code [offset, length]}. */
    public long extentOffset(int e) {
        return map.readLong(extentsAt + (long) e * DiskFormat.JOURNAL_V2_EXTENT_ENTRY_SIZE);
    }

    public int extentLength(int e) {
        return map.readInt(extentsAt + (long) e * DiskFormat.JOURNAL_V2_EXTENT_ENTRY_SIZE + 8);
    }

    @Override
    public int extentCount() {
        return extents;
    }

    @Override
    public int pageCount() {
        return pages;
    }

    @Override
    public long pointCount() {
        return points;
    }

    public long datafileSize() {
        return datafileSize;
    }

    public Path path() {
        return path;
    }

    public int tier() {
        return tier;
    }

    public int fileno() {
        return fileno;
    }

    @Override
    public void close() {
        map.close();
    }
}
