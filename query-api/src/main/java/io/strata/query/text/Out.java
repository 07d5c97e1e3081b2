package io.strata.query.text;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * Writes a response body into a {@link ByteBuf}: ASCII and UTF-8 text, JSON strings and numbers
 * the way Netdata prints them, without an object per value.
 */
public final class Out {

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final long[] POW10 = {1L, 10L, 100L, 1000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L};
    /** Above this, scaling by 10^7 would leave the exact range of a long; such values print by BigDecimal. */
    private static final double SCALED_LIMIT = 9.0e11;

    private final ByteBuf buf;

    public Out(ByteBuf buf) {
        this.buf = buf;
    }

    public ByteBuf buf() {
        return buf;
    }

    /** Text known to be ASCII (keys, punctuation, numbers). */
    public Out a(CharSequence s) {
        buf.writeCharSequence(s, StandardCharsets.US_ASCII);
        return this;
    }

    public Out ch(char c) {
        buf.writeByte(c);
        return this;
    }

    /** Any text, UTF-8 encoded, not escaped. */
    public Out utf8(CharSequence s) {
        buf.writeCharSequence(s, StandardCharsets.UTF_8);
        return this;
    }

    /** {@code s} quoted and escaped as a JSON string; null prints {@code null}. */
    public Out jsonString(CharSequence s) {
        if (s == null) {
            return a("null");
        }
        buf.writeByte('"');
        jsonEscaped(s);
        buf.writeByte('"');
        return this;
    }

    /** {@code s} escaped for the inside of a JSON string (quotes, backslash, control characters). */
    public Out jsonEscaped(CharSequence s) {
        int start = 0;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\' || c < 0x20 || c == 0x2028 || c == 0x2029) {
                if (i > start) {
                    buf.writeCharSequence(s.subSequence(start, i), StandardCharsets.UTF_8);
                }
                escape(c);
                start = i + 1;
            }
        }
        if (start == 0) {
            buf.writeCharSequence(s, StandardCharsets.UTF_8);
        } else if (start < n) {
            buf.writeCharSequence(s.subSequence(start, n), StandardCharsets.UTF_8);
        }
        return this;
    }

    private void escape(char c) {
        buf.writeByte('\\');
        switch (c) {
            case '"' -> buf.writeByte('"');
            case '\\' -> buf.writeByte('\\');
            case '\n' -> buf.writeByte('n');
            case '\r' -> buf.writeByte('r');
            case '\t' -> buf.writeByte('t');
            case '\b' -> buf.writeByte('b');
            case '\f' -> buf.writeByte('f');
            default -> {
                buf.writeByte('u');
                buf.writeByte(HEX[(c >> 12) & 15]);
                buf.writeByte(HEX[(c >> 8) & 15]);
                buf.writeByte(HEX[(c >> 4) & 15]);
                buf.writeByte(HEX[c & 15]);
            }
        }
    }

    public Out integer(long v) {
        if (v == Long.MIN_VALUE) {
            return a("-9223372036854775808");
        }
        if (v < 0) {
            buf.writeByte('-');
            v = -v;
        }
        digits(v, 0);
        return this;
    }

    /** Writes the decimal digits of {@code v >= 0}, zero-padded to at least {@code width}. */
    private void digits(long v, int width) {
        int len = 1;
        for (long p = 10; len < 19 && v >= p; p *= 10) {
            len++;
        }
        for (int i = len; i < width; i++) {
            buf.writeByte('0');
        }
        int at = buf.writerIndex();
        buf.ensureWritable(len);
        for (int i = len - 1; i >= 0; i--) {
            buf.setByte(at + i, (int) ('0' + v % 10));
            v /= 10;
        }
        buf.writerIndex(at + len);
    }

    /**
     * A value as Netdata's query formatters print it: at most 7 decimals, trailing zeros and a
     * trailing dot dropped ({@code 31.31313}, {@code 0.5}, {@code 0}); not finite prints
     * {@code null}.
     */
    public Out number(double v) {
        if (!Double.isFinite(v)) {
            return a("null");
        }
        if (Math.abs(v) >= SCALED_LIMIT) {
            return a(new java.math.BigDecimal(v).setScale(7, java.math.RoundingMode.HALF_EVEN)
                    .stripTrailingZeros().toPlainString());
        }
        long scaled = Math.round(v * 1e7);
        if (scaled == 0) {
            buf.writeByte('0');
            return this;
        }
        if (scaled < 0) {
            buf.writeByte('-');
            scaled = -scaled;
        }
        long whole = scaled / 10_000_000L;
        long frac = scaled % 10_000_000L;
        digits(whole, 0);
        if (frac != 0) {
            int width = 7;
            while (frac % 10 == 0) {
                frac /= 10;
                width--;
            }
            buf.writeByte('.');
            digits(frac, width);
        }
        return this;
    }

    /** A value with exactly {@code decimals} decimals (allmetrics' {@code %0.7f}); not finite prints {@code nan}. */
    public Out fixed(double v, int decimals) {
        if (!Double.isFinite(v)) {
            return a(Double.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf");
        }
        if (Math.abs(v) >= SCALED_LIMIT || decimals > 7) {
            return a(new java.math.BigDecimal(v).setScale(decimals, java.math.RoundingMode.HALF_EVEN).toPlainString());
        }
        long scaled = Math.round(v * POW10[decimals]);
        if (scaled < 0) {
            buf.writeByte('-');
            scaled = -scaled;
        }
        digits(scaled / POW10[decimals], 0);
        if (decimals > 0) {
            buf.writeByte('.');
            digits(scaled % POW10[decimals], decimals);
        }
        return this;
    }

    /** Two digits, zero padded (dates). */
    public Out twoDigits(int v) {
        digits(v, 2);
        return this;
    }
}
