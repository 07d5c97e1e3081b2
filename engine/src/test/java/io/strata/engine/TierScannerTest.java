package io.strata.engine;

import io.strata.engine.io.FaultInjectingFileIo;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.tier.TierStore;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scan with several reads in flight: every extent once, pages in file order when delivered
 * on the caller, every page once with its stored values when decoded on the reading threads, and
 * a failed read ending the scan with an exception that leaves the engine usable.
 */
class TierScannerTest {

    private static final long T0 = 1_700_000_000L;
    private static final int SECONDS = 12_000;
    /** Small runs, so that a few MiB of data make dozens of runs and reads overlap. */
    private static final int RUN = 64 << 10;

    private static EngineConfig cfg(Path dir, FaultInjectingFileIo io) {
        return EngineConfig.defaults(dir).withTiers(1).withDatafileMaxBytes(512 * 1024).withFlushMaxAgeMillis(10)
                .withIo(io);
    }

    private static int[] fill(StorageEngine e) throws IOException {
        int[] ids = define(e, 8, 10);
        for (long t = T0; t < T0 + SECONDS; t++) {
            for (int m : ids) {
                e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
            }
        }
        e.flush();
        return ids;
    }

    /** One delivered page: who, when, how many, and whether every value was the stored one. */
    private record Seen(int metric, long start, int entries, int wrong) implements Comparable<Seen> {
        @Override
        public int compareTo(Seen o) {
            int c = Integer.compare(metric, o.metric);
            return c != 0 ? c : Long.compare(start, o.start);
        }
    }

    private static Seen seen(StorageEngine e, long msb, long lsb, long start, int step, int entries, int[] pts) {
        int m = e.registry().lookup(msb, lsb);
        int wrong = 0;
        for (int i = 0; i < entries; i++) {
            if (pts[i] != sn(m, start + (long) i * step)) {
                wrong++;
            }
        }
        return new Seen(m, start, entries, wrong);
    }

