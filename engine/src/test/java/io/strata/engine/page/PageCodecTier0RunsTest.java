package io.strata.engine.page;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * Tier-0 codec 2 ({@code decimal-runs}, docs/format/page.md): random pages of every shape
 * round-trip through it bit for bit, and a corrupted codec-2 page is rejected with
 * {@link PageCodecTier0.CorruptPageException} wherever the format can tell (a page cut short or
 * lengthened, a run past the page, a changed top equal to the predicted one), and otherwise decodes
 * or is rejected, never anything else. Seeds are printed.
 */
class PageCodecTier0RunsTest {

    static final int GAP = StorageNumber.SN_EMPTY_SLOT;
    static final int CODEC = PageCodecTier0.CODEC_DECIMAL_RUNS;
    /** The worked example of docs/format/page.md: 160, 164, ..., 220, one run across the decade. */
    static final String EXAMPLE = "02400024f429fb80b5188090a10f000004edf8000000";

    /** Encodes with codec 2 at an offset, with guard bytes; decodes and compares; returns the encoding. */
    static byte[] roundTrip(int[] p, int count) {
        return PageCodecTier0Test.roundTrip(p, count, CODEC);
    }

    /** Netdata's stress-test values in every variant: steps, scales, constant tails, gaps, anomaly and reset bits. */
    static int[] stressPage(SplittableRandom r, int n) {
        int[] p = new int[n];
        long mul = r.nextInt(4) == 0 ? r.nextInt(1, 2048) : r.nextInt(2, 132);
        long t0 = r.nextLong(0, 2_000_000_000L);
        double scale = r.nextInt(3) == 0 ? Math.pow(10, r.nextInt(-7, 8)) : 1;
        double gapRate = r.nextInt(4) == 0 ? r.nextDouble(0.2) : 0;
        double flagRate = r.nextInt(4) == 0 ? r.nextDouble(0.1) : 0;
        int constantFrom = r.nextInt(6) == 0 ? r.nextInt(n) : n;
        boolean negative = r.nextInt(5) == 0;
        for (int i = 0; i < n; i++) {
            long v = ((t0 + Math.min(i, constantFrom)) * mul) % 1024;
            int flags = r.nextDouble() < flagRate ? r.nextInt(4) << 24 : StorageNumber.SN_DEFAULT_FLAGS;
            p[i] = r.nextDouble() < gapRate ? GAP : StorageNumber.pack((negative ? -v : v) * scale, flags);
        }
        return p;
    }

    /** Random words from a few tops (every exponent, MUL100, NEG, flags) and mantissas, some zero. */
    static int[] topsPage(SplittableRandom r, int n) {
        int[] tops = new int[r.nextInt(1, 6)];
        for (int i = 0; i < tops.length; i++) {
            tops[i] = r.nextInt(256);
        }
        int[] p = new int[n];
        int m = r.nextInt(1 << 24);
        for (int i = 0; i < n; i++) {
            int top = tops[r.nextInt(tops.length)];
            if (r.nextInt(3) > 0) {
                m = r.nextInt(8) == 0 ? 0 : Math.max(0, Math.min(0xffffff, m + r.nextInt(-3, 4)));
            }
            int sn = top << 24 | m;
            p[i] = sn == GAP && r.nextBoolean() ? sn + 1 : sn;
        }
        return p;
    }

    static int[] anyPage(SplittableRandom r, int n) {
        switch (r.nextInt(5)) {
            case 0:
                return stressPage(r, n);
            case 1:
                return topsPage(r, n);
            case 2:
                return PageCodecTier0GoldenTest.mixed(r, n);
            default:
                return PageCodecTier0GoldenTest.generate(r, r.nextInt(PageCodecTier0GoldenTest.KINDS), n);
        }
    }

