package io.strata.replication.child;

import io.strata.engine.DiskFormat;
import io.strata.engine.io.FileChannelIo;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo.OpenMode;
import io.strata.engine.io.ForwardingFileHandle;
import io.strata.engine.io.ForwardingFileIo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A disk whose datafiles cannot be read (EIO) once {@link #fail} was called, or only at one position
 * (one extent) once {@link #failAt} was; every other call works. It records the positions read.
 */
public final class UnreadableDatafiles extends ForwardingFileIo {
    private final AtomicBoolean failing = new AtomicBoolean();
    private final AtomicInteger failedReads = new AtomicInteger();
    private final ConcurrentSkipListSet<Long> positionsRead = new ConcurrentSkipListSet<>();
    private volatile long failingPosition = -1;

    public UnreadableDatafiles() {
        super(FileChannelIo.INSTANCE);
    }

    /** From now on every read of a datafile fails. */
    public void fail() {
        failing.set(true);
    }

    /** From now on the reads of a datafile at {@code position} (an extent's offset) fail. */
    public void failAt(long position) {
        failingPosition = position;
    }

    /** The positions of the datafile reads that succeeded so far, in order of position. */
    public List<Long> positionsRead() {
        return new ArrayList<>(positionsRead);
    }

    /** The reads that failed so far. */
    public int failedReads() {
        return failedReads.get();
    }

    @Override
    public FileHandle open(Path path, OpenMode mode) throws IOException {
        FileHandle h = delegate.open(path, mode);
        if (!path.getFileName().toString().startsWith(DiskFormat.DATAFILE_PREFIX)) {
            return h;
        }
        return new ForwardingFileHandle(h) {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                if (failing.get() || position == failingPosition) {
                    failedReads.incrementAndGet();
                    throw new IOException(path + ": Input/output error (injected)");
                }
                positionsRead.add(position);
                return delegate.read(dst, position);
            }
        };
    }
}
