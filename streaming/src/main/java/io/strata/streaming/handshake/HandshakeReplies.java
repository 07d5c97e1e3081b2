package io.strata.streaming.handshake;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The parent's reply to a {@code STREAM} request (docs/protocol/netdata-stream.md §2.2) and the child's reading of it
 * (§1.4). Every reply is raw ASCII: no HTTP status line, no headers, no trailing newline, written in one
 * piece (the 1.37.1 child reads it with a single {@code recv()} of at most 8192 bytes).
 */
public final class HandshakeReplies {

    /** Accepted, child speaks V1 ({@code ver} absent, 0 or 1). */
    public static final String PROMPT_V1 = "Hit me baby, push them over...";
    /** Accepted, child speaks V2 ({@code ver=2}). */
    public static final String PROMPT_V2 = "Hit me baby, push them over and bring the host labels...";
    /** Accepted; followed by a decimal number: capability bits (VCAPS child) or 3/4/5 (VN child). */
    public static final String PROMPT_VERSION = "Hit me baby, push them over with the version=";
    /** Refused: the child's machine GUID is the parent's own. */
    public static final String LOCALHOST = "Don't hit me baby, you are trying to stream my localhost back";
    /** Refused: a receiver for this machine GUID got data in the last 30 s. */
    public static final String ALREADY_STREAMING = "This GUID is already streaming to this server";
    /** Refused: missing/invalid/unknown/disabled key or GUID, or an IP not allowed. */
    public static final String NOT_PERMITTED = "You are not permitted to access this. Check the logs for more info.";
    /** Refused: {@code [web] accept a streaming request every seconds} rate limit. */
    public static final String BUSY = "The server is too busy now to accept this request. Try later.";

    /** Child: postpone a destination that accepted the TCP connection but sent nothing in time. */
    public static final int POSTPONE_NO_REPLY = 30;
    /** Child: postpone a destination the request could not be sent to. */
    public static final int POSTPONE_SEND_TIMEOUT = 60;
    /** Child: postpone a {@code :SSL} destination whose TLS handshake or certificate failed. */
    public static final int POSTPONE_TLS = 300;

    /** Child: postponement per refusal, from 1.37.1's {@code stream_responses[]} table. */
    public static final int POSTPONE_LOCALHOST = 3600;
    public static final int POSTPONE_ALREADY_STREAMING = 120;
    public static final int POSTPONE_NOT_PERMITTED = 60;
    public static final int POSTPONE_NOT_UNDERSTOOD = 60;
    /**
     * The busy text is not in a 1.37.1 child's table (later versions postpone it 120 s), so a 1.37.1
     * child treats it as "not understood": 60 s.
     */
    public static final int POSTPONE_BUSY = POSTPONE_NOT_UNDERSTOOD;

    /** The 1.37.1 child reads at most this many bytes of reply. */
    public static final int MAX_REPLY_BYTES = 8192;

    /** What a reply means to a child. */
    public enum Kind { ACCEPTED, LOCALHOST, ALREADY_STREAMING, NOT_PERMITTED, BUSY, NOT_UNDERSTOOD }

    /**
     * A reply as a 1.37.1 child reads it.
     *
     * @param capabilities    for {@link Kind#ACCEPTED}: {@link Capabilities#normalise} of the number in the
     *                        reply (1 for the V1 prompt, 2 for the V2 prompt); 0 otherwise. Like the 1.37.1
     *                        child, this is <em>not</em> restricted to what the child offered.
     * @param postponeSeconds how long a 1.37.1 child leaves this destination alone (0 when accepted)
     */
    public record Reply(Kind kind, long capabilities, int postponeSeconds) {
        public Reply {
            Objects.requireNonNull(kind, "kind");
        }

        public boolean accepted() {
            return kind == Kind.ACCEPTED;
        }
    }

    private static final byte[] PROMPT_VERSION_BYTES = ascii(PROMPT_VERSION);

    private HandshakeReplies() {
    }

