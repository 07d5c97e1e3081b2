package io.strata.engine.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A disk that loses power. Files are real (the engine reads what it wrote), but this class
 * remembers, per file, what an fsync made durable; {@link #powerLoss} then puts every file back
 * to that: the unsynced part is dropped ({@link Mode#DROP_UNSYNCED}), or a random subset of its
 * 4 KiB pages is ({@link Mode#RANDOM_PAGES}: some later pages reached the disk and some earlier
 * ones did not, which read as zeros past the durable end or as the old content). After it every
 * call fails, as a dead machine's would.
 *
 * <p>The model: a file's data is durable up to its last {@code sync()}; a file created is durable
 * once its directory is synced (else it vanishes); renames and deletions are durable at once
 * (journaled metadata). Files that exist before they are first opened through this class are
 * taken as durable.
 */
public final class PowerLossFileIo extends ForwardingFileIo {

    public enum Mode { DROP_UNSYNCED, RANDOM_PAGES }

    static final int PAGE = 4096;

    /** Per file: its durable bytes (null: created, directory not yet synced). */
    private final Map<Path, byte[]> durable = new HashMap<>();
    /** Files created whose directory entry is not durable yet. */
    private final Map<Path, Boolean> entryDurable = new HashMap<>();
    private final List<FileHandle> open = new ArrayList<>();
    private volatile boolean dead;
    private long syncs;

    public PowerLossFileIo() {
        super(FileChannelIo.INSTANCE);
    }

    private void alive() throws IOException {
        if (dead) {
            throw new IOException("power lost");
        }
    }

    /** fsyncs seen (datafiles, journals, metadata). */
    public synchronized long syncs() {
        return syncs;
    }

    @Override
    public synchronized FileHandle open(Path path, OpenMode mode) throws IOException {
        alive();
        Path p = path.toAbsolutePath();
        boolean existed = Files.exists(p);
        FileHandle h = delegate.open(path, mode);
        if (!durable.containsKey(p) && !entryDurable.containsKey(p)) {
            if (existed) {
                durable.put(p, Files.readAllBytes(p));
                entryDurable.put(p, true);
            } else {
                durable.put(p, new byte[0]);
                entryDurable.put(p, false);
            }
        }
        FileHandle handle = new ForwardingFileHandle(h) {
            @Override
            public int write(ByteBuffer src, long position) throws IOException {
                alive();
                return delegate.write(src, position);
            }

            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                alive();
                return delegate.read(dst, position);
            }

            @Override
            public void truncate(long size) throws IOException {
                alive();
                delegate.truncate(size);
            }

            @Override
            public void sync() throws IOException {
                alive();
                delegate.sync();
                synchronized (PowerLossFileIo.this) {
                    syncs++;
                    durable.put(p, Files.readAllBytes(p));
                }
            }

            @Override
            public void close() throws IOException {
                synchronized (PowerLossFileIo.this) {
                    open.remove(this);
                }
                delegate.close();
            }
        };
        open.add(handle);
        return handle;
    }

    @Override
    public synchronized MappedRegion mapReadOnly(Path path) throws IOException {
        alive();
        return delegate.mapReadOnly(path);
    }

    @Override
    public synchronized void rename(Path from, Path to) throws IOException {
        alive();
        delegate.rename(from, to);
        Path f = from.toAbsolutePath();
        Path t = to.toAbsolutePath();
        byte[] d = durable.remove(f);
        Boolean e = entryDurable.remove(f);
        durable.put(t, d == null ? new byte[0] : d);
        entryDurable.put(t, e == null || e);
    }

    @Override
    public synchronized boolean delete(Path path) throws IOException {
        alive();
        Path p = path.toAbsolutePath();
        durable.remove(p);
        entryDurable.remove(p);
        return delegate.delete(path);
    }

    @Override
    public synchronized void syncDirectory(Path dir) throws IOException {
        alive();
        delegate.syncDirectory(dir);
        Path d = dir.toAbsolutePath();
        entryDurable.replaceAll((p, e) -> e || d.equals(p.getParent()));
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        alive();
        delegate.createDirectories(dir);
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        alive();
        return delegate.list(dir);
    }

    /**
     * The power goes: every file becomes what the disk holds (see the class comment), and every
     * later call fails. Returns how many files lost bytes.
     */
    public synchronized int powerLoss(Mode mode, long seed) throws IOException {
        dead = true;
        for (FileHandle h : List.copyOf(open)) {
            try {
                h.close();
            } catch (IOException ignored) {
                // the machine is off
            }
        }
        open.clear();
        Random rnd = new Random(seed);
        int changed = 0;
        for (Map.Entry<Path, byte[]> e : durable.entrySet()) {
            Path p = e.getKey();
            if (!Files.exists(p)) {
                continue;
            }
            if (!entryDurable.getOrDefault(p, true)) {
                Files.delete(p);
                changed++;
                continue;
            }
            byte[] was = Files.readAllBytes(p);
            byte[] d = e.getValue();
            byte[] after = mode == Mode.DROP_UNSYNCED ? d : mix(d, was, rnd);
            if (!Arrays.equals(after, was)) {
                Files.write(p, after);
                changed++;
            }
        }
        return changed;
    }

    /** The volatile content with a random half of the pages that differ from the durable one dropped. */
    private static byte[] mix(byte[] d, byte[] v, Random rnd) {
        byte[] out = Arrays.copyOf(v, v.length);
        for (int at = 0; at < v.length; at += PAGE) {
            int end = Math.min(v.length, at + PAGE);
            boolean differs = at >= d.length || !Arrays.equals(d, at, Math.min(d.length, end), v, at, end)
                    || end > d.length;
            if (differs && rnd.nextBoolean()) {
                // this page never reached the disk: old content where there was some, zeros past it
                for (int i = at; i < end; i++) {
                    out[i] = i < d.length ? d[i] : 0;
                }
            }
        }
        return out;
    }
}
