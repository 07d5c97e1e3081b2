package io.strata.engine.disk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link DiskCheck}: tiny real runs in a temporary directory, and the tier arithmetic exactly. */
class DiskCheckTest {

    static final long MIB = 1L << 20;

    /** 8 MiB file, 0.3 s of random reads, 20 fsyncs. */
    static DiskCheck.Options tiny(Path dir) {
        return DiskCheck.Options.defaults(dir).withSizeBytes(8 * MIB).withSequentialBound(30)
                .withRandom(0.3, 100_000, 1).withFsync(20, 10);
    }

    static void assertPositive(double v, String what) {
        assertTrue(v > 0 && Double.isFinite(v), what + " is positive and finite: " + v);
    }

    static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    static void assertFigures(DiskCheck.Result r) {
        assertPositive(r.seqWriteMibPerSecond(), "sequential write");
        assertPositive(r.seqWriteSeconds(), "sequential write time");
        assertPositive(r.seqReadMibPerSecond(), "sequential read");
        assertPositive(r.seqReadSeconds(), "sequential read time");
        assertPositive(r.randReadIops(), "random read IOPS");
        assertPositive(r.randReadSeconds(), "random read time");
        assertPositive(r.fsyncMedianMs(), "fsync median");
        assertPositive(r.fsyncP99Ms(), "fsync p99");
        assertTrue(r.fsyncP99Ms() >= r.fsyncMedianMs());
        assertTrue(r.randReads() >= 1 && r.randReads() <= 100_000, "random reads within the bound: " + r.randReads());
        assertTrue(r.fsyncs() >= 1 && r.fsyncs() <= 20, "fsyncs within the bound: " + r.fsyncs());
        assertEquals(r.fileBytes(), r.seqReadBytes(), "the whole file was read back");
        assertTrue(r.fileBytes() > 0 && r.fileBytes() % DiskCheck.SEQ_BLOCK == 0);
        assertTrue(r.smallIoBytes() >= DiskCheck.SMALL_IO);
        assertEquals(3, r.tiers().size());
        for (DiskCheck.TierCapacity t : r.tiers()) {
            assertTrue(t.metricsByWriteRate() > 0, t.toString());
            assertPositive(t.retentionSecondsPer1000Metrics(), "retention of tier " + t.tier());
            assertTrue(t.metricsForOneDay() > 0, t.toString());
        }
        assertEquals(DiskCheck.tierCapacity(r.seqWriteMibPerSecond() * MIB, DiskCheck.TierModel.defaults()), r.tiers());
    }

    @Test
    void tinyRunMeasuresAndDeletesItsFile(@TempDir Path dir) throws Exception {
        DiskCheck.Result r = DiskCheck.run(tiny(dir));
        assertFigures(r);
        assertEquals(dir.toAbsolutePath().normalize(), r.dir());
        assertEquals(8 * MIB, r.fileBytes(), r.notes().toString());
        assertEquals(8 * MIB, r.requestedBytes());
        assertEquals(1, r.queueDepth());
        if (!r.pageCacheBypassed()) {
            assertTrue(r.notes().stream().anyMatch(n -> n.contains("O_DIRECT")), r.notes().toString());
        }
        assertEquals(List.of(), files(dir), "the test file is gone");
    }

