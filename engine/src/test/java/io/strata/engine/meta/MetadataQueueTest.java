package io.strata.engine.meta;

import io.strata.engine.DiskFormat;
import io.strata.engine.io.FileChannelIo;
import io.strata.engine.recovery.RecoveryReport;
import io.strata.engine.registry.MetricRegistry;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Definitions queued between syncs go to the log exactly, in order, across several syncs and a reopen. */
class MetadataQueueTest {

    private static final UUID HOST = UUID.fromString("6f1b3f6e-0000-4000-8000-0000000000aa");

    @Test
    void queuedDefinitionsAreWrittenExactlyAndComeBackAfterReopen(@TempDir Path dir) throws Exception {
        int[] ids = new int[5_000];
        long afterFirstSync;
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3), new RecoveryReport())) {
            m.upsertHost(new HostInfo(HOST, "h", "linux", "UTC", 1, Map.of("k", "v")));
            for (int i = 0; i < ids.length; i++) {
                String chart = "c" + (i / 10);
                if (i % 10 == 0) {
                    m.upsertChart(ChartInfo.of(HOST, chart, 1));
                }
                ids[i] = m.upsertDimension(DimensionInfo.of(HOST, chart, "d" + (i % 10)));
                if (i == 2_499) {
                    m.sync();
                }
            }
            afterFirstSync = Files.size(dir.resolve(DiskFormat.METADATA_FILE));
            // a second definition of the same dimension queues nothing
            assertEquals(ids[7], m.upsertDimension(DimensionInfo.of(HOST, "c0", "d7")));
            m.sync();
            assertTrue(Files.size(dir.resolve(DiskFormat.METADATA_FILE)) > afterFirstSync * 3 / 2,
                    "the second half reached the log");
        }
        MetricRegistry registry = new MetricRegistry(3);
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, registry, new RecoveryReport())) {
            assertEquals(ids.length, m.dimensionCount());
            assertEquals(500, m.chartCount());
            for (int i = 0; i < ids.length; i++) {
                assertEquals(DimensionInfo.of(HOST, "c" + (i / 10), "d" + (i % 10)), m.dimension(ids[i]), "dimension " + i);
            }
            assertEquals(Map.of("k", "v"), m.hosts().get(0).labels());
        }
    }
}
