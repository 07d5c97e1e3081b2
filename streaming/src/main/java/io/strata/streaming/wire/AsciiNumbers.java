package io.strata.streaming.wire;

import java.nio.charset.StandardCharsets;

/**
 * Number parsing and word comparison on byte ranges of a protocol line, with the semantics of the C
 * functions Netdata 1.37.1 uses on the same words, and without allocating on the paths the data stream
 * takes ({@code SET} values, times, {@code %0.7f} doubles).
 */
public final class AsciiNumbers {
    /** Doubles up to this integer are exact, so one rounding step (multiply or divide) stays exact. */
    private static final long EXACT_DOUBLE_INTEGER = 1L << 53;
    /** 10^0 .. 10^22: the powers of ten a double holds exactly. */
    private static final double[] EXACT_POWERS_OF_TEN = {
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    };
    private static final int MAX_MANTISSA_DIGITS = 18;
    /** Beyond this any decimal exponent over- or underflows a double whatever the digits. */
    private static final int EXPONENT_CLAMP = 100_000;

    /** Decimal digits that cannot overflow a long: 10^18 - 1 < 2^63 - 1. */
    private static final int MAX_SAFE_DECIMAL_DIGITS = 18;

    private AsciiNumbers() {
    }

    /**
     * C {@code strtoll(s, NULL, 0)}: skips leading whitespace, takes an optional sign, reads hex after
     * {@code 0x}/{@code 0X}, octal after a leading {@code 0}, decimal otherwise, and stops at the first
     * byte that is not a digit of that base. Overflow saturates to {@link Long#MAX_VALUE} /
     * {@link Long#MIN_VALUE} (C also sets ERANGE); no digits at all gives 0.
     */
    public static long parseLongC(byte[] b, int s, int e) {
        if (e - s <= MAX_SAFE_DECIMAL_DIGITS && s < e && b[s] >= '1' && b[s] <= '9') {
            // what a SET carries: a decimal without space, sign or base prefix, too short to overflow
            long result = b[s] - '0';
            for (int i = s + 1; i < e; i++) {
                int digit = b[i] - '0';
                if (digit < 0 || digit > 9) {
                    break;
                }
                result = result * 10 + digit;
            }
            return result;
        }
        int i = s;
        while (i < e && isCSpace(b[i])) {
            i++;
        }
        boolean negative = false;
        if (i < e && (b[i] == '-' || b[i] == '+')) {
            negative = b[i] == '-';
            i++;
        }
        int base = 10;
        if (i < e && b[i] == '0') {
            if (i + 2 < e && (b[i + 1] | 0x20) == 'x' && digitValue(b[i + 2]) < 16) {
                base = 16;
                i += 2;
            } else {
                base = 8; // "0x" without a hex digit is the number 0 followed by garbage, as in C
            }
        }
        // accumulate negatively: the negative range is one larger, so MIN_VALUE needs no special case
        final long limit = negative ? Long.MIN_VALUE : -Long.MAX_VALUE;
        // a 64-bit division costs more than the rest of a short number: constants for base 10
        final long multiplyLimit = base != 10 ? limit / base
                : negative ? Long.MIN_VALUE / 10 : -Long.MAX_VALUE / 10;
        long result = 0;
        for (; i < e; i++) {
            int digit = digitValue(b[i]);
            if (digit >= base) {
                break;
            }
            if (result < multiplyLimit) {
                return negative ? Long.MIN_VALUE : Long.MAX_VALUE;
            }
            result *= base;
            if (result < limit + digit) {
                return negative ? Long.MIN_VALUE : Long.MAX_VALUE;
            }
            result -= digit;
        }
        return negative ? result : -result;
    }

    /** Whether the range holds no byte at all (Netdata's {@code !*word}, e.g. the value of {@code SET "x" = }). */
    public static boolean isEmpty(byte[] b, int s, int e) {
        return s >= e;
    }

