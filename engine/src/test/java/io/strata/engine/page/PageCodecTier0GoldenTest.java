package io.strata.engine.page;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/**
 * Pins the exact bytes {@link PageCodecTier0#encode} writes, so that work on the encoder's speed
 * cannot change the on-disk format (docs/format/page.md) unnoticed: every page of the real dataset
 * plus a few thousand seeded generated pages are encoded, and the SHA-256 of all encodings is
 * compared with a constant captured from the encoder of session 15 (a78c382). The test also counts
 * which modes, predictors and options the pages use and requires each of them at least once, so
 * that the hash covers every path of the encoder.
 *
 * <p>The inputs are hashed and pinned too: the generators use {@code Math.pow}, {@code sin} and
 * Gaussian draws, and if a JVM ever produced different inputs, the failure should say so rather
 * than blame the encoder.
 *
 * <p>A second test compares the encoder with {@link Tier0ReferenceEncoder}, a frozen copy of the
 * session-15 encoder, on fresh random pages each run (the seed is printed), and names the first
 * page that differs.
 *
 * <p>If this test fails after a deliberate format change, the format version must change too; the
 * constants are not to be updated to make an optimisation pass.
 */
class PageCodecTier0GoldenTest {

    static final int GAP = StorageNumber.SN_EMPTY_SLOT;

    /** SHA-256 of the inputs (count, then the points, big-endian), in order. */
    static final String INPUT_SHA256 = "b792a281913b201d34ee49f8135b3309bdfb498bc67c086130437d131f7fc0ae";
    /** SHA-256 of the encodings (length, then the bytes), in order. */
    static final String OUTPUT_SHA256 = "db1dcd310c1e05f13ab619605b3c979492a79a768a899e6e2882c52136e3d75e";

    /** SHA-256 of the codec-2 ({@code decimal-runs}) encodings of the same inputs (length, then the bytes). */
    static final String OUTPUT_SHA256_CODEC2 = "49a80016996bf85be05f9bd91de68ce551a570685683b6752b04266bd64f5d39";

    /** Golden-only shapes, after {@link PageCodecTier0Test#generate}'s kinds 0..9. */
    static final int KINDS = 16;

    /** Pages that push the encoder into the modes the generic shapes reach rarely. */
    static int[] generate(SplittableRandom r, int kind, int n) {
        if (kind < 10) {
            return PageCodecTier0Test.generate(r, kind, n);
        }
        int[] p = new int[n];
        int flags = StorageNumber.SN_FLAG_NOT_ANOMALOUS;
        double unit = Math.pow(10, r.nextInt(-4, 5));
        long level = r.nextInt(-500, 500);
        double gapRate = r.nextInt(3) == 0 ? r.nextDouble(0.2) : 0;
        int excEvery = r.nextInt(12, 60);
        for (int i = 0; i < n; i++) {
            double v;
            switch (kind) {
                case 10: // quantum, previous: a walk in hundreds, a few values off the grid
                    level += r.nextInt(-2, 3);
                    v = level * 100 + (i % excEvery == 0 ? r.nextInt(1, 100) : 0);
                    break;
                case 11: // quantum, mean: noise around a level in thousands, a few off the grid
                    v = (level + r.nextInt(-3, 4)) * 1000 + (i % excEvery == 0 ? r.nextInt(1, 1000) : 0);
                    break;
                case 12: // quantum, linear: a steep ramp in tens, a few off the grid
                    v = (level + 37L * i) * 10 + (i % excEvery == 0 ? r.nextInt(1, 10) : 0);
                    break;
                case 13: // anchor in FIXED: a gauge that keeps dropping back to one value
                    v = r.nextInt(4) == 0 ? level + r.nextInt(1, 1000) : level;
                    break;
                case 14: // anchor in POINT: zero between wide-magnitude spikes
                    v = r.nextInt(3) == 0 ? (r.nextBoolean() ? -1 : 1) * Math.pow(10, r.nextDouble(-7, 14)) : 0;
                    break;
                default: // FIXED mean on a non-unit gcd: iid noise in steps of 7 units
                    v = (level + 7 * r.nextInt(-50, 51)) * unit;
                    if (kind == 15 && r.nextInt(5) == 0) {
                        flags = r.nextBoolean() ? StorageNumber.SN_FLAG_NOT_ANOMALOUS : StorageNumber.SN_FLAG_RESET;
                    }
                    break;
            }
            int sn = StorageNumber.pack(kind == 10 || kind == 11 || kind == 12 ? v : v * (kind == 14 ? 1 : unit), flags);
            p[i] = gapRate > 0 && r.nextDouble() < gapRate ? GAP : sn;
        }
        return p;
    }

