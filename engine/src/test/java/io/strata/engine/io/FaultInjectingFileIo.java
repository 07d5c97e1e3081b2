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
public final class FaultInjectingFileIo extends ForwardingFileIo {

    public enum Op { OPEN, WRITE, SHORT_WRITE, SYNC, RENAME, MAP, TRUNCATE, DELETE, READ }

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
        super(delegate);
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

    private final class Handle extends ForwardingFileHandle {
        Handle(FileHandle h) {
            super(h);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            check(Op.WRITE, path());
            Rule r = check(Op.SHORT_WRITE, path());
            if (r != null && src.remaining() > r.shortBytes) {
                ByteBuffer part = src.duplicate();
                part.limit(part.position() + r.shortBytes);
                int n = delegate.write(part, position);
                src.position(src.position() + n);
                // what a full disk does next: nothing more fits
                throw new ShortWriteException(path(), position, src.remaining() + n, n);
            }
            return delegate.write(src, position);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            check(Op.READ, path());
            return delegate.read(dst, position);
        }

        @Override
        public void sync() throws IOException {
            check(Op.SYNC, path());
            delegate.sync();
        }

        @Override
        public void truncate(long size) throws IOException {
            check(Op.TRUNCATE, path());
            delegate.truncate(size);
        }
    }
}