    @Test
    void randomPagesOfEveryShapeRoundTrip() {
        long seed = System.nanoTime();
        System.out.println("PageCodecTier0RunsTest.randomPagesOfEveryShapeRoundTrip seed = " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        int[] codecs = new int[3];
        for (int t = 0; t < 6000; t++) {
            int n = r.nextInt(4) == 0 ? r.nextInt(1, 40) : r.nextInt(1, 1025);
            int[] p = anyPage(r, n);
            int count = r.nextInt(8) == 0 ? r.nextInt(n + 1) : n;
            byte[] e = roundTrip(p, count);
            codecs[e[0]]++;
        }
        System.out.printf(Locale.ROOT, "codec 2 round trips: %d raw, %d codec 2%n", codecs[0], codecs[2]);
        assertTrue(codecs[2] > 4000, "most pages should use codec 2: " + Arrays.toString(codecs));
    }

    /** Every top byte, with zero and non-zero mantissas, after and before every other kind of top. */
    @Test
    void everyTopRoundTrips() {
        SplittableRandom r = new SplittableRandom(7);
        for (int top = 0; top < 256; top++) {
            for (int other : new int[] {0x01, 0x29, 0x21, 0x31, 0x81, 0xa9, 0x49, 0x4d, 0x05, 0x00, 0x03}) {
                int[] p = new int[64];
                for (int i = 0; i < p.length; i++) {
                    int t = i % 7 < 4 ? top : other;
                    int m = i % 5 == 0 ? 0 : r.nextInt(1 << 24);
                    p[i] = t << 24 | m;
                }
                roundTrip(p, p.length);
                Arrays.fill(p, top << 24 | 1234567);
                p[10] = other << 24;
                p[40] = other << 24 | 16777215;
                roundTrip(p, p.length);
            }
        }
    }

    /** Values that cross decades (the exponent moves with the value) in one run, as the format's example. */
    @Test
    void decadeCrossingsStayInOneRun() {
        int[] p = new int[16];
        for (int i = 0; i < p.length; i++) {
            p[i] = StorageNumber.pack(160 + 4 * i, StorageNumber.SN_DEFAULT_FLAGS);
        }
        assertEquals(0x29f42400, p[0]); // 160: E = -5
        assertEquals(0x2119a280, p[2]); // 168: E = -4
        byte[] e = roundTrip(p, p.length);
        assertEquals(EXAMPLE, HexFormat.of().formatHex(e));
        byte[] e1 = PageCodecTier0Test.roundTrip(p, p.length, PageCodecTier0.CODEC_DECIMAL);
        assertEquals("01400024f429fb80b5188090a10f00008241f80000000000", HexFormat.of().formatHex(e1));
    }

    @Test
    void corruptPagesAreRejected() {
        long seed = System.nanoTime();
        System.out.println("PageCodecTier0RunsTest.corruptPagesAreRejected seed = " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            int truncations = 0;
            int extensions = 0;
            int flips = 0;
            int flipsDecoded = 0;
            int pages = 0;
            for (int t = 0; t < 600; t++) {
                int n = r.nextInt(2, 1025);
                int[] p = anyPage(r, n);
                byte[] enc = roundTrip(p, n);
                if (enc[0] != CODEC) {
                    continue;
                }
                pages++;
                // every cut of short encodings, a sample of long ones: never decodes
                int step = Math.max(1, enc.length / 64);
                for (int len = 0; len < enc.length; len += step) {
                    byte[] buf = new byte[len + 8];
                    System.arraycopy(enc, 0, buf, 4, len);
                    truncations++;
                    if (PageCodecTier0Test.decodesOrRejects(buf, 4, len, n)) {
                        fail("seed " + seed + ": page " + t + " cut to " + len + " of " + enc.length + " bytes decoded");
                    }
                }
                // lengthened by 1 to 3 bytes (the raw stream is read from the end): never decodes
                for (int more = 1; more <= 3; more++) {
                    byte[] buf = Arrays.copyOf(enc, enc.length + more);
                    for (int x = enc.length; x < buf.length; x++) {
                        buf[x] = (byte) r.nextInt();
                    }
                    extensions++;
                    if (PageCodecTier0Test.decodesOrRejects(buf, 0, buf.length, n)) {
                        fail("seed " + seed + ": page " + t + " lengthened by " + more + " bytes decoded");
                    }
                }
                // flipped bits: rejected, or decoded (a flipped raw bit is a different residual, which
                // no format without a checksum can tell; extents carry one)
                for (int f = 0; f < 20; f++) {
                    byte[] bad = enc.clone();
                    for (int h = r.nextInt(1, 4); h > 0; h--) {
                        bad[r.nextInt(1, bad.length)] ^= (byte) (1 << r.nextInt(8));
                    }
                    flips++;
                    if (PageCodecTier0Test.decodesOrRejects(bad, 0, bad.length, n)) {
                        flipsDecoded++;
                    }
                }
                // the wrong point count
                PageCodecTier0Test.decodesOrRejects(enc, 0, enc.length, n - 1);
                PageCodecTier0Test.decodesOrRejects(enc, 0, enc.length, n + 1);
            }
            int garbage = 0;
            for (int t = 0; t < 20000; t++) {
                int len = r.nextInt(1, 600);
                byte[] buf = new byte[len];
                for (int i = 0; i < len; i++) {
                    buf[i] = (byte) r.nextInt();
                }
                buf[0] = CODEC;
                if (len > 1 && r.nextBoolean()) {
                    buf[1] &= (byte) 0xf3;
                }
                garbage++;
                PageCodecTier0Test.decodesOrRejects(buf, 0, len, r.nextInt(0, 1100));
            }
            System.out.printf(Locale.ROOT, "codec 2 corrupt input: %d pages, %d cuts and %d lengthenings (all rejected), "
                    + "%d flipped (%d decoded), %d garbage%n", pages, truncations, extensions, flips, flipsDecoded, garbage);
            assertTrue(pages > 400, "too few codec-2 pages: " + pages);
        });
    }

