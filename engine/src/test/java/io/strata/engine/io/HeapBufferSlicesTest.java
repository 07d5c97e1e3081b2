package io.strata.engine.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Large heap buffers go to the channel in slices, so the JDK keeps no temporary buffer of their size. */
class HeapBufferSlicesTest {

    static long directBytes() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        return 0;
    }

    @Test
    void aLargeHeapBufferIsWrittenAndReadWholeThroughSmallTemporaryBuffers(@TempDir Path dir) throws Exception {
        byte[] data = new byte[3 * FileChannelIo.HEAP_SLICE + 12_345];
        new Random(7).nextBytes(data);
        Path f = dir.resolve("big");
        long[] grew = new long[2];
        byte[] back = new byte[data.length];
        Throwable[] failure = new Throwable[1];
        // a thread of its own: the JDK frees a thread's temporary buffers when it ends, so the
        // growth is read while it still holds them
        Thread t = new Thread(() -> {
            try (FileHandle h = FileChannelIo.INSTANCE.open(f, FileIo.OpenMode.CREATE_NEW)) {
                long before = directBytes();
                ByteBuffer src = ByteBuffer.wrap(data, 5, data.length - 5);
                assertEquals(data.length - 5, h.write(src, 100));
                assertEquals(data.length, src.position());
                assertEquals(data.length, src.limit(), "the caller's limit is given back");
                grew[0] = directBytes() - before;
                ByteBuffer dst = ByteBuffer.wrap(back, 5, data.length - 5);
                assertEquals(data.length - 5, h.read(dst, 100));
                assertEquals(data.length, dst.limit());
                grew[1] = directBytes() - before;
                // past the end: what there is, then nothing
                ByteBuffer tail = ByteBuffer.allocate(2 * FileChannelIo.HEAP_SLICE + 1);
                assertEquals(1000, h.read(tail, 100 + data.length - 5 - 1000));
                assertEquals(0, h.read(ByteBuffer.allocate(FileChannelIo.HEAP_SLICE + 1), 100 + data.length));
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        t.start();
        t.join();
        if (failure[0] != null) {
            throw new AssertionError(failure[0]);
        }
        System.arraycopy(data, 0, back, 0, 5);
        assertArrayEquals(data, back);
        assertEquals(100 + data.length - 5, Files.size(f));
        assertTrue(grew[0] <= FileChannelIo.HEAP_SLICE && grew[1] <= FileChannelIo.HEAP_SLICE,
                "temporary direct memory after the write " + grew[0] + ", after the read " + grew[1]);
    }
}
