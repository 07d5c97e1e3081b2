package io.strata.engine.page;

import io.strata.engine.DiskFormat;

import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hot-page memory: size classes fine enough to waste little and few enough for an address's low
 * bits; blocks carved from slabs, reused after recycling, and slabs given back when emptied.
 */
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

    @Test
    void blocksAreAlignedDistinctAndCarvedFromFewSlabs() {
        PageMemory m = PageMemory.forPages(4096);
        int perClass = 300;
        long[][] blocks = new long[m.classes()][perClass];
        int expectedSlabs = 0;
        for (int c = 0; c < m.classes(); c++) {
            for (int i = 0; i < perClass; i++) {
                long a = m.acquire(c);
                assertEquals(0, a & HotPageTable.CLASS_MASK, "16-byte aligned: the class fits the low bits");
                blocks[c][i] = a;
                // fill the whole block: an overlap with another block would show below
                for (int off = 0; off < m.classBytes(c); off += 4) {
                    PageMemory.writeInt(a + off, c * 1_000_000 + i);
                }
            }
            expectedSlabs += (perClass + m.blocksPerSlab(c) - 1) / m.blocksPerSlab(c);
        }
        assertEquals(expectedSlabs, m.slabs(), "one allocation per slab, not per block");
        assertEquals(m.classes() * (long) perClass, m.blocksInUse());
        long carved = 0;
        for (int c = 0; c < m.classes(); c++) {
            carved += (long) perClass * m.classBytes(c);
            for (int i = 0; i < perClass; i++) {
                assertEquals(c * 1_000_000 + i, PageMemory.readInt(blocks[c][i]), "class " + c + " block " + i);
                assertEquals(c * 1_000_000 + i, PageMemory.readInt(blocks[c][i] + m.classBytes(c) - 4));
            }
        }
        assertEquals(carved, m.allocatedBytes(), "the bytes of the blocks handed out");
        assertTrue(m.reservedBytes() >= carved);
        for (int c = 0; c < m.classes(); c++) {
            for (long a : blocks[c]) {
                m.free(a, c);
            }
        }
        assertEquals(0, m.slabs(), "freeing every block releases every slab");
        assertEquals(0, m.allocatedBytes());
        assertEquals(0, m.reservedBytes());
        assertEquals(0, m.blocksInUse());
    }

    @Test
    void aClassThatShrinksGivesItsSlabsBackAndFreeBlocksAreReusedFirst() {
        PageMemory m = PageMemory.forPages(2048);
        int cls = 2;
        int per = m.blocksPerSlab(cls);
        long[] a = new long[8 * per];
        for (int i = 0; i < a.length; i++) {
            a[i] = m.acquire(cls);
        }
        assertEquals(8, m.slabs());
        // half the blocks, scattered, go back: no slab empties, and the next blocks come from
        // their places, not from a new slab
        SplittableRandom r = new SplittableRandom(5);
        long[] shuffled = a.clone();
        for (int i = shuffled.length - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            long t = shuffled[i];
            shuffled[i] = shuffled[j];
            shuffled[j] = t;
        }
        long[] retiredHalf = Arrays.copyOf(shuffled, a.length / 2);
        for (long x : retiredHalf) {
            m.retire(x, cls);
        }
        assertEquals(8, m.slabs(), "retired blocks stay put until the flusher recycles them");
        m.recycleRetired(0);
        long allocated = m.allocatedBytes();
        long[] again = new long[a.length / 2];
        for (int i = 0; i < again.length; i++) {
            again[i] = m.acquire(cls);
        }
        assertEquals(8, m.slabs(), "free blocks are reused before any new slab is made");
        assertEquals(allocated, m.allocatedBytes());
        long[] sortedRetired = retiredHalf.clone();
        long[] sortedAgain = again.clone();
        Arrays.sort(sortedRetired);
        Arrays.sort(sortedAgain);
        assertTrue(Arrays.equals(sortedRetired, sortedAgain), "the same blocks handed out again");

        // the class shrinks to a tenth: with keep = one slab's worth of free blocks, every slab
        // beyond what the remaining blocks and that reserve need is released
        long[] live = new long[a.length];
        System.arraycopy(shuffled, a.length / 2, live, 0, a.length / 2);
        System.arraycopy(again, 0, live, a.length / 2, again.length);
        Arrays.sort(live);
        // keep the blocks of the lowest slab only (the oldest slabs are the ones new blocks come from)
        int kept = 0;
        long[] keptBlocks = new long[per / 2];
        for (long x : live) {
            if (kept < per / 2) {
                keptBlocks[kept++] = x;
            } else {
                m.retire(x, cls);
            }
        }
        m.recycleRetired(per);
        assertTrue(m.slabs() <= 3, m.slabs() + " slabs left for " + kept + " blocks and a reserve of " + per);
        assertTrue(m.allocatedBytes() <= 3L * per * m.classBytes(cls));
        m.freePooled();
        assertTrue(m.slabs() <= 1, "close: only slabs with blocks in use remain");
        for (long x : keptBlocks) {
            m.free(x, cls);
        }
        m.freePooled();
        assertEquals(0, m.slabs());
    }

    @Test
    void closeReleasesEverySlabAndAForeignBlockIsRefused() {
        PageMemory m = PageMemory.forPages(4096);
        long inPage = m.acquire(5);
        long retiredOnly = m.acquire(5);
        long pooled = m.acquire(15);
        m.retire(pooled, 15);
        m.recycleRetired(256);
        m.retire(retiredOnly, 5);
        assertTrue(m.slabs() == 2 && m.allocatedBytes() > 0);
        // as at close: the hot pages free their blocks, then everything pooled and retired goes
        m.free(inPage, 5);
        m.freePooled();
        assertEquals(0, m.slabs());
        assertEquals(0, m.allocatedBytes());
        assertEquals(0, m.reservedBytes());
        assertEquals(0, m.blocksInUse());

        PageMemory other = PageMemory.forPages(4096);
        long foreign = other.acquire(1);
        long mine = m.acquire(1);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> m.free(foreign, 1));
        assertTrue(e.getMessage().contains("not handed out"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> m.free(mine, 2), "a block of another class");
        m.free(mine, 1);
        other.free(foreign, 1);
        assertEquals(0, m.reservedBytes() + other.reservedBytes());
    }

    @Test
    void aLongBacklogOfRetiredBlocksIsRecycledWhole() {
        PageMemory m = PageMemory.forPages(384);
        int n = 3 * 4096 + 5;
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = m.acquire(i % m.classes());
        }
        int slabs = m.slabs();
        for (int i = 0; i < n; i++) {
            m.retire(a[i], i % m.classes());
        }
        assertEquals(n, m.retiredBlocks());
        assertEquals(0, m.blocksInUse());
        m.recycleRetired(Integer.MAX_VALUE);
        assertEquals(0, m.retiredBlocks());
        assertEquals(slabs, m.slabs(), "a class keeps its slabs while it has fewer free blocks than asked");
        for (int i = 0; i < n; i++) {
            a[i] = m.acquire(i % m.classes());
        }
        assertEquals(slabs, m.slabs(), "every recycled block, of every class, was reused: no new slab");
        for (int i = 0; i < n; i++) {
            m.free(a[i], i % m.classes());
        }
        assertEquals(0, m.slabs());
    }

    @Test
    void collectorsAllocatingWhileTheListIsRecycledSliceBySliceNeverShareABlock() throws Exception {
        PageMemory m = PageMemory.forPages(4096);
        java.util.concurrent.atomic.AtomicReference<String> broken = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread[] collectors = new Thread[2];
        for (int c = 0; c < collectors.length; c++) {
            int id = c + 1;
            collectors[c] = new Thread(() -> {
                java.util.SplittableRandom r = new java.util.SplittableRandom(id);
                long[] live = new long[600];
                int[] cls = new int[live.length];
                for (int op = 0; op < 150_000 && broken.get() == null; op++) {
                    int k = r.nextInt(live.length);
                    if (live[k] != 0) {
                        int mark = PageMemory.readInt(live[k]);
                        int tail = PageMemory.readInt(live[k] + m.classBytes(cls[k]) - 4);
                        if (mark != (id << 24 | k) || tail != ~mark) {
                            broken.compareAndSet(null, "collector " + id + " block " + k + " was overwritten");
                        }
                        m.retire(live[k], cls[k]);
                    }
                    cls[k] = r.nextInt(m.classes());
                    live[k] = m.acquire(cls[k]);
                    PageMemory.writeInt(live[k], id << 24 | k);
                    PageMemory.writeInt(live[k] + m.classBytes(cls[k]) - 4, ~(id << 24 | k));
                }
                for (int k = 0; k < live.length; k++) {
                    if (live[k] != 0) {
                        m.retire(live[k], cls[k]);
                    }
                }
            });
        }
        Thread recycler = new Thread(() -> {
            for (int i = 0; i < 100_000 && !done.get(); i++) {
                m.recycleRetired(16);
            }
        });
        for (Thread t : collectors) {
            t.start();
        }
        recycler.start();
        for (Thread t : collectors) {
            t.join(120_000);
        }
        done.set(true);
        recycler.join(60_000);
        assertEquals(null, broken.get());
        // every block came back exactly once: nothing out, and every slab empties
        assertEquals(0, m.blocksInUse());
        m.freePooled();
        assertEquals(0, m.slabs(), "a slab still counts blocks out: a give-back was lost");
        assertEquals(0, m.reservedBytes());
    }
}