    /** Encodings that only a broken writer makes, each rejected with the reason the format gives. */
    @Test
    void inconsistentBodiesAreRejected() {
        // the worked example read as 15 points: its run of 14 after the second point passes the page
        byte[] good = HexFormat.of().parseHex(EXAMPLE);
        int[] out = new int[16];
        PageCodecTier0.decode(good, 0, good.length, out, 16);
        PageCodecTier0.CorruptPageException e = assertThrows(PageCodecTier0.CorruptPageException.class,
                () -> PageCodecTier0.decode(good, 0, good.length, new int[15], 15));
        assertTrue(e.getMessage().startsWith("run of 14 points past"), e.getMessage());
        assertThrows(PageCodecTier0.CorruptPageException.class, () -> PageCodecTier0.decode(good, 0, good.length, new int[17], 17));
        // random range-coder bytes (after the first, always 0): rejected or decoded, mostly rejected
        SplittableRandom r = new SplittableRandom(11);
        int rejected = 0;
        for (int t = 0; t < 2000; t++) {
            byte[] bad = good.clone();
            bad[16 + r.nextInt(5)] = (byte) r.nextInt();
            if (!PageCodecTier0Test.decodesOrRejects(bad, 0, bad.length, 16)) {
                rejected++;
            }
        }
        assertTrue(rejected > 1000, "random range-coder bytes of the example should mostly be rejected: " + rejected);
        // unknown flags combinations behind id 2 are those of id 1: gaps = 3, pred = 3
        assertThrows(PageCodecTier0.CorruptPageException.class,
                () -> PageCodecTier0.decode(new byte[] {2, 3, 0, 0, 0, 0}, 0, 6, new int[2], 2));
        assertThrows(PageCodecTier0.CorruptPageException.class,
                () -> PageCodecTier0.decode(new byte[] {2, 0x68, 0, 0, 0x01, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, 0, 15, new int[2], 2));
    }
}
