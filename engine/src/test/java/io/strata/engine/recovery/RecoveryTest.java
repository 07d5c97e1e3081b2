package io.strata.engine.recovery;

import io.strata.engine.DiskFormat;
import io.strata.engine.EngineConfig;
import io.strata.engine.EngineTestSupport;
import io.strata.engine.StorageEngine;
import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Damaged files: the engine starts, keeps everything intact, and says exactly what was lost. */
class RecoveryTest {

    static final long T0 = 1_700_000_000L;
    static final int SECONDS = 4000;

    static EngineConfig cfg(Path dir) {
        return EngineConfig.defaults(dir).withDatafileMaxBytes(128 * 1024).withFlushMaxAgeMillis(10);
    }

    /** Writes SECONDS seconds of 10 charts x 6 dimensions and closes cleanly; returns the metric ids. */
    static int[] populate(Path dir) throws IOException, InterruptedException {
        return populate(dir, cfg(dir));
    }

    static int[] populate(Path dir, EngineConfig cfg) throws IOException, InterruptedException {
        try (StorageEngine e = StorageEngine.open(cfg)) {
            int[] ids = define(e, 10, 6);
            for (long t = T0; t < T0 + SECONDS; t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
                if ((t - T0) % 400 == 399) {
                    // as collection in real time would: the flusher writes what was sealed (its
                    // age limit passes) before the next stretch, so that the files hold several
                    // extents and datafiles whatever the speed of this loop
                    for (int i = 0; i < 1000 && e.pendingPages() > 0; i++) {
                        Thread.sleep(2);
                    }
                }
            }
            return ids;
        }
    }

