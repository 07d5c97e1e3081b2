package io.strata.engine.page;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Test;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FastDecompressor;

class PageCodecTier0Test {

    static final int GAP = StorageNumber.SN_EMPTY_SLOT;
    static final int OK = StorageNumber.SN_FLAG_NOT_ANOMALOUS;
    static final String DATASET = "/datasets/netdata-child-1h.csv.gz";
    static final int PAGE_POINTS = 1024;
    static final int EXTENT_PAGES = 64;

    // ------------------------------------------------------------------ helpers

    static int sn(double v) {
        return StorageNumber.pack(v, OK);
    }

    /**
     * Encodes with guard bytes around the destination range, decodes, compares; returns the encoding
     * of the default codec, after checking codec 1 the same way (old pages keep decoding).
     */
    static byte[] roundTrip(int[] points, int count) {
        roundTrip(points, count, PageCodecTier0.CODEC_DECIMAL);
        return roundTrip(points, count, PageCodecTier0.DEFAULT_CODEC);
    }

    /** {@link #roundTrip(int[], int)} with one codec. */
    static byte[] roundTrip(int[] points, int count, int codec) {
        int max = PageCodecTier0.maxEncodedLength(count);
        int off = 7;
        byte[] dst = new byte[off + max + 9];
        Arrays.fill(dst, (byte) 0x5a);
        int len = PageCodecTier0.encode(points, count, dst, off, codec);
        assertTrue(dst[off] == PageCodecTier0.CODEC_RAW || dst[off] == codec, "codec " + dst[off] + " instead of " + codec);
        assertTrue(len >= 1 && len <= max, "length " + len + " of max " + max);
        for (int i = 0; i < off; i++) {
            assertEquals((byte) 0x5a, dst[i], "wrote before the range");
        }
        for (int i = off + max; i < dst.length; i++) {
            assertEquals((byte) 0x5a, dst[i], "wrote after the range");
        }
        int[] out = new int[count + 3];
        Arrays.fill(out, 0x13579bdf);
        PageCodecTier0.decode(dst, off, len, out, count);
        for (int i = 0; i < count; i++) {
            if (out[i] != points[i]) {
                fail(String.format("point %d of %d: decoded %08x, expected %08x (codec %d)", i, count, out[i], points[i],
                        dst[off]));
            }
        }
        for (int i = count; i < out.length; i++) {
            assertEquals(0x13579bdf, out[i], "decode wrote past count");
        }
        return Arrays.copyOfRange(dst, off, off + len);
    }

    static byte[] roundTrip(int[] points) {
        return roundTrip(points, points.length);
    }

    /** Decoding garbage must return or throw CorruptPageException, nothing else, and quickly. */
    static boolean decodesOrRejects(byte[] src, int off, int len, int count) {
        int[] out = new int[count];
        try {
            PageCodecTier0.decode(src, off, len, out, count);
            return true;
        } catch (PageCodecTier0.CorruptPageException expected) {
            return false;
        } catch (Throwable t) {
            throw new AssertionError("decode of " + len + " corrupt bytes for " + count + " points threw " + t, t);
        }
    }

