package io.strata.node.runtime;

import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo;
import io.strata.engine.io.ForwardingFileHandle;
import io.strata.engine.io.ForwardingFileIo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A disk that crawls while {@link #stall()}ed: every write and every fsync first waits {@link
 * #MIN_WAIT_MILLIS} plus the time its bytes take at {@code bytesPerSecond}, as a disk whose queue
 * is saturated (a failing device retrying, a SAN failing over) answers. {@link #recover()} ends
 * every wait at once and the disk is fast again. Waits never outlast the recovery, so a test
 * that recovers the disk is never left behind a write.
 */
final class CrawlingFileIo extends ForwardingFileIo {

    static final long MIN_WAIT_MILLIS = 1_000;

    private final long bytesPerSecond;
    private volatile CountDownLatch recovered = new CountDownLatch(0);
    final AtomicLong slowedCalls = new AtomicLong();
    final AtomicLong slowedBytes = new AtomicLong();

    CrawlingFileIo(FileIo delegate, long bytesPerSecond) {
        super(delegate);
        this.bytesPerSecond = bytesPerSecond;
    }

    /** From now on every write and fsync crawls, until {@link #recover()}. */
    void stall() {
        recovered = new CountDownLatch(1);
    }

    /** The disk is fast again; writes waiting now go on. */
    void recover() {
        recovered.countDown();
    }

    private void crawl(long bytes) throws IOException {
        CountDownLatch gate = recovered;
        if (gate.getCount() == 0) {
            return;
        }
        slowedCalls.incrementAndGet();
        slowedBytes.addAndGet(bytes);
        long millis = MIN_WAIT_MILLIS + bytes * 1000 / bytesPerSecond;
        try {
            gate.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the disk crawls", e);
        }
    }

    @Override
    public FileHandle open(Path path, OpenMode mode) throws IOException {
        return new ForwardingFileHandle(delegate.open(path, mode)) {
            @Override
            public int write(ByteBuffer src, long position) throws IOException {
                crawl(src.remaining());
                return delegate.write(src, position);
            }

            @Override
            public void sync() throws IOException {
                crawl(0);
                delegate.sync();
            }
        };
    }
}
