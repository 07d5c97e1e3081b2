package io.strata.engine;

import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;

import java.util.Map;
import java.util.UUID;

/** Deterministic data for engine tests: value(metric, t) is a pure function, so readers can check it. */
public final class EngineTestSupport {
    private EngineTestSupport() {
    }

    public static final UUID HOST = UUID.fromString("6f1b3f6e-0000-4000-8000-000000000001");

    /**
     * A value that varies with metric and time like a noisy gauge (so pages do not compress to
     * nothing) and packs exactly (tenths below 10 000).
     */
    public static double value(int metric, long t) {
        long h = (metric * 0x9E3779B97F4A7C15L) ^ (t * 0xC2B2AE3D27D4EB4FL);
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 32;
        return Math.floorMod(h, 100_000) / 10.0;
    }

    public static int sn(int metric, long t) {
        return StorageNumber.pack(value(metric, t), StorageNumber.SN_DEFAULT_FLAGS);
    }

    /** Defines {@code charts} charts of {@code dims} dimensions on HOST; returns metric ids in order. */
    public static int[] define(StorageEngine e, int charts, int dims) {
        e.metadata().upsertHost(new HostInfo(HOST, "test-host", "linux", "UTC", 1, Map.of("role", "test")));
        int[] ids = new int[charts * dims];
        for (int c = 0; c < charts; c++) {
            String chart = "test.chart" + c;
            e.metadata().upsertChart(ChartInfo.of(HOST, chart, 1));
            for (int d = 0; d < dims; d++) {
                ids[c * dims + d] = e.metadata().upsertDimension(DimensionInfo.of(HOST, chart, "dim" + d));
            }
        }
        return ids;
    }
}
