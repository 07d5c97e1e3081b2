package io.strata.engine.meta;

import io.strata.engine.io.FileChannelIo;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.ForwardingFileHandle;
import io.strata.engine.io.ForwardingFileIo;
import io.strata.engine.recovery.RecoveryReport;
import io.strata.engine.registry.MetricRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The node syncs the metadata log every second from its housekeeping thread, while the receivers'
 * event loops look hosts up and define them at every handshake. A force on a busy disk takes from
 * milliseconds to seconds: the event loops (which also answer HTTP on the same port) must not wait
 * for it. They used to, because the sync held the store's monitor through its write and force.
 */
class MetadataSyncStallTest {

    static final UUID FIRST = UUID.fromString("6f1b3f6e-0000-4000-8000-0000000000a1");
    static final UUID SECOND = UUID.fromString("6f1b3f6e-0000-4000-8000-0000000000a2");

    @Test
    void lookupsAndDefinitionsDoNotWaitForTheForce(@TempDir Path dir) throws Exception {
        CountDownLatch inForce = new CountDownLatch(1);
        CountDownLatch diskAnswers = new CountDownLatch(1);
        // armed once the store is open (opening a new log forces its header)
        AtomicBoolean stall = new AtomicBoolean();
        ForwardingFileIo io = new ForwardingFileIo(FileChannelIo.INSTANCE) {
            @Override
            public FileHandle open(Path path, OpenMode mode) throws IOException {
                return new ForwardingFileHandle(delegate.open(path, mode)) {
                    @Override
                    public void sync() throws IOException {
                        if (!stall.get()) {
                            delegate.sync();
                            return;
                        }
                        inForce.countDown();
                        try {
                            // a disk that takes its time (bounded: the test opens it below, or fails)
                            diskAnswers.await(120, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        delegate.sync();
                    }
                };
            }
        };
        AtomicReference<Throwable> syncFailure = new AtomicReference<>();
        Thread syncer;
        try (MetadataStore m = MetadataStore.open(io, dir, new MetricRegistry(3), new RecoveryReport())) {
            m.upsertHost(new HostInfo(FIRST, "first", "linux", "UTC", 1, Map.of()));
            stall.set(true);
            syncer = new Thread(() -> {
                try {
                    m.sync();
                } catch (Throwable t) {
                    syncFailure.set(t);
                }
            }, "metadata-sync-stall-test");
            syncer.setDaemon(true);
            syncer.start();
            try {
                assertTrue(inForce.await(60, TimeUnit.SECONDS), "the sync reached the force");
                CompletableFuture<Integer> handshake = CompletableFuture.supplyAsync(() -> {
                    // what a receiver does at a handshake: look the host up, define it
                    m.hostId(FIRST);
                    return m.upsertHost(new HostInfo(SECOND, "second", "linux", "UTC", 1, Map.of()));
                });
                try {
                    handshake.get(30, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    fail("a host lookup and definition waited for the metadata log's force");
                }
                assertTrue(syncer.isAlive(), "the force was still under way");
            } finally {
                stall.set(false);
                diskAnswers.countDown();
                syncer.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertTrue(!syncer.isAlive(), "the sync ended");
            assertEquals(null, syncFailure.get());
            m.sync();
        }
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3),
                new RecoveryReport())) {
            assertEquals(2, m.hostCount(), "both hosts are in the log");
            assertTrue(m.hostId(SECOND) >= 0);
        }
    }
}