    /**
     * C {@code strtod} for the numbers Netdata writes: {@code %0.7f} decimals, integers, exponents,
     * {@code NAN}/{@code nan}/{@code -nan}, {@code inf}/{@code infinity} (any case), also hex floats.
     * Leading whitespace is skipped and parsing stops at the first byte that does not continue the
     * number; no number at all gives 0.0.
     *
     * <p>Decimals with at most 18 significant digits whose exact value is an integer below 2^53 times or
     * divided by a power of ten up to 10^22 are computed with one correctly rounded operation (Clinger's
     * fast path: every {@code %0.7f} value under about 9e8, and any value once trailing zeros are
     * dropped); everything else goes through {@link Double#parseDouble}, which is correctly rounded but
     * allocates a String.
     */
    public static double parseDouble(byte[] b, int s, int e) {
        int i = s;
        while (i < e && isCSpace(b[i])) {
            i++;
        }
        boolean negative = false;
        if (i < e && (b[i] == '-' || b[i] == '+')) {
            negative = b[i] == '-';
            i++;
        }
        if (i >= e) {
            return 0.0;
        }
        final int c = b[i] | 0x20;
        if (c == 'n') {
            return matchesIgnoreCase(b, i, e, NAN) ? Double.NaN : 0.0;
        }
        if (c == 'i') {
            if (!matchesIgnoreCase(b, i, e, INF)) {
                return 0.0;
            }
            return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (b[i] == '0' && i + 1 < e && (b[i + 1] | 0x20) == 'x') {
            double magnitude = parseHexFloat(b, i + 2, e);
            return negative ? -magnitude : magnitude;
        }
        final int numberStart = i;
        long mantissa = 0;
        int mantissaDigits = 0;
        int exponent = 0;
        boolean anyDigit = false;
        boolean fastPath = true;
        for (; i < e && isDigit(b[i]); i++) {
            anyDigit = true;
            int digit = b[i] - '0';
            if (mantissaDigits < MAX_MANTISSA_DIGITS) {
                if (mantissa != 0 || digit != 0) {
                    mantissa = mantissa * 10 + digit;
                    mantissaDigits++;
                }
            } else {
                fastPath = false;
            }
        }
        if (i < e && b[i] == '.') {
            i++;
            for (; i < e && isDigit(b[i]); i++) {
                anyDigit = true;
                int digit = b[i] - '0';
                if (mantissaDigits < MAX_MANTISSA_DIGITS) {
                    if (mantissa != 0 || digit != 0) {
                        mantissa = mantissa * 10 + digit;
                        mantissaDigits++;
                    }
                    exponent--;
                } else {
                    fastPath = false;
                }
            }
        }
        if (!anyDigit) {
            return 0.0;
        }
        if (i < e && (b[i] | 0x20) == 'e') {
            int j = i + 1;
            boolean negativeExponent = false;
            if (j < e && (b[j] == '-' || b[j] == '+')) {
                negativeExponent = b[j] == '-';
                j++;
            }
            if (j < e && isDigit(b[j])) {
                int written = 0;
                for (; j < e && isDigit(b[j]); j++) {
                    if (written < EXPONENT_CLAMP) {
                        written = written * 10 + (b[j] - '0');
                    }
                }
                exponent += negativeExponent ? -written : written;
                i = j;
            }
        }
        if (fastPath) {
            if (mantissa == 0) {
                return negative ? -0.0 : 0.0;
            }
            // trailing zeros change nothing when both operands are exact (one correctly rounded
            // operation either way): strip them, a division each, only when out of that range
            while ((mantissa > EXACT_DOUBLE_INTEGER || exponent < -22) && exponent < 0 && mantissa % 10 == 0) {
                mantissa /= 10;
                exponent++;
            }
            if (mantissa <= EXACT_DOUBLE_INTEGER && exponent >= -22 && exponent <= 22) {
                double magnitude = exponent >= 0
                        ? (double) mantissa * EXACT_POWERS_OF_TEN[exponent]
                        : (double) mantissa / EXACT_POWERS_OF_TEN[-exponent];
                return negative ? -magnitude : magnitude;
            }
        }
        double magnitude = Double.parseDouble(new String(b, numberStart, i - numberStart, StandardCharsets.ISO_8859_1));
        return negative ? -magnitude : magnitude;
    }

    /** Whether {@code b[s .. e)} is exactly the ASCII bytes of {@code word}. */
    public static boolean equalsAscii(byte[] b, int s, int e, byte[] word) {
        if (e - s != word.length) {
            return false;
        }
        for (int i = 0; i < word.length; i++) {
            if (b[s + i] != word[i]) {
                return false;
            }
        }
        return true;
    }

    /** {@code b[s .. e)} decoded as UTF-8 (malformed bytes become U+FFFD): for definitions, not data. */
    public static String string(byte[] b, int s, int e) {
        return new String(b, s, e - s, StandardCharsets.UTF_8);
    }

    private static final byte[] NAN = {'n', 'a', 'n'};
    private static final byte[] INF = {'i', 'n', 'f'};

    /**
     * The hex digits after {@code 0x}: {@code h+[.h*]} or {@code .h+}, then an optional {@code p[sign]d+}.
     * Without any hex digit C converts just the {@code 0}. Rare on the wire, so it may allocate.
     */
    private static double parseHexFloat(byte[] b, int s, int e) {
        int i = s;
        boolean anyDigit = false;
        while (i < e && digitValue(b[i]) < 16) {
            i++;
            anyDigit = true;
        }
        if (i < e && b[i] == '.') {
            int j = i + 1;
            while (j < e && digitValue(b[j]) < 16) {
                j++;
                anyDigit = true;
            }
            if (anyDigit) {
                i = j;
            }
        }
        if (!anyDigit) {
            return 0.0;
        }
        int significandEnd = i;
        int exponent = 0;
        if (i < e && (b[i] | 0x20) == 'p') {
            int j = i + 1;
            boolean negativeExponent = false;
            if (j < e && (b[j] == '-' || b[j] == '+')) {
                negativeExponent = b[j] == '-';
                j++;
            }
            if (j < e && isDigit(b[j])) {
                for (; j < e && isDigit(b[j]); j++) {
                    if (exponent < EXPONENT_CLAMP) {
                        exponent = exponent * 10 + (b[j] - '0');
                    }
                }
                if (negativeExponent) {
                    exponent = -exponent;
                }
            }
        }
        // Java wants the binary exponent that C makes optional
        String literal = "0x" + new String(b, s, significandEnd - s, StandardCharsets.ISO_8859_1) + "p" + exponent;
        return Double.parseDouble(literal);
    }

    private static boolean matchesIgnoreCase(byte[] b, int s, int e, byte[] lowerWord) {
        if (e - s < lowerWord.length) {
            return false;
        }
        for (int i = 0; i < lowerWord.length; i++) {
            if ((b[s + i] | 0x20) != lowerWord[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    /** Value of a digit in bases up to 36; 99 for anything else. */
    private static int digitValue(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        int lower = c | 0x20;
        if (lower >= 'a' && lower <= 'z') {
            return lower - 'a' + 10;
        }
        return 99;
    }

    /** C isspace in the "C" locale. */
    private static boolean isCSpace(byte c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }
}
