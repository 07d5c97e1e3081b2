package io.strata.streaming.sender;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The question a Netdata 2.x child asks each parent of its list before it connects,
 * {@code GET /api/v3/stream_info?machine_guid=GUID}, and the parent's answer judged as 2.9.0's
 * {@code stream_info_fetch()} judges it (no Netty here: the bytes in, a {@link Probe} out).
 *
 * <p>The answer is read as the C child reads it: the status line is not looked at; the headers
 * end at the first empty line; {@code Content-Length: } (that exact text) says how many bytes of
 * body to wait for; the body is a JSON object whose fields {@code version}, {@code status},
 * {@code host_id}, {@code nodes}, {@code receivers} and {@code nonce} must be present, and, when
 * {@code status} is 200, also {@code first_time_s}, {@code last_time_s}, {@code db_status},
 * {@code db_liveness}, {@code ingest_type} and {@code ingest_status}. Anything else (a 1.37.1
 * parent, which has no such endpoint and answers its own error text) is "no stream info": the
 * parent stays in the list, with no claim on freshness.
 */
public final class StreamInfoReply {

    /** The C child reads the answer into a buffer of this many bytes (its HTTP header size). */
    public static final int MAX_ANSWER_BYTES = 16384;

    private static final byte[] HEADERS_END = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONTENT_LENGTH = "Content-Length: ".getBytes(StandardCharsets.US_ASCII);

    private StreamInfoReply() {
    }

    /** What was learnt about one parent. */
    public enum Kind {
        /** A complete answer with {@code status} 200: the parent holds this host. */
        HOLDS_HOST,
        /** A complete answer with another {@code status} (404): the parent does not know this host. */
        HOST_UNKNOWN,
        /** An answer that is not a stream_info answer (a 1.37.1 parent, a truncated or broken body). */
        NO_STREAM_INFO,
        /** No answer: the connection failed, was closed before any byte, or the time ran out. */
        NO_ANSWER
    }

    /**
     * A stream_info answer's fields (those of 2.9.0's {@code stream_info_to_json_v1}). The last six
     * are empty and 0 unless {@code status} is 200.
     */
    public record StreamInfo(int status, String hostId, long nodes, long receivers, long nonce, String dbStatus,
                             String dbLiveness, String ingestType, String ingestStatus, long firstTimeS,
                             long lastTimeS) {
    }

    /**
     * @param kind   what was learnt
     * @param info   the fields, for {@link Kind#HOLDS_HOST} and {@link Kind#HOST_UNKNOWN}; else null
     * @param detail why, for the log (empty for a good answer)
     */
    public record Probe(Kind kind, StreamInfo info, String detail) {
        public Probe {
            Objects.requireNonNull(kind, "kind");
            detail = detail == null ? "" : detail;
        }

        public static Probe noAnswer(String why) {
            return new Probe(Kind.NO_ANSWER, null, why);
        }

        /** The newest second the parent holds of this host; 0 when it said nothing about it. */
        public long lastTimeS() {
            return kind == Kind.HOLDS_HOST ? info.lastTimeS() : 0;
        }
    }

