package io.strata.engine;

import io.strata.engine.page.StorageNumber;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parent's reconnection brings a burst of short past runs (a replication answer reaching one or
 * two seconds behind the newest point, for every dimension of every chart at once): thousands of
 * runs of a point or two while the past writer is busy. The queue is bounded by the points it
 * holds, not by the runs, so such a burst is stored whole.
 */
class PastRunQueueBurstTest {

    private static final long T0 = 1_700_000_000L;
    private static final int RUNS = 3_000;

    @Test
    void aBurstOfThousandsOfOnePointRunsWhileTheWriterIsBusyIsStoredWhole(@TempDir Path dir) throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(1))) {
            int id = define(e, 1, 1)[0];
            // a value every other second: every odd second is a hole behind the newest point
            long last = T0 + 2L * RUNS;
            for (long t = T0; t <= last; t += 2) {
                assertTrue(e.store(id, t, 1, t - T0, StorageNumber.SN_DEFAULT_FLAGS));
            }
            // the past writer stops at its first page until every run of the burst is submitted
            e.addPastPageListener((metric, firstTime, updateEvery, sns, count) -> {
                busy.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
            int[] one = new int[1];
            int accepted = 0;
            for (int i = 0; i < RUNS; i++) {
                long t = T0 + 1 + 2L * i;
                one[0] = StorageNumber.pack(t - T0, StorageNumber.SN_DEFAULT_FLAGS);
                accepted += e.submitPast(id, t, 1, one, 0, 1) ? 1 : 0;
                if (i == 0) {
                    assertTrue(busy.await(30, TimeUnit.SECONDS), "the writer took the first run");
                }
            }
            release.countDown();
            e.flush();

            assertEquals(RUNS, accepted, "runs accepted");
            assertEquals(0, e.pastRunsRefused());
            assertEquals(RUNS, e.pastPointsStored());
            long[] n = {0};
            e.queryTier0(id, T0 - 1, last, (t, sn) -> {
                assertEquals(t - T0, StorageNumber.unpack(sn), 1e-9, "value at " + t);
                n[0]++;
            });
            assertEquals(last - T0 + 1, n[0], "every second from the first to the last");
        }
    }
}
