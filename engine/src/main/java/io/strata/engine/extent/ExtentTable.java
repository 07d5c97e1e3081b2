package io.strata.engine.extent;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;

import java.util.Arrays;

/**
 * The descriptor table of an extent, the same bytes in the extent and in its journal v1
 * transaction ({@code docs/format/extent.md}, "Table"): how the payload is stored, the metric
 * definitions the extent carries (datafile metric number to UUID) and one compact descriptor per
 * page, varint- and delta-coded. A page names its metric by its number in the datafile's metric
 * table instead of by its 16-byte UUID; every number is defined by the extent that first uses it,
 * again by the extent written after that one, and by both their journal v1 transactions.
 *
 * <pre>
 * u8      compression
 * varint  pages n (0..64; 0 only in a journal v1 definitions transaction)
 * varint  stored length, raw length
 * varint  definitions k; k x { varint number gap, u64 uuid msb, u64 uuid lsb }
 * n x     { varint zigzag(metric - previous metric), varint zigzag(start - previous start),
 *           varint (update_every &lt;&lt; 1 | type), varint zigzag(entries - previous entries),
 *           varint encoded length }                       (all "previous" start at 0)
 * </pre>
 * Mutable and reused; not thread-safe.
 */
public final class ExtentTable {

    /** Datafile metric numbers above this are refused as implausible (a buggy writer). */
    public static final int MAX_METRIC_NUMBER = (1 << 28) - 1;

    public int compression;
    public int pageCount;
    public int storedLength;
    public int rawLength;
    /** Definitions, ascending metric numbers. */
    public int definitionCount;
    public int[] definitionNumber = new int[DiskFormat.EXTENT_MAX_PAGES * 2];
    public long[] definitionMsb = new long[DiskFormat.EXTENT_MAX_PAGES * 2];
    public long[] definitionLsb = new long[DiskFormat.EXTENT_MAX_PAGES * 2];
    public final PageDescriptor[] pages = new PageDescriptor[DiskFormat.EXTENT_MAX_PAGES];
    /** After a failed {@link #decode}: how many page descriptors did decode and validate. */
    public int pagesDecoded;
    /** After a failed {@link #decode}: how many definitions did decode. */
    public int definitionsDecoded;

    public ExtentTable() {
        for (int i = 0; i < pages.length; i++) {
            pages[i] = new PageDescriptor();
        }
    }

    public void clearDefinitions() {
        definitionCount = 0;
    }

    /** Appends a definition; numbers must be added in ascending order. */
    public void define(int number, long msb, long lsb) {
        if (definitionCount == definitionNumber.length) {
            int n = definitionCount * 2;
            definitionNumber = Arrays.copyOf(definitionNumber, n);
            definitionMsb = Arrays.copyOf(definitionMsb, n);
            definitionLsb = Arrays.copyOf(definitionLsb, n);
        }
        definitionNumber[definitionCount] = number;
        definitionMsb[definitionCount] = msb;
        definitionLsb[definitionCount] = lsb;
        definitionCount++;
    }

    /** Bytes {@link #encode} may need at most. */
    public int maxEncodedLength() {
        return 1 + 3 * 10 + definitionCount * (5 + 16) + pageCount * (5 + 10 + 10 + 5 + 5);
    }

    /** Writes the table at {@code out[at..]}; returns the position after it. */
    public int encode(byte[] out, int at) {
        return encode(out, at, 0);
    }

    /**
     * Writes the table at {@code out[at..]} with only the definitions of numbers at or above
     * {@code minNumber} (journal v1 leaves out those an extent repeats); returns the position
     * after it.
     */
    public int encode(byte[] out, int at, int minNumber) {
        int p = at;
        int from = 0;
        while (from < definitionCount && definitionNumber[from] < minNumber) {
            from++;
        }
        out[p++] = (byte) compression;
        p = putVarint(out, p, pageCount);
        p = putVarint(out, p, storedLength);
        p = putVarint(out, p, rawLength);
        p = putVarint(out, p, definitionCount - from);
        int prevNumber = -1;
        for (int i = from; i < definitionCount; i++) {
            p = putVarint(out, p, definitionNumber[i] - prevNumber - 1);
            prevNumber = definitionNumber[i];
            putLong(out, p, definitionMsb[i]);
            putLong(out, p + 8, definitionLsb[i]);
            p += 16;
        }
        long prevMetric = 0;
        long prevStart = 0;
        long prevEntries = 0;
        for (int i = 0; i < pageCount; i++) {
            PageDescriptor d = pages[i];
            p = putVarint(out, p, zigzag(d.metric - prevMetric));
            p = putVarint(out, p, zigzag(d.startTime - prevStart));
            p = putVarint(out, p, ((long) d.updateEvery << 1) | d.type);
            p = putVarint(out, p, zigzag(d.entries - prevEntries));
            p = putVarint(out, p, d.encodedLength);
            prevMetric = d.metric;
            prevStart = d.startTime;
            prevEntries = d.entries;
        }
        return p;
    }

