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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** A disk whose datafiles cannot be read (EIO) once {@link #fail} was called; every other call works. */
public final class UnreadableDatafiles extends ForwardingFileIo {
    private final AtomicBoolean failing = new AtomicBoolean();
    private final AtomicInteger failedReads = new AtomicInteger();

    public UnreadableDatafiles() {
        super(FileChannelIo.INSTANCE);
    }

    /** From now on every read of a datafile fails. */
    public void fail() {
        failing.set(true);
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
                if (failing.get()) {
                    failedReads.incrementAndGet();
                    throw new IOException(path + ": Input/output error (injected)");
                }
                return delegate.read(dst, position);
            }
        };
    }
}
