package io.strata.query.text;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Builds a response body: ASCII and UTF-8 text, JSON strings and numbers the way Netdata prints
 * them, without an object per value. Writes go to a plain growing byte array (a data answer is
 * millions of one-byte writes; a {@link ByteBuf} checks its reference count on each) that
 * {@link #toByteBuf} hands over without copying.
 */
public final class Out {

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final long[] POW10 = {1L, 10L, 100L, 1000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L};
    /** Above this, scaling by 10^7 would leave the exact range of a long; such values print by BigDecimal. */
    private static final double SCALED_LIMIT = 9.0e11;

    private byte[] bytes;
    private int size;

    public Out() {
        this(4096);
    }

    public Out(int initialCapacity) {
        bytes = new byte[Math.max(16, initialCapacity)];
    }

    /** The bytes written, as a buffer sharing this array (write nothing more afterwards). */
    public ByteBuf toByteBuf() {
        return Unpooled.wrappedBuffer(bytes, 0, size);
    }

    /** The bytes written, decoded as UTF-8. */
    public String text() {
        return new String(bytes, 0, size, StandardCharsets.UTF_8);
    }

    public int size() {
        return size;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            long grown = Math.max((long) size + more, (long) bytes.length * 2);
            if (grown > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("response body over 2 GiB");
            }
            bytes = Arrays.copyOf(bytes, (int) grown);
        }
    }

    private void put(int b) {
        if (size == bytes.length) {
            ensure(1);
        }
        bytes[size++] = (byte) b;
    }

    /** Text known to be ASCII (keys, punctuation, numbers); other characters become '?'. */
    public Out a(CharSequence s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            bytes[size++] = (byte) (c < 128 ? c : '?');
        }
        return this;
    }

    public Out ch(char c) {
        put(c);
        return this;
    }

    /** One byte as it is (a cut UTF-8 sequence where Netdata writes one). */
    public Out raw(int b) {
        put(b);
        return this;
    }

    /** Any text, UTF-8 encoded, not escaped. */
    public Out utf8(CharSequence s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                put(c);
            } else if (c < 0x800) {
                put(0xC0 | (c >> 6));
                put(0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                put(0xF0 | (cp >> 18));
                put(0x80 | ((cp >> 12) & 0x3F));
                put(0x80 | ((cp >> 6) & 0x3F));
                put(0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                put('?');
            } else {
                put(0xE0 | (c >> 12));
                put(0x80 | ((c >> 6) & 0x3F));
                put(0x80 | (c & 0x3F));
            }
        }
        return this;
    }

    /** {@code s} quoted and escaped as a JSON string; null prints {@code null}. */
    /**
     * A string between {@code quote}s: a JSON string for '"', else (Netdata's google_json
     * wrapper, single quotes) the text as it is, as Netdata writes it.
     */
    public Out quoted(char quote, CharSequence s) {
        return quote == '"' ? jsonString(s) : ch(quote).utf8(s).ch(quote);
    }

    public Out jsonString(CharSequence s) {
        if (s == null) {
            return a("null");
        }
        put('"');
        jsonEscaped(s);
        put('"');
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
                    utf8(s.subSequence(start, i));
                }
                escape(c);
                start = i + 1;
            }
        }
        if (start == 0) {
            utf8(s);
        } else if (start < n) {
            utf8(s.subSequence(start, n));
        }
        return this;
    }

    private void escape(char c) {
        put('\\');
        switch (c) {
            case '"' -> put('"');
            case '\\' -> put('\\');
            case '\n' -> put('n');
            case '\r' -> put('r');
            case '\t' -> put('t');
            case '\b' -> put('b');
            case '\f' -> put('f');
            default -> {
                put('u');
                put(HEX[(c >> 12) & 15]);
                put(HEX[(c >> 8) & 15]);
                put(HEX[(c >> 4) & 15]);
                put(HEX[c & 15]);
            }
        }
    }

    public Out integer(long v) {
        if (v == Long.MIN_VALUE) {
            return a("-9223372036854775808");
        }
        if (v < 0) {
            put('-');
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
            put('0');
        }
        ensure(len);
        for (int i = len - 1; i >= 0; i--) {
            bytes[size + i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        size += len;
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
            return a(new BigDecimal(v).setScale(7, RoundingMode.HALF_EVEN)
                    .stripTrailingZeros().toPlainString());
        }
        long scaled = Math.round(v * 1e7);
        if (scaled == 0) {
            put('0');
            return this;
        }
        if (scaled < 0) {
            put('-');
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
            put('.');
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
            return a(new BigDecimal(v).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString());
        }
        long scaled = Math.round(v * POW10[decimals]);
        if (scaled < 0) {
            put('-');
            scaled = -scaled;
        }
        digits(scaled / POW10[decimals], 0);
        if (decimals > 0) {
            put('.');
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
