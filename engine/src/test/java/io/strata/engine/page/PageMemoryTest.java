package io.strata.engine.page;

import io.strata.engine.DiskFormat;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Size classes of hot-page memory: fine enough to waste little, few enough for an address's low bits. */
class PageMemoryTest {

    @Test
    void everyTiersPageGetsAtMostSixteenClassesOfWholeGranules() {
        for (int t = 0; t < 5; t++) {
            int pb = DiskFormat.pageBytes(t);
            PageMemory m = PageMemory.forPages(pb);
            assertTrue(m.classes() <= HotPageTable.CLASS_MASK + 1, "tier " + t + ": " + m.classes() + " classes");
            assertEquals(pb, m.classBytes(m.classes() - 1), "the largest class is a whole page");
            assertEquals(0, m.classBytes(0) % 16, "blocks hold whole 16-byte points");
            // a page of n bytes gets the smallest class that holds it
            for (int bytes = 4; bytes <= pb; bytes += 4) {
                int c = m.classFor(bytes);
                assertTrue(m.classBytes(c) >= bytes && (c == 0 || m.classBytes(c - 1) < bytes), "tier " + t + ", " + bytes);
            }
        }
        assertEquals(256, PageMemory.forPages(4096).classBytes(0));
        assertEquals(128, PageMemory.forPages(2048).classBytes(0));
        assertEquals(64, PageMemory.forPages(384).classBytes(0));
    }

    @Test
    void blocksAreReusedAfterRecyclingAndAccounted() {
        PageMemory m = PageMemory.forPages(4096);
        long a = m.acquire(3);
        assertEquals(m.classBytes(3), m.allocatedBytes());
        m.retire(a, 3);
        m.recycleRetired(16);
        assertEquals(a, m.acquire(3), "a recycled block is handed out again");
        assertEquals(m.classBytes(3), m.allocatedBytes());
        m.free(a, 3);
        m.freePooled();
        assertEquals(0, m.allocatedBytes());
    }
}
