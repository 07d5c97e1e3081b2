package io.strata.engine.extent;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.page.PageCodecTier0;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import io.strata.engine.page.PageCodecTier1;

/**
 * Reads extents written by {@link ExtentWriter}: checks the prefix, the table's checksum and
 * fields, the payload's checksum, then decompresses and decodes pages on demand. Every length
 * read from disk is checked before use, so a damaged extent yields a {@link CorruptionException},
 * never an out-of-bounds access. Not thread-safe; one per reading thread.
 */
public final class ExtentReader {

    private final LZ4SafeDecompressor lz4 = LZ4Factory.fastestInstance().safeDecompressor();
    private final CRC32C crc = new CRC32C();
    private final ExtentTable table = new ExtentTable();
    private byte[] tableBytes = new byte[4096];
    private byte[] raw = new byte[64 * 1024];
    private int[] pageOffsets = new int[DiskFormat.EXTENT_MAX_PAGES];
    private int pageCount;
    private boolean decompressed;
    private ByteBuffer current;
    private int payloadAt;
    private int storedLength;
    private int rawLength;
    private int compression;
    private String file;
    private long offset;

    /**
     * Reads the prefix and the table of the extent that starts at {@code b}'s position (the
     * buffer must hold at least the prefix, the table and its checksum, see
     * {@link DiskFormat#EXTENT_MAX_HEADER}) and checks them; returns the extent's total length.
     * Afterwards {@link #table()} is the extent's table. Used by scans, which learn from it where
     * the next extent starts.
     */
    public int readTable(ByteBuffer b, String file, long offset) throws CorruptionException {
        ByteBuffer e = b.slice().order(ByteOrder.LITTLE_ENDIAN);
        if (e.remaining() < DiskFormat.EXTENT_PREFIX_SIZE || e.getInt(0) != DiskFormat.EXTENT_MAGIC) {
            throw new CorruptionException(file, offset, "no extent magic");
        }
        if (e.get(4) != DiskFormat.EXTENT_VERSION) {
            throw new CorruptionException(file, offset, "extent version " + e.get(4) + " unknown");
        }
        int t = Short.toUnsignedInt(e.getShort(12));
        int tableEnd = DiskFormat.EXTENT_PREFIX_SIZE + t;
        if (e.remaining() < tableEnd + DiskFormat.EXTENT_CRC_SIZE) {
            throw new CorruptionException(file, offset, "extent table of " + t + " bytes runs past the "
                    + e.remaining() + " bytes given");
        }
        crc.reset();
        ByteBuffer forCrc = e.duplicate();
        forCrc.position(0).limit(tableEnd);
        crc.update(forCrc);
        if ((int) crc.getValue() != e.getInt(tableEnd)) {
            throw new CorruptionException(file, offset, "extent table checksum mismatch");
        }
        if (tableBytes.length < t) {
            tableBytes = new byte[Math.max(t, tableBytes.length * 2)];
        }
        e.get(DiskFormat.EXTENT_PREFIX_SIZE, tableBytes, 0, t);
        table.decode(tableBytes, 0, t, file, offset);
        if (table.pageCount < 1) {
            throw new CorruptionException(file, offset, "extent of no page");
        }
        if (e.get(5) != table.compression || Short.toUnsignedInt(e.getShort(6)) != table.pageCount
                || e.getInt(8) != table.storedLength) {
            throw new CorruptionException(file, offset, "extent header and table disagree");
        }
        return tableEnd + DiskFormat.EXTENT_CRC_SIZE + table.storedLength + DiskFormat.EXTENT_CRC_SIZE;
    }

    /**
     * Decodes, without trusting its checksum, what is left of the table of a damaged extent at
     * {@code b}'s position: definitions and page descriptors that still decode and look
     * plausible ({@link ExtentTable#definitionsDecoded}, {@link ExtentTable#pagesDecoded}), to
     * say what the extent held. Null when not even the prefix is there.
     */
    public static ExtentTable salvageTable(ByteBuffer b) {
        ByteBuffer e = b.slice().order(ByteOrder.LITTLE_ENDIAN);
        if (e.remaining() < DiskFormat.EXTENT_PREFIX_SIZE || e.getInt(0) != DiskFormat.EXTENT_MAGIC) {
            return null;
        }
        if (e.remaining() < DiskFormat.EXTENT_PREFIX_SIZE) {
            return null;
        }
        int t = Math.min(Short.toUnsignedInt(e.getShort(12)), e.remaining() - DiskFormat.EXTENT_PREFIX_SIZE);
        byte[] bytes = new byte[t];
        e.get(DiskFormat.EXTENT_PREFIX_SIZE, bytes, 0, t);
        ExtentTable table = new ExtentTable();
        table.salvage(bytes, 0, t);
        return table;
    }

