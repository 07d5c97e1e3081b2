package io.strata.engine;

import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.page.StorageNumber;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.HOST;
import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StorageEngineTest {

    static final long T0 = 1_700_000_000L;

    static EngineConfig small(Path dir) {
        // Small datafiles so that a test crosses several of them (journal v2 of closed ones).
        return EngineConfig.defaults(dir).withDatafileMaxBytes(256 * 1024).withFlushMaxAgeMillis(10);
    }

    static List<long[]> read(StorageEngine e, int metric, long after, long before) throws Exception {
        List<long[]> out = new ArrayList<>();
        e.queryTier0(metric, after, before, (t, v) -> out.add(new long[]{t, v}));
        return out;
    }

    @Test
    void readsBackEveryPointAfterReopen(@TempDir Path dir) throws Exception {
        int seconds = 5000;
        int[] ids;
        try (StorageEngine e = StorageEngine.open(small(dir))) {
            ids = define(e, 20, 8);
            for (long t = T0; t < T0 + seconds; t++) {
                for (int m : ids) {
                    assertTrue(e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS));
                }
            }
            // before close: served from disk, dirty and hot pages together
            List<long[]> live = read(e, ids[3], T0, T0 + seconds);
            assertEquals(seconds, live.size());
        }
        try (StorageEngine e = StorageEngine.open(small(dir))) {
            assertTrue(e.recoveryReport().intact(), () -> e.recoveryReport().findings().toString());
            assertEquals(160, e.metadata().dimensionCount());
            assertTrue(e.tier(0).datafiles().size() > 2, "several datafiles were used");
            for (int m : ids) {
                List<long[]> pts = read(e, m, T0, T0 + seconds);
                assertEquals(seconds, pts.size(), "metric " + m);
                for (int i = 0; i < seconds; i++) {
                    assertEquals(T0 + i, pts.get(i)[0]);
                    assertEquals(sn(m, T0 + i), (int) pts.get(i)[1], "metric " + m + " t " + (T0 + i));
                }
                assertEquals(T0, e.registry().firstTime(m, 0));
                assertEquals(T0 + seconds - 1, e.registry().lastTime(m, 0));
            }
            // the same metric id is found again by its dimension
            int again = e.metadata().upsertDimension(DimensionInfo.of(HOST, "test.chart0", "dim0"));
            assertEquals(ids[0], again);
        }
    }

    @Test
    void missedCollectionsAreGapsAndPastTimesAreRejected(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(small(dir))) {
            int m = define(e, 1, 1)[0];
            assertTrue(e.store(m, T0, 1, 1.0, StorageNumber.SN_DEFAULT_FLAGS));
            assertTrue(e.store(m, T0 + 3, 1, 4.0, StorageNumber.SN_DEFAULT_FLAGS));
            assertFalse(e.store(m, T0 + 3, 1, 5.0, StorageNumber.SN_DEFAULT_FLAGS), "same second twice");
            assertFalse(e.store(m, T0 + 1, 1, 5.0, StorageNumber.SN_DEFAULT_FLAGS), "a second in the past");
            List<long[]> pts = read(e, m, T0, T0 + 10);
            assertEquals(4, pts.size());
            assertEquals(1.0, StorageNumber.unpack((int) pts.get(0)[1]));
            assertTrue(StorageNumber.isEmpty((int) pts.get(1)[1]));
            assertTrue(StorageNumber.isEmpty((int) pts.get(2)[1]));
            assertEquals(4.0, StorageNumber.unpack((int) pts.get(3)[1]));
            // a gap longer than a page starts a new page; the seconds between are simply absent
            assertTrue(e.store(m, T0 + 10_000, 1, 9.0, StorageNumber.SN_DEFAULT_FLAGS));
            e.flush();
            pts = read(e, m, T0, T0 + 20_000);
            assertEquals(5, pts.size());
            assertEquals(T0 + 10_000, pts.get(4)[0]);
        }
    }

    @Test
    void changeOfUpdateEveryClosesThePage(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(small(dir))) {
            int m = define(e, 1, 1)[0];
            for (long t = T0; t < T0 + 10; t++) {
                e.store(m, t, 1, t - T0, StorageNumber.SN_DEFAULT_FLAGS);
            }
            for (long t = T0 + 10; t < T0 + 50; t += 5) {
                e.store(m, t, 5, t - T0, StorageNumber.SN_DEFAULT_FLAGS);
            }
            e.flush();
            List<long[]> pts = read(e, m, T0, T0 + 100);
            assertEquals(18, pts.size());
            assertEquals(T0 + 15, pts.get(11)[0]);
            assertEquals(15.0, StorageNumber.unpack((int) pts.get(11)[1]));
        }
        try (StorageEngine e = StorageEngine.open(small(dir))) {
            assertEquals(18, read(e, 0, T0, T0 + 100).size());
        }
    }

    @Test
    void oneEngineHoldsManyHostsWithTheSameChartNames(@TempDir Path dir) throws Exception {
        java.util.UUID a = java.util.UUID.fromString("00000000-0000-4000-8000-00000000000a");
        java.util.UUID b = java.util.UUID.fromString("00000000-0000-4000-8000-00000000000b");
        int ma;
        int mb;
        try (StorageEngine e = StorageEngine.open(small(dir))) {
            for (java.util.UUID h : new java.util.UUID[]{a, b}) {
                e.metadata().upsertHost(new io.strata.engine.meta.HostInfo(h, "host-" + h.getLeastSignificantBits(),
                        "linux", "UTC", 1, java.util.Map.of()));
                e.metadata().upsertChart(io.strata.engine.meta.ChartInfo.of(h, "system.cpu", 1));
            }
            ma = e.metadata().upsertDimension(DimensionInfo.of(a, "system.cpu", "user"));
            mb = e.metadata().upsertDimension(DimensionInfo.of(b, "system.cpu", "user"));
            assertFalse(ma == mb, "same chart and dimension on two hosts are two metrics");
            for (long t = T0; t < T0 + 2000; t++) {
                e.store(ma, t, 1, 1.0, StorageNumber.SN_DEFAULT_FLAGS);
                e.store(mb, t, 1, 2.0, StorageNumber.SN_DEFAULT_FLAGS);
            }
        }
        try (StorageEngine e = StorageEngine.open(small(dir))) {
            assertEquals(2, e.metadata().hosts().size());
            assertEquals(1, e.metadata().charts(e.metadata().hostId(a)).size());
            for (long[] p : read(e, ma, T0, T0 + 2000)) {
                assertEquals(1.0, StorageNumber.unpack((int) p[1]));
            }
            for (long[] p : read(e, mb, T0, T0 + 2000)) {
                assertEquals(2.0, StorageNumber.unpack((int) p[1]));
            }
            assertEquals(2000, read(e, mb, T0, T0 + 2000).size());
        }
    }

    @Test
    void flagsSurviveTheRoundTrip(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(small(dir))) {
            int m = define(e, 1, 1)[0];
            e.store(m, T0, 1, 42.5, StorageNumber.SN_FLAG_RESET | StorageNumber.SN_FLAG_NOT_ANOMALOUS);
            e.store(m, T0 + 1, 1, 43.5, 0);
            e.storeGap(m, T0 + 2, 1);
        }
        try (StorageEngine e = StorageEngine.open(small(dir))) {
            List<long[]> pts = read(e, 0, T0, T0 + 2);
            assertEquals(3, pts.size());
            assertTrue(StorageNumber.isReset((int) pts.get(0)[1]));
            assertFalse(StorageNumber.isAnomalous((int) pts.get(0)[1]));
            assertTrue(StorageNumber.isAnomalous((int) pts.get(1)[1]));
            assertTrue(StorageNumber.isEmpty((int) pts.get(2)[1]));
        }
    }
}
