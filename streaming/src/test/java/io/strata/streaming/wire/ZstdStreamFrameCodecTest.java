package io.strata.streaming.wire;

import com.github.luben.zstd.EndDirective;
import com.github.luben.zstd.ZstdCompressCtx;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ZSTD stream codec: our encoder's frames read back by our decoder, and the decoder's limits. */
class ZstdStreamFrameCodecTest {

    /** A chart's per-second block as a child writes it. */
    private static byte[] chartBlock(int chart, long second, Random r) {
        StringBuilder s = new StringBuilder();
        s.append("BEGIN \"system.chart").append(chart).append("\" 1000000\n");
        for (int d = 0; d < 8; d++) {
            s.append("SET \"dim").append(d).append("\" = ").append(r.nextInt(100_000)).append('\n');
        }
        s.append("END\n");
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] encode(EmbeddedChannel encoder, byte[] message) {
        encoder.writeOutbound(Unpooled.wrappedBuffer(message));
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (ByteBuf out; (out = encoder.readOutbound()) != null; ) {
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            out.release();
            wire.writeBytes(bytes);
        }
        return wire.toByteArray();
    }

    /** Feeds {@code wire} in pieces of the given sizes (cycled) and returns all decoded bytes. */
    private static byte[] decode(EmbeddedChannel decoder, byte[] wire, int... pieces) {
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        int at = 0;
        for (int i = 0; at < wire.length; i++) {
            int n = Math.min(pieces[i % pieces.length], wire.length - at);
            decoder.writeInbound(Unpooled.copiedBuffer(wire, at, n));
            at += n;
            for (ByteBuf in; (in = decoder.readInbound()) != null; ) {
                byte[] bytes = new byte[in.readableBytes()];
                in.readBytes(bytes);
                in.release();
                plain.writeBytes(bytes);
            }
        }
        return plain.toByteArray();
    }

    /** The blocks of an encoded stream: {compressed length, decoded length} per block. */
    private static List<int[]> blocks(byte[] wire) {
        List<int[]> blocks = new ArrayList<>();
        ByteBuf b = Unpooled.wrappedBuffer(wire);
        while (b.isReadable()) {
            int length = StreamFrameHeader.length(b, b.readerIndex());
            assertTrue(length > 0, "a signature at " + b.readerIndex());
            blocks.add(new int[] {length});
            b.skipBytes(StreamFrameHeader.BYTES + length);
        }
        return blocks;
    }