    /**
     * The bytes a parent writes when it accepts a child.
     *
     * @param negotiatedCaps         what the parent grants ({@link Capabilities#negotiateAsParent}, without
     *                               COMPRESSION when disabled for the host)
     * @param childOfferedNormalised {@link Capabilities#normalise} of the child's {@code ver}; picks the form:
     *                               VCAPS → {@code version=<negotiatedCaps>}; else VN → {@code version=5|4|3};
     *                               else V2 → the V2 prompt; else the V1 prompt
     */
    public static byte[] accepted(long negotiatedCaps, long childOfferedNormalised) {
        if (Capabilities.has(childOfferedNormalised, Capabilities.VCAPS)) {
            // C prints the bitmask with %u: unsigned 32-bit
            return ascii(PROMPT_VERSION + Long.toString(negotiatedCaps & 0xFFFF_FFFFL));
        }
        if (Capabilities.has(childOfferedNormalised, Capabilities.VN)) {
            return ascii(PROMPT_VERSION + Capabilities.toOldVersionNumber(negotiatedCaps));
        }
        if (Capabilities.has(childOfferedNormalised, Capabilities.V2)) {
            return ascii(PROMPT_V2);
        }
        return ascii(PROMPT_V1);
    }

    /** The bytes a parent writes (then closes) for a refusal; {@code kind} must be a refusal kind. */
    public static byte[] refusal(Kind kind) {
        switch (kind) {
            case LOCALHOST:
                return ascii(LOCALHOST);
            case ALREADY_STREAMING:
                return ascii(ALREADY_STREAMING);
            case NOT_PERMITTED:
                return ascii(NOT_PERMITTED);
            case BUSY:
                return ascii(BUSY);
            default:
                throw new IllegalArgumentException("not a refusal: " + kind);
        }
    }

    /**
     * Reads a reply the way a 1.37.1 child does ({@code rrdpush_sender_validate_response}):
     * <ul>
     *   <li>longer than {@link #PROMPT_VERSION} but by fewer than 30 bytes, and starting with it: the
     *       digits after it (optional {@code -}, stops at the first non-digit, 32-bit wrap) are the
     *       version; ≥ 1 is accepted, anything else is {@link Kind#NOT_UNDERSTOOD} with postponement 0
     *       (the 1.37.1 child's table gives that row no delay);</li>
     *   <li>otherwise it must equal, with the same length, one of the fixed strings;</li>
     *   <li>anything else is {@link Kind#NOT_UNDERSTOOD}, postponed 60 s.</li>
     * </ul>
     * Never throws for any content.
     *
     * @param buf bytes received (only the first {@code len} are read)
     */
    public static Reply parseReply(byte[] buf, int len) {
        Objects.requireNonNull(buf, "buf");
        Objects.checkFromIndexSize(0, len, buf.length);
        int prefix = PROMPT_VERSION_BYTES.length;
        if (len > prefix && len < prefix + 30 && startsWith(buf, len, PROMPT_VERSION_BYTES)) {
            int version = str2i(buf, prefix, len);
            if (version >= 1) {
                return new Reply(Kind.ACCEPTED, Capabilities.normalise(version), 0);
            }
            return new Reply(Kind.NOT_UNDERSTOOD, 0, 0);
        }
        if (equalsText(buf, len, PROMPT_V2)) {
            return new Reply(Kind.ACCEPTED, Capabilities.normalise(2), 0);
        }
        if (equalsText(buf, len, PROMPT_V1)) {
            return new Reply(Kind.ACCEPTED, Capabilities.normalise(1), 0);
        }
        if (equalsText(buf, len, LOCALHOST)) {
            return new Reply(Kind.LOCALHOST, 0, POSTPONE_LOCALHOST);
        }
        if (equalsText(buf, len, ALREADY_STREAMING)) {
            return new Reply(Kind.ALREADY_STREAMING, 0, POSTPONE_ALREADY_STREAMING);
        }
        if (equalsText(buf, len, NOT_PERMITTED)) {
            return new Reply(Kind.NOT_PERMITTED, 0, POSTPONE_NOT_PERMITTED);
        }
        if (equalsText(buf, len, BUSY)) {
            return new Reply(Kind.BUSY, 0, POSTPONE_BUSY);
        }
        return new Reply(Kind.NOT_UNDERSTOOD, 0, POSTPONE_NOT_UNDERSTOOD);
    }

    /* Netdata's str2i(): optional '-', decimal digits, at most 30 characters, int arithmetic. */
    private static int str2i(byte[] buf, int from, int to) {
        int i = from;
        boolean negative = i < to && buf[i] == '-';
        if (negative) {
            i++;
        }
        int limit = Math.min(to, from + 30);
        int n = 0;
        while (i < limit && buf[i] >= '0' && buf[i] <= '9') {
            n = n * 10 + (buf[i] - '0');
            i++;
        }
        return negative ? -n : n;
    }

    private static boolean startsWith(byte[] buf, int len, byte[] prefix) {
        if (len < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (buf[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean equalsText(byte[] buf, int len, String text) {
        if (len != text.length()) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            if (buf[i] != (byte) text.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