    /**
     * Checks the extent held in {@code b} (position to limit) and makes its pages available.
     * The buffer must stay unchanged while pages are read from it.
     */
    public void open(ByteBuffer b, String file, long offset) throws CorruptionException {
        this.file = file;
        this.offset = offset;
        ByteBuffer e = b.slice().order(ByteOrder.LITTLE_ENDIAN);
        int total = readTable(e, file, offset);
        if (total != e.remaining()) {
            throw new CorruptionException(file, offset, "extent length " + total + " does not match the "
                    + e.remaining() + " bytes given for it");
        }
        int at = DiskFormat.EXTENT_PREFIX_SIZE + Short.toUnsignedInt(e.getShort(12)) + DiskFormat.EXTENT_CRC_SIZE;
        compression = table.compression;
        pageCount = table.pageCount;
        storedLength = table.storedLength;
        rawLength = table.rawLength;
        crc.reset();
        ByteBuffer forCrc = e.duplicate();
        forCrc.position(at).limit(at + storedLength);
        crc.update(forCrc);
        if ((int) crc.getValue() != e.getInt(at + storedLength)) {
            throw new CorruptionException(file, offset, "extent payload checksum mismatch");
        }
        int o = 0;
        for (int i = 0; i < pageCount; i++) {
            pageOffsets[i] = o;
            o += table.pages[i].encodedLength;
        }
        payloadAt = at;
        current = e;
        decompressed = false;
    }

    /** The table of the extent last opened or read. */
    public ExtentTable table() {
        return table;
    }

    public int pageCount() {
        return pageCount;
    }

    public PageDescriptor descriptor(int i) {
        if (i < 0 || i >= pageCount) {
            throw new IndexOutOfBoundsException("page " + i + " of " + pageCount);
        }
        return table.pages[i];
    }

    private void decompress() throws CorruptionException {
        if (decompressed) {
            return;
        }
        if (raw.length < rawLength) {
            raw = new byte[Math.max(rawLength, raw.length * 2)];
        }
        ByteBuffer src = current.duplicate();
        src.position(payloadAt).limit(payloadAt + storedLength);
        if (compression == DiskFormat.COMPRESSION_NONE) {
            src.get(raw, 0, rawLength);
        } else {
            try {
                int n;
                if (src.hasArray()) {
                    n = lz4.decompress(src.array(), src.arrayOffset() + payloadAt, storedLength, raw, 0, rawLength);
                } else {
                    n = lz4.decompress(src, payloadAt, storedLength, ByteBuffer.wrap(raw), 0, rawLength);
                }
                if (n != rawLength) {
                    throw new CorruptionException(file, offset, "extent decompressed to " + n + " bytes, expected " + rawLength);
                }
            } catch (LZ4Exception ex) {
                throw new CorruptionException(file, offset, "extent payload does not decompress: " + ex.getMessage());
            }
        }
        decompressed = true;
    }

    /** Decodes tier-0 page {@code i} into {@code points}; returns its entry count. */
    public int decodeTier0(int i, int[] points) throws CorruptionException {
        PageDescriptor d = descriptor(i);
        if (d.type != DiskFormat.PAGE_TYPE_TIER0) {
            throw new IllegalArgumentException("page " + i + " is not a tier-0 page");
        }
        decompress();
        try {
            PageCodecTier0.decode(raw, pageOffsets[i], d.encodedLength, points, d.entries);
        } catch (IllegalArgumentException ex) {
            throw new CorruptionException(file, offset, "page " + i + " does not decode: " + ex.getMessage());
        }
        return d.entries;
    }

    /**
     * Decodes tier-1+ page {@code i} into {@code points} (4 ints per point, see
     * {@link io.strata.engine.page.PageCodecTier1}); returns its entry count.
     */
    public int decodeTier1(int i, int[] points) throws CorruptionException {
        PageDescriptor d = descriptor(i);
        if (d.type != DiskFormat.PAGE_TYPE_TIER1) {
            throw new IllegalArgumentException("page " + i + " is not a tier-1+ page");
        }
        decompress();
        try {
            PageCodecTier1.decode(raw, pageOffsets[i], d.encodedLength, points, d.entries);
        } catch (IllegalArgumentException ex) {
            throw new CorruptionException(file, offset, "page " + i + " does not decode: " + ex.getMessage());
        }
        return d.entries;
    }

    /** Copies the raw bytes of (tier 1+) page {@code i} into {@code dst}; returns their length. */
    public int rawPage(int i, byte[] dst) throws CorruptionException {
        PageDescriptor d = descriptor(i);
        decompress();
        System.arraycopy(raw, pageOffsets[i], dst, 0, d.encodedLength);
        return d.encodedLength;
    }
}