    @Test
    void orderedDeliveryIsFileOrderWhateverTheReadsInFlight(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(cfg(dir, new FaultInjectingFileIo()))) {
            int[] ids = fill(e);
            List<Run> plan = plan(e);
            assertTrue(plan.size() > 10, "the data makes many runs: " + plan.size());
            List<Seen> reference = null;
            for (int reads : new int[]{1, 2, 4, 7}) {
                List<Seen> pages = new ArrayList<>();
                Thread caller = Thread.currentThread();
                var st = e.scanTier(0, (msb, lsb, start, step, entries, pts) -> {
                    assertEquals(caller, Thread.currentThread(), "ordered pages reach the caller's thread");
                    pages.add(seen(e, msb, lsb, start, step, entries, pts));
                }, new TierScanner.ScanOptions(reads, false, RUN));
                assertEquals(0, st.damagedExtents());
                assertEquals((long) SECONDS * ids.length, st.points(), "every point once, " + reads + " reads");
                assertEquals(pages.size(), st.pages());
                assertEquals(0, pages.stream().mapToInt(Seen::wrong).sum(), "values as stored");
                assertEquals(plan.stream().mapToLong(r -> r.length).sum(), st.bytesRead());
                if (reference == null) {
                    reference = pages;
                } else {
                    assertEquals(reference, pages, "same pages in the same order with " + reads + " reads in flight");
                }
            }
            // file order: the pages of extent after extent, as the datafiles' indexes list them
            assertEquals(pagesInFileOrder(e), reference.stream().map(s -> s.metric + "@" + s.start).toList());
        }
    }

    @Test
    void parallelDecodingDeliversEveryPageOnceFromSeveralThreads(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(cfg(dir, new FaultInjectingFileIo()))) {
            int[] ids = fill(e);
            List<Seen> ordered = new ArrayList<>();
            e.scanTier(0, (msb, lsb, start, step, entries, pts) -> ordered.add(seen(e, msb, lsb, start, step, entries, pts)),
                    new TierScanner.ScanOptions(1, false, RUN));
            ConcurrentHashMap<Seen, Integer> pages = new ConcurrentHashMap<>();
            ConcurrentHashMap<String, Boolean> threads = new ConcurrentHashMap<>();
            LongAdder wrong = new LongAdder();
            var st = e.scanTier(0, (msb, lsb, start, step, entries, pts) -> {
                Seen s = seen(e, msb, lsb, start, step, entries, pts);
                wrong.add(s.wrong);
                pages.merge(s, 1, Integer::sum);
                threads.put(Thread.currentThread().getName(), true);
            }, new TierScanner.ScanOptions(4, true, RUN));
            assertEquals((long) SECONDS * ids.length, st.points());
            assertEquals(0, wrong.sum());
            assertTrue(pages.values().stream().allMatch(n -> n == 1), "no page twice");
            assertEquals(ordered.stream().sorted().toList(), pages.keySet().stream().sorted().toList());
            assertTrue(threads.keySet().stream().allMatch(n -> n.startsWith("strata-scan-read")), threads.keySet().toString());
            // null sink: checks every extent on the reading threads, decodes nothing
            var check = e.scanTier(0, null, new TierScanner.ScanOptions(3, false, RUN));
            assertEquals(st.extents(), check.extents());
            assertEquals(st.points(), check.points());
            assertEquals(st.bytesRead(), check.bytesRead());
        }
    }

    @Test
    void aFailedReadEndsTheScanAndLeavesTheEngineUsable(@TempDir Path dir) throws Exception {
        FaultInjectingFileIo io = new FaultInjectingFileIo();
        try (StorageEngine e = StorageEngine.open(cfg(dir, io))) {
            int[] ids = fill(e);
            for (boolean parallel : new boolean[]{false, true}) {
                // the 6th read of a datafile fails, while others are in flight
                io.fail(FaultInjectingFileIo.Op.READ, FaultInjectingFileIo.named(".ndf"), 5, 1);
                IOException ex = assertThrows(IOException.class, () -> e.scanTier(0,
                        parallel ? (msb, lsb, start, step, entries, pts) -> { } : null,
                        new TierScanner.ScanOptions(4, parallel, RUN)));
                assertTrue(ex.getMessage().contains("injected READ failure"), ex.getMessage());
                io.clear();
            }
            // the datafiles' channels are still open: a query and a whole scan succeed
            int m = ids[3];
            long n = e.queryTier0(m, T0, T0 + SECONDS - 1, (t, v) -> assertEquals(sn(m, t), v));
            assertEquals(SECONDS, n);
            assertEquals((long) SECONDS * ids.length, e.scanTier(0, null).points());
        }
    }

    @Test
    void aSinkThatThrowsEndsTheScanWithItsException(@TempDir Path dir) throws Exception {
        try (StorageEngine e = StorageEngine.open(cfg(dir, new FaultInjectingFileIo()))) {
            fill(e);
            IllegalStateException ex = assertThrows(IllegalStateException.class, () -> e.scanTier(0,
                    (msb, lsb, start, step, entries, pts) -> {
                        throw new IllegalStateException("sink refused");
                    }, new TierScanner.ScanOptions(2, true, RUN)));
            assertEquals("sink refused", ex.getMessage());
            assertTrue(e.scanTier(0, null).points() > 0);
        }
    }

    @Test
    void optionsOutsideTheirRangesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new TierScanner.ScanOptions(0, false, RUN));
        assertThrows(IllegalArgumentException.class, () -> new TierScanner.ScanOptions(17, false, RUN));
        assertThrows(IllegalArgumentException.class, () -> new TierScanner.ScanOptions(2, false, 1024));
    }

    private record Run(long length) {
    }

    private static List<Run> plan(StorageEngine e) throws IOException {
        e.tier(0).readLock().lock();
        try {
            return TierScanner.plan(e.tier(0).datafiles(), RUN).stream().map(r -> new Run(r.length())).toList();
        } finally {
            e.tier(0).readLock().unlock();
        }
    }

    /** "metric@start" of every page, datafile after datafile, extent after extent, as indexed. */
    private static List<String> pagesInFileOrder(StorageEngine e) throws IOException {
        List<String> out = new ArrayList<>();
        e.tier(0).readLock().lock();
        try {
            for (TierStore.Datafile d : e.tier(0).datafiles()) {
                var idx = d.index();
                List<long[]> pages = new ArrayList<>();
                for (int m = 0; m < e.registry().size(); m++) {
                    int metric = m;
                    idx.pages(m, e.registry().uuidMsb(m), e.registry().uuidLsb(m), 0, Long.MAX_VALUE,
                            (off, len, inExtent, start, ue, entries, type) -> pages.add(new long[]{off, inExtent, metric, start}));
                }
                pages.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
                for (long[] p : pages) {
                    out.add(p[2] + "@" + p[3]);
                }
            }
        } finally {
            e.tier(0).readLock().unlock();
        }
        return out;
    }
}