    static List<Path> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("tier0"))) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }

    /** Every point read back either equals what was written or its absence is reported as lost. */
    static void assertIntactOrReported(StorageEngine e, int[] ids) throws IOException {
        List<RecoveryReport.LostRange> lost = e.recoveryReport().lostRanges();
        for (int m : ids) {
            List<long[]> pts = new ArrayList<>();
            e.queryTier0(m, T0, T0 + SECONDS, (t, v) -> pts.add(new long[]{t, v}));
            for (long[] p : pts) {
                assertEquals(sn(m, p[0]), (int) p[1], "value of metric " + m + " at " + p[0]);
            }
            int k = 0;
            for (long t = T0; t < T0 + SECONDS; t++) {
                if (k < pts.size() && pts.get(k)[0] == t) {
                    k++;
                    continue;
                }
                long tt = t;
                java.util.UUID u = e.registry().uuid(m);
                assertTrue(lost.stream().anyMatch(r -> r.metric().equals(u) && r.firstTime() <= tt && tt <= r.lastTime()),
                        "metric " + m + " second " + t + " is missing and was not reported lost");
            }
        }
    }

    @Test
    void cleanReopenFindsNothing(@TempDir Path dir) throws Exception {
        int[] ids = populate(dir);
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            assertTrue(e.recoveryReport().intact(), e.recoveryReport().findings()::toString);
            assertTrue(e.recoveryReport().lostRanges().isEmpty());
            assertIntactOrReported(e, ids);
        }
    }

    @Test
    void crashBeforeJournalV2IsWrittenRebuildsItFromJournalV1(@TempDir Path dir) throws Exception {
        int[] ids = populate(dir);
        for (Path v2 : files(dir, DiskFormat.JOURNAL_V2_SUFFIX)) {
            Files.delete(v2);
        }
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            assertTrue(e.recoveryReport().intact(), e.recoveryReport().findings()::toString);
            assertIntactOrReported(e, ids);
            assertEquals(SECONDS, countPoints(e, ids[7]));
        }
        assertFalse(files(dir, DiskFormat.JOURNAL_V2_SUFFIX).isEmpty(), "journal v2 rewritten");
    }

    @Test
    void tornTailOfTheLastDatafileIsCutAndReported(@TempDir Path dir) throws Exception {
        int[] ids = populate(dir);
        List<Path> dfs = files(dir, DiskFormat.DATAFILE_SUFFIX);
        Path last = dfs.get(dfs.size() - 1);
        String v2 = last.getFileName().toString().replace("datafile", "journalfile").replace(DiskFormat.DATAFILE_SUFFIX,
                DiskFormat.JOURNAL_V2_SUFFIX);
        Files.delete(last.resolveSibling(v2));
        long size = Files.size(last);
        try (RandomAccessFile f = new RandomAccessFile(last.toFile(), "rw")) {
            f.setLength(size - 100);   // the last extent's write did not complete
        }
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            RecoveryReport r = e.recoveryReport();
            assertFalse(r.intact());
            assertFalse(r.lostRanges().isEmpty(), "the lost metrics and times are named");
            assertIntactOrReported(e, ids);
        }
        // a second start finds the file already repaired
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            assertTrue(e.recoveryReport().intact(), e.recoveryReport().findings()::toString);
        }
    }

    @Test
    void badChecksumInAnExtentLosesOnlyThatExtent(@TempDir Path dir) throws Exception {
        int[] ids = populate(dir);
        Path df = files(dir, DiskFormat.DATAFILE_SUFFIX).get(1);
        String base = df.getFileName().toString().replace("datafile", "journalfile").replace(DiskFormat.DATAFILE_SUFFIX, "");
        Files.delete(df.resolveSibling(base + DiskFormat.JOURNAL_V2_SUFFIX)); // force a full check of this datafile
        flipByte(df, DiskFormat.DATAFILE_SUPERBLOCK_SIZE + 3000);
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            RecoveryReport r = e.recoveryReport();
            assertEquals(1, r.findings().size(), r.findings()::toString);
            assertTrue(r.findings().get(0).problem().contains("checksum"), r.findings()::toString);
            assertFalse(r.lostRanges().isEmpty());
            assertIntactOrReported(e, ids);
        }
    }

    @Test
    void damagedExtentLengthWithoutJournalsResyncsOnTheNextIntactExtent(@TempDir Path dir) throws Exception {
        int[] ids = populate(dir);
        Path df = files(dir, DiskFormat.DATAFILE_SUFFIX).get(0);
        String base = df.getFileName().toString().replace("datafile", "journalfile").replace(DiskFormat.DATAFILE_SUFFIX, "");
        Files.delete(df.resolveSibling(base + DiskFormat.JOURNAL_V2_SUFFIX));
        Files.delete(df.resolveSibling(base + DiskFormat.JOURNAL_V1_SUFFIX));
        // the first extent's stored length (offset 8 of its header, repeated in its table) is
        // damaged: nothing says where the second extent starts
        flipByte(df, DiskFormat.DATAFILE_SUPERBLOCK_SIZE + 9);
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            RecoveryReport r = e.recoveryReport();
            assertEquals(1, r.findings().size(), r.findings()::toString);
            assertFalse(r.lostRanges().isEmpty(), "the damaged extent's pages are named from its header");
            assertIntactOrReported(e, ids);
            // only the first extent's pages are missing: the later extents of the file were found
            long present = countPoints(e, ids[0]) + countPoints(e, ids[ids.length - 1]);
            assertTrue(present > SECONDS, "intact extents after the damage are kept, got " + present);
        }
    }

    @Test
    void damagedMetricDefinitionsWithoutJournalsAreFoundInTheNextExtent(@TempDir Path dir) throws Exception {
        // one datafile of several extents: the definitions of the first are repeated by the second
        EngineConfig big = cfg(dir).withDatafileMaxBytes(4 << 20);
        // Checkpoints make the extents independent of when the flusher wakes: the first extents
        // hold the first 1000 s, every metric's last point is in an extent written at close.
        int[] ids;
        try (StorageEngine e = StorageEngine.open(big)) {
            ids = define(e, 10, 6);
            for (long t = T0; t < T0 + SECONDS; t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
                if ((t - T0) % 1000 == 999 && t < T0 + SECONDS - 1) {
                    e.flush();
                }
            }
        }
        Path df = files(dir, DiskFormat.DATAFILE_SUFFIX).get(0);
        String base = df.getFileName().toString().replace("datafile", "journalfile").replace(DiskFormat.DATAFILE_SUFFIX, "");
        Files.delete(df.resolveSibling(base + DiskFormat.JOURNAL_V2_SUFFIX));
        Files.delete(df.resolveSibling(base + DiskFormat.JOURNAL_V1_SUFFIX));
        // inside the UUID of a metric the first extent defines: that extent is the only one to
        // use the number first, its journal v1 transaction is gone
        flipByte(df, firstExtentDefinitionAt(df, 3) + 4);
        try (StorageEngine e = StorageEngine.open(big)) {
            RecoveryReport r = e.recoveryReport();
            assertEquals(1, r.findings().size(), r.findings()::toString);
            assertFalse(r.lostRanges().isEmpty());
            assertTrue(r.lostRanges().stream().noneMatch(l -> l.metric().equals(new java.util.UUID(0, 0))),
                    "every lost page's metric is known: " + r.lostRanges());
            assertIntactOrReported(e, ids);
            // the definitions were repeated by the second extent: the metrics' later pages are there
            for (int m : ids) {
                long[] n = {0};
                e.queryTier0(m, T0 + SECONDS - 1, T0 + SECONDS - 1, (t, v) -> n[0]++);
                assertEquals(1, n[0], "the last point of metric " + m);
            }
        }
    }

    @Test
    void aDatafileOfAnotherFormatVersionIsLeftUntouched(@TempDir Path dir) throws Exception {
        int[] ids = populate(dir);
        Path df = files(dir, DiskFormat.DATAFILE_SUFFIX).get(0);
        try (RandomAccessFile f = new RandomAccessFile(df.toFile(), "rw")) {
            java.nio.ByteBuffer sb = io.strata.engine.datafile.DataFile.superblock(DiskFormat.DATAFILE_MAGIC, 1, 0,
                    1, 24);
            f.write(sb.array());
        }
        byte[] before = Files.readAllBytes(df);
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            RecoveryReport r = e.recoveryReport();
            assertEquals(1, r.findings().size(), r.findings()::toString);
            assertTrue(r.findings().get(0).problem().contains("version 1"), r.findings()::toString);
            // the other datafiles are read; new ones do not reuse its number
            assertTrue(countPoints(e, ids[0]) > 0);
            e.flush();
        }
        assertArrayEquals(before, Files.readAllBytes(df));
    }

    @Test
    void killRightAfterADatafileWasCreatedIsNotDamage(@TempDir Path dir) throws Exception {
        int[] ids = populate(dir);
        // what a kill between creating a datafile and writing its superblock leaves
        Files.createFile(dir.resolve("tier0").resolve(DiskFormat.datafileName(0, 999)));
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            assertTrue(e.recoveryReport().intact(), e.recoveryReport().findings()::toString);
            assertIntactOrReported(e, ids);
        }
        assertFalse(Files.exists(dir.resolve("tier0").resolve(DiskFormat.datafileName(0, 999))));
    }

    @Test
    void damagedSuperblockIsRewrittenOnceAndNothingIsLost(@TempDir Path dir) throws Exception {
        int[] ids = populate(dir);
        Path df = files(dir, DiskFormat.DATAFILE_SUFFIX).get(0);
        flipByte(df, 2);
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            assertEquals(1, e.recoveryReport().findings().size(), e.recoveryReport().findings()::toString);
            assertTrue(e.recoveryReport().lostRanges().isEmpty());
            assertIntactOrReported(e, ids);
            assertEquals(SECONDS, countPoints(e, ids[0]));
        }
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            assertTrue(e.recoveryReport().intact(), e.recoveryReport().findings()::toString);
        }
    }

    @Test
    void damagedJournalV1IsRebuiltFromTheDatafile(@TempDir Path dir) throws Exception {
        int[] ids = populate(dir);
        for (Path v2 : files(dir, DiskFormat.JOURNAL_V2_SUFFIX)) {
            Files.delete(v2);
        }
        for (Path v1 : files(dir, DiskFormat.JOURNAL_V1_SUFFIX)) {
            flipByte(v1, DiskFormat.JOURNAL_V1_SUPERBLOCK_SIZE + 40);
        }
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            assertTrue(e.recoveryReport().lostRanges().isEmpty(), e.recoveryReport().findings()::toString);
            assertIntactOrReported(e, ids);
            assertEquals(SECONDS, countPoints(e, ids[0]));
        }
    }

    @Test
    void damagedJournalV2IsRebuiltWithoutLoss(@TempDir Path dir) throws Exception {
        int[] ids = populate(dir);
        Path v2 = files(dir, DiskFormat.JOURNAL_V2_SUFFIX).get(0);
        flipByte(v2, Files.size(v2) / 2);
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            assertTrue(e.recoveryReport().intact(), e.recoveryReport().findings()::toString);
            assertTrue(e.recoveryReport().notes().stream().anyMatch(n -> n.contains("rebuilt")));
            assertIntactOrReported(e, ids);
        }
    }

    @Test
    void damagedMetadataTailIsCutAndDataStaysReadableByUuid(@TempDir Path dir) throws Exception {
        int[] ids = populate(dir);
        Path md = dir.resolve(DiskFormat.METADATA_FILE);
        flipByte(md, Files.size(md) - 10);
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            assertFalse(e.recoveryReport().intact());
            assertTrue(e.metadata().dimensionCount() < ids.length);
            // the last dimension's record was cut, its points are still there under its uuid
            java.util.UUID u = io.strata.engine.meta.DimensionInfo.metricUuid(EngineTestSupport.HOST, "test.chart9", "dim5");
            int m = e.registry().lookup(u);
            assertTrue(m >= 0);
            assertEquals(SECONDS, countPoints(e, m));
        }
    }

    @Test
    void copyOfARunningDatabaseOpensLikeAfterKill9(@TempDir Path dir, @TempDir Path copy) throws Exception {
        int[] ids;
        try (StorageEngine e = StorageEngine.open(cfg(dir))) {
            ids = define(e, 10, 6);
            for (long t = T0; t < T0 + SECONDS; t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
            e.flush();
            // what kill -9 leaves: files as they are, no journal v2 for the open datafile
            copyTree(dir, copy);
        }
        try (StorageEngine e = StorageEngine.open(cfg(copy))) {
            assertTrue(e.recoveryReport().lostRanges().isEmpty(), e.recoveryReport().findings()::toString);
            assertEquals(SECONDS, countPoints(e, ids[5]));
            assertIntactOrReported(e, ids);
        }
    }

    /** Offset in the datafile of the UUID of definition {@code i} (or the last) of its first extent. */
    static long firstExtentDefinitionAt(Path df, int i) throws Exception {
        byte[] head = new byte[DiskFormat.EXTENT_MAX_HEADER];
        int n;
        try (RandomAccessFile f = new RandomAccessFile(df.toFile(), "r")) {
            f.seek(DiskFormat.DATAFILE_SUPERBLOCK_SIZE);
            n = f.read(head);
        }
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(head, 0, n).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int t = Short.toUnsignedInt(b.getShort(12));
        io.strata.engine.extent.ExtentTable table = new io.strata.engine.extent.ExtentTable();
        table.decode(head, DiskFormat.EXTENT_PREFIX_SIZE, t, "test", 0);
        // compression byte, then the varints of pages, stored and raw lengths and the definition count
        byte[] scratch = new byte[10];
        long at = 1;
        for (long v : new long[]{table.pageCount, table.storedLength, table.rawLength, table.definitionCount}) {
            at += io.strata.engine.extent.ExtentTable.putVarint(scratch, 0, v);
        }
        int k = Math.min(i, table.definitionCount - 1);
        long gaps = 0;
        int prev = -1;
        for (int d = 0; d <= k; d++) {
            gaps += io.strata.engine.extent.ExtentTable.putVarint(scratch, 0, table.definitionNumber[d] - prev - 1);
            prev = table.definitionNumber[d];
        }
        return DiskFormat.DATAFILE_SUPERBLOCK_SIZE + DiskFormat.EXTENT_PREFIX_SIZE + at + gaps + 16L * k;
    }

    static long countPoints(StorageEngine e, int m) throws IOException {
        long[] n = {0};
        e.queryTier0(m, T0, T0 + SECONDS, (t, v) -> n[0]++);
        return n[0];
    }

    static void flipByte(Path p, long at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x5A);
        }
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path q = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(q);
                } else {
                    Files.copy(p, q, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
