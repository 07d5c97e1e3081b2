package io.strata.engine.journal;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.datafile.DataFile;
import io.strata.engine.extent.ExtentTable;
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

    /** Receives each valid transaction; the table is reused after the call returns. */
    @FunctionalInterface
    public interface TransactionVisitor {
        /**
         * @param type {@link DiskFormat#JOURNAL_V1_TX_EXTENT_STORED} (offset, length and the
         *             extent's table) or {@link DiskFormat#JOURNAL_V1_TX_DEFINITIONS} (only
         *             definitions; offset and length 0)
         */
        void transaction(long sequence, int type, long extentOffset, int extentLength, ExtentTable table);
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
            ExtentTable table = new ExtentTable();
            int maxTx = DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + DiskFormat.EXTENT_MAX_TABLE + 4;
            CRC32C crc = new CRC32C();
            long expectSeq = -1;
            int count = 0;
            String name = path.toString();
            // Bulk read: journals are read whole at start; a large window keeps it to few calls.
            ByteBuffer window = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
            long windowAt = -1;
            while (pos < size) {
                if (size - pos < DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + 4) {
                    return new Result(pos, expectSeq + 1, count, "truncated transaction (" + (size - pos) + " bytes)");
                }
                if (windowAt < 0 || pos < windowAt || pos + Math.min(maxTx, size - pos) > windowAt + window.limit()) {
                    window.clear();
                    long want = Math.min(window.capacity(), size - pos);
                    window.limit((int) want);
                    h.readFully(window, pos);
                    window.flip();
                    windowAt = pos;
                }
                int off = (int) (pos - windowAt);
                if (window.getInt(off) != DiskFormat.JOURNAL_V1_TX_MAGIC) {
                    return new Result(pos, expectSeq + 1, count, "no transaction magic");
                }
                int type = window.get(off + 4);
                if (type != DiskFormat.JOURNAL_V1_TX_EXTENT_STORED && type != DiskFormat.JOURNAL_V1_TX_DEFINITIONS) {
                    return new Result(pos, expectSeq + 1, count, "unknown transaction type " + type);
                }
                int t = Short.toUnsignedInt(window.getShort(off + 6));
                int len = DiskFormat.JOURNAL_V1_TX_HEADER_SIZE + t + 4;
                if (pos + len > size) {
                    return new Result(pos, expectSeq + 1, count, "truncated transaction (" + (size - pos) + " of " + len + " bytes)");
                }
                crc.reset();
                crc.update(window.array(), off, len - 4);
                if ((int) crc.getValue() != window.getInt(off + len - 4)) {
                    return new Result(pos, expectSeq + 1, count, "transaction checksum mismatch");
                }
                long seq = Integer.toUnsignedLong(window.getInt(off + 8));
                if (expectSeq >= 0 && seq != ((expectSeq + 1) & 0xFFFF_FFFFL)) {
                    return new Result(pos, expectSeq + 1, count, "transaction sequence " + seq + " after " + expectSeq);
                }
                try {
                    table.decode(window.array(), off + DiskFormat.JOURNAL_V1_TX_HEADER_SIZE, t, name, pos);
                } catch (CorruptionException e) {
                    return new Result(pos, expectSeq + 1, count, "transaction table: " + e.problem());
                }
                if ((type == DiskFormat.JOURNAL_V1_TX_EXTENT_STORED) != (table.pageCount > 0)) {
                    return new Result(pos, expectSeq + 1, count, "transaction of type " + type + " with "
                            + table.pageCount + " page(s)");
                }
                visitor.transaction(seq, type, window.getLong(off + 12), window.getInt(off + 20), table);
                expectSeq = seq;
                count++;
                pos += len;
            }
            return new Result(pos, expectSeq + 1, count, null);
        }
    }
}
