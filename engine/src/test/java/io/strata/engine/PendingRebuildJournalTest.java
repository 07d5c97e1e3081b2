package io.strata.engine;

import io.strata.engine.io.FileChannelIo;
import io.strata.engine.registry.MetricRegistry;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The pending-rebuild journal's codec, bound and compaction (docs/format/past-rebuilds.md). */
class PendingRebuildJournalTest {

    @Test
    void recordsRoundTripByUuidAndSettledOnesAreDropped(@TempDir Path dir) throws Exception {
        MetricRegistry reg = new MetricRegistry(2);
        int a = reg.register(1, 2, 0);
        int b = reg.register(3, 4, 0);
        FileChannelIo io = FileChannelIo.INSTANCE;
        try (PendingRebuildJournal j = PendingRebuildJournal.open(io, dir, true, reg)) {
            assertNotNull(j.append(a, 1, 2, 1, 100, 200, 0));
            assertNotNull(j.append(b, 3, 4, 5, 300, 400, 0));
            assertNotNull(j.append(a, 1, 2, 1, 500, 600, 0));
            j.sync();
        }
        Path file = dir.resolve(PendingRebuildJournal.FILE_NAME);
        assertEquals(PendingRebuildJournal.HEADER_BYTES + 3L * PendingRebuildJournal.RECORD_BYTES, Files.size(file));
        // a restart may number the metrics differently: records name them by UUID
        MetricRegistry again = new MetricRegistry(2);
        int b2 = again.register(3, 4, 0);
        int a2 = again.register(1, 2, 0);
        try (PendingRebuildJournal j = PendingRebuildJournal.open(io, dir, true, again)) {
            List<PendingRebuildJournal.Entry> got = j.entries();
            assertEquals(3, got.size());
            assertEquals(a2, got.get(0).metric);
            assertEquals(b2, got.get(1).metric);
            assertEquals(5, got.get(1).updateEvery);
            assertEquals(300, got.get(1).from);
            assertEquals(400, got.get(1).to);
            // one settled of three: under half, kept unless always
            assertEquals(0, j.compact(e -> e.from == 300, false));
            assertEquals(1, j.compact(e -> e.from == 300, true));
            assertEquals(2, j.size());
        }
        assertEquals(PendingRebuildJournal.HEADER_BYTES + 2L * PendingRebuildJournal.RECORD_BYTES, Files.size(file));
        // a metric no longer defined is dropped at open
        try (PendingRebuildJournal j = PendingRebuildJournal.open(io, dir, true, new MetricRegistry(2))) {
            assertEquals(0, j.size());
        }
    }

    @Test
    void atMostMaxRecordsAreKept(@TempDir Path dir) throws Exception {
        MetricRegistry reg = new MetricRegistry(2);
        int a = reg.register(1, 2, 0);
        try (PendingRebuildJournal j = PendingRebuildJournal.open(FileChannelIo.INSTANCE, dir, false, reg)) {
            for (int i = 0; i < PendingRebuildJournal.MAX_RECORDS; i++) {
                assertNotNull(j.append(a, 1, 2, 1, 100 + i, 200 + i, 0));
            }
            assertNull(j.append(a, 1, 2, 1, 1, 2, 0));
            assertEquals(1, j.notRecorded());
        }
    }
}
