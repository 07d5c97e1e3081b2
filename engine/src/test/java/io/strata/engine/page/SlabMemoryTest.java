package io.strata.engine.page;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** On Linux, hot-page slabs are mappings of their own, in whole pages, usable end to end. */
class SlabMemoryTest {

    @Test
    void slabsAreWholePageMappingsOnLinux() {
        boolean linux = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux");
        if (!linux) {
            System.out.println("SKIPPED: slabs are mapped only on Linux (" + System.getProperty("os.name") + ")");
        }
        assumeTrue(linux, "not Linux");
        assertTrue(SlabMemory.mapped(), "an anonymous mapping from Java failed here (see the log)");
        long usable = 85 * 768;
        long size = SlabMemory.size(usable);
        assertEquals(65_536, size);
        long a = SlabMemory.allocate(size);
        assertEquals(0, a % 4096, "page-aligned");
        assertEquals(a, SlabMemory.align(a));
        for (long o = 0; o < size; o += 8) {
            PageMemory.writeInt(a + o, (int) o);
        }
        for (long o = 0; o < size; o += 8) {
            assertEquals((int) o, PageMemory.readInt(a + o));
        }
        SlabMemory.free(a, size);
    }
}
