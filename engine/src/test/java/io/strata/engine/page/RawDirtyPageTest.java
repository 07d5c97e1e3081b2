package io.strata.engine.page;

import io.strata.engine.DiskFormat;
import io.strata.engine.registry.MetricRegistry;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sealed tier-0 page leaves the collecting thread raw, its hot block with it, and is encoded by
 * the flusher: readers get the same points from the raw and the encoded form, the encoding is
 * the one the collector used to make (the bytes on disk do not change), and the block goes back
 * to page memory only once the encoding is published.
 */
class RawDirtyPageTest {

    private static final long T0 = 1_700_000_000L;

    @Test
    void rawPagesReadAsStoredAndEncodeToTheCodecsBytes() {
        MetricRegistry registry = new MetricRegistry(1);
        for (int m = 0; m < 4; m++) {
            registry.register(new UUID(7, m), m);
        }
        List<DirtyPage> sealed = new ArrayList<>();
        PageMemory memory = PageMemory.forPages(DiskFormat.pageBytes(0));
        HotPageTable hot = new HotPageTable(registry, sealed::add, memory, 3, () -> 0L);
        SplittableRandom r = new SplittableRandom(11);
        int pagePoints = DiskFormat.pagePoints(0);
        // what was stored, per metric, in time order: slot i at T0 + i (missed seconds are gaps)
        int[][] stored = new int[4][3 * pagePoints];
        int[] count = new int[4];
        for (int m = 0; m < 4; m++) {
            long t = T0;
            while (count[m] < stored[m].length - 8) {
                int sn = r.nextInt(10) == 0 ? StorageNumber.SN_EMPTY_SLOT
                        : StorageNumber.pack(m * 1000 + r.nextInt(500) / 10.0, StorageNumber.SN_DEFAULT_FLAGS);
                int skip = r.nextInt(50) == 0 ? 1 + r.nextInt(3) : 0;
                for (int g = 0; g < skip; g++) {
                    stored[m][count[m]++] = StorageNumber.SN_EMPTY_SLOT;
                }
                t += skip;
                assertEquals(HotPageTable.STORED, hot.store(m, t, 1, sn));
                stored[m][count[m]++] = sn;
                t++;
            }
        }
        assertTrue(sealed.size() >= 8, "pages sealed: " + sealed.size());
        long inUseBefore = memory.blocksInUse();
        int[] pos = new int[4];
        int[] raw = new int[pagePoints];
        int[] decoded = new int[pagePoints];
        int[] scratch = new int[pagePoints];
        byte[] buf = new byte[PageCodecTier0.maxEncodedLength(pagePoints)];
        for (DirtyPage p : sealed) {
            assertTrue(p.isRaw());
            assertEquals(0, p.tier);
            assertEquals(4L * p.entries, p.bytesHeld());
            // missed seconds across a page's end are stored nowhere (a query reports the same gap)
            while (T0 + pos[p.metricId] < p.startTime) {
                assertEquals(StorageNumber.SN_EMPTY_SLOT, stored[p.metricId][pos[p.metricId]++],
                        "only missed seconds fall between two pages of metric " + p.metricId);
            }
            int[] want = Arrays.copyOfRange(stored[p.metricId], pos[p.metricId], pos[p.metricId] + p.entries);
            assertEquals(T0 + pos[p.metricId], p.startTime, "metric " + p.metricId);
            pos[p.metricId] += p.entries;
            p.points(raw);
            assertArrayEquals(want, Arrays.copyOf(raw, p.entries), "raw page of metric " + p.metricId);

            p.encodeRaw(memory, scratch, buf);
            assertFalse(p.isRaw());
            byte[] expected = new byte[PageCodecTier0.maxEncodedLength(p.entries)];
            int len = PageCodecTier0.encode(want, p.entries, expected, 0);
            assertArrayEquals(Arrays.copyOf(expected, len), p.encoded, "the bytes on disk are the codec's");
            assertEquals(len, p.bytesHeld());
            Arrays.fill(decoded, 0x5A5A5A5A);
            p.points(decoded);
            assertArrayEquals(want, Arrays.copyOf(decoded, p.entries), "encoded page of metric " + p.metricId);
            // a second call finds it encoded and leaves it (and its block) alone
            byte[] once = p.encoded;
            p.encodeRaw(memory, scratch, buf);
            assertTrue(once == p.encoded);
        }
        // every sealed page's block was retired once, on encoding
        assertEquals(inUseBefore - sealed.size(), memory.blocksInUse());
        // the metrics' newest points are still in their hot pages
        HotPageTable.HotSnapshot hs = new HotPageTable.HotSnapshot();
        for (int m = 0; m < 4; m++) {
            assertTrue(hot.snapshot(m, raw, hs));
            while (T0 + pos[m] < hs.startTime) {
                assertEquals(StorageNumber.SN_EMPTY_SLOT, stored[m][pos[m]++]);
            }
            assertEquals(T0 + pos[m], hs.startTime);
            assertEquals(count[m] - pos[m], hs.entries);
            assertArrayEquals(Arrays.copyOfRange(stored[m], pos[m], count[m]), Arrays.copyOf(raw, hs.entries));
        }
        hot.freeAll();
        memory.freePooled();
    }

    @Test
    void aDroppedRawPageGivesItsBlockBackOnceAndIsNotEncodedAfter() {
        PageMemory memory = PageMemory.forPages(DiskFormat.pageBytes(0));
        long block = memory.acquire(memory.classFor(4 * 10));
        for (int i = 0; i < 10; i++) {
            PageMemory.writeInt(block + 4L * i, i);
        }
        DirtyPage p = DirtyPage.rawTier0(1, 1, 2, 3, T0, 1, 10, DiskFormat.PAGE_TYPE_TIER0,
                block | memory.classFor(40), 0);
        assertEquals(1, memory.blocksInUse());
        p.releaseRaw(memory);
        p.releaseRaw(memory);
        assertEquals(0, memory.blocksInUse(), "retired once");
        p.encodeRaw(memory, new int[1024], new byte[PageCodecTier0.maxEncodedLength(1024)]);
        assertEquals(0, memory.blocksInUse(), "not retired again by a late encode");
        // until the next recycling, a reader that took the page still reads its points
        int[] pts = new int[10];
        p.points(pts);
        assertArrayEquals(new int[]{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, pts);
        memory.freePooled();
    }
}
