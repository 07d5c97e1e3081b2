package io.strata.engine.page;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.strata.engine.page.PageCodecTier0.CorruptPageException;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class PageCodecTier1Test {

    static final int NAN = 0x7fc00000;
    static final int[] SPECIAL = {
        0, 0x80000000, // +0, -0
        0x7f800000, 0xff800000, // +inf, -inf
        0x7fc00000, 0xffc00000, 0x7fc00001, 0x7f800001, 0xffbfffff, 0x7fffffff, 0xffffffff, // NaNs
        1, 0x807fffff, 0x00800000, // subnormals, smallest normal
        0x7f7fffff, 0xff7fffff, // +-max
        Float.floatToRawIntBits(0.1f), Float.floatToRawIntBits(-1e-30f), Float.floatToRawIntBits(3.4e37f),
        Float.floatToRawIntBits(1e22f), Float.floatToRawIntBits(1.2345679e8f),
    };

    // ------------------------------------------------------------------ helpers

    static int w3(int count, int anomalies) {
        return (count & 0xffff) | anomalies << 16;
    }

    static int f(double v) {
        return Float.floatToRawIntBits((float) v);
    }

    /** One point {sum, min, max, count | anomalies << 16}. */
    static int[] point(float sum, float min, float max, int count, int anomalies) {
        return new int[] {Float.floatToRawIntBits(sum), Float.floatToRawIntBits(min), Float.floatToRawIntBits(max),
            w3(count, anomalies)};
    }

    static int[] concat(int[]... points) {
        int n = 0;
        for (int[] p : points) {
            n += p.length;
        }
        int[] out = new int[n];
        int o = 0;
        for (int[] p : points) {
            System.arraycopy(p, 0, out, o, p.length);
            o += p.length;
        }
        return out;
    }

    /**
     * Encodes {@code count} points with guard bytes around the destination range, decodes into an
     * array with guard words past the page, compares bit for bit; returns the encoding.
     */
    static byte[] roundTrip(int[] points, int count) {
        int max = PageCodecTier1.maxEncodedLength(count);
        int off = 5;
        byte[] dst = new byte[off + max + 11];
        Arrays.fill(dst, (byte) 0xa5);
        int len = PageCodecTier1.encode(points, count, dst, off);
        assertTrue(len >= 1 && len <= max, "length " + len + " of max " + max);
        for (int i = 0; i < off; i++) {
            assertEquals((byte) 0xa5, dst[i], "wrote before the range");
        }
        for (int i = off + max; i < dst.length; i++) {
            assertEquals((byte) 0xa5, dst[i], "wrote after the range");
        }
        int codec = dst[off];
        if (codec == PageCodecTier1.CODEC_RAW) {
            assertEquals(max, len, "raw length");
        } else {
            assertEquals(PageCodecTier1.CODEC_COLUMNS, codec, "codec id");
            assertTrue(len < max, "compact form not smaller than raw: " + len);
        }
        int[] out = new int[4 * count + 7];
        Arrays.fill(out, 0x13579bdf);
        PageCodecTier1.decode(dst, off, len, out, count);
        for (int i = 0; i < 4 * count; i++) {
            if (out[i] != points[i]) {
                fail(String.format("point %d word %d of %d points: decoded %08x, expected %08x (codec %d, %d bytes)",
                        i / 4, i % 4, count, out[i], points[i], codec, len));
            }
        }
        for (int i = 4 * count; i < out.length; i++) {
            assertEquals(0x13579bdf, out[i], "decode wrote past the page");
        }
        return Arrays.copyOfRange(dst, off, off + len);
    }

    static byte[] roundTrip(int[] points) {
        return roundTrip(points, points.length / 4);
    }

    /** Decoding must return or throw CorruptPageException, nothing else. Returns true if it decoded. */
    static boolean decodesOrRejects(byte[] src, int off, int len, int count) {
        int[] out = new int[4 * count];
        try {
            PageCodecTier1.decode(src, off, len, out, count);
            return true;
        } catch (CorruptPageException expected) {
            return false;
        } catch (Throwable t) {
            throw new AssertionError("decode of " + len + " corrupt bytes for " + count + " points threw " + t, t);
        }
    }

    /** Aggregates {@code count} tier-0 values as Netdata does (double sum, float min/max). */
    static void aggregate(double[] values, int n, int anomalies, int[] dst, int at) {
        if (n == 0) {
            dst[at] = 0;
            dst[at + 1] = 0;
            dst[at + 2] = 0;
            dst[at + 3] = 0;
            return;
        }
        double sum = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            double v = StorageNumber.unpack(StorageNumber.pack(values[i], StorageNumber.SN_DEFAULT_FLAGS));
            sum += v;
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        dst[at] = f(sum);
        dst[at + 1] = f(min);
        dst[at + 2] = f(max);
        dst[at + 3] = w3(n, anomalies);
    }

    /** A page of {@code n} points of a generated series of the given kind. */
    static int[] generate(SplittableRandom r, int kind, int n) {
        int[] p = new int[4 * n];
        double[] vals = new double[60];
        double v = r.nextDouble(-1000, 1000);
        double scale = Math.pow(10, r.nextInt(-6, 9));
        double q = Math.pow(10, -r.nextInt(0, 6));
        double gapRate = r.nextInt(3) == 0 ? r.nextDouble(0.4) : 0;
        int fill = r.nextInt(3) == 0 ? NAN : 0;
        for (int i = 0; i < n; i++) {
            int o = 4 * i;
            switch (kind) {
                case 0: // any words
                    for (int w = 0; w < 4; w++) {
                        p[o + w] = r.nextInt();
                    }
                    break;
                case 1: { // random walk with a few decimals, aggregated from tier-0 points
                    int c = r.nextInt(8) == 0 ? r.nextInt(1, 60) : 60;
                    for (int t = 0; t < c; t++) {
                        v += r.nextGaussian() * q * 3;
                        vals[t] = Math.round(v / q) * q;
                    }
                    aggregate(vals, c, r.nextInt(20) == 0 ? r.nextInt(c + 1) : 0, p, o);
                    break;
                }
                case 2: { // noisy gauge at full precision
                    int c = 60;
                    for (int t = 0; t < c; t++) {
                        vals[t] = scale * (1 + r.nextGaussian() * 0.1);
                    }
                    aggregate(vals, c, 0, p, o);
                    break;
                }
                case 3: { // constant value, varying counts
                    int c = r.nextInt(4) == 0 ? r.nextInt(1, 61) : 60;
                    Arrays.fill(vals, 0, c, v);
                    aggregate(vals, c, 0, p, o);
                    break;
                }
                case 4: { // mostly zero with spikes
                    for (int t = 0; t < 60; t++) {
                        vals[t] = r.nextInt(200) == 0 ? r.nextDouble() * scale : 0;
                    }
                    aggregate(vals, 60, 0, p, o);
                    break;
                }
                case 5: // wild floats: any magnitude and sign, subnormals
                    p[o] = f((r.nextBoolean() ? -1 : 1) * Math.pow(10, r.nextDouble(-45, 38)));
                    p[o + 1] = f((r.nextBoolean() ? -1 : 1) * Math.pow(10, r.nextDouble(-45, 38)));
                    p[o + 2] = r.nextBoolean() ? p[o + 1] : f(Math.pow(10, r.nextDouble(-45, 38)));
                    p[o + 3] = w3(r.nextInt(1, 65536), 0);
                    break;
                case 6: // decimal values with specials mixed in anywhere
                    for (int w = 0; w < 3; w++) {
                        p[o + w] = r.nextInt(6) == 0 ? SPECIAL[r.nextInt(SPECIAL.length)] : f(Math.round(v * 100) / 100.0);
                    }
                    v += r.nextGaussian();
                    p[o + 3] = w3(60, 0);
                    break;
                case 7: // any counts and anomaly counts, decimal values
                    p[o] = f(Math.round(r.nextDouble(-1e4, 1e4)) / 10.0);
                    p[o + 1] = f(Math.round(r.nextDouble(-100, 100)) / 100.0);
                    p[o + 2] = f(Math.round(r.nextDouble(0, 100)) / 100.0);
                    p[o + 3] = w3(r.nextInt(65536), r.nextInt(4) == 0 ? r.nextInt(65536) : r.nextInt(3));
                    break;
                case 8: // words from a small set
                    for (int w = 0; w < 3; w++) {
                        p[o + w] = SPECIAL[r.nextInt(4)];
                    }
                    p[o + 3] = r.nextInt(3) == 0 ? 0 : w3(r.nextInt(3), r.nextInt(2));
                    break;
                default: { // linear ramp
                    Arrays.fill(vals, 0, 60, 1000 + i * 0.5);
                    aggregate(vals, 60, 0, p, o);
                    break;
                }
            }
            if (gapRate > 0 && r.nextDouble() < gapRate) {
                p[o] = fill;
                p[o + 1] = fill;
                p[o + 2] = fill;
                p[o + 3] = 0;
            }
        }
        return p;
    }

    static int[] repeat(int[] point, int n) {
        int[] p = new int[4 * n];
        for (int i = 0; i < n; i++) {
            System.arraycopy(point, 0, p, 4 * i, 4);
        }
        return p;
    }

    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    // ------------------------------------------------------------------ shapes

    @Test
    void emptyPageIsRaw() {
        byte[] enc = roundTrip(new int[0], 0);
        assertArrayEquals(new byte[] {0}, enc);
    }

    @Test
    void constantPagesAreTiny() {
        for (int n : new int[] {1, 2, 24, 128, 1000}) {
            byte[] enc = roundTrip(repeat(point(60f, 1f, 1f, 60, 0), n));
            // codec, flags, modes, count base, anomaly base, min u32, sum u32 (max = min)
            assertEquals(13, enc.length, "constant page of " + n);
            enc = roundTrip(repeat(point(1.5f, -2f, 7.25f, 1, 3), n));
            assertEquals(17, enc.length, n == 1 ? "a single point of 17 bytes is raw" : "constant page of " + n);
        }
        // constant value, counts vary at the edges (as at a series' start and end): sum follows count * min
        int[] p = repeat(point(60 * 2.5f, 2.5f, 2.5f, 60, 0), 128);
        p[0] = f(45 * 2.5);
        p[3] = 45;
        p[4 * 127] = f(7 * 2.5);
        p[4 * 127 + 3] = 7;
        byte[] enc = roundTrip(p);
        assertTrue(enc.length <= 24, "constant value with two partial windows: " + enc.length + " bytes");
    }

    @Test
    void documentedExamples() {
        // raw form of one point
        int[] out = new int[4];
        PageCodecTier1.decode(hex("00 00001643 00002040 00002040 3c000000"), 0, 17, out, 1);
        assertArrayEquals(point(150f, 2.5f, 2.5f, 60, 0), out);
        // all-gap page with zero fill; with NaN fill
        assertArrayEquals(hex("01 01"), roundTrip(new int[4 * 3]));
        assertArrayEquals(hex("01 05 0000c07f"), roundTrip(repeat(new int[] {NAN, NAN, NAN, 0}, 5)));
        // constant page: 3 points (150, 2.5, 2.5, 60/0)
        assertArrayEquals(hex("01 00 03 3c 00 00002040 00001643"), roundTrip(repeat(point(150f, 2.5f, 2.5f, 60, 0), 3)));
        // same with a gap in the middle, Netdata-style (NaN) gaps
        int[] p = concat(point(150f, 2.5f, 2.5f, 60, 0), new int[] {NAN, NAN, NAN, 0}, point(150f, 2.5f, 2.5f, 60, 0));
        assertArrayEquals(hex("01 06 01 01 01 0000c07f 03 3c 00 00002040 00001643"), roundTrip(p));
        // a coded page: min 1.5, 1.75, 1.5; max 2, 2, 2.25; sums 105, 112.5, 108; counts 60, 60, 59
        p = concat(point(105f, 1.5f, 2f, 60, 0), point(112.5f, 1.75f, 2f, 60, 0), point(108f, 1.5f, 2.25f, 59, 0));
        assertArrayEquals(hex("01 28 05 3c 00 02 02 01 39b2e32530cd85840000 0272923 22c"), roundTrip(p));
    }

    @Test
    void gapsAndFills() {
        int[] a = point(10f, 0.5f, 1f, 15, 0);
        int[] b = point(12f, 0.25f, 1.5f, 15, 1);
        int[] zeroGap = new int[4];
        int[] nanGap = {NAN, NAN, NAN, 0};
        int[] countZero = point(1f, 0f, 0f, 0, 0); // count 0 but not gap-shaped: a present point
        int[] anomalyOnly = {0, 0, 0, w3(0, 5)}; // count 0, anomalies 5: present
        roundTrip(concat(zeroGap, a, b, zeroGap));
        roundTrip(concat(zeroGap, zeroGap, a, zeroGap, zeroGap, b, zeroGap, a));
        roundTrip(concat(nanGap, a, nanGap, nanGap, b));
        roundTrip(concat(nanGap, a, zeroGap, b, nanGap)); // two gap shapes: the second one is "present"
        roundTrip(concat(a, countZero, b, zeroGap, anomalyOnly, a));
        roundTrip(concat(countZero, countZero, countZero));
        roundTrip(concat(anomalyOnly, zeroGap, anomalyOnly));
        int[] oneGapOnly = repeat(a, 128);
        System.arraycopy(zeroGap, 0, oneGapOnly, 4 * 77, 4);
        byte[] enc = roundTrip(oneGapOnly);
        assertTrue(enc.length < 24, "one gap in a constant page: " + enc.length + " bytes");
        // weird fills: -0, a NaN with payload, a subnormal
        for (int fill : new int[] {0x80000000, 0x7f800001, 1, f(60)}) {
            int[] g = {fill, fill, fill, 0};
            roundTrip(concat(g, a, g, b, g));
            roundTrip(concat(g, g));
        }
    }

    @Test
    void allGapPages() {
        for (int n = 1; n <= 200; n++) {
            assertArrayEquals(hex("01 01"), roundTrip(new int[4 * n]), "all-gap page of " + n);
        }
        assertEquals(6, roundTrip(repeat(new int[] {NAN, NAN, NAN, 0}, 1024)).length);
    }

    @Test
    void singlePoints() {
        SplittableRandom r = new SplittableRandom(11);
        for (int t = 0; t < 2000; t++) {
            int[] p = {r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt()};
            if (t % 3 == 0) {
                p[3] = w3(60, 0);
            }
            roundTrip(p);
        }
        for (int s : SPECIAL) {
            roundTrip(new int[] {s, s, s, 0});
            roundTrip(new int[] {s, s, s, w3(60, 0)});
            roundTrip(new int[] {s, 0, s, w3(1, 1)});
        }
    }

    @Test
    void specialFloatsInEveryColumn() {
        SplittableRandom r = new SplittableRandom(12);
        for (int t = 0; t < 3000; t++) {
            int n = r.nextInt(1, 40);
            int[] p = new int[4 * n];
            for (int i = 0; i < n; i++) {
                for (int w = 0; w < 3; w++) {
                    p[4 * i + w] = r.nextInt(3) == 0 ? SPECIAL[r.nextInt(SPECIAL.length)] : f(r.nextInt(-50, 50) / 4.0);
                }
                p[4 * i + 3] = w3(r.nextInt(3) == 0 ? r.nextInt(61) : 60, r.nextInt(5) == 0 ? 1 : 0);
            }
            roundTrip(p);
        }
        // whole columns of one special value, the others decimal
        for (int s : SPECIAL) {
            for (int w = 0; w < 3; w++) {
                int[] p = new int[4 * 30];
                for (int i = 0; i < 30; i++) {
                    p[4 * i] = f(i * 60.5);
                    p[4 * i + 1] = f(i * 0.5);
                    p[4 * i + 2] = f(i * 1.5);
                    p[4 * i + 3] = w3(60, 0);
                    p[4 * i + w] = s;
                }
                roundTrip(p);
            }
        }
    }

    @Test
    void everyCountAndAnomalyCount() {
        // all 65536 counts and anomaly counts, 1024 a page, in order and shuffled
        SplittableRandom r = new SplittableRandom(13);
        for (int base = 0; base < 65536; base += 1024) {
            int[] p = new int[4 * 1024];
            for (int i = 0; i < 1024; i++) {
                p[4 * i] = f(i * 3.5);
                p[4 * i + 1] = f(1);
                p[4 * i + 2] = f(6);
                p[4 * i + 3] = w3(base + i, 65535 - base - i);
            }
            roundTrip(p);
            for (int i = 0; i < 1024; i++) {
                int j = r.nextInt(i + 1);
                int t = p[4 * i + 3];
                p[4 * i + 3] = p[4 * j + 3];
                p[4 * j + 3] = t;
            }
            roundTrip(p);
        }
        // extremes around a constant base
        int[] p = repeat(point(1f, 1f, 1f, 60, 0), 64);
        p[4 * 10 + 3] = w3(65535, 65535);
        p[4 * 20 + 3] = w3(0, 0);
        p[4 * 30 + 3] = w3(60, 65535);
        roundTrip(p);
        p = repeat(point(1f, 1f, 1f, 0, 65535), 64);
        p[4 * 5 + 3] = w3(65535, 0);
        roundTrip(p);
    }

    @Test
    void randomWords() {
        SplittableRandom r = new SplittableRandom(14);
        int compact = 0;
        for (int t = 0; t < 3000; t++) {
            int n = r.nextInt(1, 300);
            int[] p = new int[4 * n];
            int mode = t % 4;
            for (int i = 0; i < 4 * n; i++) {
                p[i] = mode == 0 ? r.nextInt() : mode == 1 ? r.nextInt() & 0x8000ffff
                        : mode == 2 ? (i % 4 == 3 ? w3(60, 0) : r.nextInt()) : r.nextInt(4) - 2;
            }
            byte[] enc = roundTrip(p);
            if (enc[0] == PageCodecTier1.CODEC_COLUMNS) {
                compact++;
            }
        }
        System.out.println("PageCodecTier1Test.randomWords: " + compact + " of 3000 pages compact");
    }

    @Test
    void generatedPages() {
        SplittableRandom r = new SplittableRandom(15);
        int[] compact = new int[10];
        for (int t = 0; t < 6000; t++) {
            int kind = t % 10;
            int n = r.nextInt(4) == 0 ? r.nextInt(1, 1025) : r.nextInt(1, 129);
            byte[] enc = roundTrip(generate(r, kind, n));
            if (enc[0] == PageCodecTier1.CODEC_COLUMNS) {
                compact[kind]++;
            }
        }
        // beyond raw words, the compact form wins nearly always
        for (int kind = 1; kind < 10; kind++) {
            assertTrue(compact[kind] > 500, "kind " + kind + ": " + compact[kind] + " compact pages of 600");
        }
    }

    @Test
    void argumentErrorsAreNotCorruptPages() {
        int[] p = repeat(point(1f, 1f, 1f, 1, 0), 4);
        assertThrows(IllegalArgumentException.class, () -> PageCodecTier1.maxEncodedLength(-1));
        assertThrows(IllegalArgumentException.class, () -> PageCodecTier1.encode(p, 5, new byte[200], 0));
        assertThrows(IllegalArgumentException.class, () -> PageCodecTier1.encode(p, 4, new byte[64], 0));
        assertThrows(IllegalArgumentException.class, () -> PageCodecTier1.encode(p, 4, new byte[65], 1));
        assertEquals(65, PageCodecTier1.maxEncodedLength(4));
        byte[] enc = roundTrip(p);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PageCodecTier1.decode(enc, 0, enc.length, new int[15], 4));
        assertTrue(!(e instanceof CorruptPageException));
        e = assertThrows(IllegalArgumentException.class, () -> PageCodecTier1.decode(enc, 1, enc.length, new int[16], 4));
        assertTrue(!(e instanceof CorruptPageException));
    }

    // ------------------------------------------------------------------ corrupt input

    @Test
    void corruptInputOnlyThrowsCorruptPageException() {
        SplittableRandom r = new SplittableRandom(16);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            assertThrows(CorruptPageException.class, () -> PageCodecTier1.decode(new byte[] {9, 0, 0}, 0, 3, new int[16], 4));
            assertThrows(CorruptPageException.class, () -> PageCodecTier1.decode(new byte[4], 2, 0, new int[16], 4));
            assertThrows(CorruptPageException.class, () -> PageCodecTier1.decode(new byte[] {0, 0}, 0, 2, new int[0], 0));
            assertThrows(CorruptPageException.class, () -> PageCodecTier1.decode(hex("01 01"), 0, 2, new int[0], 0));
            assertThrows(CorruptPageException.class, () -> PageCodecTier1.decode(hex("01 01 00"), 0, 3, new int[4], 1));
            assertThrows(CorruptPageException.class, () -> PageCodecTier1.decode(hex("01 00 00 3c"), 0, 4, new int[4], 1));
            List<int[]> pages = new ArrayList<>();
            List<int[]> real = PageCodecTier1Measure.pages(PageCodecTier1Measure.tier1Series(60), 24);
            for (int i = 0; i < 300; i++) {
                pages.add(real.get(r.nextInt(real.size())));
            }
            for (int i = 0; i < 300; i++) {
                pages.add(generate(r, r.nextInt(10), r.nextInt(1, 200)));
            }
            int truncations = 0;
            int truncationsAccepted = 0;
            int mutations = 0;
            int mutationsAccepted = 0;
            for (int[] p : pages) {
                int n = p.length / 4;
                byte[] enc = roundTrip(p);
                int step = Math.max(1, enc.length / 48);
                for (int len = 0; len < enc.length; len += step) {
                    byte[] buf = new byte[len + 8];
                    System.arraycopy(enc, 0, buf, 4, len);
                    truncations++;
                    if (decodesOrRejects(buf, 4, len, n)) {
                        truncationsAccepted++;
                    }
                }
                // extra bytes, wrong point counts
                byte[] longer = Arrays.copyOf(enc, enc.length + 1 + r.nextInt(4));
                assertTrue(!decodesOrRejects(longer, 0, longer.length, n), "trailing bytes accepted");
                decodesOrRejects(enc, 0, enc.length, n - 1);
                decodesOrRejects(enc, 0, enc.length, n + 1);
                decodesOrRejects(enc, 0, enc.length, 2 * n + 7);
                for (int m = 0; m < 12; m++) {
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
                    mutations++;
                    if (decodesOrRejects(bad, 0, bad.length, n)) {
                        mutationsAccepted++;
                    }
                }
            }
            // garbage behind each codec id, and garbage headers with plausible flags
            int garbage = 0;
            int garbageAccepted = 0;
            for (int t = 0; t < 6000; t++) {
                int len = r.nextInt(0, 300);
                byte[] buf = new byte[len];
                for (int i = 0; i < len; i++) {
                    buf[i] = (byte) r.nextInt();
                }
                if (len > 0) {
                    buf[0] = (byte) (t % 5 == 4 ? r.nextInt() : t % 2);
                }
                if (len > 1 && r.nextBoolean()) {
                    buf[1] &= (byte) 0x7c; // valid gap and min bits more often
                }
                if (len > 2 && r.nextBoolean()) {
                    buf[2] &= (byte) 0x1f; // valid modes more often
                }
                garbage++;
                if (decodesOrRejects(buf, 0, len, r.nextInt(0, 300))) {
                    garbageAccepted++;
                }
            }
            System.out.printf(Locale.ROOT,
                    "PageCodecTier1Test corrupt input: truncated %d (%d decoded), mutated %d (%d decoded), garbage %d (%d decoded)%n",
                    truncations, truncationsAccepted, mutations, mutationsAccepted, garbage, garbageAccepted);
            assertEquals(0, truncationsAccepted, "a truncated page decoded without error");
        });
    }

    // ------------------------------------------------------------------ real data

    @Test
    void realAggregatesRoundTripAndCompress() throws IOException {
        List<int[]> series = PageCodecTier1Measure.tier1Series(60);
        assertEquals(1105, series.size());
        for (int pagePoints : new int[] {128, 24}) {
            List<int[]> pages = PageCodecTier1Measure.pages(series, pagePoints);
            long bytes = 0;
            long points = 0;
            for (int[] p : pages) {
                bytes += roundTrip(p).length;
                points += p.length / 4;
            }
            long[] lz4 = PageCodecTier1Measure.measure(pages, PageCodecTier1::encode, true);
            double before = (double) bytes / points;
            double payload = (double) lz4[0] / lz4[2];
            System.out.printf(Locale.ROOT, "PageCodecTier1Test real tier-1 aggregates, pages of <= %d points: %.3f B/point encoded, %.3f after LZ4%n",
                    pagePoints, before, payload);
            // guards against regressions (measured: 2.22 / 1.92 and 2.63 / 2.03)
            assertTrue(before < (pagePoints == 128 ? 2.4 : 2.9), "encoded " + before + " B/point");
            assertTrue(payload < (pagePoints == 128 ? 2.1 : 2.25), "payload " + payload + " B/point");
        }
    }

    @Test
    void concurrentUseIsSafe() throws Exception {
        List<int[]> pages = new ArrayList<>();
        SplittableRandom r = new SplittableRandom(17);
        for (int i = 0; i < 400; i++) {
            pages.add(generate(r, i % 10, r.nextInt(1, 300)));
        }
        Thread[] threads = new Thread[3];
        Throwable[] failure = new Throwable[1];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                try {
                    for (int round = 0; round < 3; round++) {
                        for (int[] p : pages) {
                            roundTrip(p);
                        }
                    }
                } catch (Throwable e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure[0] != null) {
            throw new AssertionError(failure[0]);
        }
    }
}
