package io.strata.engine.meta;

import io.strata.engine.io.FileChannelIo;
import io.strata.engine.recovery.RecoveryReport;
import io.strata.engine.registry.MetricRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A record damaged in the middle of the metadata log loses that record only: the log is kept
 * aside as it was, replay resynchronises on the next valid record, and the log is rewritten.
 */
class MetadataResyncTest {

    static final UUID HOST = UUID.fromString("6f1b3f6e-0000-4000-8000-000000000001");

    @Test
    void aDamagedRecordInTheMiddleLosesOnlyItself(@TempDir Path dir) throws Exception {
        int charts = 20;
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3), new RecoveryReport())) {
            m.upsertHost(new HostInfo(HOST, "h", "linux", "UTC", 1, Map.of()));
            for (int c = 0; c < charts; c++) {
                m.upsertChart(ChartInfo.of(HOST, "chart" + c, 1));
                m.upsertDimension(DimensionInfo.of(HOST, "chart" + c, "d"));
            }
            m.sync();
        }
        Path logFile = dir.resolve("metadata.log");
        byte[] bytes = Files.readAllBytes(logFile);
        // records from offset 16: host, then chart 0, dim 0, chart 1, dim 1, ...; damage the
        // dimension record of chart 5 (record 12) with one flipped bit in its payload
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int pos = 16;
        for (int r = 0; r < 12; r++) {
            pos += 8 + b.getInt(pos);
        }
        int damagedAt = pos;
        bytes[pos + 6] ^= 0x10;
        Files.write(logFile, bytes);

        RecoveryReport report = new RecoveryReport();
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3), report)) {
            assertEquals(charts, m.chartCount(), "every chart");
            assertEquals(charts - 1, m.dimensionCount(), "every dimension but the damaged one");
            for (int c = 0; c < charts; c++) {
                int chart = m.chartId(HOST, "chart" + c);
                assertEquals(c == 5 ? 0 : 1, m.metrics(chart).size(), "dimensions of chart " + c);
            }
        }
        List<RecoveryReport.Finding> f = report.findings();
        assertEquals(1, f.size(), f.toString());
        assertEquals(damagedAt, f.get(0).offset());
        assertTrue(f.get(0).action().startsWith("skipped "), f.get(0).action());
        System.out.println("[MetadataResyncTest] " + f.get(0));
        List<Path> aside;
        try (var s = Files.list(dir)) {
            aside = s.filter(p -> p.getFileName().toString().startsWith("metadata.log.damaged-")).toList();
        }
        assertEquals(1, aside.size(), "the damaged log kept aside");
        assertArrayEquals(bytes, Files.readAllBytes(aside.get(0)), "kept as it was");

        // rewritten: the next open finds nothing to report
        RecoveryReport again = new RecoveryReport();
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3), again)) {
            assertEquals(charts - 1, m.dimensionCount());
        }
        assertEquals(List.of(), again.findings());
    }

    /**
     * Memory keeps at most 255 distinct dimension algorithms; a log holding more (written by hand,
     * or by another writer) must still open: the records it cannot take are lost like damaged ones,
     * the others kept, and the log rewritten.
     */
    @Test
    void aLogWithMoreAlgorithmsThanMemoryTakesStillOpens(@TempDir Path dir) throws Exception {
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3), new RecoveryReport())) {
            m.sync();
        }
        Path logFile = dir.resolve("metadata.log");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        log.writeBytes(Files.readAllBytes(logFile));
        int dims = 300;
        for (int d = 0; d < dims; d++) {
            ByteBuffer b = MetadataCodec.encode(new DimensionInfo(HOST, "chart", "d" + d, "d" + d, "alg-" + d, 1, 1, 0));
            log.write(b.array(), 0, b.limit());
        }
        Files.write(logFile, log.toByteArray());

        RecoveryReport report = new RecoveryReport();
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3), report)) {
            assertEquals(255, m.dimensionCount(), "the dimensions of the first 255 algorithms");
            int chart = m.chartId(HOST, "chart");
            assertEquals("alg-254", m.dimension(m.metrics(chart).get(254)).algorithm());
        }
        assertEquals(dims - 255, report.findings().size(), report.findings().toString());
        assertTrue(report.findings().get(0).problem().contains("record refused: more than 255 distinct dimension"
                + " algorithms"), report.findings().get(0).problem());
        RecoveryReport again = new RecoveryReport();
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3), again)) {
            assertEquals(255, m.dimensionCount());
        }
        assertEquals(List.of(), again.findings(), "rewritten without the refused records");
    }
}