    /** The request, as 2.9.0 writes it ({@code Connection: close}; no chunked encoding). */
    public static byte[] request(String machineGuid, String hostHeader) {
        return ("GET /api/v3/stream_info?machine_guid=" + machineGuid + " HTTP/1.1\r\n"
                + "Host: " + hostHeader + "\r\n"
                + "User-Agent: strata\r\n"
                + "Accept: */*\r\n"
                + "Accept-Encoding: identity\r\n"
                + "TE: identity\r\n"
                + "Pragma: no-cache\r\n"
                + "Cache-Control: no-cache\r\n"
                + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Whether {@code buf[0, len)} holds the whole answer: the headers and, when they carry a
     * {@code Content-Length}, that many bytes of body. Without one, only the parent's close ends
     * the answer.
     */
    public static boolean complete(byte[] buf, int len) {
        int body = indexOf(buf, len, HEADERS_END, 0);
        if (body < 0) {
            return false;
        }
        body += HEADERS_END.length;
        long contentLength = contentLength(buf, body);
        return contentLength >= 0 && len - body >= contentLength;
    }

    /**
     * Judges the bytes received (all of them: the parent closed the connection, or
     * {@link #complete} said so).
     */
    public static Probe parse(byte[] buf, int len) {
        if (len == 0) {
            return Probe.noAnswer("the parent closed the connection without answering");
        }
        int body = indexOf(buf, len, HEADERS_END, 0);
        if (body < 0) {
            return new Probe(Kind.NO_STREAM_INFO, null, "the answer has no end of headers");
        }
        body += HEADERS_END.length;
        long contentLength = contentLength(buf, body);
        if (contentLength < 0) {
            return new Probe(Kind.NO_STREAM_INFO, null, "the answer does not have a Content-Length");
        }
        if (contentLength == 0) {
            return new Probe(Kind.NO_STREAM_INFO, null, "the answer has an invalid Content-Length");
        }
        if (len - body < contentLength) {
            return new Probe(Kind.NO_STREAM_INFO, null, "the answer ended after " + (len - body) + " of its "
                    + contentLength + " bytes of body");
        }
        String json = new String(buf, body, (int) contentLength, StandardCharsets.UTF_8);
        Map<String, Object> fields;
        try {
            fields = FlatJson.parse(json);
        } catch (IllegalArgumentException e) {
            return new Probe(Kind.NO_STREAM_INFO, null, "the answer is not JSON (" + e.getMessage() + "): "
                    + abbreviate(json));
        }
        try {
            number(fields, "version");
            int status = (int) number(fields, "status");
            String hostId = text(fields, "host_id");
            long nodes = number(fields, "nodes");
            long receivers = number(fields, "receivers");
            long nonce = number(fields, "nonce");
            if (status != 200) {
                return new Probe(Kind.HOST_UNKNOWN, new StreamInfo(status, hostId, nodes, receivers, nonce, "", "", "",
                        "", 0, 0), "status reported (" + status + ") is not OK (200)");
            }
            StreamInfo info = new StreamInfo(status, hostId, nodes, receivers, nonce, text(fields, "db_status"),
                    text(fields, "db_liveness"), text(fields, "ingest_type"), text(fields, "ingest_status"),
                    number(fields, "first_time_s"), number(fields, "last_time_s"));
            return new Probe(Kind.HOLDS_HOST, info, "");
        } catch (IllegalArgumentException e) {
            return new Probe(Kind.NO_STREAM_INFO, null, e.getMessage() + ": " + abbreviate(json));
        }
    }

    private static long number(Map<String, Object> fields, String name) {
        Object v = fields.get(name);
        if (!(v instanceof Long l)) {
            throw new IllegalArgumentException("field '" + name + "' is " + (v == null ? "missing" : "not an integer"));
        }
        return l;
    }

    private static String text(Map<String, Object> fields, String name) {
        Object v = fields.get(name);
        if (!(v instanceof String s)) {
            throw new IllegalArgumentException("field '" + name + "' is " + (v == null ? "missing" : "not a string"));
        }
        return s;
    }

    /** The value of the first {@code Content-Length: } before {@code bodyStart}; -1 if none. */
    private static long contentLength(byte[] buf, int bodyStart) {
        int at = indexOf(buf, bodyStart, CONTENT_LENGTH, 0);
        if (at < 0) {
            return -1;
        }
        long v = 0;
        // as strtoul: the digits that follow, 0 when none
        for (int i = at + CONTENT_LENGTH.length; i < bodyStart && buf[i] >= '0' && buf[i] <= '9'; i++) {
            v = v * 10 + (buf[i] - '0');
            if (v > MAX_ANSWER_BYTES) {
                return v;
            }
        }
        return v;
    }

    private static int indexOf(byte[] buf, int len, byte[] what, int from) {
        outer:
        for (int i = from; i + what.length <= len; i++) {
            for (int j = 0; j < what.length; j++) {
                if (buf[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static String abbreviate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    /**
     * A JSON object's top-level members: strings, integers (a number with a fraction or an
     * exponent is kept as its text), booleans and null; nested objects and arrays are skipped.
     */
    static final class FlatJson {
        private final String s;
        private int i;

        private FlatJson(String s) {
            this.s = s;
        }

        static Map<String, Object> parse(String text) {
            FlatJson p = new FlatJson(text);
            Map<String, Object> out = new HashMap<>();
            p.ws();
            p.expect('{');
            p.ws();
            if (p.peek() == '}') {
                p.i++;
            } else {
                while (true) {
                    p.ws();
                    String key = p.string();
                    p.ws();
                    p.expect(':');
                    p.ws();
                    out.put(key, p.value(true));
                    p.ws();
                    char c = p.next();
                    if (c == '}') {
                        break;
                    }
                    if (c != ',') {
                        throw new IllegalArgumentException("',' or '}' expected at " + (p.i - 1));
                    }
                }
            }
            p.ws();
            if (p.i != p.s.length()) {
                throw new IllegalArgumentException("text after the object at " + p.i);
            }
            return out;
        }

        private Object value(boolean keep) {
            char c = peek();
            if (c == '"') {
                return string();
            }
            if (c == '{' || c == '[') {
                skipNested();
                return null;
            }
            if (s.startsWith("true", i)) {
                i += 4;
                return Boolean.TRUE;
            }
            if (s.startsWith("false", i)) {
                i += 5;
                return Boolean.FALSE;
            }
            if (s.startsWith("null", i)) {
                i += 4;
                return null;
            }
            int start = i;
            if (c == '-') {
                i++;
            }
            boolean integer = true;
            while (i < s.length()) {
                char d = s.charAt(i);
                if (d >= '0' && d <= '9') {
                    i++;
                } else if (d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-') {
                    integer = false;
                    i++;
                } else {
                    break;
                }
            }
            String n = s.substring(start, i);
            if (n.isEmpty() || n.equals("-")) {
                throw new IllegalArgumentException("a value expected at " + start);
            }
            if (!integer) {
                return n;
            }
            try {
                return Long.parseLong(n);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("integer out of range at " + start);
            }
        }

        private void skipNested() {
            int depth = 0;
            do {
                char c = next();
                if (c == '"') {
                    i--;
                    string();
                } else if (c == '{' || c == '[') {
                    depth++;
                } else if (c == '}' || c == ']') {
                    depth--;
                }
            } while (depth > 0);
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '"') {
                    return b.toString();
                }
                if (c == '\\') {
                    char e = next();
                    switch (e) {
                        case 'n' -> b.append('\n');
                        case 't' -> b.append('\t');
                        case 'r' -> b.append('\r');
                        case 'b' -> b.append('\b');
                        case 'f' -> b.append('\f');
                        case 'u' -> {
                            if (i + 4 > s.length()) {
                                throw new IllegalArgumentException("truncated \\u escape at " + i);
                            }
                            try {
                                b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                            } catch (NumberFormatException bad) {
                                throw new IllegalArgumentException("bad \\u escape at " + i);
                            }
                            i += 4;
                        }
                        default -> b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
        }

        private void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private char peek() {
            if (i >= s.length()) {
                throw new IllegalArgumentException("unexpected end at " + i);
            }
            return s.charAt(i);
        }

        private char next() {
            char c = peek();
            i++;
            return c;
        }

        private void expect(char c) {
            if (next() != c) {
                throw new IllegalArgumentException("'" + c + "' expected at " + (i - 1));
            }
        }
    }
}
