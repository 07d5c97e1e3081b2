package io.strata.engine.extent;

import io.strata.engine.DiskFormat;
import io.strata.engine.page.DirtyPage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.zip.CRC32C;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import java.util.Arrays;

/**
 * Packs up to {@value DiskFormat#EXTENT_MAX_PAGES} dirty (already encoded) pages into one extent
 * ({@code docs/format/extent.md}):
 *
 * <pre>
 * +-------+-----+-----+-------+--------+---------+------+-----------+--------------+---------+---------+
 * | magic | ver | cmp | pages | stored | table   | rsvd | table     | table crc32c | payload | payload |
 * | u32   | u8  | u8  | u16   | u32    | len u16 | u16  | (T bytes) | of [0, 16+T) | (stored)| crc32c  |
 * +-------+-----+-----+-------+--------+---------+------+-----------+--------------+---------+---------+
 *  table = ExtentTable: compression, lengths, metric definitions, compact page descriptors;
 *  payload = LZ4 block of the concatenated encoded pages (or the pages as they are when LZ4
 *  would not make them smaller).
 * </pre>
 *
 * Not thread-safe: one per flushing thread, reusing its buffers. The returned buffer and the
 * descriptors are valid until the next {@link #build}.
 */
public final class ExtentWriter {

    private final LZ4Compressor lz4 = LZ4Factory.fastestInstance().fastCompressor();
    private byte[] raw = new byte[DiskFormat.EXTENT_MAX_PAGES * 4200];
    private byte[] compressed = new byte[64 * 1024];
    private byte[] out = new byte[64 * 1024];
    private final ExtentTable table = new ExtentTable();
    private final CRC32C crc = new CRC32C();
    /** For {@link #build(List, int, int)}: extents that define every metric they use. */
    private final DatafileMetrics selfContained = new DatafileMetrics();
    private int tableLength;
    private int firstNewNumber;

    /**
     * Encodes {@code pages[from, to)} into an extent that defines every metric it names, readable
     * without the rest of its datafile; returns it, ready to be written.
     */
    public ByteBuffer build(List<DirtyPage> pages, int from, int to) {
        selfContained.clear();
        return build(pages, from, to, selfContained);
    }

    /**
     * Encodes {@code pages[from, to)} into an extent of the datafile whose metric table is
     * {@code metrics}; the numbers it gives new metrics stay tentative until the caller commits
     * or rolls them back. Returns the extent, ready to be written.
     */
    public ByteBuffer build(List<DirtyPage> pages, int from, int to, DatafileMetrics metrics) {
        int n = to - from;
        if (n < 1 || n > DiskFormat.EXTENT_MAX_PAGES) {
            throw new IllegalArgumentException("an extent holds 1.." + DiskFormat.EXTENT_MAX_PAGES + " pages, got " + n);
        }
        int rawPos = 0;
        firstNewNumber = metrics.committedSize();
        for (int i = 0; i < n; i++) {
            DirtyPage p = pages.get(from + i);
            if (p.type != DiskFormat.PAGE_TYPE_TIER0 && p.type != DiskFormat.PAGE_TYPE_TIER1) {
                throw new IllegalArgumentException("page type " + p.type + " unknown");
            }
            PageDescriptor d = table.pages[i];
            d.metric = metrics.numberOf(p.metricId, p.uuidMsb, p.uuidLsb);
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
        metrics.addDefinitions(table);
        table.pageCount = n;
        table.rawLength = rawPos;

        int maxCompressed = lz4.maxCompressedLength(rawPos);
        if (compressed.length < maxCompressed) {
            compressed = new byte[Math.max(maxCompressed, compressed.length * 2)];
        }
        int stored = lz4.compress(raw, 0, rawPos, compressed, 0, compressed.length);
        byte[] payload = compressed;
        table.compression = DiskFormat.COMPRESSION_LZ4;
        if (stored >= rawPos) {
            payload = raw;
            stored = rawPos;
            table.compression = DiskFormat.COMPRESSION_NONE;
        }
        table.storedLength = stored;

        int maxOut = DiskFormat.EXTENT_PREFIX_SIZE + table.maxEncodedLength() + stored + 2 * DiskFormat.EXTENT_CRC_SIZE;
        if (out.length < maxOut) {
            out = new byte[Math.max(maxOut, out.length * 2)];
        }
        int tableEnd = table.encode(out, DiskFormat.EXTENT_PREFIX_SIZE);
        tableLength = tableEnd - DiskFormat.EXTENT_PREFIX_SIZE;
        if (tableLength > DiskFormat.EXTENT_MAX_TABLE) {
            throw new IllegalStateException("extent table of " + tableLength + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, DiskFormat.EXTENT_MAGIC);
        b.put(4, (byte) DiskFormat.EXTENT_VERSION);
        b.put(5, (byte) table.compression);
        b.putShort(6, (short) n);
        b.putInt(8, stored);
        b.putShort(12, (short) tableLength);
        b.putShort(14, (short) 0);
        crc.reset();
        crc.update(out, 0, tableEnd);
        b.putInt(tableEnd, (int) crc.getValue());
        int payloadAt = tableEnd + DiskFormat.EXTENT_CRC_SIZE;
        System.arraycopy(payload, 0, out, payloadAt, stored);
        crc.reset();
        crc.update(out, payloadAt, stored);
        b.putInt(payloadAt + stored, (int) crc.getValue());
        b.position(0).limit(payloadAt + stored + DiskFormat.EXTENT_CRC_SIZE);
        return b;
    }

    private void ensureRaw(int len) {
        if (raw.length < len) {
            raw = Arrays.copyOf(raw, Math.max(len, raw.length * 2));
        }
    }

    /** Pages in the last built extent. */
    public int pageCount() {
        return table.pageCount;
    }

    /** Descriptor {@code i} of the last built extent (with its metric's number and UUID). */
    public PageDescriptor descriptor(int i) {
        return table.pages[i];
    }

    /** The table of the last built extent. */
    public ExtentTable table() {
        return table;
    }

    /** Bytes of the last built extent's table (they start at {@link DiskFormat#EXTENT_PREFIX_SIZE}). */
    public int tableLength() {
        return tableLength;
    }

    /**
     * The lowest metric number the last built extent used first: its table defines the numbers
     * below (repeats of the previous extent's) and above; journal v1 keeps only these.
     */
    public int firstNewNumber() {
        return firstNewNumber;
    }

    /** Uncompressed payload bytes of the last built extent. */
    public int rawLength() {
        return table.rawLength;
    }
}
