package io.strata.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tier-0 points a page's run at a time are the points one at a time, on disk and in hot pages, gaps included. */
class QueryTier0RunsTest {

    @TempDir
    Path dir;

    @Test
    void runsDeliverThePointsOneAtATimeQueriesDeliver() throws Exception {
        try (StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir))) {
            int[] metrics = EngineTestSupport.define(engine, 1, 3);
            long t0 = 1_700_000_000L;
            SplittableRandom rnd = new SplittableRandom(11);
            for (long t = t0; t < t0 + 6000; t++) {
                if (t == t0 + 3000) {
                    engine.flush(); // the first half on disk, the rest in hot pages
                }
                for (int m : metrics) {
                    if (rnd.nextInt(50) == 0) {
                        engine.storeGap(m, t, 1);
                    } else if (rnd.nextInt(200) != 0) { // and some seconds not stored at all
                        engine.store(m, t, 1, EngineTestSupport.value(m, t), 0);
                    }
                }
            }
            for (int q = 0; q < 300; q++) {
                int m = metrics[rnd.nextInt(metrics.length)];
                long after = t0 - 20 + rnd.nextInt(6040);
                long before = after + rnd.nextInt(q % 3 == 0 ? 5 : 3000);
                List<String> one = new ArrayList<>();
                long n1 = engine.queryTier0(m, after, before, (time, sn) -> one.add(time + ":" + sn));
                List<String> runs = new ArrayList<>();
                long n2 = engine.queryTier0Runs(m, after, before, (sns, from, to, first, step) -> {
                    assertTrue(from < to, "an empty run");
                    for (int i = from; i < to; i++) {
                        runs.add((first + (i - from) * step) + ":" + sns[i]);
                    }
                });
                assertEquals(one, runs, "metric " + m + " (" + after + ", " + before + "]");
                assertEquals(n1, n2);
            }
        }
    }
}
