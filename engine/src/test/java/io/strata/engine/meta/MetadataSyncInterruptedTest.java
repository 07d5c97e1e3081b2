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
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread interrupted while it syncs the metadata log (a node's housekeeping stopped by force, a
 * caller's thread interrupted) closes the log's channel for every thread where the channel is
 * interruptible: the JDK closes a {@code FileChannel} whose caller is interrupted inside it. The
 * next sync, by anyone, must still make the definitions durable; the engine's last flush on close
 * used to fail on the closed log ({@code flush failed: ClosedChannelException}).
 */
class MetadataSyncInterruptedTest {

    static final UUID HOST = UUID.fromString("6f1b3f6e-0000-4000-8000-000000000001");

    @Test
    void aSyncInterruptedInsideTheForceLeavesTheLogUsable(@TempDir Path dir) throws Exception {
        AtomicBoolean interruptNextForce = new AtomicBoolean();
        ForwardingFileIo io = new ForwardingFileIo(FileChannelIo.INSTANCE) {
            @Override
            public FileHandle open(Path path, OpenMode mode) throws IOException {
                return new ForwardingFileHandle(delegate.open(path, mode)) {
                    @Override
                    public void sync() throws IOException {
                        if (interruptNextForce.compareAndSet(true, false)) {
                            // what an interruptible channel does when its caller is interrupted in
                            // the force (the engine's own channels ignore interrupts where the JDK
                            // lets them; another FileIo, or a JVM without that switch, does not)
                            delegate.close();
                            throw new ClosedByInterruptException();
                        }
                        delegate.sync();
                    }
                };
            }
        };
        try (MetadataStore m = MetadataStore.open(io, dir, new MetricRegistry(3), new RecoveryReport())) {
            m.upsertHost(new HostInfo(HOST, "h", "linux", "UTC", 1, Map.of()));
            m.upsertChart(ChartInfo.of(HOST, "system.cpu", 1));
            interruptNextForce.set(true);
            assertThrows(ClosedByInterruptException.class, m::sync, "the interrupted sync");
            // the records reached the file before the force was interrupted; the log must come back
            m.sync();
            m.upsertDimension(DimensionInfo.of(HOST, "system.cpu", "user"));
            m.sync();
        }
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3),
                new RecoveryReport())) {
            assertEquals(1, m.hostCount());
            int chart = m.chartId(HOST, "system.cpu");
            assertTrue(chart >= 0, "the chart is in the log");
            assertEquals(1, m.metrics(chart).size(), "the dimension defined after the interrupted sync");
        }
    }
}
