package io.strata.testsupport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Test classes that leak on purpose, run by {@link ResourceGuardTest} through the test kit (their
 * names end in Fixture, so surefire does not run them on its own). What they leave behind is
 * cleaned by {@link #cleanUp()} once the guard has seen it.
 */
final class LeakFixtures {

    static final AtomicLong OFF_HEAP = new AtomicLong();
    static volatile CountDownLatch release = new CountDownLatch(1);
    static volatile Thread thread;
    static volatile FileChannel channel;
    static volatile Path file;

    private LeakFixtures() {
    }

    /** The fake off-heap counter the guard is pointed at in these tests. */
    public static long offHeapBytes() {
        return OFF_HEAP.get();
    }

    static void startThread(String name) {
        CountDownLatch latch = release;
        Thread t = new Thread(() -> {
            try {
                latch.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        t.start();
        thread = t;
    }

    static void cleanUp() throws Exception {
        release.countDown();
        release = new CountDownLatch(1);
        Thread t = thread;
        if (t != null) {
            t.join(5000);
            thread = null;
        }
        FileChannel c = channel;
        if (c != null) {
            c.close();
            channel = null;
        }
        if (file != null) {
            Files.deleteIfExists(file);
            file = null;
        }
        OFF_HEAP.set(0);
    }

    static final class CleanFixture {
        @Test
        void leavesNothing() throws IOException {
            Path f = Files.createTempFile("guard", ".tmp");
            try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
                c.size();
            }
            Files.delete(f);
        }
    }

    static final class ThreadFixture {
        @Test
        void leavesAThreadRunning() {
            startThread("leaked-by-fixture");
        }
    }

    static final class FileFixture {
        @Test
        void leavesAFileOpen() throws IOException {
            file = Files.createTempFile("guard-leak", ".tmp");
            channel = FileChannel.open(file, StandardOpenOption.WRITE);
        }
    }

    static final class OffHeapFixture {
        @Test
        void leavesMemoryAllocated() {
            OFF_HEAP.addAndGet(4096);
        }
    }

    static final class NettyFixture {
        @Test
        void dropsABufferWithoutReleasingIt() {
            ByteBuf b = Unpooled.directBuffer(64);
            b.writeLong(42);
            // not released: garbage once this method returns
        }
    }

    @GuardPerClass("the first test starts a thread the second one stops")
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static final class PerClassFixture {
        @Test
        @Order(1)
        void startsAThread() {
            startThread("shared-by-fixture");
        }

        @Test
        @Order(2)
        void stopsIt() throws Exception {
            cleanUp();
        }
    }

    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static final class SameButPerTestFixture {
        @Test
        @Order(1)
        void startsAThread() {
            startThread("shared-by-fixture");
        }

        @Test
        @Order(2)
        void stopsIt() throws Exception {
            cleanUp();
        }
    }
}
