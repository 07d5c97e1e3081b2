package io.strata.engine.page;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * Pins the exact bytes {@link PageCodecTier1#encode} writes, as {@link PageCodecTier0GoldenTest}
 * does for tier 0: both codecs share {@link BinaryRangeCoder}, so work on the coder's speed must not
 * change either format. Real aggregates (pages of 128 and 24 points) plus seeded generated pages;
 * the SHA-256 of all encodings was captured from session 15's code (a78c382).
 */
class PageCodecTier1GoldenTest {

    static final String INPUT_SHA256 = "9a14d8dd4c7c579f4fd697a0d374c24568cb33496070212849f0f3eb9d0f84d0";
    static final String OUTPUT_SHA256 = "1f8169fa34a62082a7ec811e6f375698518b28ce6810cc50d9afe3d366a67c3a";

    @Test
    void encodingsAreTheOnesOfTheFormat() throws IOException, NoSuchAlgorithmException {
        List<int[]> pages = new ArrayList<>();
        List<int[]> series = PageCodecTier1Measure.tier1Series(60);
        pages.addAll(PageCodecTier1Measure.pages(series, 128));
        pages.addAll(PageCodecTier1Measure.pages(series, 24));
        SplittableRandom r = new SplittableRandom(0x5eed_16L);
        for (int t = 0; t < 3000; t++) {
            int n = r.nextInt(4) == 0 ? r.nextInt(1, 1025) : r.nextInt(1, 129);
            pages.add(PageCodecTier1Test.generate(r, t % 10, n));
        }
        MessageDigest in = MessageDigest.getInstance("SHA-256");
        MessageDigest out = MessageDigest.getInstance("SHA-256");
        byte[] dst = new byte[3 + PageCodecTier1.maxEncodedLength(1024)];
        ByteBuffer word = ByteBuffer.allocate(4);
        int[] codecs = new int[2];
        for (int[] p : pages) {
            int count = p.length / 4;
            in.update(word.putInt(0, count).array());
            for (int x : p) {
                in.update(word.putInt(0, x).array());
            }
            int len = PageCodecTier1.encode(p, count, dst, 3);
            codecs[dst[3]]++;
            out.update(word.putInt(0, len).array());
            out.update(Arrays.copyOfRange(dst, 3, 3 + len));
        }
        String inHash = HexFormat.of().formatHex(in.digest());
        String outHash = HexFormat.of().formatHex(out.digest());
        System.out.printf(Locale.ROOT, "tier-1 golden: %d pages (%d raw, %d columns), inputs %s, encodings %s%n",
                pages.size(), codecs[0], codecs[1], inHash, outHash);
        assertEquals(INPUT_SHA256, inHash, "the generated inputs differ on this JVM: the golden encodings do not apply");
        assertEquals(OUTPUT_SHA256, outHash, "tier-1 encodings changed: the on-disk format must not");
    }
}
