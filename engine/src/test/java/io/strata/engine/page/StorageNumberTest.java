package io.strata.engine.page;

import static io.strata.engine.page.StorageNumber.SN_DEFAULT_FLAGS;
import static io.strata.engine.page.StorageNumber.SN_EMPTY_SLOT;
import static io.strata.engine.page.StorageNumber.SN_FLAG_MULTIPLY;
import static io.strata.engine.page.StorageNumber.SN_FLAG_NEGATIVE;
import static io.strata.engine.page.StorageNumber.SN_FLAG_NONE;
import static io.strata.engine.page.StorageNumber.SN_FLAG_NOT_ANOMALOUS;
import static io.strata.engine.page.StorageNumber.SN_FLAG_NOT_EXISTS_MUL100;
import static io.strata.engine.page.StorageNumber.SN_FLAG_RESET;
import static io.strata.engine.page.StorageNumber.SN_USER_FLAGS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Expected words and double bits below were derived by hand from Netdata's C
 * {@code pack_storage_number} / {@code unpack_storage_number} and confirmed against that C code
 * compiled with gcc on x86-64 (STORAGE_WITH_MATH, NETDATA_DOUBLE = double).
 *
 * <p>Random tests use a fixed seed by default, printed on every run; pass
 * {@code -DstorageNumber.seed=N} to explore another one.
 */
class StorageNumberTest {

    private static final long DEFAULT_SEED = 0x5EED_1371L;
    private static final int D = SN_DEFAULT_FLAGS;

    private static long seed(String test) {
        long seed = Long.getLong("storageNumber.seed", DEFAULT_SEED);
        System.out.println("StorageNumberTest." + test + " seed=" + seed);
        return seed;
    }

    private static String hex(int sn) {
        return String.format("0x%08X", sn);
    }

    // --- known values -------------------------------------------------------------------------

    /** value, user flags, expected storage number, expected Double.doubleToRawLongBits(unpack). */
    private static void known(double value, int flags, int expectedSn, long expectedUnpackBits) {
        int sn = StorageNumber.pack(value, flags);
        assertEquals(expectedSn, sn, () -> "pack(" + value + ", " + hex(flags) + ") = " + hex(sn));
        double u = StorageNumber.unpack(sn);
        assertEquals(expectedUnpackBits, Double.doubleToRawLongBits(u),
                () -> "unpack(" + hex(sn) + ") = " + u);
    }

    @Test
    void knownValues() {
        // zero: flags only, and the sign of -0.0 is dropped (fpclassify == FP_ZERO)
        known(0.0, D, 0x01000000, 0x0000000000000000L);
        known(0.0, SN_FLAG_NONE, 0x00000000, 0x0000000000000000L);
        known(-0.0, SN_FLAG_NONE, 0x00000000, 0x0000000000000000L);
        known(-0.0, D, 0x01000000, 0x0000000000000000L);

        // 1 -> scaled up 7 times: 10000000 / 10^7
        known(1.0, D, 0x39989680, 0x3FF0000000000000L);
        known(-1.0, D, 0xB9989680, 0xBFF0000000000000L);
        // 0.1 -> 1000000 / 10^7; unpack is 1e-7 * 1e6, one ulp below 0.1
        known(0.1, D, 0x390F4240, 0x3FB9999999999999L);
        // the "0.9 becomes 0.89" of the C comment is only in printing: the word is exact
        known(0.9, D, 0x39895440, 0x3FECCCCCCCCCCCCCL);
        // 100 -> 10000000 / 10^5; (1/10^5) * 10^7 is one ulp above 100
        known(100.0, D, 0x29989680, 0x4059000000000001L);
        // 1e9 -> 10000000 * 10^2
        known(1e9, D, 0x51989680, 0x41CDCD6500000000L);
        // 1.5e15 / 10^7 > 0xFFFFFF, so base 100: 15000000 * 100^4
        known(1.5e15, D, 0x65E4E1C0, 0x431550F7DCA70000L);
        // last base-10 value: 16777215 * 10^7
        known(1.6777215e14, D, 0x79FFFFFF, 0x42E312CFECED3000L);
        // first base-100 value: 1677722 * 100^4
        known(1.6777216e14, D, 0x6519999A, 0x42E312D04C4B4000L);

        // mantissa boundaries around 0x0019999E and 0x00FFFFFF
        known(16777215.0, D, 0x01FFFFFF, 0x416FFFFFE0000000L);
        known(16777216.0, D, 0x4919999A, 0x4170000040000000L);
        known(1677721.0, D, 0x09FFFFFA, 0x4139999900000000L);
        known(1677722.0, D, 0x0119999A, 0x4139999A00000000L);
        known(1677726.0, D, 0x0119999E, 0x4139999E00000000L);

        // lrint rounds half to even: 2000001.5 -> 2000002 and 2000002.5 -> 2000002
        known(20000015.0, D, 0x491E8482, 0x417312D140000000L);
        known(20000025.0, D, 0x491E8482, 0x417312D140000000L);

        // everyday values
        known(123.456, D, 0x29BC6100, 0x405EDD2F1A9FBE77L);
        known(-98765.4321, D, 0x9196B43F, 0xC0F81CD6E147AE15L);
        known(3.14159265358979, D, 0x312FEFD9, 0x400921FB82C2BD7FL);
    }

