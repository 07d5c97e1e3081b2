package io.strata.engine.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Every file call of the engine goes through this interface, so that tests can fail any chosen
 * call (open, write, fsync, rename, mmap, truncate, delete, a short write) and check what the
 * engine does about it. The production implementation is {@link FileChannelIo}.
 *
 * <p>Implementations are thread-safe; the handles they return are used by one writer thread at a
 * time but may be read (positional reads) from any thread.
 */
public interface FileIo {

    /** How a file is opened. */
    enum OpenMode {
        /** Read only; the file must exist. */
        READ,
        /** Read and write; created when missing. */
        READ_WRITE,
        /** Read and write; the file must not exist yet. */
        CREATE_NEW,
        /**
         * Read only, bypassing the OS page cache (O_DIRECT). The handle aligns every read itself,
         * so callers read any offset and length. Throws {@link UnsupportedOperationException}
         * when the platform or the file system refuses O_DIRECT: callers then read buffered.
         */
        READ_DIRECT
    }

    FileHandle open(Path path, OpenMode mode) throws IOException;

    /**
     * Maps the whole file read-only. The caller owns the region and closes it.
     */
    MappedRegion mapReadOnly(Path path) throws IOException;

    /** Atomically renames {@code from} to {@code to}, replacing {@code to}. */
    void rename(Path from, Path to) throws IOException;

    /** Deletes the file if it exists; returns whether it existed. */
    boolean delete(Path path) throws IOException;

    boolean exists(Path path);

    long size(Path path) throws IOException;

    /** The regular files directly inside {@code dir}, sorted by name; empty when it does not exist. */
    List<Path> list(Path dir) throws IOException;

    void createDirectories(Path dir) throws IOException;

    /** Makes the directory entry changes (create, rename, delete) of {@code dir} durable. */
    void syncDirectory(Path dir) throws IOException;
}
