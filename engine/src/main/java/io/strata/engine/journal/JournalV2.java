package io.strata.engine.journal;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.datafile.OpenPageIndex;
import io.strata.engine.datafile.PageIndex;
import io.strata.engine.extent.ExtentTable;
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
import java.util.Arrays;

/**
 * Journal v2: the memory-mapped index of the pages and extents of each metric in one closed
 * datafile ({@code docs/format/journal-v2.md}), read through Chronicle Bytes.
 *
 * <pre>
 * +------------------+ 0
 * | header (128 B)   |  magic, version, tier, fileno, counts, datafile size, time range,
 * |                  |  section offsets, file length, points, crc32c of bytes 0..123 at 124
 * +------------------+ extents_at = 128
 * | extents x 12 B   |  offset u64, length u32
 * +------------------+ metrics_at
 * | metrics x 36 B   |  uuid msb/lsb, first time, last time, pages, list offset, datafile
 * |                  |  metric number (u32 each); sorted by uuid for binary search
 * +------------------+ pages_at
 * | page lists       |  per metric: entries of its blocks of 64 pages after the first (start
 * |                  |  u32, offset u32), then its pages in time order, varint- and delta-coded;
 * |                  |  every block starts afresh
 * +------------------+ length - 4
 * | crc32c u32       |  of bytes 128 .. length-4
 * +------------------+
 * </pre>
 * Readers may use an instance from any thread while it is open.
 */
public final class JournalV2 implements PageIndex, Closeable {

