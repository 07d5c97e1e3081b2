package io.strata.engine.page;

/**
 * Bit-exact port of Netdata v1.37.x {@code storage_number}: the 4-byte tier-0 point of DBENGINE
 * ({@code libnetdata/storage_number/storage_number.{h,c}}).
 *
 * <p>A storage number is an unsigned 32-bit word in C; here it is carried in a Java {@code int}
 * with the same bits. Compare and mask it, never order it.
 *
 * <pre>
 *   31   30   29  28  27    26       25       24              23 ..................... 0
 * +----+----+-----------+--------+-------+---------------+--------------------------------+
 * |NEG |MUL | exponent  | MUL100 | RESET | NOT_ANOMALOUS |        mantissa (24 bits)      |
 * +----+----+-----------+--------+-------+---------------+--------------------------------+
 *   |    |       |          |        |           |                    |
 *   |    |       |          |        |           |                    +- unsigned integer 0..0xFFFFFF
 *   |    |       |          |        |           +- user flag: 1 = normal, 0 = anomalous (inverted)
 *   |    |       |          |        +- user flag: counter overflowed / reset at this point
 *   |    |       |          +- base is 100 instead of 10; alone (0x04000000) it is the empty slot
 *   |    |       +- 0..7
 *   |    +- 1: value = mantissa * base^exponent, 0: value = mantissa / base^exponent
 *   +- sign
 * </pre>
 *
 * <p>{@code value = (NEG ? -1 : 1) * lut[MUL100 * 16 + MUL * 8 + exponent] * mantissa}.
 *
 * <p>Only {@link #SN_EMPTY_SLOT} ({@code 0x04000000}) means "no value". {@code 0x00000000} is a
 * real point: zero, flagged anomalous (in Netdata releases before tiering it was the empty slot).
 * {@link #pack} never produces the empty slot for a finite input, because the MUL100 bit is only
 * ever set together with MUL.
 *
 * <p>Tier 1 and higher do not use this word. They store {@code storage_number_tier1_t}, 16 bytes
 * per point in host (little-endian) order, with no padding:
 *
 * <pre>
 * offset  size  C type    field
 *      0     4  float     sum_value
 *      4     4  float     min_value
 *      8     4  float     max_value
 *     12     2  uint16_t  count          (points aggregated into this one)
 *     14     2  uint16_t  anomaly_count  (how many of them were anomalous)
 * </pre>
 *
 * <p>Ported from the C sources as they stood in the v1.37 line: {@code pack_storage_number} with
 * {@code STORAGE_WITH_MATH} defined (configure defines it by default, so distribution builds
 * round with {@code lrint}), {@code NETDATA_DOUBLE} = {@code double} (long double is opt-in), and
 * the inline {@code unpack_storage_number} with its 32-entry lookup table.
 */
public final class StorageNumber {

    /** No user flags: the point is anomalous and not a reset. */
    public static final int SN_FLAG_NONE = 0;
    /** Inverted anomaly bit, so that a freshly packed ordinary point has it set. */
    public static final int SN_FLAG_NOT_ANOMALOUS = 1 << 24;
    /** The collected counter overflowed or was reset at this point. */
    public static final int SN_FLAG_RESET = 1 << 25;
    /** Exponent base is 100 instead of 10; on its own it is the empty slot. */
    public static final int SN_FLAG_NOT_EXISTS_MUL100 = 1 << 26;
    /** The exponent multiplies the mantissa; otherwise it divides it. */
    public static final int SN_FLAG_MULTIPLY = 1 << 30;
    /** The value is negative. */
    public static final int SN_FLAG_NEGATIVE = 1 << 31;

    /** The only flags a caller may pass to {@link #pack}; the rest encode the number. */
    public static final int SN_USER_FLAGS = SN_FLAG_NOT_ANOMALOUS | SN_FLAG_RESET;
    /** Flags of an ordinary point: the anomaly bit is inverted, so "not anomalous" is set. */
    public static final int SN_DEFAULT_FLAGS = SN_FLAG_NOT_ANOMALOUS;
    /** A slot with no value (gap, or not collected). */
    public static final int SN_EMPTY_SLOT = SN_FLAG_NOT_EXISTS_MUL100;

    /** Mask of the 3-bit exponent (bits 27..29). */
    public static final int SN_EXPONENT_MASK = (1 << 29) | (1 << 28) | (1 << 27);
    /** Position of the exponent's lowest bit. */
    public static final int SN_EXPONENT_SHIFT = 27;
    /** Mask of the 24-bit mantissa. */
    public static final int SN_MANTISSA_MASK = 0x00ffffff;

    // The largest and smallest magnitudes, as raw words, from storage_number.h; all four have the
    // "not anomalous" bit set, as in the C macros.
    /** {@code STORAGE_NUMBER_POSITIVE_MAX_RAW}: 16777215 * 100^7. */
    public static final int STORAGE_NUMBER_POSITIVE_MAX_RAW =
            SN_FLAG_MULTIPLY | SN_EXPONENT_MASK | SN_FLAG_NOT_EXISTS_MUL100 | SN_FLAG_NOT_ANOMALOUS | 0x00ffffff;
    /** {@code STORAGE_NUMBER_POSITIVE_MIN_RAW}: 1 / 10^7. */
    public static final int STORAGE_NUMBER_POSITIVE_MIN_RAW =
            SN_EXPONENT_MASK | SN_FLAG_NOT_ANOMALOUS | 0x00000001;
    /** {@code STORAGE_NUMBER_NEGATIVE_MAX_RAW}: -1 / 10^7. */
    public static final int STORAGE_NUMBER_NEGATIVE_MAX_RAW =
            SN_FLAG_NEGATIVE | SN_EXPONENT_MASK | SN_FLAG_NOT_ANOMALOUS | 0x00000001;
    /** {@code STORAGE_NUMBER_NEGATIVE_MIN_RAW}: -16777215 * 100^7. */
    public static final int STORAGE_NUMBER_NEGATIVE_MIN_RAW =
            SN_FLAG_NEGATIVE | STORAGE_NUMBER_POSITIVE_MAX_RAW;

