package io.strata.streaming.server;

/**
 * Text from peers made safe for a log line: a hostname, URL or request sent by a client must not
 * start a new line or carry terminal escapes into the operator's log, and an API key (the one secret
 * of streaming) is never written whole.
 */
public final class LogText {

    /** Longest peer text written to a log line; the rest is cut and counted. */
    public static final int MAX_CHARS = 512;

    private LogText() {
    }

    /**
     * {@code text} with every control character (C0, DEL, C1), backslash and the Unicode line and
     * paragraph separators written as {@code \xNN} / {@code \\uNNNN}, cut after {@link #MAX_CHARS}.
     */
    public static String escape(CharSequence text) {
        if (text == null) {
            return "null";
        }
        int n = Math.min(text.length(), MAX_CHARS);
        StringBuilder sb = null;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            boolean unsafe = c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\\' || c == '\u2028'
                    || c == '\u2029';
            if (unsafe && sb == null) {
                sb = new StringBuilder(n + 16).append(text, 0, i);
            }
            if (sb != null) {
                if (!unsafe) {
                    sb.append(c);
                } else if (c == '\\') {
                    sb.append("\\\\");
                } else if (c > 0xff) {
                    sb.append(String.format("\\u%04x", (int) c));
                } else {
                    sb.append(String.format("\\x%02x", (int) c));
                }
            }
        }
        String out = sb == null ? text.subSequence(0, n).toString() : sb.toString();
        if (text.length() > n) {
            out += "...(" + (text.length() - n) + " more chars)";
        }
        return out;
    }

    /**
     * An API key as logs show it: its first 8 characters, the rest masked ({@code 11111111-****}),
     * enough to tell keys apart, not enough to use one. Control bytes are escaped.
     */
    public static String maskKey(String key) {
        if (key == null || key.isEmpty()) {
            return "";
        }
        int keep = Math.min(8, key.length() / 2);
        return escape(key.substring(0, keep)) + "-****";
    }
}
