package io.strata.engine.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.io.EOFException;

/**
 * An open file. Writes are positional and report how many bytes reached the file: a short write
 * is possible (a full disk, an injected fault) and callers handle it rather than assume it.
 */
public interface FileHandle extends Closeable {

    Path path();

    /**
     * Writes the remaining bytes of {@code src} at {@code position}; returns the number written,
     * which is less than {@code src.remaining()} only when the file system refused the rest.
     */
    int write(ByteBuffer src, long position) throws IOException;

    /**
     * Reads into {@code dst} from {@code position} until {@code dst} is full or the end of the
     * file; returns the number of bytes read (0 at the end of the file).
     */
    int read(ByteBuffer dst, long position) throws IOException;

    /** Forces written data (not necessarily metadata) to the device. */
    void sync() throws IOException;

    long size() throws IOException;

    void truncate(long size) throws IOException;

    @Override
    void close() throws IOException;

    /** Writes all of {@code src} or throws {@link ShortWriteException} naming what reached the file. */
    default void writeFully(ByteBuffer src, long position) throws IOException {
        int wanted = src.remaining();
        int total = 0;
        while (src.hasRemaining()) {
            int n = write(src, position + total);
            if (n <= 0) {
                throw new ShortWriteException(path(), position, wanted, total);
            }
            total += n;
        }
    }

    /** Reads exactly {@code dst.remaining()} bytes or throws {@link java.io.EOFException}. */
    default void readFully(ByteBuffer dst, long position) throws IOException {
        long pos = position;
        while (dst.hasRemaining()) {
            int n = read(dst, pos);
            if (n <= 0) {
                throw new EOFException(path() + ": wanted " + dst.remaining()
                        + " more bytes at offset " + pos + ", file ends first");
            }
            pos += n;
        }
    }
}
