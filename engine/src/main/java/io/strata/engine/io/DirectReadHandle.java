package io.strata.engine.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import com.sun.nio.file.ExtendedOpenOption;

/**
 * A read-only handle on a file opened with O_DIRECT: reads bypass the OS page cache, so a scan
 * of a tier runs at the disk's rate without pushing everything else out of memory, and the
 * engine's own caches decide what stays. O_DIRECT wants the file offset, the length and the
 * buffer's address aligned to the file store's block size: every read here is widened to whole
 * blocks into an aligned per-thread buffer and the wanted bytes copied out, so callers read any
 * offset and length. Reads from any thread.
 */
final class DirectReadHandle implements FileHandle {

    private final Path path;
    private final FileChannel channel;
    private final int block;
    private final ThreadLocal<ByteBuffer> scratch = new ThreadLocal<>();

    private DirectReadHandle(Path path, FileChannel channel, int block) {
        this.path = path;
        this.channel = channel;
        this.block = block;
    }

    /**
     * Opens {@code path} with O_DIRECT; {@link UnsupportedOperationException} when the JDK, the
     * platform or the file system refuses it (the caller reads buffered instead).
     */
    static DirectReadHandle open(Path path) throws IOException {
        long bs;
        try {
            bs = Files.getFileStore(path).getBlockSize();
        } catch (UnsupportedOperationException | IOException e) {
            bs = 4096;
        }
        if (bs <= 0 || bs > (1 << 20) || Long.bitCount(bs) != 1) {
            bs = 4096;
        }
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
        } catch (UnsupportedOperationException e) {
            throw new UnsupportedOperationException(path + ": O_DIRECT not supported here (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            if (!Files.exists(path)) {
                throw e;
            }
            // EINVAL from file systems without O_DIRECT (older tmpfs, some network file systems)
            throw new UnsupportedOperationException(path + ": O_DIRECT refused (" + e.getMessage() + ")", e);
        }
        DirectReadHandle h = new DirectReadHandle(path, UninterruptibleChannels.of(ch), (int) bs);
        try {
            // Some file systems accept the flag at open and refuse the first read: find out now.
            h.read(ByteBuffer.allocate(1), 0);
        } catch (IOException e) {
            ch.close();
            throw new UnsupportedOperationException(path + ": O_DIRECT read refused (" + e.getMessage() + ")", e);
        }
        return h;
    }

    int blockSize() {
        return block;
    }

    @Override
    public Path path() {
        return path;
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        int want = dst.remaining();
        if (want == 0) {
            return 0;
        }
        if (dst.isDirect() && (position & (block - 1)) == 0 && (want & (block - 1)) == 0
                && dst.alignmentOffset(dst.position(), block) == 0) {
            // already aligned (a scan's runs): straight into the caller's buffer, no copy
            int n = channel.read(dst, position);
            return Math.max(n, 0);
        }
        long start = position & -(long) block;
        long end = (position + want + block - 1) & -(long) block;
        int span = (int) (end - start);
        ByteBuffer buf = scratch.get();
        if (buf == null || buf.capacity() < span) {
            int cap = Math.max(span, 64 * 1024);
            buf = ByteBuffer.allocateDirect(cap + block).alignedSlice(block);
            scratch.set(buf);
        }
        buf.clear().limit(span);
        long at = start;
        while (buf.hasRemaining()) {
            int n = channel.read(buf, at);
            if (n <= 0) {
                break;                  // end of file: the last block is short
            }
            at += n;
            if ((n & (block - 1)) != 0) {
                break;                  // a short read ends at the end of the file
            }
        }
        int got = (int) Math.max(0, Math.min(want, at - position));
        if (got > 0) {
            buf.limit((int) (position - start) + got).position((int) (position - start));
            dst.put(buf);
        }
        return got;
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        throw new IOException(path + ": opened for direct reads only");
    }

    @Override
    public void sync() {
        // nothing written through this handle
    }

    @Override
    public long size() throws IOException {
        return channel.size();
    }

    @Override
    public void truncate(long size) throws IOException {
        throw new IOException(path + ": opened for direct reads only");
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