    /** A page of a generated series of the given kind. */
    static int[] generate(SplittableRandom r, int kind, int n) {
        int[] p = new int[n];
        double v = r.nextDouble(-1000, 1000);
        double scale = Math.pow(10, r.nextInt(-6, 9));
        int digits = r.nextInt(0, 8);
        double q = Math.pow(10, -digits);
        double gapRate = r.nextInt(4) == 0 ? r.nextDouble(0.3) : 0;
        for (int i = 0; i < n; i++) {
            int x;
            switch (kind) {
                case 0: // any 32-bit word
                    x = r.nextInt();
                    break;
                case 1: // noisy gauge at full precision
                    x = sn(scale * (1 + r.nextGaussian() * 0.1));
                    break;
                case 2: // random walk, rounded to a few decimals
                    v += r.nextGaussian();
                    x = sn(Math.round(v / q) * q);
                    break;
                case 3: // counter rate, integers, crossing decades
                    x = sn(Math.floor(scale * r.nextDouble() * (i % 97 == 0 ? 1000 : 1)));
                    break;
                case 4: // mostly zero with spikes
                    x = r.nextInt(10) == 0 ? sn(r.nextDouble() * scale) : sn(0);
                    break;
                case 5: // wild magnitudes and signs, all exponents
                    x = sn((r.nextBoolean() ? -1 : 1) * Math.pow(10, r.nextDouble(-8, 20)));
                    break;
                case 6: // steps
                    if (r.nextInt(20) == 0) {
                        v += r.nextInt(-5, 6) * 0.25;
                    }
                    x = sn(v);
                    break;
                case 7: // random flags on a smooth series
                    x = StorageNumber.pack(100 + Math.sin(i / 10.0) * 50, r.nextInt(4) << 24);
                    break;
                case 8: // random top bytes and mantissas from a small set
                    x = (r.nextInt(3) * 0x11) << 24 | r.nextInt(3) * 0x7fffff;
                    break;
                default: // linear ramp
                    x = sn(1000 + i * 0.5);
                    break;
            }
            p[i] = gapRate > 0 && r.nextDouble() < gapRate ? GAP : x;
        }
        return p;
    }

    // ------------------------------------------------------------------ shapes

    @Test
    void emptyAndShortPages() {
        roundTrip(new int[0]);
        roundTrip(new int[] {GAP});
        roundTrip(new int[] {sn(1)});
        roundTrip(new int[] {0});
        roundTrip(new int[] {sn(1), sn(2)});
        roundTrip(new int[] {GAP, sn(2)});
        roundTrip(new int[] {sn(1), GAP});
        roundTrip(new int[] {sn(1.5), sn(-2.25), sn(3e9)});
        roundTrip(new int[] {sn(7), sn(7), sn(7), GAP, sn(8), sn(9), sn(7)});
        // a count below the array length
        int[] p = {sn(1), sn(2), sn(3), sn(4), sn(5)};
        roundTrip(p, 3);
    }

    @Test
    void allGaps() {
        for (int n : new int[] {1, 2, 100, 1024}) {
            int[] p = new int[n];
            Arrays.fill(p, GAP);
            byte[] enc = roundTrip(p);
            assertTrue(enc.length <= 2, "all-gap page of " + n + " encodes in " + enc.length + " bytes");
        }
    }

    @Test
    void constantPages() {
        for (int v : new int[] {sn(0), 0, sn(42), sn(-1e-7), StorageNumber.STORAGE_NUMBER_POSITIVE_MAX_RAW, -1}) {
            int[] p = new int[1024];
            Arrays.fill(p, v);
            byte[] enc = roundTrip(p);
            assertEquals(6, enc.length, "constant page");
            p[0] = GAP;
            p[500] = GAP;
            p[1023] = GAP;
            roundTrip(p);
        }
    }

    @Test
    void alternatingPages() {
        int[] two = new int[1024];
        int[] withGaps = new int[1024];
        int[] signs = new int[1024];
        for (int i = 0; i < two.length; i++) {
            two[i] = i % 2 == 0 ? sn(0) : sn(123.456);
            withGaps[i] = i % 2 == 0 ? GAP : sn(i);
            signs[i] = sn(i % 2 == 0 ? 5 : -5);
        }
        assertTrue(roundTrip(two).length < 200);
        roundTrip(withGaps);
        roundTrip(signs);
    }

