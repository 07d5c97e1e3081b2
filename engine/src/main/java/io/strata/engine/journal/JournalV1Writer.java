package io.strata.engine.journal;

import io.strata.engine.DiskFormat;
import io.strata.engine.datafile.DataFile;
import io.strata.engine.extent.PageDescriptor;
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
 *  0       4    5    6       8            16            24          28       32
 *  +-------+----+----+-------+------------+-------------+-----------+--------+
 *  | magic |type|rsvd| pages | sequence   | extent      | extent    | rsvd   |
 *  | u32   | u8 | u8 | u16   | u64        | offset u64  | length u32| u32    |
 *  +-------+----+----+-------+------------+-------------+-----------+--------+
 *  | 32-byte page descriptors x pages (as in the extent)  | crc32c u32        |
 *  +------------------------------------------------------+-------------------+
 * </pre>
 * One writer thread.
 */
public final class JournalV1Writer implements Closeable {

    private final Path path;
    private final FileHandle handle;
    private long size;
    private long sequence;
    private byte[] buf = new byte[DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + 64 * DiskFormat.PAGE_DESCRIPTOR_SIZE + 4];
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

    /** Continues an existing journal whose valid transactions end at {@code end}. */
    public static JournalV1Writer reopen(FileIo io, Path path, long end, long nextSequence) throws IOException {
        FileHandle h = io.open(path, FileIo.OpenMode.READ_WRITE);
        if (h.size() != end) {
            h.truncate(end);
        }
        return new JournalV1Writer(path, h, end, nextSequence);
    }

    /** Appends the transaction of an extent of {@code pages} descriptors stored at {@code offset}. */
    public void append(long extentOffset, int extentLength, PageDescriptor[] pages, int pageCount) throws IOException {
        int len = DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + pageCount * DiskFormat.PAGE_DESCRIPTOR_SIZE + 4;
        if (buf.length < len) {
            buf = new byte[len];
        }
        ByteBuffer b = ByteBuffer.wrap(buf, 0, len).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, DiskFormat.JOURNAL_V1_TX_MAGIC);
        b.put(4, (byte) DiskFormat.JOURNAL_V1_TX_EXTENT_STORED);
        b.put(5, (byte) 0);
        b.putShort(6, (short) pageCount);
        b.putLong(8, sequence);
        b.putLong(16, extentOffset);
        b.putInt(24, extentLength);
        b.putInt(28, 0);
        for (int i = 0; i < pageCount; i++) {
            pages[i].write(b, DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + i * DiskFormat.PAGE_DESCRIPTOR_SIZE);
        }
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
