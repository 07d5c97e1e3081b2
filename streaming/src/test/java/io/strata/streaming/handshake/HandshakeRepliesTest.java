package io.strata.streaming.handshake;

import static io.strata.streaming.handshake.HandshakeReplies.Kind.ACCEPTED;
import static io.strata.streaming.handshake.HandshakeReplies.Kind.ALREADY_STREAMING;
import static io.strata.streaming.handshake.HandshakeReplies.Kind.BUSY;
import static io.strata.streaming.handshake.HandshakeReplies.Kind.LOCALHOST;
import static io.strata.streaming.handshake.HandshakeReplies.Kind.NOT_PERMITTED;
import static io.strata.streaming.handshake.HandshakeReplies.Kind.NOT_UNDERSTOOD;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class HandshakeRepliesTest {

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static HandshakeReplies.Reply parse(String s) {
        byte[] b = ascii(s);
        return HandshakeReplies.parseReply(b, b.length);
    }

    /** Sections "=== title\n<reply>\n" of 04-error-replies-from-real-parent.txt (replies have no newline). */
    private static Map<String, byte[]> realParentErrorReplies() {
        String text = new String(Vectors.read("04-error-replies-from-real-parent.txt"), StandardCharsets.US_ASCII);
        Map<String, byte[]> replies = new LinkedHashMap<>();
        String[] lines = text.split("\n");
        for (int i = 0; i + 1 < lines.length; i += 2) {
            assertTrue(lines[i].startsWith("=== "), lines[i]);
            replies.put(lines[i].substring(4), ascii(lines[i + 1]));
        }
        return replies;
    }

    @Test
    void refusalsAreByteForByteTheRealParents() {
        Map<String, byte[]> real = realParentErrorReplies();
        assertEquals(4, real.size());
        assertArrayEquals(real.get("duplicate_guid (real child connected)"),
                HandshakeReplies.refusal(ALREADY_STREAMING));
        assertArrayEquals(real.get("bad_key"), HandshakeReplies.refusal(NOT_PERMITTED));
        assertArrayEquals(real.get("key_not_uuid"), HandshakeReplies.refusal(NOT_PERMITTED));
    }

    @Test
    void v1PromptIsTheRealParentsAnswerToVer1() {
        byte[] real = realParentErrorReplies().get("ver=1 new guid");
        long offered = Capabilities.normalise(1);
        assertArrayEquals(real,
                HandshakeReplies.accepted(Capabilities.negotiateAsParent(1, Capabilities.NETDATA_1_37_1), offered));
    }

    @Test
    void versionReplyIsByteForByteTheRealParents() {
        byte[] p2c = Vectors.read(Vectors.REAL_PARENT + "conn1_p2c.raw");
        // the reply was sent alone; the capture continues with the parent's first REPLAY_CHART
        int end = indexOf(p2c, ascii("REPLAY_CHART"));
        byte[] realReply = Arrays.copyOf(p2c, end);
        assertEquals("Hit me baby, push them over with the version=15296", new String(realReply, StandardCharsets.US_ASCII));
        long negotiated = Capabilities.negotiateAsParent(15352, Capabilities.NETDATA_1_37_1);
        assertArrayEquals(realReply, HandshakeReplies.accepted(negotiated, Capabilities.normalise(15352)));

        HandshakeReplies.Reply reply = HandshakeReplies.parseReply(realReply, realReply.length);
        assertEquals(new HandshakeReplies.Reply(ACCEPTED, 15296, 0), reply);
    }

    @Test
    void fakeParentRepliesAreTheVersionForm() {
        for (String dir : new String[] {Vectors.PLAIN, Vectors.LZ4}) {
            byte[] request = Vectors.read(dir + "handshake_request.txt");
            long ver = dir.equals(Vectors.PLAIN) ? 15352 : 16376;
            assertTrue(new String(request, StandardCharsets.US_ASCII).contains("&ver=" + ver + "&"));
            byte[] reply = Vectors.read(dir + "handshake_reply.txt");
            // our fake parent echoed the child's ver verbatim, bits 3-5 included
            assertArrayEquals(reply, HandshakeReplies.accepted(ver, Capabilities.normalise(ver)));
            // and the child reads it as its normalised capabilities
            assertEquals(new HandshakeReplies.Reply(ACCEPTED, Capabilities.normalise(ver), 0),
                    HandshakeReplies.parseReply(reply, reply.length));
        }
    }

    @Test
    void acceptedFormsByWhatTheChildOffered() {
        assertEquals(HandshakeReplies.PROMPT_VERSION + "16320",
                new String(HandshakeReplies.accepted(16320, Capabilities.normalise(16376)), StandardCharsets.US_ASCII));
        long vn5 = Capabilities.normalise(5);
        assertEquals(HandshakeReplies.PROMPT_VERSION + "5",
                new String(HandshakeReplies.accepted(vn5, vn5), StandardCharsets.US_ASCII));
        assertEquals(HandshakeReplies.PROMPT_VERSION + "4", new String(
                HandshakeReplies.accepted(vn5 & ~Capabilities.COMPRESSION, vn5), StandardCharsets.US_ASCII),
                "VN child with compression disabled gets 4");
        long vn3 = Capabilities.normalise(3);
        assertEquals(HandshakeReplies.PROMPT_VERSION + "3",
                new String(HandshakeReplies.accepted(vn3, vn3), StandardCharsets.US_ASCII));
        long v2 = Capabilities.normalise(2);
        assertArrayEquals(ascii(HandshakeReplies.PROMPT_V2), HandshakeReplies.accepted(v2, v2));
        assertArrayEquals(ascii(HandshakeReplies.PROMPT_V1), HandshakeReplies.accepted(Capabilities.V1, Capabilities.V1));
        assertArrayEquals(ascii(HandshakeReplies.PROMPT_V1), HandshakeReplies.accepted(0, 0));
    }

    @Test
    void refusalRejectsAcceptedKinds() {
        assertThrows(IllegalArgumentException.class, () -> HandshakeReplies.refusal(ACCEPTED));
        assertThrows(IllegalArgumentException.class, () -> HandshakeReplies.refusal(NOT_UNDERSTOOD));
        assertArrayEquals(ascii("Don't hit me baby, you are trying to stream my localhost back"),
                HandshakeReplies.refusal(LOCALHOST));
        assertArrayEquals(ascii("The server is too busy now to accept this request. Try later."),
                HandshakeReplies.refusal(BUSY));
    }

    @Test
    void childPostponementTable() {
        assertEquals(new HandshakeReplies.Reply(LOCALHOST, 0, 3600), parse(HandshakeReplies.LOCALHOST));
        assertEquals(new HandshakeReplies.Reply(ALREADY_STREAMING, 0, 120), parse(HandshakeReplies.ALREADY_STREAMING));
        assertEquals(new HandshakeReplies.Reply(NOT_PERMITTED, 0, 60), parse(HandshakeReplies.NOT_PERMITTED));
        assertEquals(new HandshakeReplies.Reply(BUSY, 0, 60), parse(HandshakeReplies.BUSY));
        assertEquals(new HandshakeReplies.Reply(NOT_UNDERSTOOD, 0, 60), parse("HTTP/1.1 200 OK\r\n\r\n"));
        assertEquals(30, HandshakeReplies.POSTPONE_NO_REPLY);
        assertEquals(60, HandshakeReplies.POSTPONE_SEND_TIMEOUT);
        assertEquals(300, HandshakeReplies.POSTPONE_TLS);
    }

    @Test
    void fixedStringsMustMatchWithTheSameLength() {
        assertEquals(NOT_UNDERSTOOD, parse(HandshakeReplies.NOT_PERMITTED + "\n").kind());
        assertEquals(NOT_UNDERSTOOD, parse(HandshakeReplies.PROMPT_V1 + "\n").kind());
        assertEquals(NOT_UNDERSTOOD, parse(HandshakeReplies.PROMPT_V1.substring(1)).kind());
        assertEquals(NOT_UNDERSTOOD, parse("").kind());
        assertEquals(new HandshakeReplies.Reply(ACCEPTED, Capabilities.V1, 0), parse(HandshakeReplies.PROMPT_V1));
        assertEquals(new HandshakeReplies.Reply(ACCEPTED, Capabilities.V2 | Capabilities.HLABELS, 0),
                parse(HandshakeReplies.PROMPT_V2));
    }

    @Test
    void versionNumberParsingLikeTheChild() {
        assertEquals(new HandshakeReplies.Reply(ACCEPTED, Capabilities.normalise(5), 0),
                parse(HandshakeReplies.PROMPT_VERSION + "5"));
        // digits stop at the first non-digit; a trailing newline is tolerated in this form
        assertEquals(15296, parse(HandshakeReplies.PROMPT_VERSION + "15352\n").capabilities());
        assertEquals(Capabilities.VCAPS, parse(HandshakeReplies.PROMPT_VERSION + "64abc").capabilities());
        // a version below 1 fails, with the 0 s delay of the 1.37.1 table's first row
        assertEquals(new HandshakeReplies.Reply(NOT_UNDERSTOOD, 0, 0), parse(HandshakeReplies.PROMPT_VERSION + "0"));
        assertEquals(new HandshakeReplies.Reply(NOT_UNDERSTOOD, 0, 0), parse(HandshakeReplies.PROMPT_VERSION + "-3"));
        assertEquals(new HandshakeReplies.Reply(NOT_UNDERSTOOD, 0, 0), parse(HandshakeReplies.PROMPT_VERSION + "x"));
        // the prefix alone is not the dynamic form, and 30 or more bytes after it is too long
        assertEquals(new HandshakeReplies.Reply(NOT_UNDERSTOOD, 0, 60), parse(HandshakeReplies.PROMPT_VERSION));
        assertEquals(ACCEPTED, parse(HandshakeReplies.PROMPT_VERSION + "64" + " ".repeat(27)).kind());
        assertEquals(new HandshakeReplies.Reply(NOT_UNDERSTOOD, 0, 60),
                parse(HandshakeReplies.PROMPT_VERSION + "64" + " ".repeat(28)));
        // int arithmetic wraps like C's str2i: 2^32 + 64 reads as 64
        assertEquals(Capabilities.VCAPS, parse(HandshakeReplies.PROMPT_VERSION + "4294967360").capabilities());
    }

    @Test
    void onlyTheGivenLengthIsRead() {
        byte[] buf = Arrays.copyOf(ascii(HandshakeReplies.PROMPT_V1), 100);
        Arrays.fill(buf, HandshakeReplies.PROMPT_V1.length(), 100, (byte) 'x');
        assertEquals(ACCEPTED, HandshakeReplies.parseReply(buf, HandshakeReplies.PROMPT_V1.length()).kind());
        assertEquals(NOT_UNDERSTOOD, HandshakeReplies.parseReply(buf, 100).kind());
        assertThrows(IndexOutOfBoundsException.class, () -> HandshakeReplies.parseReply(buf, 101));
        assertFalse(HandshakeReplies.parseReply(buf, 0).accepted());
    }

    private static int indexOf(byte[] data, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= data.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (data[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