    @Test
    void flagsAndEdgeWords() {
        int[] p = new int[1024];
        for (int i = 0; i < p.length; i++) {
            int flags = (i % 7 == 0 ? StorageNumber.SN_FLAG_RESET : 0) | (i % 5 == 0 ? 0 : OK);
            p[i] = StorageNumber.pack(i * 1.5 - 300, flags);
        }
        roundTrip(p);
        int[] edges = {0, 1, -1, 0x00ffffff, 0x80000000, 0x80ffffff, 0x7fffffff, 0x01000000, 0x81000000, 0x03000000,
            StorageNumber.STORAGE_NUMBER_POSITIVE_MAX_RAW, StorageNumber.STORAGE_NUMBER_POSITIVE_MIN_RAW,
            StorageNumber.STORAGE_NUMBER_NEGATIVE_MAX_RAW, StorageNumber.STORAGE_NUMBER_NEGATIVE_MIN_RAW, GAP,
            GAP | 0x00000001, GAP ^ 0x80000000, 0x7f000000, 0xff000000};
        roundTrip(edges);
        int[] many = new int[1024];
        for (int i = 0; i < many.length; i++) {
            many[i] = edges[(i * 7) % edges.length];
        }
        roundTrip(many);
        // extreme exponents side by side (the decimal span is too wide for a common scale)
        int[] wide = new int[300];
        for (int i = 0; i < wide.length; i++) {
            wide[i] = i % 3 == 0 ? StorageNumber.STORAGE_NUMBER_POSITIVE_MAX_RAW
                    : i % 3 == 1 ? StorageNumber.STORAGE_NUMBER_POSITIVE_MIN_RAW + i : sn(i);
        }
        roundTrip(wide);
    }

    @Test
    void fullAndLongPages() {
        int[] p = new int[1024];
        for (int i = 0; i < p.length; i++) {
            p[i] = sn(Math.sin(i / 30.0) * 1000);
        }
        byte[] enc = roundTrip(p);
        assertEquals(PageCodecTier0.DEFAULT_CODEC, enc[0]);
        int[] big = new int[10_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = i % 1000 == 999 ? GAP : sn(i * 0.001);
        }
        roundTrip(big);
    }

    @Test
    void incompressibleFallsBackToRaw() {
        SplittableRandom r = new SplittableRandom(1);
        int[] p = new int[1024];
        for (int i = 0; i < p.length; i++) {
            p[i] = r.nextInt();
        }
        byte[] enc = roundTrip(p);
        assertEquals(PageCodecTier0.CODEC_RAW, enc[0]);
        assertEquals(PageCodecTier0.maxEncodedLength(1024), enc.length);
    }

    @Test
    void randomSeededPages() {
        long seed = System.nanoTime();
        System.out.println("PageCodecTier0Test.randomSeededPages seed = " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        for (int t = 0; t < 3000; t++) {
            int kind = r.nextInt(10);
            int n = r.nextInt(4) == 0 ? r.nextInt(1, 40) : r.nextInt(1, 1025);
            int[] p = generate(r, kind, n);
            try {
                roundTrip(p);
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ", page " + t + ", kind " + kind + ", n " + n + ": " + e.getMessage(), e);
            }
        }
    }

