package io.strata.streaming.collect;

import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The engine's sink stores a slot given at once ({@link StoredPointSink#storeSlot}) exactly as the
 * same points given one by one: values, gaps (NaN) and flags, point for point in tier 0.
 */
class StoredPointSinkTest {

    private static final UUID HOST = UUID.nameUUIDFromBytes("stored-point-sink-test".getBytes());
    private static final long T0 = 1_700_000_000L;
    private static final int DIMS = 9;
    private static final int SECONDS = 2_000;

    @Test
    void aSlotAtOnceStoresWhatItsPointsOneByOneStore(@TempDir Path dir) throws IOException {
        assertEquals(stored(dir.resolve("points"), false), stored(dir.resolve("slots"), true));
    }

    /**
     * A chart's log (every received chart stores through one) hands a slot to its target in one
     * {@code storeSlot}, so that the engine's batch store is not lost behind it, and logs the
     * slot's points as stores one by one would have: NaN with no flags, in dimension order.
     */
    @Test
    void theLogHandsASlotOnAtOnceAndLogsItsPoints() {
        List<String> calls = new ArrayList<>();
        StoredPointSink target = new StoredPointSink() {
            @Override
            public void store(int metricId, long time, int updateEvery, double value, int flags) {
                calls.add("store " + metricId);
            }

            @Override
            public void storeSlot(int[] metricIds, double[] values, int count, long time, int updateEvery, int flags) {
                calls.add("slot " + count + " at " + time);
            }
        };
        StoredPointLog log = new StoredPointLog(target);
        int[] ids = new int[DIMS];
        double[] values = new double[DIMS];
        List<String> expected = new ArrayList<>();
        for (long t = T0; t < T0 + 5; t++) {
            for (int d = 0; d < DIMS; d++) {
                ids[d] = 100 + d;
                values[d] = (t + d) % 4 == 0 ? Double.NaN : t * 0.5 + d;
                expected.add(ids[d] + "@" + t + "=" + values[d] + "/"
                        + (Double.isNaN(values[d]) ? StorageNumber.SN_FLAG_NONE : StorageNumber.SN_FLAG_RESET));
            }
            log.storeSlot(ids, values, DIMS, t, 1, StorageNumber.SN_FLAG_RESET);
        }
        assertEquals(List.of("slot 9 at " + T0, "slot 9 at " + (T0 + 1), "slot 9 at " + (T0 + 2),
                "slot 9 at " + (T0 + 3), "slot 9 at " + (T0 + 4)), calls);
        List<String> logged = new ArrayList<>();
        for (int i = 0; i < log.storedPoints(); i++) {
            logged.add(log.storedMetric(i) + "@" + log.storedTime(i) + "=" + log.storedValue(i) + "/"
                    + log.storedFlags(i));
        }
        assertEquals(expected, logged);
    }

    private static List<String> stored(Path dir, boolean slots) throws IOException {
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir))) {
            e.metadata().upsertHost(new HostInfo(HOST, "sink-test", "linux", "UTC", 1, Map.of()));
            e.metadata().upsertChart(ChartInfo.of(HOST, "test.chart", 1));
            int[] ids = new int[DIMS];
            for (int d = 0; d < DIMS; d++) {
                ids[d] = e.metadata().upsertDimension(DimensionInfo.of(HOST, "test.chart", "d" + d));
            }
            StoredPointSink sink = StoredPointSink.into(e);
            double[] values = new double[DIMS];
            for (long t = T0; t < T0 + SECONDS; t++) {
                int flags = t % 7 == 0 ? StorageNumber.SN_FLAG_NOT_ANOMALOUS | StorageNumber.SN_FLAG_RESET
                        : StorageNumber.SN_FLAG_NOT_ANOMALOUS;
                for (int d = 0; d < DIMS; d++) {
                    values[d] = (t + d) % 11 == 0 ? Double.NaN : (t % 100) * 1.5 - d * 1000.25;
                }
                if (slots) {
                    sink.storeSlot(ids, values, DIMS, t, 1, flags);
                } else {
                    for (int d = 0; d < DIMS; d++) {
                        // what the collector gave a gap before: NaN with no flags
                        sink.store(ids[d], t, 1, values[d],
                                Double.isNaN(values[d]) ? StorageNumber.SN_FLAG_NONE : flags);
                    }
                }
            }
            e.flush();
            List<String> out = new ArrayList<>();
            for (int d = 0; d < DIMS; d++) {
                int dim = d;
                e.queryTier0(ids[d], T0, T0 + SECONDS, (time, sn) -> out.add(dim + "@" + time + "=" + sn));
            }
            assertEquals(DIMS * SECONDS, out.size());
            return out;
        }
    }
}
