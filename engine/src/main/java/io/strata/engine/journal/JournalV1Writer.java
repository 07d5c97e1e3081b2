package io.strata.engine.journal;

import io.strata.engine.DiskFormat;
import io.strata.engine.datafile.DataFile;
import io.strata.engine.extent.ExtentTable;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Appends the transactions of journal v1 ({@code docs/format/journal-v1.md}): one per extent
 * stored in the datafile beside it.
 *
 * <pre>
 *  0       4    5    6         8          12            20          24
 *  +-------+----+----+---------+----------+-------------+-----------+
 *  | magic |type|rsvd| table   | sequence | extent      | extent    |
 *  | u32   | u8 | u8 | len u16 | u32      | offset u64  | length u32|
 *  +-------+----+----+---------+----------+-------------+-----------+
 *  | the extent's table (ExtentTable), T bytes        | crc32c u32  |
 *  +--------------------------------------------------+-------------+
 * </pre>
 * One writer thread.
 */
public final class JournalV1Writer implements Closeable {

    private final Path path;
    private final FileHandle handle;
    private long size;
    private long sequence;
    private byte[] buf = new byte[DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + 4096 + 4];
    private final CRC32C crc = new CRC32C();

    private JournalV1Writer(Path path, FileHandle handle, long size, long sequence) {
        this.path = path;
        this.handle = handle;
        this.size = size;
        this.sequence = sequence;
    }

    public static JournalV1Writer create(FileIo io, Path dir, int tier, int fileno) throws IOException {
        Path p = dir.resolve(DiskFormat.journalV1Name(tier, fileno));
        io.delete(p);
        FileHandle h = io.open(p, FileIo.OpenMode.CREATE_NEW);
        try {
            h.writeFully(DataFile.superblock(DiskFormat.JOURNAL_V1_MAGIC, DiskFormat.JOURNAL_V1_VERSION, tier, fileno,
                    DiskFormat.JOURNAL_V1_SUPERBLOCK_SIZE), 0);
            h.sync();
            io.syncDirectory(dir);
        } catch (IOException e) {
            h.close();
            throw e;
        }
        return new JournalV1Writer(p, h, DiskFormat.JOURNAL_V1_SUPERBLOCK_SIZE, 0);
    }

    /**
     * Appends the transaction of the extent {@code extent} (from index 0 to its limit, as built
     * by {@link io.strata.engine.extent.ExtentWriter}; the position does not matter) stored at
     * {@code extentOffset}: its table, copied from the extent.
     */
    public void append(long extentOffset, ByteBuffer extent) throws IOException {
        ByteBuffer e = extent.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int p = 0;
        int t = Short.toUnsignedInt(e.getShort(p + 12));
        int len = DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + t + 4;
        ensure(len);
        e.get(p + DiskFormat.EXTENT_PREFIX_SIZE, buf, DiskFormat.JOURNAL_V1_TX_HEADER_SIZE, t);
        write(DiskFormat.JOURNAL_V1_TX_EXTENT_STORED, extentOffset, e.limit(), t);
    }

    /**
     * Appends the transaction of an extent of {@code extentLength} bytes stored at
     * {@code extentOffset} whose table is {@code table}, keeping only the definitions of numbers
     * at or above {@code minDefinition} (those the extent uses first; the others it repeats).
     */
    public void append(long extentOffset, int extentLength, ExtentTable table, int minDefinition) throws IOException {
        ensure(DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + table.maxEncodedLength() + 4);
        int end = table.encode(buf, DiskFormat.JOURNAL_V1_TX_HEADER_SIZE, minDefinition);
        write(DiskFormat.JOURNAL_V1_TX_EXTENT_STORED, extentOffset, extentLength,
                end - DiskFormat.JOURNAL_V1_TX_HEADER_SIZE);
    }

    /** Appends a transaction that only defines metric numbers ({@code table} has no page). */
    public void appendDefinitions(ExtentTable table) throws IOException {
        ensure(DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + table.maxEncodedLength() + 4);
        int end = table.encode(buf, DiskFormat.JOURNAL_V1_TX_HEADER_SIZE);
        int t = end - DiskFormat.JOURNAL_V1_TX_HEADER_SIZE;
        if (t > DiskFormat.EXTENT_MAX_TABLE) {
            throw new IllegalArgumentException("definitions of " + t + " bytes: split them");
        }
        write(DiskFormat.JOURNAL_V1_TX_DEFINITIONS, 0, 0, t);
    }

    private void ensure(int len) {
        if (buf.length < len) {
            buf = new byte[Math.max(len, buf.length * 2)];
        }
    }

    private void write(int type, long extentOffset, int extentLength, int tableLength) throws IOException {
        int len = DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + tableLength + 4;
        ByteBuffer b = ByteBuffer.wrap(buf, 0, len).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, DiskFormat.JOURNAL_V1_TX_MAGIC);
        b.put(4, (byte) type);
        b.put(5, (byte) 0);
        b.putShort(6, (short) tableLength);
        b.putInt(8, (int) sequence);
        b.putLong(12, extentOffset);
        b.putInt(20, extentLength);
        crc.reset();
        crc.update(buf, 0, len - 4);
        b.putInt(len - 4, (int) crc.getValue());
        b.position(0).limit(len);
        long at = size;
        try {
            handle.writeFully(b, at);
        } catch (IOException e) {
            try {
                handle.truncate(at);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        size = at + len;
        sequence++;
    }

    public void sync() throws IOException {
        handle.sync();
    }

    public long size() {
        return size;
    }

    public Path path() {
        return path;
    }

    @Override
    public void close() throws IOException {
        handle.close();
    }
}