    /**
     * Reads a table from {@code in[at, at + length)}, which it must fill exactly, and checks that
     * every field is plausible. The UUIDs of the descriptors are not filled in (callers resolve
     * metric numbers). {@code file} and {@code offset} name the place in exceptions.
     */
    public void decode(byte[] in, int at, int length, String file, long offset) throws CorruptionException {
        decode(in, at, length, file, offset, false);
    }

    /**
     * Decodes what can be decoded of a damaged table: header fields out of range are passed
     * over, the page count too (descriptors are read while the table holds some, up to 64);
     * decoding stops at
     * the first definition or descriptor that does not decode. The result is in
     * {@link #definitionCount} and {@link #pageCount}; never throws.
     */
    public void salvage(byte[] in, int at, int length) {
        try {
            decode(in, at, length, "", 0, true);
        } catch (CorruptionException e) {
            definitionCount = definitionsDecoded;
            pageCount = pagesDecoded;
        }
    }

    private void decode(byte[] in, int at, int length, String file, long offset, boolean lenient)
            throws CorruptionException {
        pagesDecoded = 0;
        definitionsDecoded = 0;
        definitionCount = 0;
        pageCount = 0;
        Cursor c = new Cursor(in, at, at + length, file, offset);
        compression = c.u8();
        if (compression != DiskFormat.COMPRESSION_NONE && compression != DiskFormat.COMPRESSION_LZ4 && !lenient) {
            throw c.bad("extent compression " + compression + " unknown");
        }
        long n = c.varint();
        if (lenient) {
            // the count may be what is damaged: read descriptors while the table holds some
            n = DiskFormat.EXTENT_MAX_PAGES;
        } else if (n < 0 || n > DiskFormat.EXTENT_MAX_PAGES) {
            throw c.bad("extent page count " + n + " out of range");
        }
        long stored = c.varint();
        long raw = c.varint();
        if ((stored < 0 || stored > 64 << 20 || raw < 0 || raw > 64 << 20
                || (compression == DiskFormat.COMPRESSION_NONE && raw != stored)) && !lenient) {
            throw c.bad("extent lengths stored " + stored + " / raw " + raw + " inconsistent");
        }
        storedLength = (int) stored;
        rawLength = (int) raw;
        long k = c.varint();
        if (k < 0 || k > MAX_METRIC_NUMBER + 1L || k * 17 > length) {
            throw c.bad("extent definition count " + k + " out of range");
        }
        long number = -1;
        for (int i = 0; i < k; i++) {
            number += c.varint() + 1;
            if (number > MAX_METRIC_NUMBER) {
                throw c.bad("metric number " + number + " out of range");
            }
            define((int) number, c.u64(), c.u64());
            definitionsDecoded = definitionCount;
        }
        long prevMetric = 0;
        long prevStart = 0;
        long prevEntries = 0;
        long sum = 0;
        for (int i = 0; i < n && !(lenient && c.pos == c.end); i++) {
            PageDescriptor d = pages[i];
            long metric = prevMetric + unzigzag(c.varint());
            long start = prevStart + unzigzag(c.varint());
            long ueType = c.varint();
            long entries = prevEntries + unzigzag(c.varint());
            long len = c.varint();
            if (metric < 0 || metric > MAX_METRIC_NUMBER) {
                throw c.bad("page " + i + ": metric number " + metric + " out of range");
            }
            if (start < 0 || start > 0xFFFF_FFFFL) {
                throw c.bad("page " + i + ": start time " + start + " out of range");
            }
            if (ueType < 0 || ueType >>> 1 > Integer.MAX_VALUE) {
                throw c.bad("page " + i + ": update_every out of range");
            }
            if (entries < 0 || entries > 0xFFFF || len < 0 || len > Integer.MAX_VALUE) {
                throw c.bad("page " + i + ": entries " + entries + " or length " + len + " out of range");
            }
            d.uuidMsb = 0;
            d.uuidLsb = 0;
            d.metric = (int) metric;
            d.startTime = start;
            d.updateEvery = (int) (ueType >>> 1);
            d.type = (int) (ueType & 1);
            d.entries = (int) entries;
            d.encodedLength = (int) len;
            String problem = d.validate();
            if (problem != null) {
                throw c.bad("page " + i + ": " + problem);
            }
            prevMetric = metric;
            prevStart = start;
            prevEntries = entries;
            sum += len;
            pageCount = i + 1;
            pagesDecoded = pageCount;
        }
        if (lenient) {
            return;
        }
        if (c.pos != c.end) {
            throw c.bad("extent table has " + (c.end - c.pos) + " byte(s) left over");
        }
        if (n > 0 && sum != rawLength) {
            throw c.bad("page lengths add up to " + sum + ", extent says " + rawLength);
        }
    }

