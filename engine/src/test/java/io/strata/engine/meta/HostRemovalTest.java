package io.strata.engine.meta;

import io.strata.engine.DiskFormat;
import io.strata.engine.io.FileChannelIo;
import io.strata.engine.recovery.RecoveryReport;
import io.strata.engine.registry.MetricRegistry;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A removed host leaves the store with every chart and dimension it defined, stays removed after a
 * reopen (and after the compaction a reopen may do), and leaves the other hosts as they were.
 */
class HostRemovalTest {

    private static final UUID GONE = UUID.fromString("6f1b3f6e-0000-4000-8000-0000000000a1");
    private static final UUID KEPT = UUID.fromString("6f1b3f6e-0000-4000-8000-0000000000a2");

    private static MetadataStore open(Path dir, MetricRegistry registry) throws Exception {
        return MetadataStore.open(FileChannelIo.INSTANCE, dir, registry, new RecoveryReport());
    }

    private static void define(MetadataStore m, UUID host, String name, int charts) {
        m.upsertHost(new HostInfo(host, name, "linux", "UTC", 1, Map.of("k", name)));
        for (int c = 0; c < charts; c++) {
            m.upsertChart(ChartInfo.of(host, "c.c" + c, 1));
            m.upsertDimension(DimensionInfo.of(host, "c.c" + c, "a"));
            m.upsertDimension(DimensionInfo.of(host, "c.c" + c, "b"));
        }
    }

    @Test
    void aRemovedHostIsGoneWithItsDefinitionsAndStaysGoneAfterAReopen(@TempDir Path dir) throws Exception {
        int keptMetric;
        try (MetadataStore m = open(dir, new MetricRegistry(3))) {
            define(m, GONE, "gone", 3);
            define(m, KEPT, "kept", 2);
            int goneHost = m.hostId(GONE);
            assertEquals(3, m.chartsOfHost(goneHost));
            assertEquals(6, m.dimensionsOfHost(goneHost));
            int goneMetric = m.upsertDimension(DimensionInfo.of(GONE, "c.c0", "a"));
            keptMetric = m.upsertDimension(DimensionInfo.of(KEPT, "c.c1", "b"));
            m.sync();

            assertTrue(m.removeHost(GONE));
            assertFalse(m.removeHost(GONE), "a second removal finds nothing");
            assertEquals(-1, m.hostId(GONE));
            assertEquals(-1, m.chartId(GONE, "c.c0"));
            assertNull(m.dimension(goneMetric));
            assertFalse(m.hasDimension(DimensionInfo.of(GONE, "c.c0", "a")));
            assertEquals(0, m.chartsOfHost(goneHost));
            assertEquals(List.of("kept"), m.hosts().stream().map(HostInfo::hostname).toList());
            assertNull(m.hostsById()[goneHost]);
            assertEquals(1, m.hostCount());
            assertEquals(4, m.dimensionCount());
            assertEquals(1, m.removals());
            assertEquals(DimensionInfo.of(KEPT, "c.c1", "b"), m.dimension(keptMetric));
            assertEquals(2, m.chartsOfHost(m.hostId(KEPT)));
        }
        try (MetadataStore m = open(dir, new MetricRegistry(3))) {
            assertEquals(-1, m.hostId(GONE), "the removal survives a reopen");
            assertEquals(List.of("kept"), m.hosts().stream().map(HostInfo::hostname).toList());
            assertEquals(4, m.dimensionCount());
            int kept = m.hostId(KEPT);
            assertEquals(2, m.chartsOfHost(kept));
            assertEquals(4, m.dimensionsOfHost(kept));
            assertNotNull(m.dimension(m.upsertDimension(DimensionInfo.of(KEPT, "c.c1", "b"))));

            // the host streams again: it starts afresh
            define(m, GONE, "back", 1);
            int back = m.hostId(GONE);
            assertEquals("back", m.host(back).hostname());
            assertEquals(1, m.chartsOfHost(back));
            assertEquals(2, m.dimensionsOfHost(back));
            assertEquals(List.of("a", "b"), m.metrics(m.chartId(GONE, "c.c0")).stream()
                    .map(id -> m.dimension(id).id()).toList());
        }
        try (MetadataStore m = open(dir, new MetricRegistry(3))) {
            assertEquals("back", m.host(m.hostId(GONE)).hostname(), "what came after the removal is kept");
            assertEquals(1, m.chartsOfHost(m.hostId(GONE)));
        }
    }

    @Test
    void aCompactedLogHoldsNothingOfARemovedHost(@TempDir Path dir) throws Exception {
        try (MetadataStore m = open(dir, new MetricRegistry(3))) {
            // enough superseded records for the reopen to compact the log
            define(m, GONE, "gone", 600);
            define(m, KEPT, "kept", 1);
            m.removeHost(GONE);
        }
        long compacted;
        try (MetadataStore m = open(dir, new MetricRegistry(3))) {
            assertEquals(-1, m.hostId(GONE));
            assertEquals(2, m.dimensionCount());
            compacted = Files.size(dir.resolve(DiskFormat.METADATA_FILE));
        }
        assertTrue(compacted < 2_000, "the log was rewritten without the removed host: " + compacted + " bytes");
        try (MetadataStore m = open(dir, new MetricRegistry(3))) {
            assertEquals(-1, m.hostId(GONE));
            assertEquals(List.of("kept"), m.hosts().stream().map(HostInfo::hostname).toList());
        }
    }
}
