package io.strata.engine.bench;

import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shape of Netdata 1.37.1's {@code -W stresstest=A,B,C,...}: B writers of one 128-dimension
 * chart each, C readers, for A seconds of wall-clock time, storing its values.
 */
class NetdataStressTestShapeTest {

    @Test
    void valuesAreNetdatasGenerateDbengineChartValue() throws Exception {
        Dataset ds = Dataset.named("netdata-stresstest", 1);
        assertEquals("netdata-stresstest", ds.name());
        // (t * (chart + 1) + t * (dim + 1)) % 1024, worked out by hand for t = 1 700 000 005
        // (1 700 000 005 = 1 660 156 * 1024 + 261)
        assertEquals(522, NetdataStressTestDataset.value(0, 0, 1_700_000_005L), "2 * 261 mod 1024");
        assertEquals((261 * 3 + 261 * 129) % 1024, NetdataStressTestDataset.value(2, 128, 1_700_000_005L));
        double[] row = new double[3];
        // metrics 127, 128, 129: the last dimension of chart 0, the first two of chart 1
        ds.fill(5, 127, 130, row);
        assertEquals((261 + 261 * 128) % 1024, row[0]);
        assertEquals((261 * 2 + 261) % 1024, row[1]);
        assertEquals((261 * 2 + 261 * 2) % 1024, row[2]);
    }

    @Test
    void writersStopAfterTheDurationAndReadersCheckEveryValue(@TempDir Path dir) throws Exception {
        int most = 50_000_000;
        EngineBench.Result r = EngineBench.run(new EngineBench.Options(dir.resolve("db"), 256, most,
                new NetdataStressTestDataset(), 2, NetdataStressTestDataset.DIMENSIONS, FsyncPolicy.NEVER, 3,
                new long[]{1024L << 20}, 2, false, false, EngineBench.COLD_SCAN, 2.0));
        assertTrue(r.seconds() > 0 && r.seconds() < most, "stopped by the duration, not the data: " + r.seconds());
        assertTrue(r.points() >= 256L * r.seconds(), "every writer got at least as far as the slowest: " + r.points());
        assertEquals(0, r.points() % NetdataStressTestDataset.DIMENSIONS, "whole seconds of whole charts");
        assertTrue(r.pointsPerSecond() > 0);
        assertEquals(0, r.readErrors(), "values that differ from what was stored");
        assertTrue(r.queries() > 0, "the readers ran queries");
    }

    @Test
    void theCacheSizeGivenIsTheEnginesAndZeroSizesItFromTheMetrics(@TempDir Path dir) {
        EngineBench.Options given = new EngineBench.Options(dir, 256, 10, new NetdataStressTestDataset(), 2, 128,
                FsyncPolicy.NEVER, 1, new long[]{1L << 20}, 2, false, false, EngineBench.COLD_SCAN, 30, 64L << 20);
        assertEquals(64L << 20, EngineBench.config(given).autoCacheBytes(256));
        EngineBench.Options auto = new EngineBench.Options(dir, 256, 10, new NetdataStressTestDataset(), 2, 128,
                FsyncPolicy.NEVER, 1, new long[]{1L << 20}, 2, false, false, EngineBench.COLD_SCAN, 30);
        assertEquals(0, auto.cacheBytes());
        assertEquals(EngineConfig.defaults(dir).withTiers(1).autoCacheBytes(256), EngineBench.config(auto).autoCacheBytes(256),
                "the engine's own sizing from the metrics");
        assertThrows(IllegalArgumentException.class, () -> new EngineBench.Options(dir, 256, 10,
                new NetdataStressTestDataset(), 2, 128, FsyncPolicy.NEVER, 1, new long[]{1L << 20}, 2, false, false,
                EngineBench.COLD_SCAN, 30, -1));
    }

    @Test
    void aDurationThatIsNotANumberOfSecondsIsRefused(@TempDir Path dir) {
        for (double bad : new double[]{-1, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThrows(IllegalArgumentException.class, () -> new EngineBench.Options(dir, 10, 10,
                    new NetdataStressTestDataset(), 1, 10, FsyncPolicy.NEVER, 1, new long[]{1}, 0, false, false,
                    EngineBench.COLD_SCAN, bad), "duration " + bad);
        }
    }
}