    @Test
    void argumentsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> PageCodecTier0.maxEncodedLength(-1));
        assertThrows(IllegalArgumentException.class, () -> PageCodecTier0.encode(new int[3], 4, new byte[100], 0));
        assertThrows(IllegalArgumentException.class, () -> PageCodecTier0.encode(new int[3], 3, new byte[12], 0));
        assertThrows(IllegalArgumentException.class, () -> PageCodecTier0.decode(new byte[5], 3, 3, new int[1], 1));
        assertThrows(IllegalArgumentException.class, () -> PageCodecTier0.decode(new byte[5], 0, 5, new int[1], 2));
    }

    // ------------------------------------------------------------------ corruption

    @Test
    void corruptInputIsRejected() {
        long seed = System.nanoTime();
        System.out.println("PageCodecTier0Test.corruptInputIsRejected seed = " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            // unknown codec, empty input
            assertThrows(PageCodecTier0.CorruptPageException.class,
                    () -> PageCodecTier0.decode(new byte[] {9, 0, 0}, 0, 3, new int[4], 4));
            assertThrows(PageCodecTier0.CorruptPageException.class,
                    () -> PageCodecTier0.decode(new byte[4], 2, 0, new int[4], 4));
            int truncations = 0;
            int truncationsAccepted = 0;
            int flips = 0;
            int flipsAccepted = 0;
            for (int t = 0; t < 400; t++) {
                int n = r.nextInt(1, 1025);
                int[] p = generate(r, r.nextInt(10), n);
                byte[] enc = roundTrip(p);
                // every truncation of short encodings, a sample of long ones
                int step = Math.max(1, enc.length / 64);
                for (int len = 0; len < enc.length; len += step) {
                    byte[] buf = new byte[len + 8];
                    System.arraycopy(enc, 0, buf, 4, len);
                    truncations++;
                    if (decodesOrRejects(buf, 4, len, n)) {
                        truncationsAccepted++;
                    }
                }
                // wrong point count for a valid encoding
                decodesOrRejects(enc, 0, enc.length, Math.max(0, n - 1));
                decodesOrRejects(enc, 0, enc.length, n + 1);
                // bit flips and random byte overwrites
                for (int f = 0; f < 20; f++) {
                    byte[] bad = enc.clone();
                    int hits = r.nextInt(1, 4);
                    for (int h = 0; h < hits; h++) {
                        int at = r.nextInt(bad.length);
                        if (r.nextBoolean()) {
                            bad[at] ^= (byte) (1 << r.nextInt(8));
                        } else {
                            bad[at] = (byte) r.nextInt();
                        }
                    }
                    flips++;
                    if (decodesOrRejects(bad, 0, bad.length, n)) {
                        flipsAccepted++;
                    }
                }
            }
            // pure garbage behind each codec id
            int garbage = 0;
            int garbageAccepted = 0;
            for (int t = 0; t < 20000; t++) {
                int len = r.nextInt(0, 600);
                byte[] buf = new byte[len];
                for (int i = 0; i < len; i++) {
                    buf[i] = (byte) r.nextInt();
                }
                if (len > 0) {
                    buf[0] = (byte) (t % 3 == 2 ? r.nextInt() : t % 2);
                }
                if (len > 1 && r.nextBoolean()) {
                    buf[1] &= (byte) 0xf3; // more often a variable page, so the body gets exercised
                }
                garbage++;
                if (decodesOrRejects(buf, 0, len, r.nextInt(0, 1100))) {
                    garbageAccepted++;
                }
            }
            System.out.printf(Locale.ROOT, "corrupt input: truncated %d (%d decoded), flipped %d (%d decoded), garbage %d (%d decoded)%n",
                    truncations, truncationsAccepted, flips, flipsAccepted, garbage, garbageAccepted);
            assertEquals(0, truncationsAccepted, "a truncated page decoded without error");
        });
    }

    // ------------------------------------------------------------------ real data

    /** The dataset as storage numbers, {@code columns[c][row]}; empty cells are the empty slot. */
    static int[][] loadColumns() throws IOException {
        try (InputStream in = PageCodecTier0Test.class.getResourceAsStream(DATASET)) {
            if (in == null) {
                throw new IOException("missing test resource " + DATASET);
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(in), StandardCharsets.UTF_8));
            int cols = r.readLine().split(",", -1).length - 1;
            List<int[]> rows = new ArrayList<>();
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isEmpty()) {
                    continue;
                }
                int[] row = new int[cols];
                Arrays.fill(row, GAP);
                int c = -1;
                int start = 0;
                for (int i = 0; i <= line.length(); i++) {
                    if (i == line.length() || line.charAt(i) == ',') {
                        if (c >= 0 && i > start) {
                            row[c] = sn(Double.parseDouble(line.substring(start, i)));
                        }
                        c++;
                        start = i + 1;
                    }
                }
                if (c != cols) {
                    throw new IOException("row with " + c + " columns, expected " + cols);
                }
                rows.add(row);
            }
            int[][] out = new int[cols][rows.size()];
            for (int t = 0; t < rows.size(); t++) {
                for (int c = 0; c < cols; c++) {
                    out[c][t] = rows.get(t)[c];
                }
            }
            return out;
        }
    }

    /**
     * Pages of up to 1024 consecutive rows of one column, in the order a flush writes them: per time
     * window, every column in order, so 64 consecutive pages form an extent.
     */
    static List<int[]> pages(int[][] columns) {
        List<int[]> pages = new ArrayList<>();
        int rows = columns[0].length;
        for (int start = 0; start < rows; start += PAGE_POINTS) {
            int n = Math.min(PAGE_POINTS, rows - start);
            for (int[] column : columns) {
                pages.add(Arrays.copyOfRange(column, start, start + n));
            }
        }
        return pages;
    }

    @Test
    void realDatasetRoundTripsAndReportsSize() throws IOException {
        List<int[]> pages = pages(loadColumns());
        LZ4Factory f = LZ4Factory.fastestInstance();
        LZ4Compressor lz4 = f.fastCompressor();
        LZ4FastDecompressor unlz4 = f.fastDecompressor();
        byte[] raw = new byte[EXTENT_PAGES * PageCodecTier0.maxEncodedLength(PAGE_POINTS)];
        byte[] plain = new byte[raw.length];
        byte[] comp = new byte[lz4.maxCompressedLength(raw.length)];
        int[] lengths = new int[EXTENT_PAGES];
        int[] out = new int[PAGE_POINTS];
        long slots = 0;
        long samples = 0;
        long encoded = 0;
        long stored = 0;
        long storedRaw = 0;
        int[] codecs = new int[3];
        for (int e = 0; e < pages.size(); e += EXTENT_PAGES) {
            int end = Math.min(pages.size(), e + EXTENT_PAGES);
            int pos = 0;
            int rawPos = 0;
            for (int i = e; i < end; i++) {
                int[] p = pages.get(i);
                slots += p.length;
                for (int x : p) {
                    if (x != GAP) {
                        samples++;
                    }
                }
                lengths[i - e] = PageCodecTier0.encode(p, p.length, raw, pos);
                codecs[raw[pos]]++;
                pos += lengths[i - e];
                for (int x : p) { // Netdata's layout for comparison: 4-byte points
                    plain[rawPos++] = (byte) x;
                    plain[rawPos++] = (byte) (x >>> 8);
                    plain[rawPos++] = (byte) (x >>> 16);
                    plain[rawPos++] = (byte) (x >>> 24);
                }
            }
            encoded += pos;
            int c = lz4.compress(raw, 0, pos, comp, 0, comp.length);
            stored += c;
            storedRaw += lz4.compress(plain, 0, rawPos, comp.clone(), 0, comp.length);
            // read back the way the extent reader does: decompress, then decode each page
            byte[] back = new byte[pos];
            unlz4.decompress(comp, 0, back, 0, pos);
            int off = 0;
            for (int i = e; i < end; i++) {
                int[] p = pages.get(i);
                PageCodecTier0.decode(back, off, lengths[i - e], out, p.length);
                off += lengths[i - e];
                for (int j = 0; j < p.length; j++) {
                    if (out[j] != p[j]) {
                        fail("page " + i + " point " + j + ": " + out[j] + " != " + p[j]);
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "tier-0 on %s: %d pages (%d raw, %d decimal, %d decimal-runs), %d slots, %d samples%n",
                DATASET, pages.size(), codecs[0], codecs[1], codecs[2], slots, samples);
        System.out.printf(Locale.ROOT, "  encoded %.3f B/sample; after LZ4 (64-page extents) %.3f B/sample, %.3f B/slot"
                + "; 4-byte points + LZ4: %.3f B/sample%n", (double) encoded / samples, (double) stored / samples,
                (double) stored / slots, (double) storedRaw / samples);
    }
}
