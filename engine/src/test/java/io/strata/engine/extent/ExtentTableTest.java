package io.strata.engine.extent;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.page.DirtyPage;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The extent table (format version 2): round trips, metric numbers, damage. */
class ExtentTableTest {

    static ExtentTable sample() {
        ExtentTable t = new ExtentTable();
        t.compression = DiskFormat.COMPRESSION_LZ4;
        t.storedLength = 777;
        t.define(3, 0x1122334455667788L, 0x99AABBCCDDEEFF00L);
        t.define(4, -1L, 1L);
        t.define(40, 5L, -6L);
        long[] starts = {1_700_000_000L, 1_699_999_000L, 0xFFFF_FFFFL, 0L};
        int[] metrics = {40, 3, 4, 0};
        int raw = 0;
        for (int i = 0; i < starts.length; i++) {
            PageDescriptor d = t.pages[i];
            d.metric = metrics[i];
            d.startTime = starts[i];
            d.updateEvery = i == 2 ? Integer.MAX_VALUE : i + 1;
            d.type = i % 2;
            d.entries = i == 0 ? 1024 : 1 + i;
            d.encodedLength = 100 + i;
            raw += d.encodedLength;
        }
        t.pageCount = starts.length;
        t.rawLength = raw;
        return t;
    }

    @Test
    void encodesAndDecodesEveryField() throws CorruptionException {
        ExtentTable t = sample();
        byte[] buf = new byte[t.maxEncodedLength()];
        int len = t.encode(buf, 0);
        ExtentTable back = new ExtentTable();
        back.decode(buf, 0, len, "t", 0);
        assertEquals(t.compression, back.compression);
        assertEquals(t.storedLength, back.storedLength);
        assertEquals(t.rawLength, back.rawLength);
        assertEquals(3, back.definitionCount);
        assertArrayEquals(new int[]{3, 4, 40}, Arrays.copyOf(back.definitionNumber, 3));
        long[] uuid = new long[2];
        assertTrue(back.definition(4, uuid));
        assertArrayEquals(new long[]{-1L, 1L}, uuid);
        assertFalse(back.definition(5, uuid));
        assertEquals(t.pageCount, back.pageCount);
        for (int i = 0; i < t.pageCount; i++) {
            PageDescriptor a = t.pages[i];
            PageDescriptor b = back.pages[i];
            assertEquals(a.metric, b.metric);
            assertEquals(a.startTime, b.startTime);
            assertEquals(a.updateEvery, b.updateEvery);
            assertEquals(a.type, b.type);
            assertEquals(a.entries, b.entries);
            assertEquals(a.encodedLength, b.encodedLength);
        }
    }

    @Test
    void refusesTruncatedPaddedAndInconsistentTables() {
        ExtentTable t = sample();
        byte[] buf = new byte[t.maxEncodedLength() + 1];
        int len = t.encode(buf, 0);
        ExtentTable back = new ExtentTable();
        assertThrows(CorruptionException.class, () -> back.decode(buf, 0, len - 1, "t", 0));
        assertThrows(CorruptionException.class, () -> back.decode(buf, 0, len + 1, "t", 0));
        t.rawLength++;
        int len2 = t.encode(buf, 0);
        CorruptionException e = assertThrows(CorruptionException.class, () -> back.decode(buf, 0, len2, "t", 0));
        assertTrue(e.problem().contains("add up"), e.problem());
    }

    @Test
    void salvageReadsDescriptorsPastADamagedPageCount() {
        ExtentTable t = sample();
        byte[] buf = new byte[t.maxEncodedLength()];
        int len = t.encode(buf, 0);
        buf[1] = 1; // the page count varint: says 1 page instead of 4
        ExtentTable s = new ExtentTable();
        s.salvage(buf, 0, len);
        assertEquals(4, s.pageCount);
        assertEquals(3, s.definitionCount);
        assertEquals(0xFFFF_FFFFL, s.pages[2].startTime);
    }

    static List<DirtyPage> pages(int n, int firstMetric) {
        List<DirtyPage> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int m = firstMetric + i;
            out.add(new DirtyPage(m, 0, 0, 0x5EED0000L + m, m, 1_700_000_000L, 1, 3, DiskFormat.PAGE_TYPE_TIER0,
                    new byte[]{1, 2, (byte) m}, 0));
        }
        return out;
    }

    @Test
    void metricNumbersAreDefinedByTheFirstExtentAndRepeatedByTheNextOnly() throws CorruptionException {
        DatafileMetrics metrics = new DatafileMetrics();
        ExtentWriter w = new ExtentWriter();
        ExtentReader r = new ExtentReader();
        List<DirtyPage> a = pages(5, 0);
        List<DirtyPage> b = pages(5, 3);     // metrics 3, 4 again, 5..7 new
        r.open(copy(w.build(a, 0, 5, metrics)), "t", 0);
        metrics.commit();
        assertEquals(5, r.table().definitionCount);
        r.open(copy(w.build(b, 0, 5, metrics)), "t", 0);
        metrics.commit();
        // repeats 0..4 (the previous extent's), defines 5..7 (its own new ones)
        assertArrayEquals(new int[]{0, 1, 2, 3, 4, 5, 6, 7}, Arrays.copyOf(r.table().definitionNumber, 8));
        assertEquals(3, r.table().pages[0].metric);
        r.open(copy(w.build(a, 0, 5, metrics)), "t", 0);
        metrics.commit();
        // repeats 5..7 only; defines nothing new
        assertArrayEquals(new int[]{5, 6, 7}, Arrays.copyOf(r.table().definitionNumber, r.table().definitionCount));
    }

    @Test
    void aRolledBackExtentGivesItsNumbersAgain() throws CorruptionException {
        DatafileMetrics metrics = new DatafileMetrics();
        ExtentWriter w = new ExtentWriter();
        ExtentReader r = new ExtentReader();
        w.build(pages(4, 10), 0, 4, metrics);
        metrics.rollback();
        r.open(copy(w.build(pages(2, 12), 0, 2, metrics)), "t", 0);
        metrics.commit();
        assertEquals(0, r.table().pages[0].metric);
        assertEquals(1, r.table().pages[1].metric);
        assertEquals(2, metrics.size());
    }

    @Test
    void aDamagedPayloadIsAChecksumErrorWithTheTableStillReadable() {
        ExtentWriter w = new ExtentWriter();
        ByteBuffer e = copy(w.build(pages(3, 0), 0, 3));
        e.put(e.limit() - 6, (byte) (e.get(e.limit() - 6) ^ 0x5A));
        CorruptionException ex = assertThrows(CorruptionException.class, () -> new ExtentReader().open(e, "t", 0));
        assertTrue(ex.problem().contains("payload checksum"), ex.problem());
        ExtentTable s = ExtentReader.salvageTable(e);
        assertEquals(3, s.pageCount);
        assertEquals(3, s.definitionCount);
    }

    static ByteBuffer copy(ByteBuffer b) {
        byte[] c = new byte[b.remaining()];
        b.duplicate().get(c);
        return ByteBuffer.wrap(c);
    }
}