    static List<int[]> inputs() throws IOException {
        List<int[]> pages = new ArrayList<>(PageCodecTier0Test.pages(PageCodecTier0Test.loadColumns()));
        SplittableRandom r = new SplittableRandom(0x5eed_16L);
        for (int t = 0; t < 4000; t++) {
            int kind = t % KINDS;
            int n = r.nextInt(5) == 0 ? r.nextInt(1, 40) : r.nextInt(1, 1025);
            pages.add(generate(r, kind, n));
        }
        // edges: empty, single points, all gaps, constants, two-point pages
        pages.add(new int[0]);
        pages.add(new int[] {GAP});
        pages.add(new int[] {0});
        pages.add(new int[] {GAP, GAP, 0x7fffffff, GAP});
        pages.add(new int[] {-1, -1, GAP, -1});
        pages.add(new int[] {PageCodecTier0Test.sn(1.5), PageCodecTier0Test.sn(-2.25)});
        pages.add(new int[] {StorageNumber.STORAGE_NUMBER_POSITIVE_MAX_RAW, StorageNumber.STORAGE_NUMBER_POSITIVE_MIN_RAW,
            StorageNumber.STORAGE_NUMBER_NEGATIVE_MAX_RAW, StorageNumber.STORAGE_NUMBER_NEGATIVE_MIN_RAW});
        return pages;
    }

    /** What one encoding uses, read back from its header (layout in {@link PageCodecTier0}). */
    static String[] features(byte[] e, int[] p) {
        List<String> f = new ArrayList<>();
        if (e[0] == PageCodecTier0.CODEC_RAW) {
            f.add("raw");
            return f.toArray(new String[0]);
        }
        int flags = e[1] & 0xff;
        int gaps = flags & 3;
        if (gaps == 1) {
            f.add("all-gaps");
            return f.toArray(new String[0]);
        }
        f.add(gaps == 0 ? "no-gaps" : "gap-runs");
        int[] hp = {2};
        if (gaps == 2) {
            long sum = 0;
            while (sum < p.length) {
                sum += var(e, hp);
            }
        }
        int first = u32(e, hp);
        if ((flags & 4) != 0) {
            f.add("constant");
            return f.toArray(new String[0]);
        }
        if ((flags & 8) != 0) {
            f.add("tops-constant");
        } else {
            f.add("tops-vary");
        }
        boolean anchor = (flags & 0x80) != 0;
        if (anchor) {
            u32(e, hp);
        }
        if ((flags & 0x10) != 0) {
            f.add("point");
            if (anchor) {
                f.add("point+anchor");
            }
            return f.toArray(new String[0]);
        }
        int pred = (flags >>> 5) & 3;
        int emin = e[hp[0]++];
        long s = var(e, hp);
        long base = PageCodecTier0.unzigzag(var(e, hp));
        if (pred == 0) {
            var(e, hp);
        }
        long exceptions = var(e, hp);
        long v0 = PageCodecTier0.scaled(first, emin);
        String mode = exceptions > 0 || (base == 0 && v0 != 0) ? "quantum" : base == v0 ? "gcd" : "?";
        String[] preds = {"mean", "previous", "linear"};
        f.add(mode);
        f.add(mode + "+" + preds[pred]);
        if (s > 1 && mode.equals("gcd")) {
            f.add("gcd-step>1");
        }
        if (exceptions > 0) {
            f.add("exceptions");
        }
        if (anchor) {
            f.add(mode + "+anchor");
        }
        return f.toArray(new String[0]);
    }

