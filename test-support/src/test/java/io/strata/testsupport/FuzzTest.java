package io.strata.testsupport;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The harness's generator is {@link Random}'s: a seed gives every fuzz test the inputs that
 * {@code new Random(seed)} gives, so seeds printed before the generator lost its atomic seed still replay.
 */
class FuzzTest {

    /** Every kind of draw a fuzz test makes, in a mix that depends on the numbers drawn. */
    private static List<Object> draws(Random r) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            switch (Math.abs(out.size() + (out.isEmpty() ? 0 : out.get(out.size() - 1).hashCode())) % 11) {
                case 0 -> out.add(r.nextInt());
                case 1 -> out.add(r.nextInt(8));
                case 2 -> out.add(r.nextInt(37));
                case 3 -> out.add(r.nextInt(Integer.MAX_VALUE));
                case 4 -> out.add(r.nextLong());
                case 5 -> out.add(r.nextBoolean());
                case 6 -> out.add(r.nextDouble());
                case 7 -> out.add(r.nextFloat());
                case 8 -> out.add(r.nextGaussian());
                case 9 -> {
                    byte[] b = new byte[r.nextInt(23)];
                    r.nextBytes(b);
                    out.add(new String(b, java.nio.charset.StandardCharsets.ISO_8859_1));
                }
                default -> out.add(r.nextInt(5, 1000) + ":" + r.nextLong(3, 1L << 40));
            }
        }
        return out;
    }

    @Test
    void theGeneratorDrawsWhatJavaUtilRandomDraws() {
        Fuzz.UnsharedRandom unshared = new Fuzz.UnsharedRandom();
        for (long seed : new long[] {0, 1, -1, 42, 0x5EED_0137_1L, Long.MIN_VALUE, Long.MAX_VALUE, 1592597473L}) {
            unshared.setSeed(seed);
            assertEquals(draws(new Random(seed)), draws(unshared), "seed " + seed);
            assertEquals(draws(new Random(seed)), draws(new Fuzz.UnsharedRandom(seed)), "constructed with seed " + seed);
        }
        // re-seeding in the middle of a Gaussian pair forgets the pending one, as Random does
        Random plain = new Random(7);
        unshared.setSeed(7);
        assertEquals(plain.nextGaussian(), unshared.nextGaussian());
        plain.setSeed(9);
        unshared.setSeed(9);
        assertEquals(plain.nextGaussian(), unshared.nextGaussian());
    }

    @Test
    void eachInputIsDrawnFromItsOwnSeed() {
        long base = 1234;
        List<byte[]> seen = new ArrayList<>();
        Fuzz.Result result = Fuzz.run("generator check", base, 50, in -> {
            byte[] b = new byte[16];
            in.random().nextBytes(b);
            seen.add(b);
            assertEquals(base + in.index(), in.seed());
        });
        assertEquals(50, seen.size());
        for (int i = 0; i < seen.size(); i++) {
            byte[] expected = new byte[16];
            new Random(base + i).nextBytes(expected);
            assertArrayEquals(expected, seen.get(i), "input " + i);
        }
        assertTrue(result.nanos() > 0);
    }
}
