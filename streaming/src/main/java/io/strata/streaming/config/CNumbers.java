package io.strata.streaming.config;

/**
 * The C library number parsers Netdata applies to configuration values and handshake parameters
 * ({@code strtoul(s, NULL, 0)}, {@code strtol}, {@code strtoll}), so that Strata reads the same
 * number from the same text: leading white space skipped, optional sign, base 0 ({@code 0x} hex,
 * leading {@code 0} octal, else decimal), parsing stops at the first character that is not a digit
 * of the base, no digits at all gives 0, overflow saturates.
 *
 * <p>None of these methods throws: Netdata never rejects a number, it reads what it can.
 */
public final class CNumbers {

    private CNumbers() {
    }

    /**
     * {@code strtoll(text, NULL, 0)}: a signed 64-bit value, saturating at {@link Long#MIN_VALUE} /
     * {@link Long#MAX_VALUE}.
     */
    public static long strtoll(CharSequence text) {
        Scan scan = scan(text);
        if (scan.overflow) {
            return scan.negative ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        // magnitude fits in an unsigned 64-bit value; it must also fit the signed range
        long magnitude = scan.magnitude;
        if (scan.negative) {
            if (Long.compareUnsigned(magnitude, Long.MIN_VALUE) > 0) {
                return Long.MIN_VALUE;
            }
            return -magnitude;
        }
        if (magnitude < 0) {
            return Long.MAX_VALUE;
        }
        return magnitude;
    }

    /** {@code strtol(text, NULL, 0)} on LP64 Linux, where {@code long} is 64 bits: same as {@link #strtoll}. */
    public static long strtol(CharSequence text) {
        return strtoll(text);
    }

    /**
     * {@code strtoul(text, NULL, 0)} on LP64 Linux: an unsigned 64-bit value returned in a {@code long}
     * (compare with {@link Long#compareUnsigned}). A leading minus negates in unsigned arithmetic, as C
     * does ("-1" gives 2^64-1); overflow gives 2^64-1.
     */
    public static long strtoul(CharSequence text) {
        Scan scan = scan(text);
        if (scan.overflow) {
            return -1L;
        }
        return scan.negative ? -scan.magnitude : scan.magnitude;
    }

    private static final class Scan {
        boolean negative;
        boolean overflow;
        long magnitude;
    }

    private static Scan scan(CharSequence text) {
        Scan scan = new Scan();
        if (text == null) {
            return scan;
        }
        int length = text.length();
        int i = 0;
        while (i < length && isCSpace(text.charAt(i))) {
            i++;
        }
        if (i < length && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
            scan.negative = text.charAt(i) == '-';
            i++;
        }
        int base = 10;
        if (i < length && text.charAt(i) == '0') {
            // "0x" only counts as a prefix when a hex digit follows; otherwise the "0" is the number
            if (i + 2 < length && (text.charAt(i + 1) == 'x' || text.charAt(i + 1) == 'X')
                    && digitValue(text.charAt(i + 2), 16) >= 0) {
                base = 16;
                i += 2;
            } else {
                base = 8;
            }
        }
        long value = 0;
        for (; i < length; i++) {
            int digit = digitValue(text.charAt(i), base);
            if (digit < 0) {
                break;
            }
            if (!scan.overflow) {
                // value * base + digit must stay within 2^64-1 (unsigned)
                if (Long.compareUnsigned(value, Long.divideUnsigned(-1L - digit, base)) > 0) {
                    scan.overflow = true;
                } else {
                    value = value * base + digit;
                }
            }
        }
        scan.magnitude = value;
        return scan;
    }

    private static int digitValue(char c, int base) {
        int digit;
        if (c >= '0' && c <= '9') {
            digit = c - '0';
        } else if (c >= 'a' && c <= 'z') {
            digit = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'Z') {
            digit = c - 'A' + 10;
        } else {
            return -1;
        }
        return digit < base ? digit : -1;
    }

    /** C's {@code isspace} in the C locale: space, \t, \n, \v, \f, \r. */
    public static boolean isCSpace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }
}