    static long var(byte[] e, int[] hp) {
        long v = 0;
        for (int shift = 0;; shift += 7) {
            int b = e[hp[0]++] & 0xff;
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
    }

    static int u32(byte[] e, int[] hp) {
        int o = hp[0];
        hp[0] = o + 4;
        return (e[o] & 0xff) | (e[o + 1] & 0xff) << 8 | (e[o + 2] & 0xff) << 16 | e[o + 3] << 24;
    }

    static final String[] REQUIRED = {"raw", "all-gaps", "no-gaps", "gap-runs", "constant", "tops-constant",
        "tops-vary", "point", "point+anchor", "gcd", "gcd+mean", "gcd+previous", "gcd+linear", "gcd-step>1",
        "gcd+anchor", "quantum", "quantum+mean", "quantum+previous", "quantum+linear", "quantum+anchor",
        "exceptions"};

    @Test
    void encodingsAreTheOnesOfTheFormat() throws IOException, NoSuchAlgorithmException {
        List<int[]> pages = inputs();
        MessageDigest in = MessageDigest.getInstance("SHA-256");
        MessageDigest out = MessageDigest.getInstance("SHA-256");
        Map<String, Integer> seen = new TreeMap<>();
        byte[] dst = new byte[3 + PageCodecTier0.maxEncodedLength(1024)];
        ByteBuffer word = ByteBuffer.allocate(4);
        long bytes = 0;
        for (int[] p : pages) {
            word.clear();
            in.update(word.putInt(0, p.length).array());
            for (int x : p) {
                in.update(word.putInt(0, x).array());
            }
            int len = PageCodecTier0.encode(p, p.length, dst, 3, PageCodecTier0.CODEC_DECIMAL); // an offset, as in an extent
            byte[] e = java.util.Arrays.copyOfRange(dst, 3, 3 + len);
            out.update(word.putInt(0, len).array());
            out.update(e);
            bytes += len;
            for (String feature : features(e, p)) {
                seen.merge(feature, 1, Integer::sum);
            }
        }
        String inHash = HexFormat.of().formatHex(in.digest());
        String outHash = HexFormat.of().formatHex(out.digest());
        System.out.printf(Locale.ROOT, "tier-0 golden: %d pages, %d bytes, inputs %s, encodings %s%n  modes %s%n",
                pages.size(), bytes, inHash, outHash, seen);
        assertEquals(INPUT_SHA256, inHash, "the generated inputs differ on this JVM: the golden encodings do not apply");
        for (String feature : REQUIRED) {
            assertTrue(seen.getOrDefault(feature, 0) > 0, "no page uses " + feature + ": " + seen);
        }
        assertEquals(OUTPUT_SHA256, outHash, "tier-0 encodings changed: the on-disk format must not");
    }

    /**
     * The same for codec 2 ({@code decimal-runs}): its bytes are pinned (captured when the codec was
     * written), every page decodes back, and codec 2 is what every non-raw page uses.
     */
    @Test
    void codec2EncodingsAreTheOnesOfTheFormat() throws IOException, NoSuchAlgorithmException {
        List<int[]> pages = inputs();
        MessageDigest out = MessageDigest.getInstance("SHA-256");
        byte[] dst = new byte[3 + PageCodecTier0.maxEncodedLength(1024)];
        int[] back = new int[1024];
        ByteBuffer word = ByteBuffer.allocate(4);
        long bytes = 0;
        int[] codecs = new int[3];
        for (int[] p : pages) {
            int len = PageCodecTier0.encode(p, p.length, dst, 3, PageCodecTier0.CODEC_DECIMAL_RUNS);
            out.update(word.putInt(0, len).array());
            out.update(dst, 3, len);
            bytes += len;
            codecs[dst[3]]++;
            PageCodecTier0.decode(dst, 3, len, back, p.length);
            assertTrue(java.util.Arrays.equals(back, 0, p.length, p, 0, p.length), "a page does not decode back");
        }
        String outHash = HexFormat.of().formatHex(out.digest());
        System.out.printf(Locale.ROOT, "tier-0 golden, codec 2: %d pages (%d raw), %d bytes, encodings %s%n",
                pages.size(), codecs[0], bytes, outHash);
        assertEquals(0, codecs[1]);
        assertEquals(OUTPUT_SHA256_CODEC2, outHash, "tier-0 codec-2 encodings changed: the on-disk format must not");
    }

    /** A page mixing the shapes: runs of points from several generated pages, gaps at random. */
    static int[] mixed(SplittableRandom r, int n) {
        int[] p = new int[n];
        int i = 0;
        while (i < n) {
            int[] src = generate(r, r.nextInt(KINDS), r.nextInt(1, 300));
            int len = Math.min(n - i, src.length);
            System.arraycopy(src, 0, p, i, len);
            i += len;
        }
        if (r.nextInt(4) == 0) {
            for (int g = r.nextInt(1, 20); g > 0; g--) {
                p[r.nextInt(n)] = GAP;
            }
        }
        return p;
    }

    @Test
    void encoderMatchesTheReferenceOnRandomPages() {
        long seed = System.nanoTime();
        System.out.println("PageCodecTier0GoldenTest.encoderMatchesTheReferenceOnRandomPages seed = " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        byte[] a = new byte[5 + PageCodecTier0.maxEncodedLength(1100)];
        byte[] b = new byte[a.length];
        for (int t = 0; t < 6000; t++) {
            int n = r.nextInt(4) == 0 ? r.nextInt(1, 40) : r.nextInt(1, 1100);
            int[] p = r.nextInt(4) == 0 ? mixed(r, n) : generate(r, r.nextInt(KINDS), n);
            int count = r.nextInt(8) == 0 ? r.nextInt(n + 1) : n;
            int off = r.nextInt(5);
            int la = PageCodecTier0.encode(p, count, a, off, PageCodecTier0.CODEC_DECIMAL);
            int lb = Tier0ReferenceEncoder.encode(p, count, b, off);
            if (la != lb || !java.util.Arrays.equals(a, off, off + la, b, off, off + lb)) {
                StringBuilder s = new StringBuilder();
                for (int i = 0; i < count; i++) {
                    s.append(String.format(Locale.ROOT, "%08x ", p[i]));
                }
                throw new AssertionError("seed " + seed + ", page " + t + " (" + count + " points): encoded "
                        + la + " bytes, the reference " + lb + ": " + s);
            }
        }
    }
    /**
     * The shape the write path spends most on (Netdata 1.37.1's engine stress test: dimension d of
     * chart c holds {@code (t * (c + 1) + t * (d + 1)) mod 1024}), in every variant the encoder's
     * shortcuts touch: steps that wrap often or rarely, scaled to decimals, constant runs, gaps,
     * anomalous points (a cleared flag) and a count below the page; compared with the reference.
     */
    @Test
    void encoderMatchesTheReferenceOnStressTestPages() {
        long seed = System.nanoTime();
        System.out.println("PageCodecTier0GoldenTest.encoderMatchesTheReferenceOnStressTestPages seed = " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        byte[] a = new byte[5 + PageCodecTier0.maxEncodedLength(1024)];
        byte[] b = new byte[a.length];
        for (int t = 0; t < 3000; t++) {
            int n = r.nextInt(8) == 0 ? r.nextInt(1, 64) : 1024;
            int[] p = new int[n];
            long mul = r.nextInt(4) == 0 ? r.nextInt(1, 2048) : r.nextInt(2, 132); // c + d + 2 of charts 0-1 x 128 dimensions
            long t0 = r.nextLong(0, 2_000_000_000L);
            double scale = r.nextInt(3) == 0 ? Math.pow(10, r.nextInt(-3, 4)) : 1;
            double gapRate = r.nextInt(4) == 0 ? r.nextDouble(0.2) : 0;
            double anomalyRate = r.nextInt(4) == 0 ? r.nextDouble(0.1) : 0;
            int constantFrom = r.nextInt(6) == 0 ? r.nextInt(n) : n;
            for (int i = 0; i < n; i++) {
                long v = ((t0 + Math.min(i, constantFrom)) * mul) % 1024;
                int flags = r.nextDouble() < anomalyRate ? 0 : StorageNumber.SN_DEFAULT_FLAGS;
                p[i] = r.nextDouble() < gapRate ? GAP : StorageNumber.pack(v * scale, flags);
            }
            int count = r.nextInt(8) == 0 ? r.nextInt(n + 1) : n;
            int off = r.nextInt(5);
            int la = PageCodecTier0.encode(p, count, a, off, PageCodecTier0.CODEC_DECIMAL);
            int lb = Tier0ReferenceEncoder.encode(p, count, b, off);
            if (la != lb || !java.util.Arrays.equals(a, off, off + la, b, off, off + lb)) {
                throw new AssertionError("seed " + seed + ", page " + t + " (" + count + " points): encoded "
                        + la + " bytes, the reference " + lb);
            }
        }
    }
}
