package io.strata.engine.datafile;

import io.strata.engine.extent.PageDescriptor;
import io.strata.engine.registry.MetricRegistry;

import java.util.Arrays;

/**
 * The in-memory page index of a datafile that has no journal v2 yet (the one being written, or
 * one whose v2 could not be written): parallel primitive arrays of pages, each metric's pages
 * chained in insertion (= time) order. One writer (the flusher or recovery), many readers under
 * the tier's read lock; appends publish through the volatile page count.
 */
public final class OpenPageIndex implements PageIndex {

    private final MetricRegistry registry;
    private long[] extentOffset = new long[256];
    private int[] extentLength = new int[256];
    private int[] extentPages = new int[256];
    private int extents;

    private int[] pageExtent = new int[1024];
    private short[] pageSlot = new short[1024];
    private int[] pageStart = new int[1024];
    private int[] pageUe = new int[1024];
    private short[] pageEntries = new short[1024];
    private byte[] pageType = new byte[1024];
    private int[] pageNext = new int[1024];
    private volatile int pages;
    private long points;

    /** Indexed by metric id: first and last page of the metric here, -1 when none. */
    private int[] head = new int[0];
    private int[] tail = new int[0];
    /** Indexed by metric id: its number in the datafile's metric table. */
    private int[] numberOf = new int[0];
    /** Indexed by datafile metric number: the metric id, -1 when unknown. */
    private int[] metricOfNumber = new int[0];

    public OpenPageIndex(MetricRegistry registry) {
        this.registry = registry;
    }

    /**
     * Records an extent and its pages. Metrics unknown to the registry are registered. Pages
     * whose metric is not resolved ({@link PageDescriptor#resolved()}) are left out; the others
     * keep their position in the extent.
     */
    public synchronized void addExtent(long offset, int length, PageDescriptor[] descriptors, int count) {
        if (extents == extentOffset.length) {
            extentOffset = Arrays.copyOf(extentOffset, extents * 2);
            extentLength = Arrays.copyOf(extentLength, extents * 2);
            extentPages = Arrays.copyOf(extentPages, extents * 2);
        }
        int e = extents;
        extentOffset[e] = offset;
        extentLength[e] = length;
        extentPages[e] = count;
        extents = e + 1;
        int p = pages;
        for (int i = 0; i < count; i++) {
            PageDescriptor d = descriptors[i];
            if (!d.resolved()) {
                continue;
            }
            if (p == pageStart.length) {
                growPages(p * 2);
            }
            int metric = registry.register(d.uuidMsb, d.uuidLsb, -1);
            if (metric >= head.length) {
                int n = Math.max(metric + 1, head.length * 2);
                int old = head.length;
                head = Arrays.copyOf(head, n);
                tail = Arrays.copyOf(tail, n);
                Arrays.fill(head, old, n, -1);
                Arrays.fill(tail, old, n, -1);
                numberOf = Arrays.copyOf(numberOf, n);
            }
            numberOf[metric] = d.metric;
            if (d.metric >= metricOfNumber.length) {
                int old = metricOfNumber.length;
                metricOfNumber = Arrays.copyOf(metricOfNumber, Math.max(d.metric + 1, old * 2));
                Arrays.fill(metricOfNumber, old, metricOfNumber.length, -1);
            }
            metricOfNumber[d.metric] = metric;
            pageExtent[p] = e;
            pageSlot[p] = (short) i;
            pageStart[p] = (int) d.startTime;
            pageUe[p] = d.updateEvery;
            pageEntries[p] = (short) d.entries;
            pageType[p] = (byte) d.type;
            pageNext[p] = -1;
            if (tail[metric] < 0) {
                head[metric] = p;
            } else {
                pageNext[tail[metric]] = p;
            }
            tail[metric] = p;
            points += d.entries;
            p++;
        }
        pages = p;
    }

    private void growPages(int n) {
        pageExtent = Arrays.copyOf(pageExtent, n);
        pageSlot = Arrays.copyOf(pageSlot, n);
        pageStart = Arrays.copyOf(pageStart, n);
        pageUe = Arrays.copyOf(pageUe, n);
        pageEntries = Arrays.copyOf(pageEntries, n);
        pageType = Arrays.copyOf(pageType, n);
        pageNext = Arrays.copyOf(pageNext, n);
    }

    @Override
    public synchronized void pages(int metricId, long msb, long lsb, long after, long before, PageVisitor v) {
        if (metricId < 0 || metricId >= head.length) {
            return;
        }
        for (int p = head[metricId]; p >= 0; p = pageNext[p]) {
            long start = Integer.toUnsignedLong(pageStart[p]);
            int entries = Short.toUnsignedInt(pageEntries[p]);
            long end = start + (long) (entries - 1) * pageUe[p];
            if (end < after || start > before) {
                continue;
            }
            int e = pageExtent[p];
            v.page(extentOffset[e], extentLength[e], pageSlot[p], start, pageUe[p], entries, pageType[p]);
        }
    }

    @Override
    public synchronized void forEachMetric(MetricVisitor v) {
        for (int m = 0; m < head.length; m++) {
            if (head[m] < 0) {
                continue;
            }
            long first = Long.MAX_VALUE;
            long last = 0;
            int n = 0;
            for (int p = head[m]; p >= 0; p = pageNext[p]) {
                long start = Integer.toUnsignedLong(pageStart[p]);
                long end = start + (long) (Short.toUnsignedInt(pageEntries[p]) - 1) * pageUe[p];
                first = Math.min(first, start);
                last = Math.max(last, end);
                n++;
            }
            v.metric(registry.uuidMsb(m), registry.uuidLsb(m), first, last, n);
        }
    }

    @Override
    public synchronized boolean datafileMetric(int number, long[] uuid) {
        if (number < 0 || number >= metricOfNumber.length || metricOfNumber[number] < 0) {
            return false;
        }
        uuid[0] = registry.uuidMsb(metricOfNumber[number]);
        uuid[1] = registry.uuidLsb(metricOfNumber[number]);
        return true;
    }

    /** The number of metric {@code metric} (a registry id with pages here) in the datafile's metric table. */
    public synchronized int datafileNumber(int metric) {
        return numberOf[metric];
    }

    @Override
    public synchronized long extentOffset(int i) {
        return extentOffset[i];
    }

    public synchronized int extentPages(int i) {
        return extentPages[i];
    }

    @Override
    public synchronized int extentLength(int i) {
        return extentLength[i];
    }

    /** For journal v2: page {@code p}'s fields. */
    public synchronized int pageExtent(int p) {
        return pageExtent[p];
    }

    public synchronized int pageSlot(int p) {
        return pageSlot[p];
    }

    public synchronized long pageStart(int p) {
        return Integer.toUnsignedLong(pageStart[p]);
    }

    public synchronized int pageUpdateEvery(int p) {
        return pageUe[p];
    }

    public synchronized int pageEntries(int p) {
        return Short.toUnsignedInt(pageEntries[p]);
    }

    public synchronized int pageType(int p) {
        return pageType[p];
    }

    public synchronized int firstPage(int metric) {
        return metric < head.length ? head[metric] : -1;
    }

    public synchronized int nextPage(int p) {
        return pageNext[p];
    }

    public synchronized int metricSlots() {
        return head.length;
    }

    @Override
    public synchronized int extentCount() {
        return extents;
    }

    @Override
    public int pageCount() {
        return pages;
    }

    @Override
    public synchronized long pointCount() {
        return points;
    }
}
