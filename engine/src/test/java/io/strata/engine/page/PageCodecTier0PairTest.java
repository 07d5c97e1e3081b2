package io.strata.engine.page;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two pages encoded together ({@link PageCodecTier0#encodePair}, the flusher's way) are the bytes
 * each gets from {@link PageCodecTier0#encode} alone, for random pages of every kind the codec
 * test generates, of any lengths (including empty, all-gap, constant and raw pages, and pages whose
 * bodies are of very different lengths), and for the real dataset's pages in flush order.
 */
class PageCodecTier0PairTest {

    private static final int GAP = StorageNumber.SN_EMPTY_SLOT;

    /** What {@link PageCodecTier0#encode} alone writes for {@code points[0, count)}. */
    private static byte[] alone(int[] points, int count) {
        byte[] dst = new byte[PageCodecTier0.maxEncodedLength(count)];
        int n = PageCodecTier0.encode(points, count, dst, 0);
        return Arrays.copyOf(dst, n);
    }

    /** Encodes both as a pair into scratch filled with junk; checks each against {@link #alone}. */
    private static void assertPairIsAlone(int[] a, int countA, int[] b, int countB, byte[] scratchA, byte[] scratchB,
                                          String what) {
        Arrays.fill(scratchA, (byte) 0xa5);
        Arrays.fill(scratchB, (byte) 0x3c);
        long lengths = PageCodecTier0.encodePair(a, countA, scratchA, b, countB, scratchB);
        byte[] pairA = Arrays.copyOf(scratchA, (int) (lengths >>> 32));
        byte[] pairB = Arrays.copyOf(scratchB, (int) lengths);
        assertArrayEquals(alone(a, countA), pairA, what + ": first page");
        assertArrayEquals(alone(b, countB), pairB, what + ": second page");
        int[] back = new int[Math.max(1, countB)];
        PageCodecTier0.decode(pairB, 0, pairB.length, back, countB);
        assertArrayEquals(Arrays.copyOf(b, countB), Arrays.copyOf(back, countB), what + ": second page decoded");
    }

    @Test
    void randomPagesOfEveryKindEncodeAsAlone() {
        byte[] scratchA = new byte[PageCodecTier0.maxEncodedLength(1024)];
        byte[] scratchB = new byte[PageCodecTier0.maxEncodedLength(1024)];
        SplittableRandom r = new SplittableRandom(0x9A1F);
        for (int round = 0; round < 3_000; round++) {
            int kindA = r.nextInt(10);
            int kindB = r.nextInt(10);
            int countA = r.nextInt(8) == 0 ? r.nextInt(4) : 1 + r.nextInt(1024);
            int countB = r.nextInt(8) == 0 ? r.nextInt(4) : 1 + r.nextInt(1024);
            int[] a = PageCodecTier0Test.generate(r, kindA, Math.max(countA, 1));
            int[] b = PageCodecTier0Test.generate(r, kindB, Math.max(countB, 1));
            if (r.nextInt(10) == 0) {
                Arrays.fill(a, r.nextBoolean() ? GAP : a[0]); // all gaps, or constant
            }
            assertPairIsAlone(a, countA, b, countB, scratchA, scratchB,
                    "round " + round + " kinds " + kindA + "/" + kindB + " counts " + countA + "/" + countB);
        }
    }

    @Test
    void theSameCodersServeOnePageAfterAPair() {
        SplittableRandom r = new SplittableRandom(7);
        byte[] scratchA = new byte[PageCodecTier0.maxEncodedLength(1024)];
        byte[] scratchB = new byte[PageCodecTier0.maxEncodedLength(1024)];
        for (int round = 0; round < 200; round++) {
            int[] a = PageCodecTier0Test.generate(r, 2, 1024);
            int[] b = PageCodecTier0Test.generate(r, 3, 700);
            assertPairIsAlone(a, a.length, b, b.length, scratchA, scratchB, "round " + round);
            // a page alone on the same thread afterwards still round-trips (no state left over)
            PageCodecTier0Test.roundTrip(PageCodecTier0Test.generate(r, r.nextInt(10), 1 + r.nextInt(1024)));
        }
    }

    @Test
    void realDatasetPagesInFlushOrderEncodeAsAlone() throws IOException {
        List<int[]> pages = PageCodecTier0Test.pages(PageCodecTier0Test.loadColumns());
        byte[] scratchA = new byte[PageCodecTier0.maxEncodedLength(1024)];
        byte[] scratchB = new byte[PageCodecTier0.maxEncodedLength(1024)];
        int pairs = 0;
        for (int i = 0; i + 1 < pages.size(); i += 2) {
            int[] a = pages.get(i);
            int[] b = pages.get(i + 1);
            assertPairIsAlone(a, a.length, b, b.length, scratchA, scratchB, "pages " + i + " and " + (i + 1));
            pairs++;
        }
        assertEquals(pages.size() / 2, pairs);
    }
}
