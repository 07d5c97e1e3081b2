package io.strata.engine.journal;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.datafile.DataFile;
import io.strata.engine.extent.PageDescriptor;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/** Replays journal v1 transactions in order, stopping at the first one that does not check out. */
public final class JournalV1Reader {

    private JournalV1Reader() {
    }

    /** Receives each valid transaction; the descriptors are reused after the call returns. */
    @FunctionalInterface
    public interface TransactionVisitor {
        void extentStored(long sequence, long extentOffset, int extentLength, PageDescriptor[] pages, int pageCount);
    }

    /**
     * Where replay stopped: {@code end} is the offset after the last valid transaction,
     * {@code problem} null when the journal ended cleanly there.
     */
    public record Result(long end, long nextSequence, int transactions, String problem) {
    }

    /**
     * Replays the journal at {@code path}. A bad superblock throws; a damaged transaction ends
     * the replay with a {@link Result#problem()}.
     */
    public static Result replay(FileIo io, Path path, int tier, int fileno, TransactionVisitor visitor)
            throws IOException, CorruptionException {
        try (FileHandle h = io.open(path, FileIo.OpenMode.READ)) {
            DataFile.checkSuperblock(h, path, DiskFormat.JOURNAL_V1_MAGIC, DiskFormat.JOURNAL_V1_VERSION, tier, fileno,
                    DiskFormat.JOURNAL_V1_SUPERBLOCK_SIZE);
            long size = h.size();
            long pos = DiskFormat.JOURNAL_V1_SUPERBLOCK_SIZE;
            PageDescriptor[] pages = new PageDescriptor[DiskFormat.EXTENT_MAX_PAGES];
            for (int i = 0; i < pages.length; i++) {
                pages[i] = new PageDescriptor();
            }
            ByteBuffer hdr = ByteBuffer.allocate(DiskFormat.JOURNAL_V1_TX_HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
            byte[] body = new byte[DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + 64 * DiskFormat.PAGE_DESCRIPTOR_SIZE + 4];
            CRC32C crc = new CRC32C();
            long expectSeq = -1;
            int count = 0;
            // Bulk read: journals are read whole at start; a large window keeps it to few calls.
            ByteBuffer window = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
            long windowAt = -1;
            while (pos < size) {
                if (size - pos < DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + 4) {
                    return new Result(pos, expectSeq + 1, count, "truncated transaction (" + (size - pos) + " bytes)");
                }
                int maxTx = body.length;
                if (windowAt < 0 || pos < windowAt || pos + maxTx > windowAt + window.limit()) {
                    window.clear();
                    long want = Math.min(window.capacity(), size - pos);
                    window.limit((int) want);
                    h.readFully(window, pos);
                    window.flip();
                    windowAt = pos;
                }
                int off = (int) (pos - windowAt);
                hdr.clear();
                hdr.put(0, window, off, DiskFormat.JOURNAL_V1_TX_HEADER_SIZE);
                if (hdr.getInt(0) != DiskFormat.JOURNAL_V1_TX_MAGIC) {
                    return new Result(pos, expectSeq + 1, count, "no transaction magic");
                }
                if (hdr.get(4) != DiskFormat.JOURNAL_V1_TX_EXTENT_STORED) {
                    return new Result(pos, expectSeq + 1, count, "unknown transaction type " + hdr.get(4));
                }
                int n = Short.toUnsignedInt(hdr.getShort(6));
                if (n < 1 || n > DiskFormat.EXTENT_MAX_PAGES) {
                    return new Result(pos, expectSeq + 1, count, "transaction page count " + n + " out of range");
                }
                int len = DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + n * DiskFormat.PAGE_DESCRIPTOR_SIZE + 4;
                if (pos + len > size) {
                    return new Result(pos, expectSeq + 1, count, "truncated transaction (" + (size - pos) + " of " + len + " bytes)");
                }
                window.get(off, body, 0, len);
                crc.reset();
                crc.update(body, 0, len - 4);
                ByteBuffer b = ByteBuffer.wrap(body, 0, len).order(ByteOrder.LITTLE_ENDIAN);
                if ((int) crc.getValue() != b.getInt(len - 4)) {
                    return new Result(pos, expectSeq + 1, count, "transaction checksum mismatch");
                }
                long seq = b.getLong(8);
                if (expectSeq >= 0 && seq != expectSeq + 1) {
                    return new Result(pos, expectSeq + 1, count, "transaction sequence " + seq + " after " + expectSeq);
                }
                for (int i = 0; i < n; i++) {
                    pages[i].read(b, DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + i * DiskFormat.PAGE_DESCRIPTOR_SIZE);
                    String bad = pages[i].validate();
                    if (bad != null) {
                        return new Result(pos, expectSeq + 1, count, "transaction page " + i + ": " + bad);
                    }
                }
                visitor.extentStored(seq, b.getLong(16), b.getInt(24), pages, n);
                expectSeq = seq;
                count++;
                pos += len;
            }
            return new Result(pos, expectSeq + 1, count, null);
        }
    }
}
