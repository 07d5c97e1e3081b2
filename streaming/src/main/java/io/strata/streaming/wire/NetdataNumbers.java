package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The number forms of Netdata 2.x's stream protocol ({@code docs/format/stream-interpolated.md}
 * §1): every number of {@code BEGIN2}/{@code SET2} and of the replication keywords
 * may be written as
 * <ul>
 *   <li>a decimal ({@code 1732600000}, {@code -5}, {@code 12.5}, {@code nan});</li>
 *   <li>{@code 0x} + upper-case hex digits: an unsigned 64-bit integer ({@code -0x1F} is -31);</li>
 *   <li>{@code #} + base64 digits ({@code A-Z a-z 0-9 + /}, most significant first): an unsigned
 *       64-bit integer ({@code -#B} is -1);</li>
 *   <li>{@code @} + base64 digits: the 64 bits of an IEEE754 double;</li>
 *   <li>{@code %} + hex digits: the 64 bits of an IEEE754 double.</li>
 * </ul>
 * The prefix decides the form, whatever was negotiated: a reader accepts all of them, as Netdata's
 * {@code str2ull_encoded}/{@code str2ll_encoded}/{@code str2ndd_encoded} do. Writers pick the form
 * from the capabilities: {@code IEEE754} → base64 ({@code #}, {@code @}); else hex integers
 * ({@code BEGIN2}/{@code SET2}) or decimals (replication), and decimal doubles.
 *
 * <p>Allocation-free: parsing reads a byte range, writing appends to a {@link ByteBuf}.
 */
public final class NetdataNumbers {

    private static final byte[] BASE64_DIGITS =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEX_DIGITS = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BASE64_VALUE = new byte[256];
    private static final byte[] HEX_VALUE = new byte[256];
    private static final byte[] NULL_WORD = {'n', 'u', 'l', 'l'};

    static {
        Arrays.fill(BASE64_VALUE, (byte) -1);
        Arrays.fill(HEX_VALUE, (byte) -1);
        for (int i = 0; i < 64; i++) {
            BASE64_VALUE[BASE64_DIGITS[i]] = (byte) i;
        }
        for (int i = 0; i < 16; i++) {
            HEX_VALUE[HEX_DIGITS[i]] = (byte) i;
            HEX_VALUE[Character.toLowerCase(HEX_DIGITS[i])] = (byte) i;
        }
    }

    private NetdataNumbers() {
    }

    // ---- reading --------------------------------------------------------------------------------

    /**
     * {@code str2ull_encoded}: {@code #}base64, {@code 0x}hex or decimal digits, as an unsigned
     * 64-bit value (wrapping, as C does); reading stops at the first byte that is not a digit of
     * the form; no digit gives 0.
     */
    public static long parseUnsigned(byte[] b, int s, int e) {
        if (s < e && b[s] == '#') {
            return base64(b, s + 1, e);
        }
        if (s + 1 < e && b[s] == '0' && b[s + 1] == 'x') {
            return hex(b, s + 2, e);
        }
        long v = 0;
        for (int i = s; i < e; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                break;
            }
            v = v * 10 + d;
        }
        return v;
    }

    /** {@code str2ll_encoded}: an optional {@code -}, then {@link #parseUnsigned}. */
    public static long parseSigned(byte[] b, int s, int e) {
        if (s < e && b[s] == '-') {
            return -parseUnsigned(b, s + 1, e);
        }
        return parseUnsigned(b, s, e);
    }

    /**
     * {@code str2ndd_encoded}: {@code @}base64 or {@code %}hex IEEE754 bits; an optional sign, then
     * {@code #}base64 or {@code 0x}hex integers; {@code null} is NaN (what Netdata prints for NaN);
     * anything else a decimal ({@link AsciiNumbers#parseDouble}).
     */
    public static double parseDouble(byte[] b, int s, int e) {
        if (s < e) {
            byte first = b[s];
            if (first == '@') {
                return Double.longBitsToDouble(base64(b, s + 1, e));
            }
            if (first == '%') {
                return Double.longBitsToDouble(hex(b, s + 1, e));
            }
            int i = s;
            double sign = 1.0;
            if (first == '-') {
                sign = -1.0;
                i++;
            }
            if (i < e && b[i] == '#') {
                return sign * unsignedToDouble(base64(b, i + 1, e));
            }
            if (i + 1 < e && b[i] == '0' && b[i + 1] == 'x') {
                return sign * unsignedToDouble(hex(b, i + 2, e));
            }
            if (e - s == NULL_WORD.length && AsciiNumbers.equalsAscii(b, s, e, NULL_WORD)) {
                return Double.NaN;
            }
        }
        return AsciiNumbers.parseDouble(b, s, e);
    }

    private static long base64(byte[] b, int s, int e) {
        long v = 0;
        for (int i = s; i < e; i++) {
            int d = BASE64_VALUE[b[i] & 0xFF];
            if (d < 0) {
                break;
            }
            v = (v << 6) | d;
        }
        return v;
    }

    private static long hex(byte[] b, int s, int e) {
        long v = 0;
        for (int i = s; i < e; i++) {
            int d = HEX_VALUE[b[i] & 0xFF];
            if (d < 0) {
                break;
            }
            v = (v << 4) | d;
        }
        return v;
    }

    private static double unsignedToDouble(long v) {
        if (v >= 0) {
            return v;
        }
        // above Long.MAX_VALUE: halve (keeping the low bit for rounding), convert, double
        return ((v >>> 1) | (v & 1)) * 2.0;
    }

    // ---- writing --------------------------------------------------------------------------------

    /** {@code buffer_print_uint64_base64}: {@code #} and the base64 digits of {@code v} as unsigned. */
    public static void writeUnsignedBase64(ByteBuf out, long v) {
        out.writeByte('#');
        writeBase64Digits(out, v);
    }

    /** {@code buffer_print_int64_base64}: {@code -} for a negative value, then its magnitude as {@link #writeUnsignedBase64}. */
    public static void writeSignedBase64(ByteBuf out, long v) {
        if (v < 0) {
            out.writeByte('-');
            v = -v;
        }
        writeUnsignedBase64(out, v);
    }

    /** {@code buffer_print_uint64_hex}: {@code 0x} and upper-case hex digits of {@code v} as unsigned. */
    public static void writeUnsignedHex(ByteBuf out, long v) {
        out.writeByte('0');
        out.writeByte('x');
        int shift = 60;
        while (shift > 0 && ((v >>> shift) & 0xF) == 0) {
            shift -= 4;
        }
        for (; shift >= 0; shift -= 4) {
            out.writeByte(HEX_DIGITS[(int) ((v >>> shift) & 0xF)]);
        }
    }

    /** {@code buffer_print_int64_hex}: {@code -} for a negative value, then {@link #writeUnsignedHex} of its magnitude. */
    public static void writeSignedHex(ByteBuf out, long v) {
        if (v < 0) {
            out.writeByte('-');
            v = -v;
        }
        writeUnsignedHex(out, v);
    }

    /** {@code buffer_print_netdata_double_base64}: {@code @} and the base64 digits of the double's raw bits. */
    public static void writeDoubleBase64(ByteBuf out, double v) {
        out.writeByte('@');
        writeBase64Digits(out, Double.doubleToRawLongBits(v));
    }

    /**
     * {@code buffer_print_netdata_double}: {@code null} for NaN and infinities; else the integral
     * part, and up to 7 fractional digits rounded half away from zero with trailing zeros removed
     * (no dot when the fraction rounds to 0). Values of 2^64/10 and above are written as a mantissa
     * with up to 18 fractional digits and {@code e+<exponent>}.
     */
    public static void writeDoubleDecimal(ByteBuf out, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            out.writeByte('n').writeByte('u').writeByte('l').writeByte('l');
            return;
        }
        if (v < 0) {
            out.writeByte('-');
            v = -v;
        }
        long precision = 10_000_000L;
        int wantedDigits = 7;
        int exponent = 0;
        if (v >= 1.8446744073709552E18) { // UINT64_MAX / 10 as a double
            exponent = (int) Math.floor(Math.log10(v));
            v /= Math.pow(10, exponent);
            precision = 1_000_000_000_000_000_000L;
            wantedDigits = 18;
        }
        double integralPart = Math.floor(v);
        double fractionalPart = v - integralPart;
        long integral = (long) integralPart;
        long fractional = (long) Math.rint(fractionalPart * precision); // llrint: ties to even
        if (fractional >= precision) {
            integral++;
            fractional -= precision;
        }
        writeDecimal(out, integral);
        if (fractional != 0) {
            out.writeByte('.');
            int digits = wantedDigits;
            while (fractional % 10 == 0) {
                fractional /= 10;
                digits--;
            }
            long scale = 1;
            for (int i = 1; i < digits; i++) {
                scale *= 10;
            }
            for (; scale > 0; scale /= 10) {
                out.writeByte('0' + (int) (fractional / scale % 10));
            }
        }
        if (exponent != 0) {
            out.writeByte('e').writeByte('+');
            writeDecimal(out, exponent);
        }
    }

    /** A non-negative long in decimal. */
    private static void writeDecimal(ByteBuf out, long v) {
        long scale = 1;
        while (v / scale >= 10) {
            scale *= 10;
        }
        for (; scale > 0; scale /= 10) {
            out.writeByte('0' + (int) (v / scale % 10));
        }
    }

    private static void writeBase64Digits(ByteBuf out, long v) {
        int shift = 60;
        while (shift > 0 && ((v >>> shift) & 63) == 0) {
            shift -= 6;
        }
        for (; shift >= 0; shift -= 6) {
            out.writeByte(BASE64_DIGITS[(int) ((v >>> shift) & 63)]);
        }
    }
}
