package io.strata.engine.datafile;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One datafile of one tier: a 4 KiB superblock, then extents appended back to back
 * ({@code docs/format/datafile.md}). Appends come from one flushing thread; positional reads
 * from any thread.
 */
public final class DataFile implements Closeable {

    private final Path path;
    private final int tier;
    private final int fileno;
    private final FileHandle handle;
    /** Where reads go: an O_DIRECT handle when {@link #useDirectReads} succeeded, else {@link #handle}. */
    private volatile FileHandle reads;
    private volatile long size;

    private DataFile(Path path, int tier, int fileno, FileHandle handle, long size) {
        this.path = path;
        this.tier = tier;
        this.fileno = fileno;
        this.handle = handle;
        this.reads = handle;
        this.size = size;
    }

    /**
     * Reads (queries, scans, recovery) bypass the OS page cache from now on, through a second
     * handle opened with O_DIRECT. Returns false, and keeps reading buffered, when the file
     * system or platform refuses O_DIRECT. Writes stay buffered; Linux writes back the cached
     * range before a direct read of it, so reads see every append.
     */
    public boolean useDirectReads(FileIo io) {
        try {
            FileHandle h = io.open(path, FileIo.OpenMode.READ_DIRECT);
            reads = h;
            return true;
        } catch (UnsupportedOperationException | IOException e) {
            return false;
        }
    }

    /** Whether reads bypass the OS page cache. */
    public boolean directReads() {
        return reads != handle;
    }

    /** Creates a new datafile with its superblock, durable before it is used. */
    public static DataFile create(FileIo io, Path dir, int tier, int fileno) throws IOException {
        Path p = dir.resolve(DiskFormat.datafileName(tier, fileno));
        FileHandle h = io.open(p, FileIo.OpenMode.CREATE_NEW);
        try {
            ByteBuffer sb = superblock(DiskFormat.DATAFILE_MAGIC, DiskFormat.DATAFILE_VERSION, tier, fileno,
                    DiskFormat.DATAFILE_SUPERBLOCK_SIZE);
            h.writeFully(sb, 0);
            h.sync();
            io.syncDirectory(dir);
        } catch (IOException e) {
            h.close();
            io.delete(p);
            throw e;
        }
        return new DataFile(p, tier, fileno, h, DiskFormat.DATAFILE_SUPERBLOCK_SIZE);
    }

    /** Opens an existing datafile for reading and appending; checks its superblock. */
    public static DataFile open(FileIo io, Path path, int tier, int fileno) throws IOException, CorruptionException {
        FileHandle h = io.open(path, FileIo.OpenMode.READ_WRITE);
        try {
            long size = h.size();
            checkSuperblock(h, path, DiskFormat.DATAFILE_MAGIC, DiskFormat.DATAFILE_VERSION, tier, fileno,
                    DiskFormat.DATAFILE_SUPERBLOCK_SIZE);
            return new DataFile(path, tier, fileno, h, size);
        } catch (IOException | CorruptionException | RuntimeException e) {
            h.close();
            throw e;
        }
    }

    /**
     * Opens a datafile whose superblock is damaged, so that recovery can still read its extents.
     */
    public static DataFile openUnchecked(FileIo io, Path path, int tier, int fileno) throws IOException {
        FileHandle h = io.open(path, FileIo.OpenMode.READ_WRITE);
        return new DataFile(path, tier, fileno, h, h.size());
    }

    /** Rewrites the superblock, whose content is fully determined by tier and file number. */
    public void rewriteSuperblock() throws IOException {
        handle.writeFully(superblock(DiskFormat.DATAFILE_MAGIC, DiskFormat.DATAFILE_VERSION, tier, fileno,
                DiskFormat.DATAFILE_SUPERBLOCK_SIZE), 0);
        handle.sync();
    }

    /** A superblock: magic u64, version u32, tier u32, fileno u32, crc32c of the 20 bytes before. */
    public static ByteBuffer superblock(long magic, int version, int tier, int fileno, int size) {
        ByteBuffer sb = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        sb.putLong(0, magic).putInt(8, version).putInt(12, tier).putInt(16, fileno);
        CRC32C crc = new CRC32C();
        crc.update(sb.array(), 0, 20);
        sb.putInt(20, (int) crc.getValue());
        return sb;
    }

    /**
     * The version in the superblock of {@code path} when its magic is {@code magic} and its
     * checksum holds; -1 otherwise (damaged, too short, not that kind of file).
     */
    public static int superblockVersion(FileIo io, Path path, long magic) throws IOException {
        try (FileHandle h = io.open(path, FileIo.OpenMode.READ)) {
            if (h.size() < 24) {
                return -1;
            }
            ByteBuffer sb = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
            h.readFully(sb, 0);
            CRC32C crc = new CRC32C();
            crc.update(sb.array(), 0, 20);
            return sb.getLong(0) == magic && (int) crc.getValue() == sb.getInt(20) ? sb.getInt(8) : -1;
        }
    }

