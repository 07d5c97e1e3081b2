package io.strata.engine.page;

import io.strata.engine.DiskFormat;
import io.strata.engine.registry.MetricRegistry;

import java.util.Arrays;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The first hot page of every chart and tier has a capacity drawn uniformly from 1 point to a
 * whole page (from the chart id), so that at any moment after the first pages the hot pages of
 * all metrics are half full on average: the page memory does not swing, and pages seal at a
 * steady rate. A chart's dimensions share the capacity (they fill and seal together).
 */
class FirstPageCapacityTest {

    private static final int CHARTS = 2000;
    private static final int DIMS = 2;
    private static final int METRICS = CHARTS * DIMS;
    private static final long T0 = 1_700_000_000L;

    private static MetricRegistry registry() {
        MetricRegistry r = new MetricRegistry(3);
        for (int m = 0; m < METRICS; m++) {
            r.register(new UUID(7, m), m / DIMS);
        }
        return r;
    }

    /** Capacities of the first pages, per metric, from the first page each one sealed. */
    private static void assertUniformOverAPage(int[] firstEntries, int pagePoints, String what) {
        double sum = 0;
        int[] quarters = new int[4];
        for (int m = 0; m < METRICS; m++) {
            int c = firstEntries[m];
            assertTrue(c >= 1 && c <= pagePoints, what + ": metric " + m + " first page of " + c + " points");
            if (m % DIMS != 0) {
                assertEquals(firstEntries[m - 1], c, what + ": the dimensions of a chart share the first capacity");
            }
            sum += c;
            quarters[Math.min(3, (c - 1) * 4 / pagePoints)]++;
        }
        double mean = sum / METRICS;
        assertEquals((pagePoints + 1) / 2.0, mean, pagePoints * 0.04, what + ": mean first capacity");
        for (int q = 0; q < 4; q++) {
            // uniform: a quarter of the charts in each quarter of the page (the old rule put none
            // in the lower half)
            assertTrue(quarters[q] > METRICS * 0.21 && quarters[q] < METRICS * 0.29,
                    what + ": quarter " + q + " of the page holds " + quarters[q] + " of " + METRICS + " first pages "
                            + Arrays.toString(quarters));
        }
    }

    @Test
    void tier0FirstPagesAreUniformAndHotPagesStayHalfFull() {
        MetricRegistry reg = registry();
        int pagePoints = DiskFormat.pagePoints(0);
        int[] first = new int[METRICS];
        PageMemory mem = PageMemory.forPages(DiskFormat.pageBytes(0));
        HotPageTable hot = new HotPageTable(reg, p -> {
            if (first[p.metricId] == 0) {
                first[p.metricId] = p.entries;
            }
            // a sealed page leaves with its block (the flusher's to give back after encoding)
            p.releaseRaw(mem);
        }, mem, 11, () -> 0L);
        int[] dst = new int[pagePoints];
        HotPageTable.HotSnapshot snap = new HotPageTable.HotSnapshot();
        int seconds = 3 * pagePoints;
        try {
            for (int s = 0; s < seconds; s++) {
                for (int m = 0; m < METRICS; m++) {
                    hot.store(m, T0 + s, 1, StorageNumber.pack(s, StorageNumber.SN_DEFAULT_FLAGS));
                }
                mem.recycleRetired(64);
                // at every moment after every first page sealed, the hot pages hold half a page on
                // average (with first capacities of half to a whole page this swung from 1/4 to 3/4)
                if (s >= pagePoints && s % 97 == 0) {
                    long held = 0;
                    for (int m = 0; m < METRICS; m++) {
                        if (hot.snapshot(m, dst, snap)) {
                            held += snap.entries;
                        }
                    }
                    double fill = (double) held / METRICS / pagePoints;
                    assertTrue(fill > 0.45 && fill < 0.55, "second " + s + ": hot pages " + fill + " full on average");
                }
            }
        } finally {
            hot.freeAll();
            mem.freePooled();
        }
        assertUniformOverAPage(first, pagePoints, "tier 0");
        assertEquals(0, mem.allocatedBytes());
    }

    @Test
    void higherTiersFirstPagesAreUniformToo() {
        for (int tier = 1; tier <= 2; tier++) {
            MetricRegistry reg = registry();
            int pagePoints = DiskFormat.pagePoints(tier);
            int[] first = new int[METRICS];
            PageMemory mem = PageMemory.forPages(DiskFormat.pageBytes(tier));
            // grouping 1: a window per second, so that a page fills in pagePoints seconds
            HotAggregateTable hot = new HotAggregateTable(tier, 1, reg, p -> {
                if (first[p.metricId] == 0) {
                    first[p.metricId] = p.entries;
                }
            }, mem, 11, () -> 0L);
            try {
                for (int s = 0; s <= pagePoints + 1; s++) {
                    for (int m = 0; m < METRICS; m++) {
                        hot.add(m, T0 + s, 1, StorageNumber.pack(s, StorageNumber.SN_DEFAULT_FLAGS));
                    }
                    mem.recycleRetired(64);
                }
            } finally {
                hot.freeAll();
                mem.freePooled();
            }
            assertUniformOverAPage(first, pagePoints, "tier " + tier);
        }
    }
}