    @Test
    void extremes() {
        // saturation at 0xFFFFFF * 100^7
        known(1e30, D, StorageNumber.STORAGE_NUMBER_POSITIVE_MAX_RAW, 0x4456BCC407D33BE1L);
        known(Double.MAX_VALUE, D, 0x7DFFFFFF, 0x4456BCC407D33BE1L);
        known(1.6777215e21, D, 0x7DFFFFFF, 0x4456BCC407D33BE1L);
        known(-Double.MAX_VALUE, D, StorageNumber.STORAGE_NUMBER_NEGATIVE_MIN_RAW, 0xC456BCC407D33BE1L);
        assertEquals(0x7DFFFFFF, StorageNumber.STORAGE_NUMBER_POSITIVE_MAX_RAW);
        assertEquals(0xFDFFFFFF, StorageNumber.STORAGE_NUMBER_NEGATIVE_MIN_RAW);

        // smallest step: 1 / 10^7
        known(1e-7, D, StorageNumber.STORAGE_NUMBER_POSITIVE_MIN_RAW, 0x3E7AD7F29ABCAF48L);
        known(-1e-7, D, StorageNumber.STORAGE_NUMBER_NEGATIVE_MAX_RAW, 0xBE7AD7F29ABCAF48L);
        assertEquals(0x39000001, StorageNumber.STORAGE_NUMBER_POSITIVE_MIN_RAW);
        assertEquals(0xB9000001, StorageNumber.STORAGE_NUMBER_NEGATIVE_MAX_RAW);
        known(6e-8, D, 0x39000001, 0x3E7AD7F29ABCAF48L);

        // tiny normal values underflow to a zero mantissa but keep exponent 7 and the sign:
        // a zero that is not the canonical zero, and not the empty slot
        known(4e-8, D, 0x39000000, 0x0000000000000000L);
        known(1e-300, D, 0x39000000, 0x0000000000000000L);
        known(Double.MIN_NORMAL, D, 0x39000000, 0x0000000000000000L);
        known(-1e-300, SN_FLAG_NONE, 0xB8000000, 0x8000000000000000L);

        // subnormals are treated as zero before any arithmetic
        known(Double.MIN_VALUE, D, 0x01000000, 0x0000000000000000L);
        known(-Double.MIN_VALUE, D, 0x01000000, 0x0000000000000000L);
        known(Math.nextDown(Double.MIN_NORMAL), D, 0x01000000, 0x0000000000000000L);
    }