    @Test
    void roundTripOfManyMessagesOverOneStream() {
        Random r = new Random(7);
        EmbeddedChannel encoder = new EmbeddedChannel(new ZstdStreamFrameEncoder(false));
        ZstdStreamFrameDecoder zstd = new ZstdStreamFrameDecoder();
        EmbeddedChannel decoder = new EmbeddedChannel(zstd);
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int second = 0; second < 200; second++) {
            for (int chart = 0; chart < 20; chart++) {
                byte[] m = chartBlock(chart, second, r);
                sent.writeBytes(m);
                wire.writeBytes(encode(encoder, m));
            }
        }
        byte[] decoded = decode(decoder, wire.toByteArray(), 1 << 20);
        assertArrayEquals(sent.toByteArray(), decoded);
        assertEquals(wire.size(), zstd.compressedBytes());
        assertEquals(sent.size(), zstd.decompressedBytes());
        // one stream: later blocks reference earlier ones, so small messages compress as a whole does
        // (LZ4's independent blocks of the same messages reach about 1.3)
        assertTrue(wire.size() * 2 < sent.size(), wire.size() + " wire bytes for " + sent.size() + " of text");
        assertTrue(encoder.finishAndReleaseAll() | true);
        assertTrue(decoder.finishAndReleaseAll() | true);
    }

    /** A parent accepts streams that never send a block (a storm of reconnecting children): no native context for them. */
    @Test
    void aStreamThatSendsNoBlockMakesNoNativeContext() {
        ZstdStreamFrameDecoder zstdDecoder = new ZstdStreamFrameDecoder();
        EmbeddedChannel decoder = new EmbeddedChannel(zstdDecoder);
        assertTrue(!zstdDecoder.contextMade(), "a context before the first block");
        decoder.close();
        assertTrue(zstdDecoder.contextFreed() && !zstdDecoder.contextMade());
    }

    @Test
    void theNativeContextsAreFreedWhenTheChannelCloses() {
        ZstdStreamFrameEncoder zstdEncoder = new ZstdStreamFrameEncoder(false);
        ZstdStreamFrameDecoder zstdDecoder = new ZstdStreamFrameDecoder();
        EmbeddedChannel encoder = new EmbeddedChannel(zstdEncoder);
        EmbeddedChannel decoder = new EmbeddedChannel(zstdDecoder);
        decode(decoder, encode(encoder, chartBlock(1, 1, new Random(1))), 10);
        assertTrue(!zstdEncoder.contextFreed() && !zstdDecoder.contextFreed());
        encoder.close();
        decoder.close();
        assertTrue(zstdEncoder.contextFreed(), "the encoder's context");
        assertTrue(zstdDecoder.contextFreed(), "the decoder's context");
    }

    @Test
    void blocksSplitAcrossReadsAtEveryByte() {
        Random r = new Random(11);
        EmbeddedChannel encoder = new EmbeddedChannel(new ZstdStreamFrameEncoder(true));
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 50; i++) {
            byte[] m = chartBlock(i % 5, i, r);
            sent.writeBytes(m);
            wire.writeBytes(encode(encoder, m));
        }
        for (int piece : new int[] {1, 2, 3, 5, 7, 4093}) {
            EmbeddedChannel decoder = new EmbeddedChannel(new ZstdStreamFrameDecoder());
            assertArrayEquals(sent.toByteArray(), decode(decoder, wire.toByteArray(), piece), "pieces of " + piece);
            decoder.finishAndReleaseAll();
        }
        encoder.finishAndReleaseAll();
    }

    @Test
    void largeMessagesAreCutToBlocksA2xParentAccepts() {
        Random r = new Random(3);
        for (boolean binary : new boolean[] {false, true}) {
            EmbeddedChannel encoder = new EmbeddedChannel(new ZstdStreamFrameEncoder(binary));
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            while (text.size() < 200_000) {
                text.writeBytes(chartBlock(r.nextInt(1000), 0, r));
            }
            byte[] random = new byte[100_000];
            r.nextBytes(random);
            for (byte[] m : new byte[][] {text.toByteArray(), random}) {
                byte[] wire = encode(encoder, m);
                for (int[] block : blocks(wire)) {
                    assertTrue(block[0] <= ZstdStreamFrameDecoder.MAX_COMPRESSED_BYTES, "block of " + block[0]);
                }
                EmbeddedChannel decoder = new EmbeddedChannel(new ZstdStreamFrameDecoder());
                // a fresh decoder must start at the stream's beginning: decode everything so far
                decoder.finishAndReleaseAll();
            }
            encoder.finishAndReleaseAll();
        }
        // whole lines per block without BINARY: each block decodes to text ending with '\n'
        EmbeddedChannel encoder = new EmbeddedChannel(new ZstdStreamFrameEncoder(false));
        EmbeddedChannel decoder = new EmbeddedChannel(new ZstdStreamFrameDecoder());
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        while (text.size() < 100_000) {
            text.writeBytes(chartBlock(r.nextInt(1000), 0, r));
        }
        decoder.writeInbound(Unpooled.wrappedBuffer(encode(encoder, text.toByteArray())));
        int blocks = 0;
        ByteArrayOutputStream back = new ByteArrayOutputStream();
        for (ByteBuf in; (in = decoder.readInbound()) != null; ) {
            blocks++;
            assertTrue(in.readableBytes() <= ZstdStreamFrameEncoder.MAX_PIECE_BYTES);
            assertEquals('\n', in.getByte(in.writerIndex() - 1), "block " + blocks + " ends a line");
            byte[] bytes = new byte[in.readableBytes()];
            in.readBytes(bytes);
            in.release();
            back.writeBytes(bytes);
        }
        assertTrue(blocks >= 100_000 / ZstdStreamFrameEncoder.MAX_PIECE_BYTES, blocks + " blocks");
        assertArrayEquals(text.toByteArray(), back.toByteArray());
        encoder.finishAndReleaseAll();
        decoder.finishAndReleaseAll();
    }

    @Test
    void theLargestPieceFitsEvenWhenIncompressible() {
        assertTrue(ZstdStreamFrameEncoder.MAX_PIECE_BYTES > 16_000
                && ZstdStreamFrameEncoder.MAX_PIECE_BYTES < ZstdStreamFrameDecoder.MAX_COMPRESSED_BYTES,
                "piece " + ZstdStreamFrameEncoder.MAX_PIECE_BYTES);
        byte[] random = new byte[ZstdStreamFrameEncoder.MAX_PIECE_BYTES];
        new Random(5).nextBytes(random);
        EmbeddedChannel encoder = new EmbeddedChannel(new ZstdStreamFrameEncoder(true));
        EmbeddedChannel decoder = new EmbeddedChannel(new ZstdStreamFrameDecoder());
        byte[] wire = encode(encoder, random);
        assertEquals(1, blocks(wire).size());
        assertArrayEquals(random, decode(decoder, wire, wire.length));
        encoder.finishAndReleaseAll();
        decoder.finishAndReleaseAll();
    }

    private static StreamProtocolException failure(EmbeddedChannel decoder, byte[] wire) {
        DecoderException e = assertThrows(DecoderException.class,
                () -> decoder.writeInbound(Unpooled.wrappedBuffer(wire)));
        return assertInstanceOf(StreamProtocolException.class, e.getCause());
    }

    @Test
    void aCorruptBlockIsAClearErrorAndEverythingAfterItIsDropped() {
        Random r = new Random(13);
        EmbeddedChannel encoder = new EmbeddedChannel(new ZstdStreamFrameEncoder(false));
        byte[] first = encode(encoder, chartBlock(1, 1, r));
        byte[] second = encode(encoder, chartBlock(1, 2, r));
        encoder.finishAndReleaseAll();

        EmbeddedChannel decoder = new EmbeddedChannel(new ZstdStreamFrameDecoder());
        assertEquals(new String(chartBlock(1, 1, new Random(13)), StandardCharsets.US_ASCII),
                new String(decode(decoder, first, first.length), StandardCharsets.US_ASCII));
        byte[] broken = second.clone();
        // the block's own header bytes: a corrupt block header, which zstd must refuse
        for (int i = StreamFrameHeader.BYTES; i < broken.length; i++) {
            broken[i] = (byte) 0xFF;
        }
        StreamProtocolException e = failure(decoder, broken);
        assertTrue(e.getMessage().startsWith("ZSTD_decompressStream() return error: ")
                && e.getMessage().contains("(block #2, "), e.getMessage());
        // nothing after a broken block can be decoded: every further byte is dropped
        decoder.writeInbound(Unpooled.wrappedBuffer(second));
        assertNull(decoder.readInbound());
        decoder.finishAndReleaseAll();
    }

    @Test
    void framingErrorsUseNetdatasWords() {
        EmbeddedChannel plain = new EmbeddedChannel(new ZstdStreamFrameDecoder());
        StreamProtocolException e = failure(plain, "BEGIN x\n".getBytes(StandardCharsets.US_ASCII));
        assertTrue(e.getMessage().startsWith("multiplexed uncompressed data in compressed stream! (block #1 header is"
                + " 42 45 47 49"), e.getMessage());
        plain.finishAndReleaseAll();

        EmbeddedChannel tooBig = new EmbeddedChannel(new ZstdStreamFrameDecoder());
        ByteBuf header = Unpooled.buffer();
        StreamFrameHeader.write(header, ZstdStreamFrameDecoder.MAX_COMPRESSED_BYTES + 1);
        byte[] h = new byte[4];
        header.readBytes(h);
        e = failure(tooBig, h);
        assertEquals("received a compressed message of 16256 bytes, which is bigger than the max compressed message"
                + " size supported of 16255", e.getMessage());
        tooBig.finishAndReleaseAll();
    }

    @Test
    void mutatedStreamsFailOnlyWithAProtocolError() {
        Random r = new Random(17);
        EmbeddedChannel encoder = new EmbeddedChannel(new ZstdStreamFrameEncoder(false));
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 40; i++) {
            wire.writeBytes(encode(encoder, chartBlock(i % 7, i, r)));
        }
        encoder.finishAndReleaseAll();
        byte[] good = wire.toByteArray();
        int failures = 0;
        for (int round = 0; round < 2000; round++) {
            byte[] bad = good.clone();
            for (int e = 1 + r.nextInt(4); e > 0; e--) {
                bad[r.nextInt(bad.length)] ^= (byte) (1 + r.nextInt(255));
            }
            EmbeddedChannel decoder = new EmbeddedChannel(new ZstdStreamFrameDecoder());
            try {
                decode(decoder, bad, 1 + r.nextInt(3000));
            } catch (DecoderException e) {
                assertInstanceOf(StreamProtocolException.class, e.getCause(), String.valueOf(e.getCause()));
                failures++;
            } finally {
                decoder.finishAndReleaseAll();
            }
        }
        assertTrue(failures > 1000, failures + " of 2000 mutated streams refused");
    }

    /** One frame, flushed, of {@code plain} with the given window, as a child at that setting would send. */
    private static byte[] frameWithWindow(byte[] plain, int windowLog) {
        try (ZstdCompressCtx c = new ZstdCompressCtx().setLevel(3).setWindowLog(windowLog)) {
            ByteBuffer src = ByteBuffer.allocateDirect(plain.length).put(plain).flip();
            ByteBuffer dst = ByteBuffer.allocateDirect(plain.length + 1024);
            while (!c.compressDirectByteBufferStream(dst, src, EndDirective.FLUSH)) {
                // the destination is large enough: one call flushes
            }
            dst.flip();
            byte[] block = new byte[dst.remaining()];
            dst.get(block);
            ByteBuf wire = Unpooled.buffer();
            StreamFrameHeader.write(wire, block.length);
            wire.writeBytes(block);
            byte[] out = new byte[wire.readableBytes()];
            wire.readBytes(out);
            return out;
        }
    }

    @Test
    void theDecodersMemoryIsBounded() {
        byte[] text = chartBlock(1, 1, new Random(1));
        // a child at Netdata's highest non-ultra levels (window 2^23) is read
        EmbeddedChannel ok = new EmbeddedChannel(new ZstdStreamFrameDecoder());
        byte[] wire = frameWithWindow(text, ZstdStreamFrameDecoder.MAX_WINDOW_LOG);
        assertArrayEquals(text, decode(ok, wire, wire.length));
        ok.finishAndReleaseAll();
        // a frame asking for a larger window is refused before anything is allocated for it
        EmbeddedChannel big = new EmbeddedChannel(new ZstdStreamFrameDecoder());
        StreamProtocolException e = failure(big, frameWithWindow(text, ZstdStreamFrameDecoder.MAX_WINDOW_LOG + 1));
        assertTrue(e.getMessage().startsWith("ZSTD_decompressStream() return error: ")
                && e.getMessage().contains("memory"), e.getMessage());
        big.finishAndReleaseAll();

        // a block decoding to more than 16384 bytes is refused (COMPRESSION_MAX_CHUNK)
        byte[] long1 = new byte[ZstdStreamFrameDecoder.MAX_DECODED_BYTES + 1];
        java.util.Arrays.fill(long1, (byte) 'a');
        EmbeddedChannel tooLong = new EmbeddedChannel(new ZstdStreamFrameDecoder());
        e = failure(tooLong, frameWithWindow(long1, 20));
        assertTrue(e.getMessage().contains("decompressed to more than 16384 bytes"), e.getMessage());
        tooLong.finishAndReleaseAll();
    }
}
