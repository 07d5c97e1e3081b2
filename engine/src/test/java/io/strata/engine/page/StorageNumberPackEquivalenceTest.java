package io.strata.engine.page;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link StorageNumber#pack} gives every value the bits of the loop it had before whole numbers got
 * their own path ({@link #reference}, kept here as it was): every whole number of the mantissa's
 * range and its negative, the thresholds' neighbours by one ulp, and random values of every
 * magnitude, whole and not, with every flag.
 */
class StorageNumberPackEquivalenceTest {

    /** {@code pack} as it was, a loop of multiplications by 10 for every value below 0x00ffffff. */
    static int reference(double value, int userFlags) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return StorageNumber.SN_EMPTY_SLOT;
        }
        int r = userFlags & StorageNumber.SN_USER_FLAGS;
        if (Math.abs(value) < Double.MIN_NORMAL) {
            return r;
        }
        int m = 0;
        double n = value;
        double factor = 10;
        if (n < 0) {
            r += StorageNumber.SN_FLAG_NEGATIVE;
            n = -n;
        }
        if (n / 10000000.0 > 0x00ffffff) {
            factor = 100;
            r |= StorageNumber.SN_FLAG_NOT_EXISTS_MUL100;
        }
        while (m < 7 && n > (double) 0x00ffffff) {
            n /= factor;
            m++;
        }
        if (m != 0) {
            r += StorageNumber.SN_FLAG_MULTIPLY + (m << StorageNumber.SN_EXPONENT_SHIFT);
            if (n > (double) 0x00ffffff) {
                r += 0x00ffffff;
                return r;
            }
        } else {
            while (m < 7 && n < (double) 0x0019999e) {
                n *= 10;
                m++;
            }
            if (n > (double) 0x00ffffff) {
                n /= 10;
                m--;
            }
            r += m << StorageNumber.SN_EXPONENT_SHIFT;
        }
        r += (int) Math.rint(n);
        return r;
    }

    private static final int[] FLAGS = {StorageNumber.SN_FLAG_NONE, StorageNumber.SN_FLAG_NOT_ANOMALOUS,
        StorageNumber.SN_FLAG_RESET | StorageNumber.SN_FLAG_NOT_ANOMALOUS, -1};

    private static void check(double v, int flags) {
        int expected = reference(v, flags);
        int actual = StorageNumber.pack(v, flags);
        if (expected != actual) {
            fail(String.format("pack(%s, %x): %08x, the loop gives %08x", v, flags, actual, expected));
        }
    }

    @Test
    void everyWholeNumberOfTheMantissasRange() {
        for (int n = 0; n <= 0x01000010; n++) {
            int flags = FLAGS[n & 3];
            check(n, flags);
            check(-n, flags);
        }
    }

    @Test
    void theThresholdsNeighbours() {
        double[] edges = {1, 2, 17, 168, 1678, 16778, 167773, 1677726, 0x00ffffff, 0x01000000, 1677721, 1677722,
            1677725, 16, 167, 1677, 16777, 167772, 0.5, 0.1677722, 1.6777215e14, 1.6777215e21};
        for (double e : edges) {
            double v = e;
            double w = e;
            for (int i = 0; i < 64; i++) {
                for (int flags : FLAGS) {
                    check(v, flags);
                    check(-v, flags);
                    check(w, flags);
                }
                v = Math.nextUp(v);
                w = Math.nextDown(w);
            }
            for (double f = e * 0.999; f <= e * 1.001; f += Math.max(e * 1e-6, 1e-9)) {
                check(f, StorageNumber.SN_FLAG_NOT_ANOMALOUS);
            }
        }
    }

    @Test
    void randomValuesOfEveryMagnitude() {
        SplittableRandom r = new SplittableRandom(0x5707);
        for (int i = 0; i < 3_000_000; i++) {
            double v;
            switch (i % 5) {
                case 0 -> v = r.nextLong(1L << 40) * (r.nextBoolean() ? 1 : -1);
                case 1 -> v = Math.pow(10, r.nextDouble(-30, 30)) * (r.nextBoolean() ? 1 : -1);
                case 2 -> v = r.nextInt(0x01000000) / Math.pow(10, r.nextInt(0, 8));
                case 3 -> v = Double.longBitsToDouble(r.nextLong());
                default -> v = r.nextInt(100_000) + r.nextInt(3) * 0.5;
            }
            check(v, FLAGS[i & 3]);
        }
    }
}
