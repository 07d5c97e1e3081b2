package io.strata.engine.datafile;

import io.strata.engine.extent.PageDescriptor;
import io.strata.engine.registry.MetricRegistry;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The open datafile's page index over several chunks of pages: every page found again in time
 * order with its fields, chains that cross chunks, and heap taken in whole chunks only.
 */
class OpenPageIndexTest {

    private static final int METRICS = 7;
    private static final long T0 = 1_700_000_000L;

    @Test
    void pagesAcrossChunksAreFoundInOrderWithTheirFields() {
        MetricRegistry reg = new MetricRegistry(1);
        OpenPageIndex idx = new OpenPageIndex(reg);
        int extents = 3 * OpenPageIndex.PAGE_CHUNK / 64 + 5;
        PageDescriptor[] ds = new PageDescriptor[64];
        for (int i = 0; i < ds.length; i++) {
            ds[i] = new PageDescriptor();
        }
        int total = 0;
        for (int e = 0; e < extents; e++) {
            for (int i = 0; i < 64; i++) {
                PageDescriptor d = ds[i];
                int k = e * 64 + i;
                d.metric = k % METRICS;
                d.uuidMsb = 99;
                d.uuidLsb = 1 + k % METRICS;
                // page n of a metric starts at T0 + 1000 n: later pages later
                d.startTime = T0 + 1000L * (k / METRICS);
                d.updateEvery = 1 + k % 3;
                d.entries = 1 + k % 300;
                d.type = k % 2;
            }
            idx.addExtent(4096L * e, 4000 + e, ds, 64);
            total += 64;
        }
        assertEquals(total, idx.pageCount());
        assertEquals(extents, idx.extentCount());
        assertTrue(idx.pageBytes() <= 4L * OpenPageIndex.PAGE_CHUNK * 21, "whole chunks only: " + idx.pageBytes());

        for (int m = 0; m < METRICS; m++) {
            int id = reg.lookup(99, 1 + m);
            List<long[]> seen = new ArrayList<>();
            idx.pages(id, 99, 1 + m, 0, Long.MAX_VALUE, (off, len, slot, start, ue, entries, type) ->
                    seen.add(new long[]{off, len, slot, start, ue, entries, type}));
            int expected = 0;
            for (int k = m; k < total; k += METRICS) {
                long[] p = seen.get(expected++);
                assertEquals(4096L * (k / 64), p[0], "metric " + m + " page " + k);
                assertEquals(4000 + k / 64, p[1]);
                assertEquals(k % 64, p[2]);
                assertEquals(T0 + 1000L * (k / METRICS), p[3]);
                assertEquals(1 + k % 3, p[4]);
                assertEquals(1 + k % 300, p[5]);
                assertEquals(k % 2, p[6]);
            }
            assertEquals(expected, seen.size());
            int chained = 0;
            for (int p = idx.firstPage(id); p >= 0; p = idx.nextPage(p)) {
                assertEquals(chained * METRICS + m, p, "the chain visits the metric's pages in order");
                chained++;
            }
            assertEquals(expected, chained);
        }
        // a range query picks the overlapping pages only
        int id = reg.lookup(99, 1);
        long[] count = new long[1];
        idx.pages(id, 99, 1, T0 + 5000, T0 + 5000, (off, len, slot, start, ue, entries, type) -> count[0]++);
        assertEquals(1, count[0]);
    }
}
