package io.strata.engine.datafile;

import io.strata.engine.extent.PageDescriptor;
import io.strata.engine.registry.MetricRegistry;

import java.util.Arrays;

/**
 * The in-memory page index of a datafile that has no journal v2 yet (the one being written, or
 * one whose v2 could not be written): parallel primitive arrays of pages, each metric's pages
 * chained in insertion (= time) order. One writer (the flusher or recovery), many readers under
 * the tier's read lock; appends publish through the volatile page count.
 *
 * <p>Pages are kept in chunks of {@value #PAGE_CHUNK} (21 bytes a page) added as the datafile
 * grows, rather than in arrays that double: a 512 MiB datafile of tier 0 indexes about a million
 * pages, and doubling arrays held up to twice that (and three times while copying) on the heap.
 */
public final class OpenPageIndex implements PageIndex {

    private final MetricRegistry registry;
    private long[] extentOffset = new long[256];
    private int[] extentLength = new int[256];
    private int[] extentPages = new int[256];
    private int extents;

    static final int PAGE_CHUNK_BITS = 12;
    static final int PAGE_CHUNK = 1 << PAGE_CHUNK_BITS;
    private static final int PAGE_MASK = PAGE_CHUNK - 1;

    /** Pages {@code [k × PAGE_CHUNK, (k + 1) × PAGE_CHUNK)} of the datafile. */
    private static final class PageChunk {
        final int[] extent = new int[PAGE_CHUNK];
        final short[] slot = new short[PAGE_CHUNK];
        final int[] start = new int[PAGE_CHUNK];
        final int[] ue = new int[PAGE_CHUNK];
        final short[] entries = new short[PAGE_CHUNK];
        final byte[] type = new byte[PAGE_CHUNK];
        /** The metric's next page, -1 for its last. */
        final int[] next = new int[PAGE_CHUNK];
    }

    private PageChunk[] pageChunks = new PageChunk[8];
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
            PageChunk pc = chunkForAppend(p);
            int q = p & PAGE_MASK;
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
            pc.extent[q] = e;
            pc.slot[q] = (short) i;
            pc.start[q] = (int) d.startTime;
            pc.ue[q] = d.updateEvery;
            pc.entries[q] = (short) d.entries;
            pc.type[q] = (byte) d.type;
            pc.next[q] = -1;
            if (tail[metric] < 0) {
                head[metric] = p;
            } else {
                int t = tail[metric];
                chunk(t).next[t & PAGE_MASK] = p;
            }
            tail[metric] = p;
            points += d.entries;
            p++;
        }
        pages = p;
    }

    private PageChunk chunkForAppend(int p) {
        int k = p >>> PAGE_CHUNK_BITS;
        if (k == pageChunks.length) {
            pageChunks = Arrays.copyOf(pageChunks, k * 2);
        }
        if (pageChunks[k] == null) {
            pageChunks[k] = new PageChunk();
        }
        return pageChunks[k];
    }

    private PageChunk chunk(int p) {
        return pageChunks[p >>> PAGE_CHUNK_BITS];
    }

    /** Heap bytes of the page entries, allocated: whole chunks. */
    public synchronized long pageBytes() {
        long n = 0;
        for (PageChunk c : pageChunks) {
            if (c != null) {
                n++;
            }
        }
        return n * PAGE_CHUNK * 21L;
    }

    @Override
    public synchronized void pages(int metricId, long msb, long lsb, long after, long before, PageVisitor v) {
        if (metricId < 0 || metricId >= head.length) {
            return;
        }
        for (int p = head[metricId]; p >= 0; ) {
            PageChunk c = chunk(p);
            int q = p & PAGE_MASK;
            long start = Integer.toUnsignedLong(c.start[q]);
            int entries = Short.toUnsignedInt(c.entries[q]);
            long end = start + (long) (entries - 1) * c.ue[q];
            if (end >= after && start <= before) {
                int e = c.extent[q];
                v.page(extentOffset[e], extentLength[e], c.slot[q], start, c.ue[q], entries, c.type[q]);
            }
            p = c.next[q];
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
            for (int p = head[m]; p >= 0; p = chunk(p).next[p & PAGE_MASK]) {
                PageChunk c = chunk(p);
                int q = p & PAGE_MASK;
                long start = Integer.toUnsignedLong(c.start[q]);
                long end = start + (long) (Short.toUnsignedInt(c.entries[q]) - 1) * c.ue[q];
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
        return chunk(p).extent[p & PAGE_MASK];
    }

    public synchronized int pageSlot(int p) {
        return chunk(p).slot[p & PAGE_MASK];
    }

    public synchronized long pageStart(int p) {
        return Integer.toUnsignedLong(chunk(p).start[p & PAGE_MASK]);
    }

    public synchronized int pageUpdateEvery(int p) {
        return chunk(p).ue[p & PAGE_MASK];
    }

    public synchronized int pageEntries(int p) {
        return Short.toUnsignedInt(chunk(p).entries[p & PAGE_MASK]);
    }

    public synchronized int pageType(int p) {
        return chunk(p).type[p & PAGE_MASK];
    }

    public synchronized int firstPage(int metric) {
        return metric < head.length ? head[metric] : -1;
    }

    public synchronized int nextPage(int p) {
        return chunk(p).next[p & PAGE_MASK];
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