    private static final int SLOT_MASK = 0x3F;
    /** Entries, update_every and type as the previous page of the block. */
    private static final int SAME_SHAPE = 0x40;
    /** Starts where the previous page of the block ended (the first: at the block's start time). */
    private static final int CONTIGUOUS = 0x80;

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
    private final long pagesEnd;
    private final long points;
    /** Datafile metric number to metric entry, built on first use (scans only). */
    private volatile int[] entryOfNumber;

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
        this.pagesEnd = map.readLong(72) - 4;
        this.points = map.readLong(80);
    }

    // ---- writing --------------------------------------------------------------------------

    /**
     * Writes the journal v2 of a datafile: to a temporary file, synced, then renamed, so that a
     * journal v2 either exists whole or not at all.
     */
    public static void write(FileIo io, Path dir, int tier, int fileno, long datafileSize, OpenPageIndex src,
                             MetricRegistry registry) throws IOException {
        int ex = src.extentCount();
        int slots = src.metricSlots();
        int[] ms = new int[slots];
        int nm = 0;
        for (int m = 0; m < slots; m++) {
            if (src.firstPage(m) >= 0) {
                ms[nm++] = m;
            }
        }
        long[] keys = new long[nm * 2];
        Integer[] order = new Integer[nm];
        for (int i = 0; i < nm; i++) {
            keys[2 * i] = registry.uuidMsb(ms[i]);
            keys[2 * i + 1] = registry.uuidLsb(ms[i]);
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            int c = Long.compareUnsigned(keys[2 * a], keys[2 * b]);
            return c != 0 ? c : Long.compareUnsigned(keys[2 * a + 1], keys[2 * b + 1]);
        });

        Growable pageBytes = new Growable();
        Growable metricBytes = new Growable();
        Growable codes = new Growable();
        int np = 0;
        long totalPoints = 0;
        long first = Long.MAX_VALUE;
        long last = 0;
        long[] byStart = new long[64];
        int[] blockStart = new int[4];
        int[] blockOffset = new int[4];
        for (int i = 0; i < nm; i++) {
            int k = order[i];
            int m = ms[k];
            int n = 0;
            for (int p = src.firstPage(m); p >= 0; p = src.nextPage(p)) {
                if (n == byStart.length) {
                    byStart = Arrays.copyOf(byStart, n * 2);
                }
                // start (< 2^32) above the page number (< 2^31): sorting the keys sorts by time
                byStart[n++] = (src.pageStart(p) << 31) | p;
            }
            Arrays.sort(byStart, 0, n);
            int blocks = (n + DiskFormat.JOURNAL_V2_PAGES_PER_BLOCK - 1) / DiskFormat.JOURNAL_V2_PAGES_PER_BLOCK;
            if (blocks > blockStart.length) {
                blockStart = new int[blocks * 2];
                blockOffset = new int[blocks * 2];
            }
            codes.size = 0;
            long mf = Long.MAX_VALUE;
            long ml = 0;
            long expected = 0;
            int prevExtent = 0;
            int prevEntries = -1;
            int prevUe = -1;
            int prevType = -1;
            for (int j = 0; j < n; j++) {
                int p = (int) (byStart[j] & 0x7FFF_FFFFL);
                long start = src.pageStart(p);
                int ue = src.pageUpdateEvery(p);
                int entries = src.pageEntries(p);
                int type = src.pageType(p);
                int extent = src.pageExtent(p);
                if (j % DiskFormat.JOURNAL_V2_PAGES_PER_BLOCK == 0) {
                    // Lookups skip the blocks before the last one that starts at or before the
                    // range, so every page of an earlier block must end before a block's start.
                    // Pages in time order that do not overlap always do; a page stored behind
                    // newer ones (StorageEngine.storePast) may lie inside an earlier, longer
                    // page: the block then starts one second after the earlier pages' last slot
                    // (its first page's start is coded from there, a negative delta).
                    long blockFrom = j > 0 && ml >= start ? ml + 1 : start;
                    blockStart[j / DiskFormat.JOURNAL_V2_PAGES_PER_BLOCK] = (int) blockFrom;
                    blockOffset[j / DiskFormat.JOURNAL_V2_PAGES_PER_BLOCK] = codes.size;
                    expected = blockFrom;
                    prevExtent = 0;
                    prevEntries = -1;
                }
                boolean sameShape = entries == prevEntries && ue == prevUe && type == prevType;
                boolean contiguous = start == expected;
                codes.put(src.pageSlot(p) | (sameShape ? SAME_SHAPE : 0) | (contiguous ? CONTIGUOUS : 0));
                codes.putVarint(ExtentTable.zigzag(extent - prevExtent));
                if (!sameShape) {
                    codes.putVarint(entries);
                    codes.putVarint(((long) ue << 1) | type);
                }
                if (!contiguous) {
                    codes.putVarint(ExtentTable.zigzag(start - expected));
                }
                prevExtent = extent;
                prevEntries = entries;
                prevUe = ue;
                prevType = type;
                expected = start + (long) entries * ue;
                mf = Math.min(mf, start);
                ml = Math.max(ml, start + (long) (entries - 1) * ue);
                totalPoints += entries;
            }
            np += n;
            // the metric's list: its blocks after the first (the first starts at the metric's
            // first time, right after them), then its pages
            int list = pageBytes.size;
            int codesAt = list + (blocks - 1) * DiskFormat.JOURNAL_V2_BLOCK_ENTRY_SIZE;
            for (int blk = 1; blk < blocks; blk++) {
                pageBytes.putInt(blockStart[blk]);
                pageBytes.putInt(codesAt + blockOffset[blk]);
            }
            pageBytes.ensure(codes.size);
            System.arraycopy(codes.bytes, 0, pageBytes.bytes, pageBytes.size, codes.size);
            pageBytes.size += codes.size;
            metricBytes.putLong(keys[2 * k]);
            metricBytes.putLong(keys[2 * k + 1]);
            metricBytes.putInt((int) mf);
            metricBytes.putInt((int) ml);
            metricBytes.putInt(n);
            metricBytes.putInt(list);
            metricBytes.putInt(src.datafileNumber(m));
            first = Math.min(first, mf);
            last = Math.max(last, ml);
        }
        long extentsAt = DiskFormat.JOURNAL_V2_HEADER_SIZE;
        long metricsAt = extentsAt + (long) ex * DiskFormat.JOURNAL_V2_EXTENT_ENTRY_SIZE;
        long pagesAt = metricsAt + (long) nm * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE;
        long length = pagesAt + pageBytes.size + 4;
        if (length > Integer.MAX_VALUE - 16) {
            throw new IOException("journal v2 of " + length + " bytes is too large");
        }
        ByteBuffer b = ByteBuffer.allocate((int) length).order(ByteOrder.LITTLE_ENDIAN);
        for (int e = 0; e < ex; e++) {
            int at = (int) (extentsAt + (long) e * DiskFormat.JOURNAL_V2_EXTENT_ENTRY_SIZE);
            b.putLong(at, src.extentOffset(e));
            b.putInt(at + 8, src.extentLength(e));
        }
        b.put((int) metricsAt, metricBytes.bytes, 0, metricBytes.size);
        b.put((int) pagesAt, pageBytes.bytes, 0, pageBytes.size);
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
        b.putLong(80, totalPoints);
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

    /** A little-endian byte array that grows. */
    private static final class Growable {
        byte[] bytes = new byte[4096];
        int size;

        void ensure(int n) {
            if (size + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(size + n, bytes.length * 2));
            }
        }

        void put(int b) {
            ensure(1);
            bytes[size++] = (byte) b;
        }

        void putInt(int v) {
            ensure(4);
            for (int i = 0; i < 4; i++) {
                bytes[size++] = (byte) (v >>> (8 * i));
            }
        }

        void putLong(long v) {
            ensure(8);
            for (int i = 0; i < 8; i++) {
                bytes[size++] = (byte) (v >>> (8 * i));
            }
        }

        void putVarint(long v) {
            ensure(10);
            size = ExtentTable.putVarint(bytes, size, v);
        }
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
                    || pagesAt + 4 > length) {
                throw new CorruptionException(f, 0, "journal v2 section sizes do not add up to its " + size + " bytes");
            }
            if (h.getLong(32) != datafileSize) {
                throw new CorruptionException(f, 0, "journal v2 indexes a datafile of " + h.getLong(32)
                        + " bytes, the datafile has " + datafileSize);
            }
            long end = size - 4;
            if (checksumOfBody(io, path, end) != map.readInt(end)) {
                throw new CorruptionException(f, end, "journal v2 checksum mismatch");
            }
            return new JournalV2(map, path);
        } catch (CorruptionException | IOException | RuntimeException e) {
            // the mapping is the caller's only once the journal is returned
            map.close();
            throw e;
        }
    }

    /**
     * CRC32C of bytes 128 .. {@code end}, read with positional reads and not through the mapping:
     * reading a whole journal through its mapping left all of it resident in the process (about
     * 0.3 KiB a collected metric at 100 000 metrics after two hours of data), where a query
     * touches only its metric's entries and pages.
     */
    private static int checksumOfBody(FileIo io, Path path, long end) throws IOException {
        CRC32C crc = new CRC32C();
        ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
        try (FileHandle h = io.open(path, FileIo.OpenMode.READ)) {
            long pos = DiskFormat.JOURNAL_V2_HEADER_SIZE;
            while (pos < end) {
                int n = (int) Math.min(chunk.capacity(), end - pos);
                chunk.clear().limit(n);
                h.readFully(chunk, pos);
                crc.update(chunk.array(), 0, n);
                pos += n;
            }
        }
        return (int) crc.getValue();
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
        int n = map.readInt(mat + 24);
        long list = pagesAt + Integer.toUnsignedLong(map.readInt(mat + 28));
        if (n <= 0) {
            return;
        }
        int blocks = (n + DiskFormat.JOURNAL_V2_PAGES_PER_BLOCK - 1) / DiskFormat.JOURNAL_V2_PAGES_PER_BLOCK;
        if (list + (long) (blocks - 1) * DiskFormat.JOURNAL_V2_BLOCK_ENTRY_SIZE > pagesEnd) {
            return;
        }
        // The last block starting at or before `after`: pages of earlier blocks end before it.
        // Block 0 starts at the metric's first time; blocks 1.. have entries at the list's start.
        int lo = 1;
        int hi = blocks - 1;
        int b = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long start = Integer.toUnsignedLong(map.readInt(list + (long) (mid - 1) * DiskFormat.JOURNAL_V2_BLOCK_ENTRY_SIZE));
            if (start <= after) {
                b = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        long pos = 0;
        long expected = 0;
        int extent = 0;
        int entries = 0;
        int ue = 1;
        int type = 0;
        long[] cursor = new long[1];
        for (int j = b * DiskFormat.JOURNAL_V2_PAGES_PER_BLOCK; j < n; j++) {
            if (j % DiskFormat.JOURNAL_V2_PAGES_PER_BLOCK == 0) {
                int blk = j / DiskFormat.JOURNAL_V2_PAGES_PER_BLOCK;
                if (blk == 0) {
                    expected = Integer.toUnsignedLong(map.readInt(mat + 16));
                    pos = list + (long) (blocks - 1) * DiskFormat.JOURNAL_V2_BLOCK_ENTRY_SIZE;
                } else {
                    long bat = list + (long) (blk - 1) * DiskFormat.JOURNAL_V2_BLOCK_ENTRY_SIZE;
                    expected = Integer.toUnsignedLong(map.readInt(bat));
                    pos = pagesAt + Integer.toUnsignedLong(map.readInt(bat + 4));
                }
                extent = 0;
            }
            if (pos >= pagesEnd) {
                return;
            }
            int flags = map.readByte(pos++) & 0xFF;
            cursor[0] = pos;
            extent += (int) ExtentTable.unzigzag(varint(cursor));
            if ((flags & SAME_SHAPE) == 0) {
                entries = (int) varint(cursor);
                long ueType = varint(cursor);
                ue = (int) (ueType >>> 1);
                type = (int) (ueType & 1);
            }
            long start = expected;
            if ((flags & CONTIGUOUS) == 0) {
                start = expected + ExtentTable.unzigzag(varint(cursor));
            }
            pos = cursor[0];
            if (cursor[0] < 0) {
                return;
            }
            expected = start + (long) entries * ue;
            long end = start + (long) (entries - 1) * ue;
            if (start > before) {
                return;
            }
            if (end < after || extent < 0 || extent >= extents) {
                continue;
            }
            long eat = extentsAt + (long) extent * DiskFormat.JOURNAL_V2_EXTENT_ENTRY_SIZE;
            v.page(map.readLong(eat), map.readInt(eat + 8), flags & SLOT_MASK, start, ue, entries, type);
        }
    }

    /** Reads a varint at {@code cursor[0]}, advancing it; past the page section it sets it to -1 and returns 0. */
    private long varint(long[] cursor) {
        long p = cursor[0];
        long v = 0;
        for (int shift = 0; shift < 63 && p >= 0; shift += 7) {
            if (p >= pagesEnd) {
                break;
            }
            int b = map.readByte(p++);
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                cursor[0] = p;
                return v;
            }
        }
        cursor[0] = -1;
        return 0;
    }

    @Override
    public void forEachMetric(MetricVisitor v) {
        for (int m = 0; m < metrics; m++) {
            long at = metricsAt + (long) m * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE;
            v.metric(map.readLong(at), map.readLong(at + 8), Integer.toUnsignedLong(map.readInt(at + 16)),
                    Integer.toUnsignedLong(map.readInt(at + 20)), map.readInt(at + 24));
        }
    }

    @Override
    public boolean datafileMetric(int number, long[] uuid) {
        int[] entries = entryOfNumber;
        if (entries == null) {
            int max = -1;
            for (int m = 0; m < metrics; m++) {
                max = Math.max(max, map.readInt(metricsAt + (long) m * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE + 32));
            }
            if (max > 4 * metrics + 1024) {
                return datafileMetricByScan(number, uuid);
            }
            entries = new int[max + 1];
            Arrays.fill(entries, -1);
            for (int m = 0; m < metrics; m++) {
                int k = map.readInt(metricsAt + (long) m * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE + 32);
                if (k >= 0) {
                    entries[k] = m;
                }
            }
            entryOfNumber = entries;
        }
        if (number < 0 || number >= entries.length || entries[number] < 0) {
            return false;
        }
        long at = metricsAt + (long) entries[number] * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE;
        uuid[0] = map.readLong(at);
        uuid[1] = map.readLong(at + 8);
        return true;
    }

    /** For sparse numbers (only a buggy writer makes them): a linear search. */
    private boolean datafileMetricByScan(int number, long[] uuid) {
        for (int m = 0; m < metrics; m++) {
            long at = metricsAt + (long) m * DiskFormat.JOURNAL_V2_METRIC_ENTRY_SIZE;
            if (map.readInt(at + 32) == number) {
                uuid[0] = map.readLong(at);
                uuid[1] = map.readLong(at + 8);
                return true;
            }
        }
        return false;
    }

    /** Offset of extent {@code e} in the datafile. */
    @Override
    public long extentOffset(int e) {
        return map.readLong(extentsAt + (long) e * DiskFormat.JOURNAL_V2_EXTENT_ENTRY_SIZE);
    }

    @Override
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