    public static void checkSuperblock(FileHandle h, Path path, long magic, int version, int tier, int fileno,
                                       int size) throws IOException, CorruptionException {
        if (h.size() < size) {
            throw new CorruptionException(path.toString(), 0, "file of " + h.size()
                    + " bytes is shorter than its " + size + "-byte superblock");
        }
        ByteBuffer sb = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        h.readFully(sb, 0);
        CRC32C crc = new CRC32C();
        crc.update(sb.array(), 0, 20);
        if (sb.getLong(0) != magic) {
            throw new CorruptionException(path.toString(), 0, "bad superblock magic");
        }
        if ((int) crc.getValue() != sb.getInt(20)) {
            throw new CorruptionException(path.toString(), 0, "superblock checksum mismatch");
        }
        if (sb.getInt(8) != version) {
            throw new CorruptionException(path.toString(), 0, "unknown version " + sb.getInt(8));
        }
        if (sb.getInt(12) != tier || sb.getInt(16) != fileno) {
            throw new CorruptionException(path.toString(), 0, "superblock names tier " + sb.getInt(12)
                    + " file " + sb.getInt(16) + ", the file name says tier " + tier + " file " + fileno);
        }
    }

    /**
     * Appends an extent; returns its offset. On a failed or short write the file is cut back to
     * where it was, so the next extent starts at a clean boundary.
     */
    public long append(ByteBuffer extent) throws IOException {
        long at = size;
        try {
            handle.writeFully(extent, at);
        } catch (IOException | RuntimeException | Error e) {
            try {
                handle.truncate(at);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        size = at + extent.limit();
        return at;
    }

    /** Reads {@code length} bytes at {@code offset} into a new little-endian buffer. */
    public ByteBuffer read(long offset, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        reads.readFully(b, offset);
        b.flip();
        return b;
    }

    public void read(ByteBuffer dst, long offset) throws IOException {
        reads.readFully(dst, offset);
    }

    public void sync() throws IOException {
        handle.sync();
    }

    /** Cuts the file at {@code newSize} (recovery drops a damaged tail). */
    public void truncate(long newSize) throws IOException {
        handle.truncate(newSize);
        size = newSize;
    }

    public long size() {
        return size;
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

    /**
     * Readers that copied page references of this datafile under the tier's read lock and read
     * its extents after releasing it: rotation then closes it only when the last one is done
     * ({@link #closeWhenUnread}), so that a slow reader never holds the tier's lock (which the
     * flusher's rollover and rotation need) for its whole query.
     */
    private final AtomicInteger readers = new AtomicInteger();
    private volatile boolean closeWhenUnread;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Keeps the file open for a reader until {@link #releaseRead}; call while holding the tier's
     * read lock with the datafile in the tier's list (rotation removes it under the write lock
     * before {@link #closeWhenUnread}, so no reader retains a file being closed).
     */
    public void retainRead() {
        readers.incrementAndGet();
    }

    /** Ends a {@link #retainRead}; the last reader of a rotated datafile closes it. */
    public void releaseRead() {
        if (readers.decrementAndGet() == 0 && closeWhenUnread) {
            closeQuietly();
        }
    }

    /** Closes the file now, or when its last reader releases it (rotation). */
    public void closeWhenUnread() throws IOException {
        closeWhenUnread(null);
    }

    /**
     * As {@link #closeWhenUnread()}, running {@code alsoClose} (the datafile's journal v2
     * mapping, which scans read) at the same moment.
     */
    public void closeWhenUnread(Runnable alsoClose) throws IOException {
        this.alsoClose = alsoClose;
        closeWhenUnread = true;
        if (readers.get() == 0 && closed.compareAndSet(false, true)) {
            runAlsoClose();
            closeHandles();
        }
    }

    private volatile Runnable alsoClose;

    private void runAlsoClose() {
        Runnable r = alsoClose;
        if (r != null) {
            r.run();
        }
    }

    /** Readers holding the file open (tests). */
    public int readersHolding() {
        return readers.get();
    }

    private void closeQuietly() {
        if (closed.compareAndSet(false, true)) {
            try {
                runAlsoClose();
                closeHandles();
            } catch (IOException e) {
                // the file was already rotated out and (being) deleted: nothing is lost
            }
        }
    }

    @Override
    public void close() throws IOException {
        if (closed.compareAndSet(false, true)) {
            closeHandles();
        }
    }

    private void closeHandles() throws IOException {
        FileHandle r = reads;
        if (r != handle) {
            try {
                r.close();
            } catch (IOException e) {
                handle.close();
                throw e;
            }
        }
        handle.close();
    }
}
