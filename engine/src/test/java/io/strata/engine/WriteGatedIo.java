package io.strata.engine;

import io.strata.engine.io.FileChannelIo;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo.OpenMode;
import io.strata.engine.io.ForwardingFileHandle;
import io.strata.engine.io.ForwardingFileIo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * File I/O that holds every write after {@link #close()} until {@link #open()} and signals the
 * first one held: a flusher stopped inside a write, so that pages stay dirty for a test.
 */
final class WriteGatedIo extends ForwardingFileIo {
    volatile CountDownLatch gate = new CountDownLatch(0);
    final CountDownLatch held = new CountDownLatch(1);

    WriteGatedIo() {
        super(FileChannelIo.INSTANCE);
    }

    void close() {
        gate = new CountDownLatch(1);
    }

    void open() {
        gate.countDown();
    }

    @Override
    public FileHandle open(Path path, OpenMode mode) throws IOException {
        return new ForwardingFileHandle(delegate.open(path, mode)) {
            @Override
            public int write(ByteBuffer src, long position) throws IOException {
                CountDownLatch g = gate;
                if (g.getCount() > 0) {
                    held.countDown();
                    try {
                        g.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted", e);
                    }
                }
                return delegate.write(src, position);
            }
        };
    }
}