    @Test
    void bufferedRunWithSeveralReadersSaysThePageCacheIsNotBypassed(@TempDir Path dir) throws Exception {
        DiskCheck.Result r = DiskCheck.run(tiny(dir).withDirect(false, false).withRandom(0.3, 100_000, 3));
        assertFigures(r);
        assertFalse(r.pageCacheBypassed());
        assertEquals(3, r.queueDepth());
        assertEquals(8 * MIB, r.fileBytes(), "no growth to 2x RAM when told not to");
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("page cache")), r.notes().toString());
        assertEquals(List.of(), files(dir), "the test file is gone");
    }

    /** tmpfs accepts O_DIRECT since Linux 6.6, but a file in memory bypasses no page cache. */
    @Test
    void memoryFileSystemIsNotReportedAsBypassingThePageCache() throws Exception {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm)
                && DiskCheck.MEMORY_FILE_SYSTEMS.contains(Files.getFileStore(shm).type()), "no tmpfs at /dev/shm");
        Path dir = Files.createTempDirectory(shm, "strata-disk-check-test-");
        try {
            DiskCheck.Result r = DiskCheck.run(tiny(dir));
            assertFigures(r);
            assertFalse(r.pageCacheBypassed());
            assertEquals(8 * MIB, r.fileBytes(), "a memory file system gets no 2x RAM file");
            assertTrue(r.notes().stream().anyMatch(n -> n.contains("lives in memory")), r.notes().toString());
            assertTrue(r.notes().stream().anyMatch(n -> n.contains("may be those of memory")), r.notes().toString());
            assertEquals(List.of(), files(dir), "the test file is gone");
        } finally {
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void randomReadCountBoundHolds(@TempDir Path dir) throws Exception {
        DiskCheck.Result r = DiskCheck.run(tiny(dir).withRandom(30, 50, 2).withFsync(3, 10));
        assertEquals(50, r.randReads());
        assertEquals(3, r.fsyncs());
        assertTrue(r.randReadSeconds() < 30, "stopped by the count, not the time");
        assertEquals(List.of(), files(dir));
    }

    @Test
    void tierArithmeticMatchesHandComputedNumbers() {
        double w = 100 * MIB;   // 104857600 bytes/s
        List<DiskCheck.TierCapacity> c = DiskCheck.tierCapacity(w, DiskCheck.TierModel.defaults());
        assertEquals(3, c.size());
        long q = 1L << 30;

        DiskCheck.TierCapacity t0 = c.get(0);
        assertEquals(0, t0.tier());
        assertEquals(1, t0.stepSeconds());
        assertEquals(0.46, t0.bytesPerPoint());
        assertEquals(q, t0.quotaBytes());
        assertEquals(0.46, t0.metricBytesPerSecond(), 1e-12);
        assertEquals(113_975_652L, t0.metricsByWriteRate());            // 0.5 * 104857600 * 1 / 0.46 = 113975652.17
        assertEquals(2_334_221.3565, t0.retentionSecondsPer1000Metrics(), 1e-3); // 2^30 * 1 / (1000 * 0.46)
        assertEquals(27_016L, t0.metricsForOneDay());                   // 2^30 / (0.46 * 86400) = 27016.45

        DiskCheck.TierCapacity t1 = c.get(1);
        assertEquals(60, t1.stepSeconds());
        assertEquals(4.0 / 60, t1.metricBytesPerSecond(), 1e-12);
        assertEquals(786_432_000L, t1.metricsByWriteRate());            // 0.5 * 104857600 * 60 / 4
        assertEquals(16_106_127.36, t1.retentionSecondsPer1000Metrics(), 1e-6); // 2^30 * 60 / 4000
        assertEquals(186_413L, t1.metricsForOneDay());                  // 2^30 / (4 * 1440) = 186413.51

        DiskCheck.TierCapacity t2 = c.get(2);
        assertEquals(3600, t2.stepSeconds());
        assertEquals(23_592_960_000L, t2.metricsByWriteRate());         // 0.5 * 104857600 * 3600 / 8
        assertEquals(483_183_820.8, t2.retentionSecondsPer1000Metrics(), 1e-4); // 2^30 * 3600 / 8000
        assertEquals(5_592_405L, t2.metricsForOneDay());                // 2^30 / (8 * 24) = 5592405.33
    }

    @Test
    void tierWhoseStepExceedsADayNeedsOnePointPerMetric() {
        DiskCheck.TierModel m = DiskCheck.TierModel.of(4, 60, new long[]{q(1024)}, new double[]{1, 2, 3, 10});
        DiskCheck.TierCapacity t3 = DiskCheck.tierCapacity(100 * MIB, m).get(3);
        assertEquals(216_000, t3.stepSeconds());                        // 60^3 s = 2.5 days
        assertEquals(107_374_182L, t3.metricsForOneDay());              // 2^30 / (10 * max(1, 0.4))
        assertEquals(1_132_462_080_000L, t3.metricsByWriteRate());      // 0.5 * 104857600 * 216000 / 10
        assertEquals(23_192_823_398.4, t3.retentionSecondsPer1000Metrics(), 1e-2); // 2^30 * 216000 / 10000
    }

    @Test
    void zeroWriteRateCarriesNothingAndBadInputIsRefused() {
        List<DiskCheck.TierCapacity> c = DiskCheck.tierCapacity(0, DiskCheck.TierModel.defaults());
        assertTrue(c.stream().allMatch(t -> t.metricsByWriteRate() == 0));
        assertThrows(IllegalArgumentException.class, () -> DiskCheck.tierCapacity(Double.NaN, DiskCheck.TierModel.defaults()));
        assertThrows(IllegalArgumentException.class, () -> DiskCheck.tierCapacity(-1, DiskCheck.TierModel.defaults()));
    }

    static long q(long mib) {
        return mib * MIB;
    }

    @Test
    void tierModelExtendsShortListsWithTheirLastValue() {
        DiskCheck.TierModel m = DiskCheck.TierModel.of(5, 10, new long[]{q(100), q(200)}, new double[]{1.5});
        assertEquals(5, m.tiers());
        assertArrayEquals(new long[]{q(100), q(200), q(200), q(200), q(200)}, m.quotaBytes());
        assertArrayEquals(new double[]{1.5, 1.5, 1.5, 1.5, 1.5}, m.bytesPerPoint());
        assertEquals(10_000, m.stepSeconds(4));

        DiskCheck.TierModel d = DiskCheck.TierModel.of(4, 60, null, null);
        assertArrayEquals(new double[]{0.46, 4, 8, 8}, d.bytesPerPoint());
        assertArrayEquals(new long[]{q(1024), q(1024), q(1024), q(1024)}, d.quotaBytes());
        assertArrayEquals(new double[]{0.46}, DiskCheck.TierModel.of(1, 60, null, null).bytesPerPoint());

        assertThrows(IllegalArgumentException.class, () -> DiskCheck.TierModel.of(2, 60, new long[]{1, 2, 3}, null));
        assertThrows(IllegalArgumentException.class, () -> DiskCheck.TierModel.of(2, 60, null, new double[]{1, 2, 3}));
        assertThrows(IllegalArgumentException.class, () -> DiskCheck.TierModel.of(0, 60, null, null));
        assertThrows(IllegalArgumentException.class, () -> DiskCheck.TierModel.of(6, 60, null, null));
        assertThrows(IllegalArgumentException.class, () -> DiskCheck.TierModel.of(3, 1, null, null));
        assertThrows(IllegalArgumentException.class, () -> DiskCheck.TierModel.of(3, 60, new long[]{0}, null));
        assertThrows(IllegalArgumentException.class, () -> DiskCheck.TierModel.of(3, 60, null, new double[]{-1}));
    }

    @Test
    void percentileIsNearestRank() {
        long[] hundred = new long[100];
        for (int i = 0; i < 100; i++) {
            hundred[i] = i + 1;
        }
        assertEquals(50, DiskCheck.percentile(hundred, 0.5));
        assertEquals(99, DiskCheck.percentile(hundred, 0.99));
        assertEquals(7, DiskCheck.percentile(new long[]{7}, 0.99));
        assertEquals(2, DiskCheck.percentile(new long[]{1, 2, 3, 4}, 0.5));
        assertEquals(4, DiskCheck.percentile(new long[]{1, 2, 3, 4}, 0.99));
    }

    @Test
    void missingDirectoryIsRefusedClearly(@TempDir Path dir) {
        Path missing = dir.resolve("no-such-dir");
        DiskCheck.UnusableDirectoryException e = assertThrows(DiskCheck.UnusableDirectoryException.class,
                () -> DiskCheck.run(tiny(missing)));
        assertEquals(missing.toAbsolutePath().normalize() + ": no such directory", e.getMessage());
        assertFalse(Files.exists(missing), "disk-check does not create the directory");
    }

    @Test
    void fileIsNotADirectory(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("plain"), "x");
        DiskCheck.UnusableDirectoryException e = assertThrows(DiskCheck.UnusableDirectoryException.class,
                () -> DiskCheck.run(tiny(file)));
        assertTrue(e.getMessage().endsWith(": not a directory"), e.getMessage());
        assertEquals(List.of(file), files(dir));
    }

    @Test
    void readOnlyDirectoryIsRefusedClearly(@TempDir Path dir) throws Exception {
        Path ro = Files.createDirectory(dir.resolve("ro"));
        Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            assumeFalse(Files.isWritable(ro), "running as a user who may write read-only directories (root)");
            DiskCheck.UnusableDirectoryException e = assertThrows(DiskCheck.UnusableDirectoryException.class,
                    () -> DiskCheck.run(tiny(ro)));
            assertTrue(e.getMessage().contains("not writable"), e.getMessage());
        } finally {
            Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @Test
    void optionsAreChecked(@TempDir Path dir) {
        assertThrows(IllegalArgumentException.class, () -> tiny(dir).withSizeBytes(MIB - 1));
        assertThrows(IllegalArgumentException.class, () -> tiny(dir).withRandom(0, 10, 1));
        assertThrows(IllegalArgumentException.class, () -> tiny(dir).withRandom(1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> tiny(dir).withRandom(1, 10, 0));
        assertThrows(IllegalArgumentException.class, () -> tiny(dir).withFsync(0, 1));
        assertThrows(IllegalArgumentException.class, () -> tiny(dir).withFsync(1, Double.NaN));
    }
}
