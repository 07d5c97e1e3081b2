package io.strata.engine.journal;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.datafile.OpenPageIndex;
import io.strata.engine.extent.PageDescriptor;
import io.strata.engine.io.FileChannelIo;
import io.strata.engine.registry.MetricRegistry;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Journal v2 (format version 2): its lookups answer exactly what the in-memory index answers. */
class JournalV2Test {

    static final long T0 = 1_700_000_000L;

    @Test
    void lookupsOverManyBlocksMatchTheInMemoryIndex(@TempDir Path dir) throws Exception {
        MetricRegistry reg = new MetricRegistry(1);
        OpenPageIndex idx = new OpenPageIndex(reg);
        Random rnd = new Random(42);
        int metrics = 7;
        long[] next = new long[metrics];
        int[] pagesOf = {1, 63, 64, 65, 200, 500, 3};
        java.util.Arrays.fill(next, T0);
        long offset = DiskFormat.DATAFILE_SUPERBLOCK_SIZE;
        // extents of up to 64 pages, each page of a metric still missing pages
        int[] written = new int[metrics];
        int number = 0;
        int[] numberOf = new int[metrics];
        java.util.Arrays.fill(numberOf, -1);
        while (true) {
            List<PageDescriptor> ds = new ArrayList<>();
            for (int m = 0; m < metrics && ds.size() < 64; m++) {
                int k = Math.min(64 - ds.size(), 1 + rnd.nextInt(3));
                for (int j = 0; j < k && written[m] < pagesOf[m]; j++) {
                    PageDescriptor d = new PageDescriptor();
                    if (numberOf[m] < 0) {
                        numberOf[m] = number++;
                    }
                    d.metric = numberOf[m];
                    d.uuidMsb = 0xABCD0000L + m;
                    d.uuidLsb = m * 31L + 1;
                    d.updateEvery = rnd.nextInt(10) == 0 ? 5 : 1;
                    d.entries = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(1024) : 1024;
                    d.type = 0;
                    d.encodedLength = 10;
                    // sometimes a gap between pages, sometimes not
                    d.startTime = next[m] + (rnd.nextInt(5) == 0 ? rnd.nextInt(5000) : 0);
                    next[m] = d.startTime + (long) d.entries * d.updateEvery;
                    written[m]++;
                    ds.add(d);
                }
            }
            if (ds.isEmpty()) {
                break;
            }
            int len = 100 + ds.size();
            idx.addExtent(offset, len, ds.toArray(new PageDescriptor[0]), ds.size());
            offset += len;
        }
        JournalV2.write(FileChannelIo.INSTANCE, dir, 0, 1, offset, idx, reg);
        try (JournalV2 j2 = JournalV2.open(FileChannelIo.INSTANCE, dir.resolve(DiskFormat.journalV2Name(0, 1)), 0, 1,
                offset)) {
            assertEquals(idx.pageCount(), j2.pageCount());
            assertEquals(idx.pointCount(), j2.pointCount());
            assertEquals(idx.extentCount(), j2.extentCount());
            long[] uuid = new long[2];
            for (int m = 0; m < metrics; m++) {
                assertTrue(j2.datafileMetric(numberOf[m], uuid));
                assertArrayEquals(new long[]{0xABCD0000L + m, m * 31L + 1}, uuid);
                int id = reg.lookup(0xABCD0000L + m, m * 31L + 1);
                for (int q = 0; q < 300; q++) {
                    long after = T0 - 100 + (long) (rnd.nextDouble() * (next[m] - T0 + 200));
                    long before = after + rnd.nextInt(q % 2 == 0 ? 2000 : 200_000);
                    assertEquals(answer(idx, id, m, after, before), answer(j2, id, m, after, before),
                            "metric " + m + " [" + after + ", " + before + "]");
                }
                assertEquals(pagesOf[m], answer(j2, id, m, 0, Long.MAX_VALUE).size());
            }
            assertFalse(j2.datafileMetric(number, uuid));
        }
    }

    @Test
    void aFlippedByteInTheBodyIsRefusedAndTheFileIsLeftAsItWas(@TempDir Path dir) throws Exception {
        MetricRegistry reg = new MetricRegistry(1);
        OpenPageIndex idx = new OpenPageIndex(reg);
        long offset = DiskFormat.DATAFILE_SUPERBLOCK_SIZE;
        int metrics = 3000;
        for (int e = 0; e < 2; e++) {
            for (int from = 0; from < metrics; from += 60) {
                PageDescriptor[] ds = new PageDescriptor[60];
                for (int k = 0; k < ds.length; k++) {
                    int m = from + k;
                    PageDescriptor d = new PageDescriptor();
                    d.metric = m;
                    d.uuidMsb = 0xABCD0000L + m;
                    d.uuidLsb = m * 31L + 1;
                    d.updateEvery = 1;
                    d.entries = 1024;
                    d.encodedLength = 10;
                    d.startTime = T0 + 1024L * e;
                    ds[k] = d;
                }
                idx.addExtent(offset, 600, ds, ds.length);
                offset += 600;
            }
        }
        JournalV2.write(FileChannelIo.INSTANCE, dir, 0, 1, offset, idx, reg);
        Path v2 = dir.resolve(DiskFormat.journalV2Name(0, 1));
        // the body's checksum is read past the first 64 KiB chunk of the check
        assertTrue(Files.size(v2) > 64 * 1024 + 1000, "a journal of more than one chunk: " + Files.size(v2));
        JournalV2.open(FileChannelIo.INSTANCE, v2, 0, 1, offset).close();
        byte[] bytes = Files.readAllBytes(v2);
        for (long at : new long[]{DiskFormat.JOURNAL_V2_HEADER_SIZE + 5, 64 * 1024 + 700, bytes.length - 5}) {
            byte[] bad = bytes.clone();
            bad[(int) at] ^= 0x10;
            Files.write(v2, bad);
            long o = offset;
            CorruptionException e = assertThrows(CorruptionException.class,
                    () -> JournalV2.open(FileChannelIo.INSTANCE, v2, 0, 1, o), "byte " + at);
            assertTrue(e.getMessage().contains("journal v2 checksum mismatch"), e.getMessage());
            assertArrayEquals(bad, Files.readAllBytes(v2), "the check only reads");
        }
    }

    static List<String> answer(io.strata.engine.datafile.PageIndex idx, int id, int m, long after, long before) {
        List<String> out = new ArrayList<>();
        idx.pages(id, 0xABCD0000L + m, m * 31L + 1, after, before, (off, len, slot, start, ue, entries, type) ->
                out.add(off + "/" + len + "/" + slot + "/" + start + "/" + ue + "/" + entries + "/" + type));
        return out;
    }
}
