package io.strata.exporting.position;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fill journal's codec, its bound and its rewrites (docs/format/exporting-fills.md). */
class FillJournalTest {

    private static FillJournal.Page page(int i) {
        long[] bits = new long[FillJournal.MAX_SLOTS / 64];
        bits[i % bits.length] = 0x8000_0000_0000_0001L ^ i;
        return new FillJournal.Page(0x1122_3344_5566_7788L + i, -i, 1_700_000_000L + i, 1 + i % 5, 1024, bits);
    }

    private static void assertSame(FillJournal.Page want, FillJournal.Page got) {
        assertEquals(want.uuidMsb(), got.uuidMsb());
        assertEquals(want.uuidLsb(), got.uuidLsb());
        assertEquals(want.firstTime(), got.firstTime());
        assertEquals(want.updateEvery(), got.updateEvery());
        assertEquals(want.count(), got.count());
        assertArrayEquals(want.filled(), got.filled());
    }

    @Test
    void pagesSurviveAReopenAndASettleKeepsOnlyWhatIsStillQueued(@TempDir Path dir) throws Exception {
        try (FillJournal j = FillJournal.open(dir, "t")) {
            for (int i = 0; i < 10; i++) {
                assertTrue(j.add(page(i), 0));
            }
        }
        Path file = dir.resolve("t.fills");
        assertEquals(FillJournal.HEADER_BYTES + 10L * FillJournal.RECORD_BYTES, Files.size(file));
        try (FillJournal j = FillJournal.open(dir, "t")) {
            assertEquals(10 * 1024L, j.queuedSlots());
            List<FillJournal.Page> taken = j.takeAll();
            for (int i = 0; i < 10; i++) {
                assertSame(page(i), taken.get(i));
            }
            assertTrue(taken.get(0).filled(0));
            assertFalse(taken.get(0).filled(1));
            assertTrue(j.add(page(10), 0)); // arrives while the taken pages are being sent
            j.settle(List.of(taken.get(3)), true);
            assertEquals(FillJournal.HEADER_BYTES + 2L * FillJournal.RECORD_BYTES, Files.size(file));
        }
        try (FillJournal j = FillJournal.open(dir, "t")) {
            List<FillJournal.Page> left = j.takeAll();
            assertEquals(2, left.size());
            assertSame(page(3), left.get(0));
            assertSame(page(10), left.get(1));
        }
    }

    @Test
    void atMostMaxRecordsArePending(@TempDir Path dir) throws Exception {
        try (FillJournal j = FillJournal.open(dir, "t")) {
            for (int i = 0; i < FillJournal.MAX_RECORDS; i++) {
                assertTrue(j.add(page(i), 0));
            }
            assertFalse(j.add(page(FillJournal.MAX_RECORDS), 0), "over the bound");
            assertEquals(FillJournal.MAX_RECORDS, j.size());
        }
        assertEquals(FillJournal.HEADER_BYTES + (long) FillJournal.MAX_RECORDS * FillJournal.RECORD_BYTES,
                Files.size(dir.resolve("t.fills")));
    }

    @Test
    void damagedRecordsAreSkippedOneByOne(@TempDir Path dir) throws Exception {
        try (FillJournal j = FillJournal.open(dir, "t")) {
            for (int i = 0; i < 5; i++) {
                j.add(page(i), 0);
            }
        }
        Path file = dir.resolve("t.fills");
        byte[] b = Files.readAllBytes(file);
        b[FillJournal.HEADER_BYTES + FillJournal.RECORD_BYTES + 3] ^= 1; // record 1
        b[FillJournal.HEADER_BYTES + 3 * FillJournal.RECORD_BYTES + 100] ^= (byte) 0x80; // record 3
        Files.write(file, b);
        List<FillJournal.Page> got = new ArrayList<>();
        try (FillJournal j = FillJournal.open(dir, "t")) {
            assertEquals(2, j.damaged());
            got.addAll(j.takeAll());
        }
        assertEquals(3, got.size());
        assertSame(page(0), got.get(0));
        assertSame(page(2), got.get(1));
        assertSame(page(4), got.get(2));
        // the damaged records are gone from the file rewritten at open
        assertEquals(FillJournal.HEADER_BYTES + 3L * FillJournal.RECORD_BYTES, Files.size(file));
    }
}