    @Test
    void nanAndInfinityBecomeTheEmptySlot() {
        int[] flagSets = {SN_FLAG_NONE, D, SN_FLAG_RESET, SN_USER_FLAGS, -1};
        double[] values = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
            Double.longBitsToDouble(0x7FF0000000000001L), Double.longBitsToDouble(0xFFF8000000000000L)};
        for (double v : values) {
            for (int f : flagSets) {
                int sn = StorageNumber.pack(v, f);
                assertEquals(SN_EMPTY_SLOT, sn, () -> "pack(" + v + ", " + hex(f) + ")");
                assertTrue(StorageNumber.isEmpty(sn));
                assertFalse(StorageNumber.exists(sn));
                assertTrue(Double.isNaN(StorageNumber.unpack(sn)));
            }
        }
        assertEquals(0x04000000, SN_EMPTY_SLOT);
    }

    @Test
    void lookupTableMatchesC() {
        // unpack(mantissa 1) = sign * lut[i] * 1, so these are the bits of the C table entries
        long[] lut = {
            0x3FF0000000000000L, 0x3FB999999999999AL, 0x3F847AE147AE147BL, 0x3F50624DD2F1A9FCL,
            0x3F1A36E2EB1C432DL, 0x3EE4F8B588E368F1L, 0x3EB0C6F7A0B5ED8DL, 0x3E7AD7F29ABCAF48L,
            0x3FF0000000000000L, 0x4024000000000000L, 0x4059000000000000L, 0x408F400000000000L,
            0x40C3880000000000L, 0x40F86A0000000000L, 0x412E848000000000L, 0x416312D000000000L,
            0x3FF0000000000000L, 0x3F847AE147AE147BL, 0x3F1A36E2EB1C432DL, 0x3EB0C6F7A0B5ED8DL,
            0x3E45798EE2308C3AL, 0x3DDB7CDFD9D7BDBBL, 0x3D719799812DEA11L, 0x3D06849B86A12B9BL,
            0x3FF0000000000000L, 0x4059000000000000L, 0x40C3880000000000L, 0x412E848000000000L,
            0x4197D78400000000L, 0x4202A05F20000000L, 0x426D1A94A2000000L, 0x42D6BCC41E900000L,
        };
        for (int i = 0; i < 32; i++) {
            int factor = i >> 4;
            int exp = (i >> 3) & 1;
            int mul = i & 7;
            int sn = (factor * SN_FLAG_NOT_EXISTS_MUL100) | (exp * SN_FLAG_MULTIPLY) | (mul << 27) | 1;
            assertEquals(lut[i], Double.doubleToRawLongBits(StorageNumber.unpack(sn)), "lut[" + i + "]");
            assertEquals(lut[i] | Long.MIN_VALUE,
                    Double.doubleToRawLongBits(StorageNumber.unpack(sn | SN_FLAG_NEGATIVE)), "-lut[" + i + "]");
        }
    }

    // --- empty slot, zero, flags ----------------------------------------------------------------

    @Test
    void zeroAnomalyBitAndEmptySlot() {
        // an anomalous zero is all-zero bits and is a real point
        int anomalousZero = StorageNumber.pack(0.0, SN_FLAG_NONE);
        assertEquals(0, anomalousZero);
        assertTrue(StorageNumber.exists(anomalousZero));
        assertFalse(StorageNumber.isEmpty(anomalousZero));
        assertTrue(StorageNumber.isAnomalous(anomalousZero));
        assertFalse(StorageNumber.isReset(anomalousZero));
        assertEquals(0.0, StorageNumber.unpack(anomalousZero));

        // the empty slot has the anomaly bit clear yet is not anomalous, and has no flags
        assertFalse(StorageNumber.isAnomalous(SN_EMPTY_SLOT));
        assertFalse(StorageNumber.isReset(SN_EMPTY_SLOT));
        assertEquals(0, StorageNumber.userFlags(SN_EMPTY_SLOT));

        int normalZero = StorageNumber.pack(0.0, D);
        assertFalse(StorageNumber.isAnomalous(normalZero));
        assertTrue(StorageNumber.exists(normalZero));

        int resetZero = StorageNumber.pack(0.0, SN_FLAG_RESET);
        assertEquals(SN_FLAG_RESET, resetZero);
        assertTrue(StorageNumber.isReset(resetZero));
        assertTrue(StorageNumber.isAnomalous(resetZero));

        // MUL100 without MUL is never produced, so the empty slot cannot be packed by accident,
        // and a word differing from it only by user flags is a zero, not a gap
        int almostEmpty = SN_EMPTY_SLOT | SN_FLAG_NOT_ANOMALOUS;
        assertTrue(StorageNumber.exists(almostEmpty));
        assertEquals(0.0, StorageNumber.unpack(almostEmpty));
    }

    @Test
    void flagsArePreservedAndIndependentOfTheValue() {
        SplittableRandom rnd = new SplittableRandom(seed("flagsArePreservedAndIndependentOfTheValue"));
        int[] userFlagSets = {SN_FLAG_NONE, SN_FLAG_NOT_ANOMALOUS, SN_FLAG_RESET, SN_USER_FLAGS};
        for (int i = 0; i < 200_000; i++) {
            double v = randomWideValue(rnd);
            int bare = StorageNumber.pack(v, SN_FLAG_NONE);
            for (int f : userFlagSets) {
                int sn = StorageNumber.pack(v, f);
                if (StorageNumber.userFlags(sn) != f
                        || (sn & ~SN_USER_FLAGS) != bare
                        || StorageNumber.pack(v, f | ~SN_USER_FLAGS) != sn
                        || StorageNumber.isReset(sn) != ((f & SN_FLAG_RESET) != 0)
                        || StorageNumber.isAnomalous(sn) != ((f & SN_FLAG_NOT_ANOMALOUS) == 0)
                        || Double.doubleToRawLongBits(StorageNumber.unpack(sn))
                                != Double.doubleToRawLongBits(StorageNumber.unpack(bare))) {
                    fail("flags " + hex(f) + " on " + v + " -> " + hex(sn) + " (bare " + hex(bare) + ")");
                }
            }
        }
    }

    // --- round trips ----------------------------------------------------------------------------

    /**
     * The words {@code pack} emits and {@code pack(unpack(x))} keeps unchanged, derived from the C
     * loops: base 10 scaled down needs MUL, exponent 1..7 and a mantissa above 0xFFFFFF / 10; base
     * 10 scaled up needs a mantissa of at least 0x0019999A unless the exponent hit its cap of 7;
     * base 100 needs MUL, exponent 4..7 and a mantissa above 0xFFFFFF / 100 (above 0xFFFFFF / 10 at
     * exponent 4, where smaller values fit base 10). An all-zero number part is the only zero.
     * Checked exhaustively against the C code over all 2^32 words.
     */
    static boolean isCanonical(int x) {
        if (x == SN_EMPTY_SLOT) {
            return false;
        }
        if ((x & ~SN_USER_FLAGS) == 0) {
            return true;
        }
        int v = x & StorageNumber.SN_MANTISSA_MASK;
        int m = (x >>> 27) & 7;
        boolean mul = (x & SN_FLAG_MULTIPLY) != 0;
        boolean base100 = (x & SN_FLAG_NOT_EXISTS_MUL100) != 0;
        if (v == 0) {
            return false;
        }
        if (!mul && !base100) {
            return m == 7 || v >= 1677722;
        }
        if (mul && !base100) {
            return m >= 1 && v >= 1677722;
        }
        if (mul) {
            return m == 4 ? v >= 1677722 : m > 4 && v >= 167773;
        }
        return false;
    }

    private static boolean roundTrips(int x) {
        return StorageNumber.pack(StorageNumber.unpack(x), StorageNumber.userFlags(x)) == x;
    }

    @Test
    void roundTripOfAMillionValidStorageNumbers() {
        SplittableRandom rnd = new SplittableRandom(seed("roundTripOfAMillionValidStorageNumbers"));
        int done = 0;
        while (done < 1_000_000) {
            int x = rnd.nextInt();
            if (!isCanonical(x)) {
                continue;
            }
            if (!roundTrips(x)) {
                fail("pack(unpack(" + hex(x) + ")) = "
                        + hex(StorageNumber.pack(StorageNumber.unpack(x), StorageNumber.userFlags(x))));
            }
            done++;
        }
        for (int f = 0; f <= SN_USER_FLAGS; f += SN_FLAG_NOT_ANOMALOUS) {
            assertTrue(roundTrips(f), "zero with flags " + hex(f));
        }
        for (int x : new int[] {0x7DFFFFFF, 0xFDFFFFFF, 0x39000001, 0xB9000001, 0x01FFFFFF, 0x0119999A,
            0x4919999A, 0x6519999A, 0x79FFFFFF, 0x6C028F5D, 0x00199999 | 0x38000000}) {
            assertTrue(isCanonical(x) && roundTrips(x), hex(x));
        }
    }

    @Test
    void nonCanonicalWordsDoNotRoundTrip() {
        // keeps the predicate above honest: it must reject exactly what fails to round-trip
        SplittableRandom rnd = new SplittableRandom(seed("nonCanonicalWordsDoNotRoundTrip"));
        int rejected = 0;
        for (int i = 0; i < 1_000_000; i++) {
            int x = rnd.nextInt();
            boolean canonical = isCanonical(x);
            if (canonical != roundTrips(x) && x != SN_EMPTY_SLOT) {
                fail(hex(x) + " canonical=" + canonical);
            }
            if (!canonical) {
                rejected++;
            }
        }
        assertTrue(rejected > 100_000, "sample should hold many non-canonical words: " + rejected);
        // specific non-canonical shapes: -0, underflowed zeros, MUL100 without MUL, a mantissa that
        // packs into a higher exponent, base 100 below exponent 4, and 167772 at base 100
        for (int x : new int[] {0x80000000, 0x38000000, 0xB9000000, 0x04000001, 0x00199999, 0x08000001,
            0x5D000001, 0x6C028F5C, 0x40FFFFFF}) {
            assertFalse(isCanonical(x), hex(x));
            assertFalse(roundTrips(x), hex(x));
        }
    }

    // --- precision ------------------------------------------------------------------------------

    /** Log-uniform magnitude over 1e-12 .. 1e25, random sign. */
    private static double randomWideValue(SplittableRandom rnd) {
        double v = Math.pow(10, rnd.nextDouble(-12, 25));
        return rnd.nextBoolean() ? v : -v;
    }

    private static double logUniform(SplittableRandom rnd, double lo, double hi) {
        double v = Math.exp(rnd.nextDouble(Math.log(lo), Math.log(hi)));
        v = Math.min(Math.max(v, lo), hi);
        return rnd.nextBoolean() ? v : -v;
    }

    @Test
    void relativeErrorWithinNetdataToleranceInTheBase10Range() {
        // Netdata accepts 0.0001 % (ACCURACY_LOSS_ACCEPTED_PERCENT); a mantissa of at least
        // 1677722 gives at most 0.5 / 1677722 = 3e-7
        SplittableRandom rnd = new SplittableRandom(seed("relativeErrorWithinNetdataToleranceInTheBase10Range"));
        double tolerance = StorageNumber.ACCURACY_LOSS_ACCEPTED_PERCENT / 100;
        assertEquals(1e-6, tolerance, 1e-18);
        double worst = 0;
        for (int i = 0; i < 2_000_000; i++) {
            double v = logUniform(rnd, 0.1677722, 1.6777215e14);
            double u = StorageNumber.unpack(StorageNumber.pack(v, D));
            double err = Math.abs(u - v) / Math.abs(v);
            if (!(err <= tolerance)) {
                fail("v=" + v + " unpacked=" + u + " relative error " + err);
            }
            worst = Math.max(worst, err);
        }
        assertTrue(worst <= 3e-7, "worst relative error " + worst);
    }

    @Test
    void relativeErrorInTheBase100Range() {
        // base 100 can leave a mantissa as small as 167773: at most 0.5 / 167772 = 3e-6, which is
        // coarser than Netdata's own tolerance; this is the format, not the port
        SplittableRandom rnd = new SplittableRandom(seed("relativeErrorInTheBase100Range"));
        for (int i = 0; i < 1_000_000; i++) {
            double v = logUniform(rnd, 1.6777216e14, 1.6777215e21);
            double u = StorageNumber.unpack(StorageNumber.pack(v, D));
            double err = Math.abs(u - v) / Math.abs(v);
            if (!(err <= 3e-6)) {
                fail("v=" + v + " unpacked=" + u + " relative error " + err);
            }
        }
    }

    @Test
    void absoluteErrorBelowTheBase10Range() {
        // exponent 7 is the cap, so small values keep a fixed step of 1e-7
        SplittableRandom rnd = new SplittableRandom(seed("absoluteErrorBelowTheBase10Range"));
        for (int i = 0; i < 1_000_000; i++) {
            double v = logUniform(rnd, 1e-12, 0.1677722);
            int sn = StorageNumber.pack(v, D);
            double u = StorageNumber.unpack(sn);
            if (!(Math.abs(u - v) <= 0.5e-7 + 1e-15) || (sn & 0x38000000) != 0x38000000) {
                fail("v=" + v + " -> " + hex(sn) + " unpacked=" + u);
            }
        }
    }

    @Test
    void wideRangeNeverYieldsTheEmptySlotAndKeepsTheSign() {
        SplittableRandom rnd = new SplittableRandom(seed("wideRangeNeverYieldsTheEmptySlotAndKeepsTheSign"));
        for (int i = 0; i < 1_000_000; i++) {
            double v = rnd.nextBoolean() ? randomWideValue(rnd) : Double.longBitsToDouble(rnd.nextLong());
            int sn = StorageNumber.pack(v, rnd.nextInt());
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                assertEquals(SN_EMPTY_SLOT, sn);
                continue;
            }
            double u = StorageNumber.unpack(sn);
            boolean signOk = u == 0 || (u < 0) == (v < 0);
            if (sn == SN_EMPTY_SLOT || Double.isNaN(u) || !signOk || Math.abs(u) > 1.6777215000000001e21) {
                fail("v=" + v + " -> " + hex(sn) + " unpacked=" + u);
            }
        }
    }
}