    /** {@code ACCURACY_LOSS_ACCEPTED_PERCENT}: Netdata's own tolerance, in percent. */
    public static final double ACCURACY_LOSS_ACCEPTED_PERCENT = 0.0001;

    /**
     * {@code unpack_storage_number_lut10x}: index {@code factor * 16 + exp * 8 + mul}. Built with
     * the same expressions as Netdata's constructor ({@code 1 / pow(10, i)} etc.), so the divisor
     * entries are the same correctly rounded reciprocals and unpack multiplies by them exactly as
     * C does. Math.pow is exact here: integral arguments with a representable result.
     */
    private static final double[] LUT10X = new double[4 * 8];

    static {
        for (int i = 0; i < 8; i++) {
            LUT10X[0 * 8 + i] = 1 / Math.pow(10, i);
            LUT10X[1 * 8 + i] = Math.pow(10, i);
            LUT10X[2 * 8 + i] = 1 / Math.pow(100, i);
            LUT10X[3 * 8 + i] = Math.pow(100, i);
        }
    }

    private StorageNumber() {
    }

    /**
     * {@code pack_storage_number}. The relative error is at most 3e-7 for magnitudes in
     * [0.1677722, 1.6777215e14] (mantissa of at least 1677722), at most 3e-6 above that (base 100
     * leaves a mantissa of at least 167773); below, the step is a fixed 1e-7, and magnitudes past
     * 1.6777215e21 saturate.
     *
     * @param value     the value; NaN and infinities become {@link #SN_EMPTY_SLOT}
     * @param userFlags any flags; only {@link #SN_USER_FLAGS} are kept, as in C
     * @return the storage number
     */
    public static int pack(double value, int userFlags) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return SN_EMPTY_SLOT;
        }

        int r = userFlags & SN_USER_FLAGS;

        // C tests fpclassify() for FP_ZERO / FP_SUBNORMAL, so -0.0 and denormals lose their sign
        // and become a flags-only zero.
        if (Math.abs(value) < Double.MIN_NORMAL) {
            return r;
        }

        int m = 0;
        double n = value;
        double factor = 10;

        if (n < 0) {
            r += SN_FLAG_NEGATIVE;
            n = -n;
        }

        if (n / 10000000.0 > 0x00ffffff) {
            factor = 100;
            r |= SN_FLAG_NOT_EXISTS_MUL100;
        }

        while (m < 7 && n > (double) 0x00ffffff) {
            n /= factor;
            m++;
        }

        if (m != 0) {
            r += SN_FLAG_MULTIPLY + (m << SN_EXPONENT_SHIFT);

            if (n > (double) 0x00ffffff) {
                // Too big even at the largest exponent: C saturates rather than failing.
                r += 0x00ffffff;
                return r;
            }
        } else {
            // 0x0019999e * 10 is the first product past 0x00ffffff: scale small values up for
            // precision, then undo the step that overshot the mantissa.
            while (m < 7 && n < (double) 0x0019999e) {
                n *= 10;
                m++;
            }

            if (n > (double) 0x00ffffff) {
                n /= 10;
                m--;
            }
            r += m << SN_EXPONENT_SHIFT;
        }

        // lrint() under the default FE_TONEAREST mode: round half to even, like Math.rint.
        // n is at most 0x00ffffff here, so the add cannot carry into the flag bits.
        r += (int) Math.rint(n);

        return r;
    }

    /**
     * {@code unpack_storage_number}.
     *
     * @param sn a storage number
     * @return its value, or NaN for {@link #SN_EMPTY_SLOT}
     */
    public static double unpack(int sn) {
        if (sn == SN_EMPTY_SLOT) {
            return Double.NaN;
        }

        int sign = (sn & SN_FLAG_NEGATIVE) != 0 ? -1 : 1;
        int exp = (sn & SN_FLAG_MULTIPLY) != 0 ? 1 : 0;
        int factor = (sn & SN_FLAG_NOT_EXISTS_MUL100) != 0 ? 1 : 0;
        int mul = (sn & SN_EXPONENT_MASK) >>> SN_EXPONENT_SHIFT;
        double n = sn & SN_MANTISSA_MASK;

        return sign * LUT10X[(factor * 16) + (exp * 8) + mul] * n;
    }

    /** True for the empty slot only. */
    public static boolean isEmpty(int sn) {
        return sn == SN_EMPTY_SLOT;
    }

    /** {@code does_storage_number_exist}: anything but the empty slot, zeros included. */
    public static boolean exists(int sn) {
        return sn != SN_EMPTY_SLOT;
    }

    /** {@code did_storage_number_reset}. */
    public static boolean isReset(int sn) {
        return (sn & SN_FLAG_RESET) != 0;
    }

    /**
     * {@code is_storage_number_anomalous}. The empty slot has the anomaly bit clear but is not
     * anomalous: there is no point to judge.
     */
    public static boolean isAnomalous(int sn) {
        return sn != SN_EMPTY_SLOT && (sn & SN_FLAG_NOT_ANOMALOUS) == 0;
    }

    /** The {@link #SN_USER_FLAGS} part of a storage number, fit to pass back to {@link #pack}. */
    public static int userFlags(int sn) {
        return sn & SN_USER_FLAGS;
    }
}
