package io.strata.engine;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Points stamped in the future: retention by age follows the engine's clock, never the newest
 * point written, and points more than the future margin ahead of the clock are refused at the
 * door, counted per host and logged (rate-limited).
 */
class FuturePointsTest {

    /** The engine's "now": the tests' data ends there. */
    static final long NOW = 1_700_000_000L;
    static final UUID GOOD = UUID.fromString("6f1b3f6e-0000-4000-8000-00000000000a");
    static final UUID AHEAD = UUID.fromString("6f1b3f6e-0000-4000-8000-00000000000b");

    static int[] host(StorageEngine e, UUID guid, String name, int charts, int dims) {
        e.metadata().upsertHost(new HostInfo(guid, name, "linux", "UTC", 1, Map.of()));
        int[] ids = new int[charts * dims];
        for (int c = 0; c < charts; c++) {
            String chart = name + ".chart" + c;
            e.metadata().upsertChart(ChartInfo.of(guid, chart, 1));
            for (int d = 0; d < dims; d++) {
                ids[c * dims + d] = e.metadata().upsertDimension(DimensionInfo.of(guid, chart, "dim" + d));
            }
        }
        return ids;
    }

    static EngineConfig config(Path dir) {
        return EngineConfig.defaults(dir).withTiers(1).withDatafileMaxBytes(128 * 1024).withMaxAge(0, 86_400)
                .withClockSeconds(() -> NOW);
    }

    static void write(StorageEngine e, int[] ids, long from, long to) {
        for (long t = from; t < to; t++) {
            for (int m : ids) {
                assertTrue(e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS), "at " + t);
            }
        }
    }

    static long count(StorageEngine e, int m, long from, long to) throws IOException {
        long[] n = {0};
        e.queryTier0(m, from, to, (t, v) -> {
            assertEquals(sn(m, t), v, "metric " + m + " at " + t);
            n[0]++;
        });
        return n[0];
    }

    /** Every file under {@code dir}: name and CRC32C of its bytes. */
    static Map<String, Long> disk(Path dir) throws IOException {
        Map<String, Long> files = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                CRC32C crc = new CRC32C();
                crc.update(Files.readAllBytes(p));
                files.put(dir.relativize(p).toString(), crc.getValue());
            }
        }
        return files;
    }

    @Test
    void onePointTenYearsAheadChangesNothingOnDisk(@TempDir Path dir) throws Exception {
        int[] ids;
        Map<String, Long> before;
        long from = NOW - 6 * 3600;
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            ids = host(e, GOOD, "good", 5, 10);
            write(e, ids, from, NOW);
            e.flush();
            assertTrue(e.tier(0).datafiles().size() > 3, "several datafiles: " + e.tier(0).datafiles().size());
            before = disk(dir);

            long tenYears = NOW + 10 * 365 * 86_400L;
            assertFalse(e.store(ids[0], tenYears, 1, 42, StorageNumber.SN_DEFAULT_FLAGS), "a point 10 years ahead");
            e.flush();
            assertEquals(before, disk(dir), "the disk after a point 10 years ahead");
            assertEquals(1, e.pointsInFuture());
            assertEquals(1, e.pointsInFuture(GOOD));
            assertEquals(0, e.tier(0).datafilesDeleted());
            // the metric goes on at the clock's pace
            assertTrue(e.store(ids[0], NOW, 1, EngineTestSupport.value(ids[0], NOW), StorageNumber.SN_DEFAULT_FLAGS));
        }
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            for (int m : ids) {
                assertEquals(NOW - from + (m == ids[0] ? 1 : 0), count(e, m, from, NOW), "metric " + m);
            }
        }
    }

    @Test
    void aHostRunningAheadIsRefusedPastTheMarginAndTheOthersKeepTheirHistory(@TempDir Path dir) throws Exception {
        Logger engineLog = (Logger) LoggerFactory.getLogger(StorageEngine.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        engineLog.addAppender(logged);
        long from = NOW - 6 * 3600;
        long margin = EngineConfig.DEFAULT_FUTURE_MARGIN_SECONDS;
        int[] good;
        int[] ahead;
        try (StorageEngine e = StorageEngine.open(config(dir))) {
            good = host(e, GOOD, "good", 5, 10);
            ahead = host(e, AHEAD, "ahead", 1, 2);
            write(e, good, from, NOW);
            e.flush();
            // a child streaming as fast as the parent takes it: its timeline runs 3 days ahead
            long stored = 0;
            long refused = 0;
            long end = NOW + 3 * 86_400L;
            for (long t = NOW - 100; t < end; t++) {
                for (int m : ahead) {
                    if (e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS)) {
                        stored++;
                    } else {
                        refused++;
                    }
                }
            }
            e.flush();
            assertEquals((NOW + margin - (NOW - 100) + 1) * ahead.length, stored, "stored up to the clock + margin");
            assertEquals(refused, e.pointsInFuture(AHEAD));
            assertEquals(0, e.pointsInFuture(GOOD));
            assertEquals(refused, e.pointsInFuture());
            assertEquals(0, e.tier(0).datafilesDeleted(), "nothing of the others expired");
            for (int m : good) {
                assertEquals(NOW - from, count(e, m, from, NOW - 1), "metric " + m + " of the good host");
            }
            for (int m : ahead) {
                assertEquals(NOW + margin - (NOW - 100) + 1, count(e, m, NOW - 100, end), "metric " + m);
            }
        } finally {
            engineLog.detachAppender(logged);
        }
        List<String> warns = logged.list.stream().filter(ev -> ev.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage).filter(s -> s.contains("ahead of this node's clock")).toList();
        assertEquals(1, warns.size(), "one line per host and minute: " + warns);
        assertTrue(warns.get(0).startsWith("host " + AHEAD + ": refused 1 point(s)"), warns.get(0));
        System.out.println("[FuturePointsTest] " + warns.get(0));
    }

    @Test
    void anAcceleratedLoadIsAcceptedWithTheMarginRaised(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(config(dir).withFutureMarginSeconds(0))) {
            int[] ahead = host(e, AHEAD, "ahead", 1, 2);
            write(e, ahead, NOW, NOW + 3 * 86_400L);
            e.flush();
            assertEquals(0, e.pointsInFuture());
            for (int m : ahead) {
                assertEquals(3 * 86_400L, count(e, m, NOW, NOW + 3 * 86_400L));
            }
        }
    }
}
