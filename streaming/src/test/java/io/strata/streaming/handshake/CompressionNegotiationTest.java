package io.strata.streaming.handshake;

import org.junit.jupiter.api.Test;

import static io.strata.streaming.handshake.Capabilities.BROTLI;
import static io.strata.streaming.handshake.Capabilities.COMPRESSION;
import static io.strata.streaming.handshake.Capabilities.GZIP;
import static io.strata.streaming.handshake.Capabilities.NETDATA_1_37_1;
import static io.strata.streaming.handshake.Capabilities.ZSTD;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Which compression a connection gets: one, ZSTD before LZ4 as 2.x chooses; GZIP and BROTLI never. */
class CompressionNegotiationTest {

    /** What a real 2.9.0 child offered: V1 V2 VN VCAPS HLABELS CLAIM CLABELS LZ4 ... ZSTD GZIP BROTLI ... */
    static final long NETDATA_2_9_0_OFFER = 66912248;
    static final long PARENT = NETDATA_1_37_1 | ZSTD;

    @Test
    void a290ChildGetsZstdAloneFromAParentThatHasIt() {
        assertEquals(NETDATA_2_9_0_OFFER & (ZSTD | GZIP | BROTLI | COMPRESSION), ZSTD | GZIP | BROTLI | COMPRESSION,
                "the offer has every compression");
        long negotiated = Capabilities.negotiateAsParent(NETDATA_2_9_0_OFFER, PARENT);
        assertEquals(16320 - COMPRESSION + ZSTD, negotiated);
        assertEquals("VCAPS HLABELS CLAIM CLABELS FUNCTIONS REPLICATION BINARY ZSTD", Capabilities.names(negotiated));
        assertEquals(ZSTD, Capabilities.compression(negotiated));
        // the reply a 2.x child reads: version=539584
        assertEquals("Hit me baby, push them over with the version=539584",
                new String(HandshakeReplies.accepted(negotiated, Capabilities.normalise(NETDATA_2_9_0_OFFER)),
                        java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Test
    void aParentWithoutZstdAndA137ChildAreUnchanged() {
        assertEquals(16320, Capabilities.negotiateAsParent(NETDATA_2_9_0_OFFER, NETDATA_1_37_1));
        assertEquals(16320, Capabilities.negotiateAsParent(16376, PARENT));
        assertEquals(15296, Capabilities.negotiateAsParent(15352, PARENT));
        assertEquals(COMPRESSION, Capabilities.compression(16320));
        assertEquals(0, Capabilities.compression(15296));
    }

    @Test
    void gzipAndBrotliAreNeverGrantedNorRead() {
        long offer = Capabilities.VCAPS | GZIP | BROTLI;
        assertEquals(Capabilities.VCAPS, Capabilities.normalise(offer));
        assertEquals(Capabilities.VCAPS, Capabilities.negotiateAsParent(offer, PARENT | GZIP | BROTLI));
        // a parent's reply naming GZIP alone gives a child no compression
        assertEquals(0, Capabilities.compression(HandshakeReplies.parseReply(
                ascii("Hit me baby, push them over with the version=" + (Capabilities.VCAPS | GZIP)), 52)
                .capabilities()));
    }

    @Test
    void aReplyWithBothIsReadAsZstdAsA2xChildDoes() {
        long both = Capabilities.VCAPS | COMPRESSION | ZSTD;
        byte[] reply = ascii("Hit me baby, push them over with the version=" + both);
        long caps = HandshakeReplies.parseReply(reply, reply.length).capabilities();
        assertEquals(both, caps);
        assertEquals(ZSTD, Capabilities.compression(caps));
        assertEquals(Capabilities.VCAPS | ZSTD, Capabilities.keepOneCompression(both));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
