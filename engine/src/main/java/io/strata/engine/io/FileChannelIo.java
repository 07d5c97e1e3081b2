package io.strata.engine.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** The production {@link FileIo}: NIO file channels, and Chronicle Bytes for mappings. */
public final class FileChannelIo implements FileIo {

    /**
     * The most of a heap buffer handed to the channel at once. The JDK copies a heap buffer
     * through a temporary direct buffer of its size, which it then keeps for the thread: one
     * journal v2 written in one call left ~13 MB of them in the flusher for good.
     */
    static final int HEAP_SLICE = 256 * 1024;

    public static final FileChannelIo INSTANCE = new FileChannelIo();

    private FileChannelIo() {
    }

    @Override
    public FileHandle open(Path path, OpenMode mode) throws IOException {
        if (mode == OpenMode.READ_DIRECT) {
            return DirectReadHandle.open(path);
        }
        FileChannel ch = switch (mode) {
            case READ -> FileChannel.open(path, StandardOpenOption.READ);
            case READ_WRITE -> FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    StandardOpenOption.CREATE);
            case CREATE_NEW -> FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    StandardOpenOption.CREATE_NEW);
            case READ_DIRECT -> throw new IllegalStateException("handled above");
        };
        return new ChannelHandle(path, UninterruptibleChannels.of(ch));
    }

    @Override
    public MappedRegion mapReadOnly(Path path) throws IOException {
        return ChronicleMappedRegion.map(path);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public boolean delete(Path path) throws IOException {
        return Files.deleteIfExists(path);
    }

    @Override
    public boolean exists(Path path) {
        return Files.exists(path);
    }

    @Override
    public long size(Path path) throws IOException {
        return Files.size(path);
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                if (Files.isRegularFile(p)) {
                    out.add(p);
                }
            }
        } catch (NoSuchFileException e) {
            return out;
        }
        out.sort(null);
        return out;
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        Files.createDirectories(dir);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems refuse to open or fsync a directory; the rename is then as durable
            // as the file system makes it, which is all we can ask of it.
            if (!Files.isDirectory(dir)) {
                throw e;
            }
        }
    }

    private static final class ChannelHandle implements FileHandle {
        private final Path path;
        private final FileChannel channel;

        ChannelHandle(Path path, FileChannel channel) {
            this.path = path;
            this.channel = channel;
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            if (src.isDirect() || src.remaining() <= HEAP_SLICE) {
                return channel.write(src, position);
            }
            int limit = src.limit();
            int total = 0;
            try {
                while (src.position() < limit) {
                    src.limit(Math.min(limit, src.position() + HEAP_SLICE));
                    total += channel.write(src, position + total);
                    if (src.hasRemaining()) {
                        break; // the file system refused the rest: the caller sees a short write
                    }
                }
            } finally {
                src.limit(limit);
            }
            return total;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            if (dst.isDirect() || dst.remaining() <= HEAP_SLICE) {
                return Math.max(channel.read(dst, position), 0);
            }
            int limit = dst.limit();
            int total = 0;
            try {
                while (dst.position() < limit) {
                    dst.limit(Math.min(limit, dst.position() + HEAP_SLICE));
                    int n = channel.read(dst, position + total);
                    if (n <= 0) {
                        break;
                    }
                    total += n;
                    if (dst.hasRemaining()) {
                        break; // the end of the file
                    }
                }
            } finally {
                dst.limit(limit);
            }
            return total;
        }

        @Override
        public void sync() throws IOException {
            channel.force(false);
        }

        @Override
        public long size() throws IOException {
            return channel.size();
        }

        @Override
        public void truncate(long size) throws IOException {
            channel.truncate(size);
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
