package io.strata.engine.cache;

import io.strata.engine.datafile.DataFile;
import io.strata.engine.io.FileChannelIo;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PageCachePagesTest {

    @TempDir
    Path dir;
    private DataFile file;

    @BeforeEach
    void open() throws IOException {
        file = DataFile.create(FileChannelIo.INSTANCE, dir, 0, 1);
    }

    @AfterEach
    void close() throws IOException {
        file.close();
    }

    private static int[] page(int n, int seed) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = seed * 10_000 + i;
        }
        return p;
    }

    /** What a cached page of {@code ints} ints is counted at. */
    private static long entryBytes(int ints) {
        return PageArrayPool.arrayBytes(PageArrayPool.classInts(ints)) + 64;
    }

    @Test
    void aCachedPageIsCopiedOutWhole() {
        PageCache c = new PageCache(1 << 20, 0);
        int[] src = page(1000, 1);
        c.putPage(file, 4096, 3, src, 1000);
        // the caller's array is its own again at once
        Arrays.fill(src, -1);
        int[] dst = new int[1024];
        assertEquals(1000, c.copyPage(file, 4096, 3, dst));
        assertArrayEquals(page(1000, 1), Arrays.copyOf(dst, 1000));
        assertEquals(-1, c.copyPage(file, 4096, 4, dst));
        assertTrue(c.containsPage(file, 4096, 3));
        assertFalse(c.containsPage(file, 8192, 3));
        assertEquals(2, c.pageHits());
        assertEquals(2, c.pageMisses());
        assertEquals(entryBytes(1000), c.pageBytes());
    }

    @Test
    void anEvictedPagesArrayHoldsTheNextPage() {
        PageCache c = new PageCache(2 * entryBytes(1024), 0);
        c.putPage(file, 4096, 0, page(1024, 1), 1024);
        c.putPage(file, 4096, 1, page(1024, 2), 1024);
        c.invalidate(file);
        assertEquals(2 * PageArrayPool.arrayBytes(1024), c.pooledPageBytes(), "both arrays kept");
        c.putPage(file, 8192, 0, page(600, 3), 600);
        assertEquals(PageArrayPool.arrayBytes(1024), c.pooledPageBytes(), "one taken again");
        int[] dst = new int[1024];
        assertEquals(600, c.copyPage(file, 8192, 0, dst));
        assertArrayEquals(page(600, 3), Arrays.copyOf(dst, 600));
        assertTrue(c.pageBytes() <= 2 * entryBytes(1024));
    }

    @Test
    void cachedAndKeptArraysStayWithinTheBound() {
        long bound = 5 * entryBytes(1024);
        PageCache c = new PageCache(bound, 0);
        int[] dst = new int[1024];
        for (int slot = 0; slot < 40; slot++) {
            c.putPage(file, 4096L * (slot / 8), slot % 8, page(1024 - slot, slot), 1024 - slot);
            assertTrue(c.pageBytes() <= bound, "after page " + slot + ": " + c.pageBytes());
        }
        // the newest pages are the ones left, and intact
        assertEquals(1024 - 39, c.copyPage(file, 4096L * 4, 7, dst));
        assertArrayEquals(page(1024 - 39, 39), Arrays.copyOf(dst, 1024 - 39));
        assertEquals(-1, c.copyPage(file, 0, 0, dst));
        c.resize(entryBytes(1024), 0);
        assertTrue(c.pageBytes() <= entryBytes(1024), "after shrinking: " + c.pageBytes());
        c.resize(0, 0);
        assertEquals(0, c.pageBytes());
    }

    @Test
    void aFullCacheGivesTheArrayOfThePageItEvictsToTheNewOne() {
        PageCache c = new PageCache(8 * entryBytes(1024), 0);
        for (int slot = 0; slot < 8; slot++) {
            c.putPage(file, 4096, slot, page(1024, slot), 1024);
        }
        assertEquals(8, c.pageArraysCreated());
        for (int slot = 8; slot < 1000; slot++) {
            c.putPage(file, 4096L * (slot / 64), slot % 64, page(1000, slot), 1000);
        }
        assertEquals(8, c.pageArraysCreated(), "no array allocated once the cache is full");
        int[] dst = new int[1024];
        assertEquals(1000, c.copyPage(file, 4096L * (999 / 64), 999 % 64, dst));
        assertArrayEquals(page(1000, 999), Arrays.copyOf(dst, 1000));
        assertTrue(c.pageBytes() <= 8 * entryBytes(1024));
    }

    @Test
    void aPageLargerThanTheBoundIsNotCached() {
        PageCache c = new PageCache(1000, 0);
        c.putPage(file, 4096, 0, page(1024, 1), 1024);
        assertEquals(0, c.pageBytes());
        assertEquals(-1, c.copyPage(file, 4096, 0, new int[1024]));
    }

    @Test
    void aDestinationTooShortIsRefused() {
        PageCache c = new PageCache(1 << 20, 0);
        c.putPage(file, 4096, 0, page(1024, 1), 1024);
        assertThrows(IllegalArgumentException.class, () -> c.copyPage(file, 4096, 0, new int[512]));
    }

    @Test
    void pageArrayClassesArePowersOfTwoThatHoldThePage() {
        assertEquals(64, PageArrayPool.classInts(0));
        assertEquals(64, PageArrayPool.classInts(1));
        assertEquals(128, PageArrayPool.classInts(96));
        assertEquals(1024, PageArrayPool.classInts(1024));
        assertEquals(2048, PageArrayPool.classInts(1025));
        assertEquals(512, PageArrayPool.classInts(512));
        assertThrows(IllegalArgumentException.class, () -> PageArrayPool.classInts(-1));
    }
}
