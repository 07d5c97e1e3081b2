package io.strata.query.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The parameters of a URL's query string, in order, as Netdata reads them: split at {@code &},
 * name and value at the first {@code =}, each percent-decoded ({@code +} is a space). Netdata
 * skips a parameter whose name or value is empty; {@link #flags} keeps the value-less names
 * ({@code /alarms?active}). Malformed escapes are kept as written: parsing never fails.
 */
public final class QueryString {

    private final List<String> names = new ArrayList<>();
    private final List<String> values = new ArrayList<>();
    private final List<String> flags = new ArrayList<>();

    private QueryString() {
    }

    /** Parses a raw (still percent-encoded) query string, the part of a URL after its {@code ?}. */
    public static QueryString parse(String rawQuery) {
        QueryString q = new QueryString();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return q;
        }
        int start = 0;
        int n = rawQuery.length();
        while (start <= n) {
            int amp = rawQuery.indexOf('&', start);
            int end = amp < 0 ? n : amp;
            if (end > start) {
                String part = rawQuery.substring(start, end);
                int eq = part.indexOf('=');
                if (eq < 0) {
                    q.flags.add(decode(part));
                } else if (eq > 0) {
                    String name = decode(part.substring(0, eq));
                    String value = decode(part.substring(eq + 1));
                    if (value.isEmpty()) {
                        q.flags.add(name);
                    } else if (!name.isEmpty()) {
                        q.names.add(name);
                        q.values.add(value);
                    }
                }
            }
            if (amp < 0) {
                break;
            }
            start = amp + 1;
        }
        return q;
    }

    public int size() {
        return names.size();
    }

    public String name(int i) {
        return names.get(i);
    }

    public String value(int i) {
        return values.get(i);
    }

    /** The last value given for {@code name} (Netdata: later parameters override earlier ones), or null. */
    public String get(String name) {
        for (int i = names.size() - 1; i >= 0; i--) {
            if (names.get(i).equals(name)) {
                return values.get(i);
            }
        }
        return null;
    }

    /** Parameters given without a value, or with an empty one ({@code ?all}, {@code ?active=}). */
    public List<String> flags() {
        return flags;
    }

    /** Percent-decodes {@code s} as UTF-8; a {@code %} not followed by two hex digits stays as it is. */
    public static String decode(String s) {
        if (s.indexOf('%') < 0 && s.indexOf('+') < 0) {
            return s;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(s.length());
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c == '+') {
                bytes.write(' ');
            } else if (c == '%' && i + 2 < n && hex(s.charAt(i + 1)) >= 0 && hex(s.charAt(i + 2)) >= 0) {
                bytes.write(hex(s.charAt(i + 1)) * 16 + hex(s.charAt(i + 2)));
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                byte[] enc = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                if (Character.isHighSurrogate(c) && i + 1 < n) {
                    enc = s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
                    i++;
                }
                bytes.write(enc, 0, enc.length);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
