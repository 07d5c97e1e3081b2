package io.strata.engine.bench;

import io.strata.engine.FsyncPolicy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The benchmark's memory over time: samples during the write phase, of which those taken once
 * every first page has sealed give the peak and the median per metric.
 */
class EngineBenchMemoryTest {

    @Test
    void peakAndMedianCountOnlySamplesAfterTheFirstPages() {
        EngineBench.MemoryOverTime m = new EngineBench.MemoryOverTime(new int[]{100, 500, 1100, 1500, 2000, 3000},
                new long[]{900, 50, 300, 100, 200, 150}, new long[]{70, 10, 40, 20, 30, 25}, new long[6], 1024, 1000);
        assertEquals(300, m.peakRss(), "the 900 at second 100 is before every first page sealed");
        assertEquals(150, m.medianRss(), "lower middle of 100, 150, 200, 300");
        assertEquals(40, m.peakPageMemory());
        EngineBench.MemoryOverTime shortRun = new EngineBench.MemoryOverTime(new int[]{10, 20}, new long[]{5, 7},
                new long[]{1, 2}, new long[2], 1024, 7);
        assertEquals(7, shortRun.peakRss(), "a run shorter than a page counts its end");
        assertEquals(7, shortRun.medianRss());
        assertThrows(IllegalArgumentException.class,
                () -> new EngineBench.MemoryOverTime(new int[]{1}, new long[0], new long[]{1}, new long[1], 0, 0));
    }

    @Test
    void aRunSamplesItsMemoryAsTheWritersProgress(@TempDir Path dir) throws Exception {
        int seconds = 3_000;
        EngineBench.Result r = EngineBench.run(new EngineBench.Options(dir.resolve("db"), 2_000, seconds,
                new RandomWalkDataset(3), 1, 10, FsyncPolicy.NEVER, 3, new long[]{64L << 20}, 0, false));
        EngineBench.MemoryOverTime m = r.memoryOverTime();
        assertTrue(m.samples() >= 1 && m.samples() <= EngineBench.MEMORY_SAMPLES, m.samples() + " samples");
        assertEquals(seconds, m.second()[m.samples() - 1], "the last sample is the end of the write phase");
        assertEquals(r.rssBytes(), m.rss()[m.samples() - 1]);
        assertEquals(r.pageMemoryBytes(), m.pageMemory()[m.samples() - 1]);
        for (int i = 1; i < m.samples(); i++) {
            assertTrue(m.second()[i] > m.second()[i - 1], "samples in the order of the writers' progress");
        }
        for (int i = 0; i < m.samples(); i++) {
            assertTrue(m.rss()[i] > 0 && m.pageMemory()[i] > 0 && m.heapCommitted()[i] > 0, "sample " + i);
        }
        assertEquals(1024, m.countedFrom());
        assertTrue(r.memoryPerMetricPeakOverBaselineBytes() >= r.memoryPerMetricMedianOverBaselineBytes());
        assertTrue(r.memoryPerMetricPeakOverBaselineBytes() >= r.memoryPerMetricOverBaselineBytes());
        assertTrue(m.rssHighWater() >= r.rssBytes());
    }
}
