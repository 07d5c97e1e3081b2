package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Lz4StreamFrameDecoderTest {

    static byte[] frame(byte[] block) {
        byte[] framed = new byte[4 + block.length];
        framed[0] = (byte) 0xFA;
        framed[1] = (byte) (0x80 | block.length & 0x7F);
        framed[2] = (byte) (0x80 | block.length >>> 7 & 0x7F);
        framed[3] = '\n';
        System.arraycopy(block, 0, framed, 4, block.length);
        return framed;
    }

    private static StreamProtocolException failureOf(EmbeddedChannel channel, byte[] bytes) {
        DecoderException e = assertThrows(DecoderException.class,
                () -> channel.writeInbound(Unpooled.wrappedBuffer(bytes)));
        return assertInstanceOf(StreamProtocolException.class, e.getCause());
    }

    private static String readString(EmbeddedChannel channel) {
        ByteBuf block = channel.readInbound();
        try {
            return block.toString(StandardCharsets.US_ASCII);
        } finally {
            block.release();
        }
    }

    @Test
    void headerFromTheCaptureAnnounces52Bytes() {
        byte[] capture = WireTestData.captureRaw();
        int first = WireTestData.firstBlockOffset(capture);
        assertEquals((byte) 0xFA, capture[first]);
        assertEquals((byte) 0xB4, capture[first + 1]);
        assertEquals((byte) 0x80, capture[first + 2]);
        assertEquals((byte) 0x0A, capture[first + 3]);
        EmbeddedChannel channel = new EmbeddedChannel(new Lz4StreamFrameDecoder());
        channel.writeInbound(Unpooled.wrappedBuffer(capture, first, 4 + 52));
        assertEquals("CLAIMED_ID 8690c028-e5a4-11f1-869b-02fc00000001 NULL\n", readString(channel));
        assertFalse(channel.finish());
    }

    @Test
    void blocksArriveOneBytePerRead() {
        byte[] stream = concat(frame(new Lz4BlockBuilder().last("BEGIN \"a.b\" 1000000\n")),
                frame(new Lz4BlockBuilder().sequence("", 20, 5).last("SET \"x\" = 1\nEND\n")));
        Lz4StreamFrameDecoder decoder = new Lz4StreamFrameDecoder();
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        for (byte b : stream) {
            channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        assertEquals("BEGIN \"a.b\" 1000000\n", readString(channel));
        assertEquals("BEGINSET \"x\" = 1\nEND\n", readString(channel));
        assertEquals(stream.length, decoder.compressedBytes());
        assertEquals(20 + 21, decoder.decompressedBytes());
        assertFalse(channel.finish());
    }

    @Test
    void plainTextInACompressedStreamIsAnError() {
        EmbeddedChannel channel = new EmbeddedChannel(new Lz4StreamFrameDecoder());
        StreamProtocolException e = failureOf(channel, "CHART x\n".getBytes(StandardCharsets.US_ASCII));
        assertEquals("multiplexed uncompressed data in compressed stream! (block #1 header is 43 48 41 52, "
                + "expected fa 8x 8x 0a)", e.getMessage());
        // after the failure nothing more is decoded, even valid blocks
        channel.writeInbound(Unpooled.wrappedBuffer(frame(new Lz4BlockBuilder().last("END\n"))));
        assertNull(channel.readInbound());
        channel.finishAndReleaseAll();
    }

    @Test
    void badHighBitsOfTheLengthAreAnError() {
        EmbeddedChannel channel = new EmbeddedChannel(new Lz4StreamFrameDecoder());
        StreamProtocolException e = failureOf(channel, new byte[] {(byte) 0xFA, 0x34, (byte) 0x80, 0x0A});
        assertTrue(e.getMessage().contains("header is fa 34 80 0a"), e.getMessage());
        channel.finishAndReleaseAll();
    }

    @Test
    void zeroLengthBlockIsAnError() {
        EmbeddedChannel channel = new EmbeddedChannel(new Lz4StreamFrameDecoder());
        StreamProtocolException e = failureOf(channel, new byte[] {(byte) 0xFA, (byte) 0x80, (byte) 0x80, 0x0A});
        assertTrue(e.getMessage().startsWith("received a compressed message of 0 bytes"), e.getMessage());
        channel.finishAndReleaseAll();
    }

    @Test
    void blockDecodingToNothingIsAnError() {
        EmbeddedChannel channel = new EmbeddedChannel(new Lz4StreamFrameDecoder());
        StreamProtocolException e = failureOf(channel, frame(new byte[] {0}));
        assertEquals("compressed block #1 decoded to 0 bytes (Netdata: no bytes to parse)", e.getMessage());
        channel.finishAndReleaseAll();
    }

    @Test
    void corruptBlockFailsTheStreamAfterTheGoodOnes() {
        EmbeddedChannel channel = new EmbeddedChannel(new Lz4StreamFrameDecoder());
        byte[] good = frame(new Lz4BlockBuilder().last("END\n"));
        byte[] bad = frame(new Lz4BlockBuilder().sequence("a", 9, 4).last(""));
        StreamProtocolException e = failureOf(channel, concat(good, bad));
        assertTrue(e.getMessage().startsWith("corrupt LZ4 block #2"), e.getMessage());
        assertEquals("END\n", readString(channel));
        channel.finishAndReleaseAll();
    }

    @Test
    void largestLengthTheHeaderCanCarryIsAccepted() {
        // 14 bits: 16383 is the largest announceable length, below Netdata's 16384 limit
        byte[] literals = new byte[16383 - 1 - 64];
        java.util.Arrays.fill(literals, (byte) 'x');
        byte[] block = new Lz4BlockBuilder().last(literals);
        assertEquals(16383, block.length);
        byte[] framed = frame(block);
        assertEquals((byte) 0xFF, framed[1]);
        assertEquals((byte) 0xFF, framed[2]);
        EmbeddedChannel channel = new EmbeddedChannel(new Lz4StreamFrameDecoder());
        channel.writeInbound(Unpooled.wrappedBuffer(framed));
        ByteBuf out = channel.readInbound();
        assertEquals(literals.length, out.readableBytes());
        out.release();
        assertFalse(channel.finish());
    }

    static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] all = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }

    /**
     * A read holding many blocks must not become many decoded blocks in memory at once: each is handed
     * on before the next is decoded, so what the decoder holds is bounded by one block.
     */
    @Test
    void aReadOfManyBlocksIsHandedOnOneBlockAtATime() {
        byte[] capture = WireTestData.captureRaw();
        int first = WireTestData.firstBlockOffset(capture);
        Lz4StreamFrameDecoder decoder = new Lz4StreamFrameDecoder();
        java.util.List<long[]> seen = new java.util.ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel(decoder, new io.netty.channel.ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                // what the decoder had decoded in all when this block arrived
                seen.add(new long[]{b.readableBytes(), decoder.decompressedBytes()});
                b.release();
            }
        });
        channel.writeInbound(Unpooled.wrappedBuffer(capture, first, capture.length - first));
        assertTrue(seen.size() > 10, "blocks: " + seen.size());
        long handedOn = 0;
        for (long[] s : seen) {
            handedOn += s[0];
            assertEquals(handedOn, s[1], "the decoder ran ahead of what it had handed on");
        }
        channel.finishAndReleaseAll();
    }
}
