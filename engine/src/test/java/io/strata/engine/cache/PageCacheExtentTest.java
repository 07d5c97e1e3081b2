package io.strata.engine.cache;

import io.strata.engine.datafile.DataFile;
import io.strata.engine.io.FileChannelIo;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PageCacheExtentTest {

    @TempDir
    Path dir;
    private DataFile file;
    private DataFile other;
    /** Offsets of three 6 000-byte "extents" in {@link #file} and one in {@link #other}, filled with their index. */
    private final long[] at = new long[3];
    private long otherAt;

    @BeforeEach
    void files() throws IOException {
        file = DataFile.create(FileChannelIo.INSTANCE, dir, 0, 1);
        other = DataFile.create(FileChannelIo.INSTANCE, dir, 0, 2);
        for (int i = 0; i < at.length; i++) {
            at[i] = file.append(filled(6000, (byte) (i + 1)));
        }
        otherAt = other.append(filled(6000, (byte) 9));
    }

    @AfterEach
    void close() throws IOException {
        file.close();
        other.close();
    }

    private static ByteBuffer filled(int n, byte v) {
        ByteBuffer b = ByteBuffer.allocate(n);
        for (int i = 0; i < n; i++) {
            b.put(i, v);
        }
        return b;
    }

    private static void assertFilled(PageCache.Extent e, int n, byte v) {
        ByteBuffer b = e.bytes();
        assertEquals(0, b.position());
        assertEquals(n, b.remaining());
        for (int i = 0; i < n; i++) {
            assertEquals(v, b.get(i), "byte " + i);
        }
    }

    /** Room for {@code n} extents of 6 000 bytes (class 6 KiB) and their bookkeeping. */
    private static long roomFor(int n) {
        return n * (ExtentBufferPool.classBytes(6000) + 96L);
    }

    @Test
    void aSecondQueryOfAnExtentFindsItInTheCache() throws IOException {
        PageCache c = new PageCache(1 << 20, roomFor(4));
        PageCache.Extent a = c.acquireExtent(file, at[0], 6000);
        assertFilled(a, 6000, (byte) 1);
        c.release(a);
        PageCache.Extent again = c.acquireExtent(file, at[0], 6000);
        assertSame(a, again);
        assertFilled(again, 6000, (byte) 1);
        c.release(again);
        assertEquals(1, c.extentMisses());
        assertEquals(1, c.extentHits());
        assertEquals(6000, c.bytesRead());
        assertEquals(roomFor(1), c.extentBytes(), "counted at its class's capacity, not its length");
    }

    @Test
    void anEvictedExtentsBufferIsReadIntoAgain() throws IOException {
        PageCache c = new PageCache(1 << 20, roomFor(2));
        PageCache.Extent first = c.acquireExtent(file, at[0], 6000);
        c.release(first);
        c.invalidate(file);
        assertEquals(ExtentBufferPool.classBytes(6000), c.pooledExtentBytes(), "kept for reuse");
        PageCache.Extent next = c.acquireExtent(other, otherAt, 6000);
        assertTrue(next.sharesMemoryWith(first));
        assertFilled(next, 6000, (byte) 9);
        assertEquals(0, c.pooledExtentBytes());
        c.release(next);
    }

    @Test
    void aFullCacheReadsTheNextExtentIntoTheBufferItEvicts() throws IOException {
        PageCache c = new PageCache(1 << 20, roomFor(1));
        for (int round = 0; round < 30; round++) {
            PageCache.Extent e = c.acquireExtent(file, at[round % 3], 6000);
            assertFilled(e, 6000, (byte) (round % 3 + 1));
            c.release(e);
        }
        assertEquals(30, c.extentMisses());
        assertEquals(1, c.extentBuffersCreated(), "one buffer, read into again and again");
        assertTrue(c.extentBytes() <= roomFor(1));
    }

    @Test
    void anExtentLentToAReaderIsNotReusedUntilItIsGivenBack() throws IOException {
        PageCache c = new PageCache(1 << 20, roomFor(3));
        PageCache.Extent held = c.acquireExtent(file, at[0], 6000);
        // rotation deletes the file under the reader: the cache lets go, the reader still holds it
        c.invalidate(file);
        assertEquals(0, c.pooledExtentBytes());
        PageCache.Extent next = c.acquireExtent(other, otherAt, 6000);
        assertFalse(next.sharesMemoryWith(held));
        assertFilled(held, 6000, (byte) 1);
        c.release(held);
        assertEquals(ExtentBufferPool.classBytes(6000), c.pooledExtentBytes());
        c.release(next);
    }

    @Test
    void evictionByTheBoundKeepsLentExtentsIntact() throws IOException {
        PageCache c = new PageCache(1 << 20, roomFor(1));
        PageCache.Extent e0 = c.acquireExtent(file, at[0], 6000);
        PageCache.Extent e1 = c.acquireExtent(file, at[1], 6000);
        PageCache.Extent e2 = c.acquireExtent(file, at[2], 6000);
        assertNotSame(e0, e1);
        assertFalse(e0.sharesMemoryWith(e1) || e1.sharesMemoryWith(e2) || e0.sharesMemoryWith(e2));
        assertFilled(e0, 6000, (byte) 1);
        assertFilled(e1, 6000, (byte) 2);
        assertFilled(e2, 6000, (byte) 3);
        c.release(e0);
        c.release(e1);
        c.release(e2);
        assertTrue(c.extentBytes() <= roomFor(1), "cached and kept within the bound: " + c.extentBytes());
    }

    @Test
    void anExtentLargerThanTheBoundIsReadButNeitherCachedNorKept() throws IOException {
        PageCache c = new PageCache(1 << 20, 4096);
        PageCache.Extent e = c.acquireExtent(file, at[1], 6000);
        assertFilled(e, 6000, (byte) 2);
        c.release(e);
        assertEquals(0, c.extentBytes());
        PageCache.Extent again = c.acquireExtent(file, at[1], 6000);
        assertEquals(2, c.extentMisses());
        c.release(again);
    }

    @Test
    void shrinkingTheBoundFreesKeptBuffersToo() throws IOException {
        PageCache c = new PageCache(1 << 20, roomFor(4));
        for (long o : at) {
            c.release(c.acquireExtent(file, o, 6000));
        }
        c.invalidate(file);
        assertEquals(3L * ExtentBufferPool.classBytes(6000), c.pooledExtentBytes());
        c.resize(1 << 20, roomFor(1));
        assertTrue(c.extentBytes() <= roomFor(1), "after resize: " + c.extentBytes());
        c.resize(1 << 20, 0);
        assertEquals(0, c.extentBytes());
    }

    @Test
    void aFailedReadGivesItsBufferBackAndCachesNothing() throws IOException {
        PageCache c = new PageCache(1 << 20, roomFor(2));
        assertThrows(EOFException.class, () -> c.acquireExtent(file, file.size() - 100, 6000));
        assertEquals(0, c.extentBytes() - c.pooledExtentBytes(), "nothing cached");
        assertTrue(c.pooledExtentBytes() <= roomFor(2));
        PageCache.Extent e = c.acquireExtent(file, at[2], 6000);
        assertFilled(e, 6000, (byte) 3);
        c.release(e);
    }

    @Test
    void releasingTwiceIsRefused() throws IOException {
        PageCache c = new PageCache(1 << 20, 0);
        PageCache.Extent e = c.acquireExtent(file, at[0], 6000);
        c.release(e);
        assertThrows(IllegalStateException.class, () -> c.release(e));
    }

    @Test
    void sizeClassesWasteUnderAQuarterAndDoNotCollide() {
        int lastClass = 0;
        int lastIndex = -1;
        for (int len = 1; len < 2_000_000; len += 97) {
            int cb = ExtentBufferPool.classBytes(len);
            assertTrue(cb >= len);
            assertTrue(cb >= ExtentBufferPool.MIN_CLASS_BYTES);
            if (len > ExtentBufferPool.MIN_CLASS_BYTES) {
                assertTrue(cb - len < cb / 4 + 1, len + " in class " + cb);
            }
            int idx = ExtentBufferPool.classIndex(cb);
            assertTrue(idx >= 0 && idx < 128, "index " + idx);
            if (cb != lastClass) {
                assertTrue(cb > lastClass && idx > lastIndex, "classes and indexes rise together at " + len);
                lastClass = cb;
                lastIndex = idx;
            } else {
                assertEquals(lastIndex, idx);
            }
            assertEquals(cb, ExtentBufferPool.classBytes(cb), "a class's capacity is its own class");
        }
        assertThrows(IllegalArgumentException.class, () -> ExtentBufferPool.classBytes(0));
    }
}
