package io.strata.query.text;

/**
 * Netdata reads its numeric parameters with C's {@code strtol}/{@code strtod}: leading blanks, a
 * sign, as many digits as there are, the rest ignored; no digits at all reads as 0. These do the
 * same without throwing, so that no parameter can fail a request.
 */
public final class CNumbers {

    private CNumbers() {
    }

    /** {@code strtol(s, NULL, 10)}, saturating at the long range; null reads as 0. */
    public static long strtol(String s) {
        if (s == null) {
            return 0;
        }
        int i = 0;
        int n = s.length();
        while (i < n && isBlank(s.charAt(i))) {
            i++;
        }
        boolean negative = false;
        if (i < n && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        long v = 0;
        boolean overflow = false;
        while (i < n) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                break;
            }
            if (!overflow) {
                int d = c - '0';
                if (v > (Long.MAX_VALUE - d) / 10) {
                    overflow = true;
                } else {
                    v = v * 10 + d;
                }
            }
            i++;
        }
        if (overflow) {
            return negative ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return negative ? -v : v;
    }

    /** {@code strtod} on the longest numeric prefix of {@code s}; no number reads as 0. */
    public static double strtod(String s) {
        if (s == null) {
            return 0;
        }
        int i = 0;
        int n = s.length();
        while (i < n && isBlank(s.charAt(i))) {
            i++;
        }
        int start = i;
        if (i < n && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            i++;
        }
        int digits = 0;
        while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
            digits++;
        }
        if (i < n && s.charAt(i) == '.') {
            i++;
            while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                i++;
                digits++;
            }
        }
        if (digits == 0) {
            return 0;
        }
        int mantissaEnd = i;
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            int j = i + 1;
            if (j < n && (s.charAt(j) == '-' || s.charAt(j) == '+')) {
                j++;
            }
            int expDigits = 0;
            while (j < n && s.charAt(j) >= '0' && s.charAt(j) <= '9' && expDigits < 6) {
                j++;
                expDigits++;
            }
            if (expDigits > 0) {
                mantissaEnd = j;
            }
        }
        try {
            return Double.parseDouble(s.substring(start, mantissaEnd));
        } catch (NumberFormatException e) {
            // unreachable for the characters accepted above; a C parser would read 0 here too
            return 0;
        }
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B;
    }
}
