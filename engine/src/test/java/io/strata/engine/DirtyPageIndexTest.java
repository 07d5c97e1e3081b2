package io.strata.engine;

import io.strata.engine.page.DirtyPage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The dirty pages of each metric, as collectors add them and the flusher removes them at once. */
class DirtyPageIndexTest {

    private static DirtyPage page(int metric, long start) {
        return new DirtyPage(metric, metric / 10, 0, 1, metric, start, 1, 1, 0, new byte[4], 0);
    }

    @Test
    void keepsTheOrderOfAdditionAndRemovesOnlyTheSamePage() {
        DirtyPageIndex ix = new DirtyPageIndex();
        assertNull(ix.get(5));
        assertNull(ix.get(1 << 20));
        DirtyPage a = page(5, 100);
        DirtyPage b = page(5, 200);
        DirtyPage c = page(5, 300);
        DirtyPage far = page(70_000, 100);
        ix.add(a);
        ix.add(b);
        ix.add(c);
        ix.add(far);
        assertArrayEquals(new DirtyPage[]{a, b, c}, ix.get(5));
        assertArrayEquals(new DirtyPage[]{far}, ix.get(70_000));
        ix.remove(page(5, 200)); // an equal-looking page that is not in the index
        assertArrayEquals(new DirtyPage[]{a, b, c}, ix.get(5));
        ix.remove(b);
        assertArrayEquals(new DirtyPage[]{a, c}, ix.get(5));
        ix.remove(a);
        ix.remove(c);
        assertNull(ix.get(5));
        ix.remove(page(123_456, 1)); // a metric never seen
        ix.clear();
        assertNull(ix.get(70_000));
    }

    @Test
    void aCollectorAddingAndTheFlusherRemovingConcurrentlyLoseNothing() throws Exception {
        DirtyPageIndex ix = new DirtyPageIndex();
        int metrics = 9_000;
        int rounds = 40;
        List<DirtyPage> all = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            for (int m = 0; m < metrics; m++) {
                all.add(page(m, r));
            }
        }
        java.util.concurrent.LinkedBlockingQueue<DirtyPage> added = new java.util.concurrent.LinkedBlockingQueue<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread collector = new Thread(() -> {
            for (DirtyPage p : all) {
                ix.add(p);
                added.add(p);
            }
            done.countDown();
        });
        // the flusher removes every other page it sees, as soon as it is added
        List<DirtyPage> kept = new ArrayList<>();
        Thread flusher = new Thread(() -> {
            try {
                int n = 0;
                while (n < all.size()) {
                    DirtyPage p = added.poll(10, java.util.concurrent.TimeUnit.SECONDS);
                    if (p == null) {
                        throw new AssertionError("the collector stopped adding");
                    }
                    if (n++ % 2 == 0) {
                        ix.remove(p);
                    } else {
                        kept.add(p);
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        collector.start();
        flusher.start();
        collector.join(60_000);
        flusher.join(60_000);
        assertNull(failure.get());
        assertEquals(0, done.getCount());
        int total = 0;
        for (int m = 0; m < metrics; m++) {
            DirtyPage[] left = ix.get(m);
            total += left == null ? 0 : left.length;
            for (int k = 1; left != null && k < left.length; k++) {
                assertEquals(true, left[k - 1].startTime < left[k].startTime, "order of metric " + m);
            }
        }
        assertEquals(kept.size(), total);
        for (DirtyPage p : kept) {
            assertEquals(true, List.of(ix.get(p.metricId)).contains(p));
        }
    }
}
