package io.strata.engine.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A {@link FileIo} that fails chosen calls: the n-th (or every) write, sync, rename, mmap, open,
 * truncate or delete of files whose name matches, or a write that stops short after a given
 * number of bytes. Rules are added and cleared while the engine runs.
 */
public final class FaultInjectingFileIo implements FileIo {

    public enum Op { OPEN, WRITE, SHORT_WRITE, SYNC, RENAME, MAP, TRUNCATE, DELETE, READ }

    private final FileIo delegate;
    private final List<Rule> rules = new CopyOnWriteArrayList<>();

    /** A rule; {@link #fired()} tells how often it failed a call. */
    public static final class Rule {
        final Op op;
        final Predicate<Path> files;
        final int skip;
        final int times;
        final int shortBytes;
        final AtomicInteger seen = new AtomicInteger();
        final AtomicInteger fired = new AtomicInteger();

        Rule(Op op, Predicate<Path> files, int skip, int times, int shortBytes) {
            this.op = op;
            this.files = files;
            this.skip = skip;
            this.times = times;
            this.shortBytes = shortBytes;
        }

        boolean hit(Op o, Path p) {
            if (o != op || !files.test(p)) {
                return false;
            }
            int n = seen.getAndIncrement();
            if (n < skip || fired.get() >= times) {
                return false;
            }
            fired.incrementAndGet();
            return true;
        }

        public int fired() {
            return fired.get();
        }
    }

    public FaultInjectingFileIo(FileIo delegate) {
        this.delegate = delegate;
    }

    public FaultInjectingFileIo() {
        this(FileChannelIo.INSTANCE);
    }

    /** Fails {@code times} calls of {@code op} on matching files, after letting {@code skip} pass. */
    public Rule fail(Op op, Predicate<Path> files, int skip, int times) {
        Rule r = new Rule(op, files, skip, times, 0);
        rules.add(r);
        return r;
    }

    /** Makes matching writes stop after {@code bytes} bytes and report it (a full disk). */
    public Rule shortWrite(Predicate<Path> files, int skip, int times, int bytes) {
        Rule r = new Rule(Op.SHORT_WRITE, files, skip, times, bytes);
        rules.add(r);
        return r;
    }

    public void clear() {
        rules.clear();
    }

    public static Predicate<Path> named(String part) {
        return p -> p.getFileName().toString().contains(part);
    }

    private Rule check(Op op, Path p) throws IOException {
        for (Rule r : rules) {
            if (r.hit(op, p)) {
                if (op == Op.SHORT_WRITE) {
                    return r;
                }
                throw new IOException("injected " + op + " failure on " + p.getFileName());
            }
        }
        return null;
    }

    @Override
    public FileHandle open(Path path, OpenMode mode) throws IOException {
        check(Op.OPEN, path);
        return new Handle(delegate.open(path, mode));
    }

    @Override
    public MappedRegion mapReadOnly(Path path) throws IOException {
        check(Op.MAP, path);
        return delegate.mapReadOnly(path);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
        check(Op.RENAME, to);
        delegate.rename(from, to);
    }

    @Override
    public boolean delete(Path path) throws IOException {
        check(Op.DELETE, path);
        return delegate.delete(path);
    }

    @Override
    public boolean exists(Path path) {
        return delegate.exists(path);
    }

    @Override
    public long size(Path path) throws IOException {
        return delegate.size(path);
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        return delegate.list(dir);
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        delegate.createDirectories(dir);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        delegate.syncDirectory(dir);
    }

    private final class Handle implements FileHandle {
        private final FileHandle h;

        Handle(FileHandle h) {
            this.h = h;
        }

        @Override
        public Path path() {
            return h.path();
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            check(Op.WRITE, h.path());
            Rule r = check(Op.SHORT_WRITE, h.path());
            if (r != null && src.remaining() > r.shortBytes) {
                ByteBuffer part = src.duplicate();
                part.limit(part.position() + r.shortBytes);
                int n = h.write(part, position);
                src.position(src.position() + n);
                // what a full disk does next: nothing more fits
                throw new ShortWriteException(h.path(), position, src.remaining() + n, n);
            }
            return h.write(src, position);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            check(Op.READ, h.path());
            return h.read(dst, position);
        }

        @Override
        public void sync() throws IOException {
            check(Op.SYNC, h.path());
            h.sync();
        }

        @Override
        public long size() throws IOException {
            return h.size();
        }

        @Override
        public void truncate(long size) throws IOException {
            check(Op.TRUNCATE, h.path());
            h.truncate(size);
        }

        @Override
        public void close() throws IOException {
            h.close();
        }
    }
}
