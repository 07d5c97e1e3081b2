package io.strata.engine.extent;

import io.strata.engine.DiskFormat;
import io.strata.engine.page.DirtyPage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.zip.CRC32C;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Packs up to {@value DiskFormat#EXTENT_MAX_PAGES} dirty (already encoded) pages into one extent
 * ({@code docs/format/extent.md}):
 *
 * <pre>
 * +-------+-----+-----+-------+--------+----------+--------------+-----------------+---------+
 * | magic | ver | cmp | pages | stored | raw      | descriptors  | payload         | crc32c  |
 * | u32   | u8  | u8  | u16   | len u32| len u32  | 32 x pages   | (stored len)    | u32     |
 * +-------+-----+-----+-------+--------+----------+--------------+-----------------+---------+
 *  payload = LZ4 block of the concatenated encoded pages (or the pages as they are when LZ4
 *  would not make them smaller); crc32c covers every byte before it.
 * </pre>
 *
 * Not thread-safe: one per flushing thread, reusing its buffers. The returned buffer and the
 * descriptors are valid until the next {@link #build}.
 */
public final class ExtentWriter {

    private final LZ4Compressor lz4 = LZ4Factory.fastestInstance().fastCompressor();
    private byte[] raw = new byte[DiskFormat.EXTENT_MAX_PAGES * 4200];
    private byte[] out = new byte[64 * 1024];
    private final PageDescriptor[] descriptors = new PageDescriptor[DiskFormat.EXTENT_MAX_PAGES];
    private final CRC32C crc = new CRC32C();
    private int pageCount;
    private int rawLength;

    public ExtentWriter() {
        for (int i = 0; i < descriptors.length; i++) {
            descriptors[i] = new PageDescriptor();
        }
    }

    /** Encodes {@code pages[from, to)} into an extent; returns it, ready to be written. */
    public ByteBuffer build(List<DirtyPage> pages, int from, int to) {
        int n = to - from;
        if (n < 1 || n > DiskFormat.EXTENT_MAX_PAGES) {
            throw new IllegalArgumentException("an extent holds 1.." + DiskFormat.EXTENT_MAX_PAGES + " pages, got " + n);
        }
        int rawPos = 0;
        for (int i = 0; i < n; i++) {
            DirtyPage p = pages.get(from + i);
            PageDescriptor d = descriptors[i];
            d.uuidMsb = p.uuidMsb;
            d.uuidLsb = p.uuidLsb;
            d.startTime = p.startTime;
            d.updateEvery = p.updateEvery;
            d.entries = p.entries;
            d.type = p.type;
            int len = p.encoded.length;
            ensureRaw(rawPos + len);
            System.arraycopy(p.encoded, 0, raw, rawPos, len);
            d.encodedLength = len;
            rawPos += len;
        }
        pageCount = n;
        rawLength = rawPos;

        int headerLen = DiskFormat.EXTENT_HEADER_SIZE + n * DiskFormat.PAGE_DESCRIPTOR_SIZE;
        int maxOut = headerLen + lz4.maxCompressedLength(rawPos) + DiskFormat.EXTENT_TRAILER_SIZE;
        if (out.length < maxOut) {
            out = new byte[Math.max(maxOut, out.length * 2)];
        }
        int stored = lz4.compress(raw, 0, rawPos, out, headerLen, out.length - headerLen);
        int compression = DiskFormat.COMPRESSION_LZ4;
        if (stored >= rawPos) {
            System.arraycopy(raw, 0, out, headerLen, rawPos);
            stored = rawPos;
            compression = DiskFormat.COMPRESSION_NONE;
        }
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, DiskFormat.EXTENT_MAGIC);
        b.put(4, (byte) DiskFormat.EXTENT_VERSION);
        b.put(5, (byte) compression);
        b.putShort(6, (short) n);
        b.putInt(8, stored);
        b.putInt(12, rawPos);
        for (int i = 0; i < n; i++) {
            descriptors[i].write(b, DiskFormat.EXTENT_HEADER_SIZE + i * DiskFormat.PAGE_DESCRIPTOR_SIZE);
        }
        int crcAt = headerLen + stored;
        crc.reset();
        crc.update(out, 0, crcAt);
        b.putInt(crcAt, (int) crc.getValue());
        b.position(0).limit(crcAt + DiskFormat.EXTENT_TRAILER_SIZE);
        return b;
    }

    private void ensureRaw(int len) {
        if (raw.length < len) {
            raw = java.util.Arrays.copyOf(raw, Math.max(len, raw.length * 2));
        }
    }

    /** Pages in the last built extent. */
    public int pageCount() {
        return pageCount;
    }

    /** Descriptor {@code i} of the last built extent. */
    public PageDescriptor descriptor(int i) {
        return descriptors[i];
    }

    /** Uncompressed payload bytes of the last built extent. */
    public int rawLength() {
        return rawLength;
    }
}
