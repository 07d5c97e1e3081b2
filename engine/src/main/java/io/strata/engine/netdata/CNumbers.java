package io.strata.engine.netdata;

/**
 * The C library number parsers Netdata applies to configuration values, handshake parameters and
 * query parameters ({@code strtoul(s, NULL, 0)}, {@code strtol(s, NULL, 10)}, {@code strtoll},
 * {@code strtod}), so that Strata reads the same number from the same text: leading white space
 * skipped, optional sign, digits of the base (base 0: {@code 0x} hex, leading {@code 0} octal, else
 * decimal), parsing stops at the first character that is not a digit of the base, no digits at all
 * gives 0, overflow saturates.
 *
 * <p>None of these methods throws: Netdata never rejects a number, it reads what it can. Where Strata
 * itself refuses a value that is not a number (its own configuration keys), see {@link ConfigNumbers}.
 */
public final class CNumbers {

    private CNumbers() {
    }

    /**
     * {@code strtoll(text, NULL, 0)}: a signed 64-bit value, saturating at {@link Long#MIN_VALUE} /
     * {@link Long#MAX_VALUE}.
     */
    public static long strtoll(CharSequence text) {
        return strtol(text, 0);
    }

    /** {@code strtol(text, NULL, 0)} on LP64 Linux, where {@code long} is 64 bits: same as {@link #strtoll}. */
    public static long strtol(CharSequence text) {
        return strtol(text, 0);
    }

    /**
     * {@code strtol(text, NULL, base)} on LP64 Linux: base 0 (prefix decides) or 2 to 36; the query API
     * reads its time and count parameters with base 10, where {@code "0x1F"} is 0 and {@code "010"}
     * is 10.
     */
    public static long strtol(CharSequence text, int base) {
        Scan scan = scan(text, base);
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

    /**
     * {@code strtoul(text, NULL, 0)} on LP64 Linux: an unsigned 64-bit value returned in a {@code long}
     * (compare with {@link Long#compareUnsigned}). A leading minus negates in unsigned arithmetic, as C
     * does ("-1" gives 2^64-1); overflow gives 2^64-1.
     */
    public static long strtoul(CharSequence text) {
        Scan scan = scan(text, 0);
        if (scan.overflow) {
            return -1L;
        }
        return scan.negative ? -scan.magnitude : scan.magnitude;
    }

    /**
     * {@code strtod(text, NULL)} on the longest decimal prefix of {@code text} (sign, digits, a point,
     * an exponent of at most six digits); no number (or {@code null}) reads as 0. Hexadecimal floats,
     * {@code inf} and {@code nan} are not read: no caller's Netdata counterpart meets them.
     */
    public static double strtod(CharSequence text) {
        if (text == null) {
            return 0;
        }
        int i = 0;
        int n = text.length();
        while (i < n && isCSpace(text.charAt(i))) {
            i++;
        }
        int start = i;
        if (i < n && (text.charAt(i) == '-' || text.charAt(i) == '+')) {
            i++;
        }
        int digits = 0;
        while (i < n && isDigit(text.charAt(i))) {
            i++;
            digits++;
        }
        if (i < n && text.charAt(i) == '.') {
            i++;
            while (i < n && isDigit(text.charAt(i))) {
                i++;
                digits++;
            }
        }
        if (digits == 0) {
            return 0;
        }
        int mantissaEnd = i;
        if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            int j = i + 1;
            if (j < n && (text.charAt(j) == '-' || text.charAt(j) == '+')) {
                j++;
            }
            int expDigits = 0;
            while (j < n && isDigit(text.charAt(j)) && expDigits < 6) {
                j++;
                expDigits++;
            }
            if (expDigits > 0) {
                mantissaEnd = j;
            }
        }
        try {
            return Double.parseDouble(text.subSequence(start, mantissaEnd).toString());
        } catch (NumberFormatException e) {
            // unreachable for the characters accepted above; a C parser would read 0 here too
            return 0;
        }
    }

    /** C's {@code isspace} in the C locale: space, \t, \n, \v, \f, \r. */
    public static boolean isCSpace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    private static final class Scan {
        boolean negative;
        boolean overflow;
        long magnitude;
    }

    private static Scan scan(CharSequence text, int requestedBase) {
        if (requestedBase != 0 && (requestedBase < 2 || requestedBase > 36)) {
            throw new IllegalArgumentException("base " + requestedBase + " is not 0 or 2..36");
        }
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
        int base = requestedBase;
        // "0x" only counts as a prefix when a hex digit follows; otherwise the "0" is the number
        boolean hexPrefix = i + 2 < length && text.charAt(i) == '0'
                && (text.charAt(i + 1) == 'x' || text.charAt(i + 1) == 'X')
                && digitValue(text.charAt(i + 2), 16) >= 0;
        if (base == 0) {
            if (hexPrefix) {
                base = 16;
            } else if (i < length && text.charAt(i) == '0') {
                base = 8;
            } else {
                base = 10;
            }
        }
        if (base == 16 && hexPrefix) {
            i += 2;
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

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
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
}