    /** The UUID this table defines for metric {@code number}, into {@code out}; false when it defines none. */
    public boolean definition(int number, long[] out) {
        int i = Arrays.binarySearch(definitionNumber, 0, definitionCount, number);
        if (i < 0) {
            return false;
        }
        out[0] = definitionMsb[i];
        out[1] = definitionLsb[i];
        return true;
    }

    /** A deep copy (recovery keeps the tables of every extent until the walk is over). */
    public ExtentTable copy() {
        ExtentTable t = new ExtentTable();
        t.compression = compression;
        t.pageCount = pageCount;
        t.storedLength = storedLength;
        t.rawLength = rawLength;
        t.pagesDecoded = pagesDecoded;
        t.definitionsDecoded = definitionsDecoded;
        for (int i = 0; i < definitionCount; i++) {
            t.define(definitionNumber[i], definitionMsb[i], definitionLsb[i]);
        }
        for (int i = 0; i < pages.length; i++) {
            t.pages[i].copyFrom(pages[i]);
        }
        return t;
    }

    // ---- varints (unsigned LEB128) ------------------------------------------------------------

    public static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    public static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    /** Writes {@code v} (treated as unsigned) as a varint; returns the position after it. */
    public static int putVarint(byte[] out, int p, long v) {
        while ((v & ~0x7FL) != 0) {
            out[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[p++] = (byte) v;
        return p;
    }

    static void putLong(byte[] out, int p, long v) {
        for (int i = 0; i < 8; i++) {
            out[p + i] = (byte) (v >>> (8 * i));
        }
    }

    /** Bounds-checked reading of a byte range; every failure is a {@link CorruptionException}. */
    static final class Cursor {
        final byte[] in;
        int pos;
        final int end;
        final String file;
        final long offset;

        Cursor(byte[] in, int pos, int end, String file, long offset) {
            this.in = in;
            this.pos = pos;
            this.end = end;
            this.file = file;
            this.offset = offset;
        }

        CorruptionException bad(String problem) {
            return new CorruptionException(file, offset, problem);
        }

        int u8() throws CorruptionException {
            if (pos >= end) {
                throw bad("extent table ends early");
            }
            return in[pos++] & 0xFF;
        }

        long u64() throws CorruptionException {
            if (end - pos < 8) {
                throw bad("extent table ends early");
            }
            long v = 0;
            for (int i = 7; i >= 0; i--) {
                v = (v << 8) | (in[pos + i] & 0xFF);
            }
            pos += 8;
            return v;
        }

        /** At most 9 bytes (63 bits): longer or unterminated varints are corruption. */
        long varint() throws CorruptionException {
            long v = 0;
            for (int shift = 0; shift < 63; shift += 7) {
                if (pos >= end) {
                    throw bad("extent table ends inside a number");
                }
                int b = in[pos++];
                v |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    return v;
                }
            }
            throw bad("extent table number too long");
        }
    }
}
