package io.strata.node.runtime;

import io.strata.engine.io.FileHandle;
import io.strata.engine.io.ForwardingFileHandle;
import io.strata.engine.io.ForwardingFileIo;
import io.strata.engine.meta.HostInfo;
import io.strata.node.config.NodeConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node closed while its housekeeping syncs the metadata log (a slow disk): the sync is let
 * finish, not interrupted. An interrupt in the middle of a {@code FileChannel} call closes the
 * channel for every thread, and the engine's last flush then failed on the closed metadata log
 * ({@code flush failed: ClosedChannelException}), losing the pages it was closing with.
 */
class NodeCloseDuringMetadataSyncTest {

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void closingWhileTheMetadataSyncsLetsTheSyncFinish(@TempDir Path tmp) throws Exception {
        CountDownLatch syncing = new CountDownLatch(1);
        Files.writeString(tmp.resolve("netdata.conf"), "[global]\n\thostname = closing-node\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 1\n[web]\n\tbind to = 127.0.0.1:0\n");
        NodeConfig config = NodeConfig.load(tmp);
        StrataNode node = StrataNode.start(config, null, ec -> ec.withIo(new ForwardingFileIo(ec.io()) {
            @Override
            public FileHandle open(Path path, OpenMode mode) throws IOException {
                return new ForwardingFileHandle(delegate.open(path, mode)) {
                    @Override
                    public void sync() throws IOException {
                        if (Thread.currentThread().getName().startsWith("strata-housekeeping")) {
                            syncing.countDown();
                            try {
                                // a slow disk: the sync takes a while
                                Thread.sleep(2_000);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        delegate.sync();
                    }
                };
            }
        }));
        boolean closed = false;
        try {
            // something for the housekeeping's next sync of the metadata log
            node.engine().metadata().upsertHost(new HostInfo(UUID.randomUUID(), "another", "linux", "UTC", 1,
                    Map.of()));
            assertTrue(syncing.await(30, TimeUnit.SECONDS), "the housekeeping never synced the metadata log");
            node.close();
            closed = true;
        } finally {
            if (!closed) {
                node.close();
            }
        }
    }
}
