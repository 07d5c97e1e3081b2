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
