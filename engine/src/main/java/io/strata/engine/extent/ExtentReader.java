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

/**
 * Reads extents written by {@link ExtentWriter}: checks the header and the checksum, then
 * decompresses and decodes pages on demand. Every length read from disk is checked before use,
 * so a damaged extent yields a {@link CorruptionException}, never an out-of-bounds access.
 * Not thread-safe; one per reading thread.
 */
public final class ExtentReader {

    private final LZ4SafeDecompressor lz4 = LZ4Factory.fastestInstance().safeDecompressor();
    private final CRC32C crc = new CRC32C();
    private byte[] raw = new byte[64 * 1024];
    private int[] pageOffsets = new int[DiskFormat.EXTENT_MAX_PAGES];
    private final PageDescriptor[] descriptors = new PageDescriptor[DiskFormat.EXTENT_MAX_PAGES];
    private int pageCount;
    private boolean decompressed;
    private ByteBuffer current;
    private int payloadAt;
    private int storedLength;
    private int rawLength;
    private int compression;
    private String file;
    private long offset;

    public ExtentReader() {
        for (int i = 0; i < descriptors.length; i++) {
            descriptors[i] = new PageDescriptor();
        }
    }

    /**
     * The total length of the extent whose first {@value DiskFormat#EXTENT_HEADER_SIZE} bytes are
     * at {@code b[0..]}, or throws when the header is not an extent header.
     */
    public static int totalLength(ByteBuffer header, String file, long offset) throws CorruptionException {
        ByteBuffer b = header.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() < DiskFormat.EXTENT_HEADER_SIZE || b.getInt(b.position()) != DiskFormat.EXTENT_MAGIC) {
            throw new CorruptionException(file, offset, "no extent magic");
        }
        int p = b.position();
        int pages = Short.toUnsignedInt(b.getShort(p + 6));
        int stored = b.getInt(p + 8);
        if (pages < 1 || pages > DiskFormat.EXTENT_MAX_PAGES) {
            throw new CorruptionException(file, offset, "extent page count " + pages + " out of range");
        }
        if (stored < 0 || stored > 64 << 20) {
            throw new CorruptionException(file, offset, "extent payload length " + stored + " out of range");
        }
        return DiskFormat.EXTENT_HEADER_SIZE + pages * DiskFormat.PAGE_DESCRIPTOR_SIZE + stored
                + DiskFormat.EXTENT_TRAILER_SIZE;
    }

    /**
     * Checks the extent held in {@code b} (position to limit) and makes its pages available.
     * The buffer must stay unchanged while pages are read from it.
     */
    public void open(ByteBuffer b, String file, long offset) throws CorruptionException {
        this.file = file;
        this.offset = offset;
        ByteBuffer e = b.slice().order(ByteOrder.LITTLE_ENDIAN);
        int total = totalLength(e, file, offset);
        if (total != e.remaining()) {
            throw new CorruptionException(file, offset, "extent length " + total + " does not match the "
                    + e.remaining() + " bytes given for it");
        }
        if (e.get(4) != DiskFormat.EXTENT_VERSION) {
            throw new CorruptionException(file, offset, "extent version " + e.get(4) + " unknown");
        }
        int crcAt = total - DiskFormat.EXTENT_TRAILER_SIZE;
        crc.reset();
        ByteBuffer forCrc = e.duplicate();
        forCrc.position(0).limit(crcAt);
        crc.update(forCrc);
        if ((int) crc.getValue() != e.getInt(crcAt)) {
            throw new CorruptionException(file, offset, "extent checksum mismatch");
        }
        compression = e.get(5);
        if (compression != DiskFormat.COMPRESSION_LZ4 && compression != DiskFormat.COMPRESSION_NONE) {
            throw new CorruptionException(file, offset, "extent compression " + compression + " unknown");
        }
        pageCount = Short.toUnsignedInt(e.getShort(6));
        storedLength = e.getInt(8);
        rawLength = e.getInt(12);
        if (rawLength < 0 || rawLength > 64 << 20
                || (compression == DiskFormat.COMPRESSION_NONE && rawLength != storedLength)) {
            throw new CorruptionException(file, offset, "extent raw length " + rawLength + " inconsistent");
        }
        int at = 0;
        for (int i = 0; i < pageCount; i++) {
            PageDescriptor d = descriptors[i].read(e, DiskFormat.EXTENT_HEADER_SIZE + i * DiskFormat.PAGE_DESCRIPTOR_SIZE);
            String bad = d.validate();
            if (bad != null) {
                throw new CorruptionException(file, offset, "page " + i + ": " + bad);
            }
            pageOffsets[i] = at;
            at += d.encodedLength;
        }
        if (at != rawLength) {
            throw new CorruptionException(file, offset, "page lengths add up to " + at + ", extent says " + rawLength);
        }
        payloadAt = DiskFormat.EXTENT_HEADER_SIZE + pageCount * DiskFormat.PAGE_DESCRIPTOR_SIZE;
        current = e;
        decompressed = false;
    }

    public int pageCount() {
        return pageCount;
    }

    public PageDescriptor descriptor(int i) {
        if (i < 0 || i >= pageCount) {
            throw new IndexOutOfBoundsException("page " + i + " of " + pageCount);
        }
        return descriptors[i];
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
                    n = lz4.decompress(src, payloadAt, storedLength, java.nio.ByteBuffer.wrap(raw), 0, rawLength);
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
            io.strata.engine.page.PageCodecTier1.decode(raw, pageOffsets[i], d.encodedLength, points, d.entries);
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
