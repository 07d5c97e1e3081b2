package io.strata.engine;

import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A point at or before a metric's last stored second is refused also when the metric has no hot
 * page: right after its page sealed, and after a restart (pages on disk only). Accepting it would
 * start a page that overlaps the last one.
 */
class PastPointsTest {

    private static final long T0 = 1_700_000_000L;

    @Test
    void aPointInThePastIsRefusedAfterASealAndAfterARestart(@TempDir Path dir) throws IOException {
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1);
        int id;
        long last;
        long sealedAt = -1;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            id = define(e, 1, 1)[0];
            long t = T0;
            // until the first page seals (its capacity is random, at most a page): the store
            // after a seal finds no hot page
            for (; t < T0 + 3 * 1024 && sealedAt < 0; t++) {
                long sealedBefore = e.pointsStored();
                assertTrue(e.store(id, t, 1, value(id, t), StorageNumber.SN_DEFAULT_FLAGS));
                if (e.pointsStored() > sealedBefore) {
                    sealedAt = t;
                }
            }
            assertTrue(sealedAt > 0, "a page sealed");
            long rejected = e.pointsRejected();
            assertFalse(e.store(id, sealedAt, 1, 1.0, StorageNumber.SN_DEFAULT_FLAGS), "the sealed page's last second again");
            assertFalse(e.store(id, sealedAt - 10, 1, 1.0, StorageNumber.SN_DEFAULT_FLAGS), "a second inside the sealed page");
            assertEquals(rejected + 2, e.pointsRejected());
            last = sealedAt + 5;
            for (t = sealedAt + 1; t <= last; t++) {
                assertTrue(e.store(id, t, 1, value(id, t), StorageNumber.SN_DEFAULT_FLAGS));
            }
            e.flush();
        }
        try (StorageEngine e = StorageEngine.open(cfg)) {
            assertEquals(last, e.registry().lastTime(id, 0));
            assertFalse(e.store(id, last, 1, 1.0, StorageNumber.SN_DEFAULT_FLAGS), "the last second on disk again");
            assertFalse(e.store(id, T0 + 1, 1, 1.0, StorageNumber.SN_DEFAULT_FLAGS), "a second long stored");
            assertTrue(e.store(id, last + 1, 1, value(id, last + 1), StorageNumber.SN_DEFAULT_FLAGS), "the next second");
            e.flush();
            long[] count = {0};
            e.query(id, 1, T0 - 1, last + 1, (int) (last + 2 - T0), (time, sum, min, max, n, anomalies) -> {
                if (n == 1) {
                    assertEquals(value(id, time), sum, 1e-9, "the first value stored at " + time + " stays");
                    count[0]++;
                }
            });
            assertEquals(last + 2 - T0, count[0], "every second once");
        }
    }
}
