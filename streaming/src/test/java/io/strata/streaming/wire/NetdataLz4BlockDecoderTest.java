package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NetdataLz4BlockDecoderTest {

    private static String decoded(NetdataLz4BlockDecoder decoder) {
        return new String(decoder.buffer(), decoder.offset(), decoder.length(), StandardCharsets.ISO_8859_1);
    }

    private static int decode(NetdataLz4BlockDecoder decoder, byte[] block) throws StreamProtocolException {
        return decoder.decode(block, 0, block.length);
    }

    private static String failure(byte[] block) {
        return failure(new NetdataLz4BlockDecoder(), block);
    }

    private static String failure(NetdataLz4BlockDecoder decoder, byte[] block) {
        return assertThrows(StreamProtocolException.class, () -> decode(decoder, block)).getMessage();
    }

    @Test
    void literalsOnly() throws StreamProtocolException {
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        assertEquals(11, decode(decoder, new Lz4BlockBuilder().last("BEGIN x 1\n\n")));
        assertEquals("BEGIN x 1\n\n", decoded(decoder));
    }

    @Test
    void longLiteralAndMatchLengthsUse255Extensions() throws StreamProtocolException {
        byte[] literals = new byte[15 + 255 + 255 + 7];
        new Random(5).nextBytes(literals);
        byte[] block = new Lz4BlockBuilder().sequence(literals, 1, 4 + 15 + 255 + 3).last("\n");
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        assertEquals(literals.length + 4 + 15 + 255 + 3 + 1, decode(decoder, block));
        byte[] out = Arrays.copyOfRange(decoder.buffer(), decoder.offset(), decoder.offset() + decoder.length());
        assertArrayEquals(literals, Arrays.copyOf(out, literals.length));
        for (int i = literals.length; i < out.length - 1; i++) {
            assertEquals(literals[literals.length - 1], out[i], "offset 1 repeats the last byte, at " + i);
        }
    }

    @Test
    void overlappingMatchRepeatsThePattern() throws StreamProtocolException {
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        decode(decoder, new Lz4BlockBuilder().sequence("abc", 3, 10).last("!"));
        assertEquals("abcabcabcabca!", decoded(decoder));
    }

    @Test
    void emptyFinalSequenceAfterAMatchIsValid() throws StreamProtocolException {
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        decode(decoder, new Lz4BlockBuilder().sequence("xy", 2, 6).last(""));
        assertEquals("xyxyxyxy", decoded(decoder));
    }

    @Test
    void matchesReachIntoEarlierBlocks() throws StreamProtocolException {
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        decode(decoder, new Lz4BlockBuilder().last("SET \"user\" = 1\n"));
        decode(decoder, new Lz4BlockBuilder().sequence("", 15, 13).last("2\n"));
        assertEquals("SET \"user\" = 2\n", decoded(decoder));

        byte[] secondBlockAlone = new Lz4BlockBuilder().sequence("", 15, 13).last("2\n");
        assertTrue(failure(secondBlockAlone).contains("match offset 15 reaches before the start of the history (0 bytes"));
    }

    @Test
    void historyOfTheLast64KiBSurvivesTheBufferMove() throws StreamProtocolException {
        // every block copies from as far back as LZ4 can reach; the buffer must move its history
        // several times during this run and still serve those matches
        Random random = new Random(42);
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] seed = new byte[3000];
        random.nextBytes(seed);
        decode(decoder, new Lz4BlockBuilder().last(seed));
        all.writeBytes(seed);
        for (int block = 0; block < 400; block++) {
            byte[] literals = new byte[random.nextInt(600)];
            random.nextBytes(literals);
            byte[] history = all.toByteArray();
            int reach = Math.min(65535, history.length + literals.length);
            int offset = 1 + random.nextInt(reach);
            if (block % 3 == 0) {
                offset = reach; // the farthest possible reference
            }
            int matchLength = 4 + random.nextInt(3000);
            byte[] tail = new byte[random.nextInt(20)];
            random.nextBytes(tail);
            byte[] compressed = new Lz4BlockBuilder().sequence(literals, offset, matchLength).last(tail);

            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            byte[] window = Arrays.copyOf(history, history.length + literals.length + matchLength);
            System.arraycopy(literals, 0, window, history.length, literals.length);
            int to = history.length + literals.length;
            for (int i = 0; i < matchLength; i++) {
                window[to + i] = window[to + i - offset];
            }
            expected.writeBytes(Arrays.copyOfRange(window, history.length, window.length));
            expected.writeBytes(tail);

            int length = decode(decoder, compressed);
            byte[] got = Arrays.copyOfRange(decoder.buffer(), decoder.offset(), decoder.offset() + length);
            assertArrayEquals(expected.toByteArray(), got, "block " + block + " offset " + offset);
            all.writeBytes(got);
        }
        assertTrue(all.size() > 4 * NetdataLz4BlockDecoder.BUFFER_BYTES, "the buffer moved several times");
    }

    /**
     * Short literal runs and matches are copied by words that may run past their end: every length
     * up to past that size, every offset up to past a word, blocks ending at the very end of their
     * source array and output running up to the end of the decoder's buffer, against the LZ4
     * semantics spelled out byte by byte.
     */
    @Test
    void shortRunsAndMatchesOfEveryLengthAndOffsetDecodeExactly() throws StreamProtocolException {
        Random random = new Random(7);
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] seed = new byte[64];
        random.nextBytes(seed);
        decode(decoder, new Lz4BlockBuilder().last(seed));
        all.writeBytes(seed);
        int blocks = 0;
        for (int literalCount = 0; literalCount <= 20; literalCount++) {
            for (int offset = 1; offset <= 24; offset++) {
                for (int matchLength = 4; matchLength <= 20; matchLength++) {
                    byte[] literals = new byte[literalCount];
                    random.nextBytes(literals);
                    byte[] tail = new byte[1 + random.nextInt(18)];
                    random.nextBytes(tail);
                    byte[] block = new Lz4BlockBuilder().sequence(literals, offset, matchLength)
                            .sequence(tail, offset, matchLength).last(tail);

                    byte[] history = all.toByteArray();
                    byte[] window = Arrays.copyOf(history, history.length + literals.length + tail.length
                            + 2 * matchLength);
                    int to = history.length;
                    to = copySequence(window, to, literals, offset, matchLength);
                    to = copySequence(window, to, tail, offset, matchLength);
                    byte[] expected = Arrays.copyOfRange(window, history.length, window.length);
                    byte[] fullExpected = Arrays.copyOf(expected, expected.length + tail.length);
                    System.arraycopy(tail, 0, fullExpected, expected.length, tail.length);

                    // the block at the end of a larger array: word reads must stop at the array's end
                    byte[] src = new byte[block.length + random.nextInt(3)];
                    int at = src.length - block.length;
                    System.arraycopy(block, 0, src, at, block.length);
                    int length = decoder.decode(src, at, block.length);
                    byte[] got = Arrays.copyOfRange(decoder.buffer(), decoder.offset(), decoder.offset() + length);
                    assertArrayEquals(fullExpected, got, "literals " + literalCount + " offset " + offset
                            + " match " + matchLength);
                    all.writeBytes(got);
                    blocks++;
                }
            }
        }
        assertTrue(all.size() > 2 * NetdataLz4BlockDecoder.BUFFER_BYTES,
                "output ran to the buffer's end several times (" + blocks + " blocks)");
    }

    /** Writes {@code literals} then a match of {@code length} bytes {@code offset} back at {@code to}, byte by byte. */
    private static int copySequence(byte[] window, int to, byte[] literals, int offset, int length) {
        System.arraycopy(literals, 0, window, to, literals.length);
        to += literals.length;
        for (int i = 0; i < length; i++) {
            window[to + i] = window[to + i - offset];
        }
        return to + length;
    }

    @Test
    void decodesIndependentBlocksOfLz4Java() throws StreamProtocolException {
        LZ4Compressor compressor = LZ4Factory.fastestInstance().fastCompressor();
        byte[] text = WireTestData.captureDecompressed();
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        byte[] compressed = new byte[compressor.maxCompressedLength(16384)];
        for (int at = 0; at < 300_000; at += 16384) {
            int length = Math.min(16384, text.length - at);
            int compressedLength = compressor.compress(text, at, length, compressed, 0, compressed.length);
            ByteBuf src = Unpooled.wrappedBuffer(compressed, 0, compressedLength);
            assertEquals(length, decoder.decode(src, compressedLength));
            assertEquals(0, src.readableBytes());
            assertArrayEquals(Arrays.copyOfRange(text, at, at + length),
                    Arrays.copyOfRange(decoder.buffer(), decoder.offset(), decoder.offset() + length));
        }
    }

    @Test
    void zeroOffsetIsRejected() {
        String message = failure(new Lz4BlockBuilder().sequence("abcd", 0, 4).last("x"));
        assertTrue(message.contains("match offset 0 at input byte 5"), message);
        assertTrue(message.startsWith("corrupt LZ4 block #1 (9 compressed bytes)"), message);
    }

    @Test
    void offsetBeyondTheHistoryIsRejected() {
        String message = failure(new Lz4BlockBuilder().sequence("abcd", 5, 4).last("x"));
        assertTrue(message.contains("match offset 5 reaches before the start of the history (4 bytes decoded so far)"),
                message);
    }

    @Test
    void outputBeyondTheBlockLimitIsRejected() throws StreamProtocolException {
        byte[] literals = new byte[16000];
        Arrays.fill(literals, (byte) 'a');
        String message = failure(new Lz4BlockBuilder().sequence(literals, 1, 385).last(""));
        assertTrue(message.contains("match would make the block decode to more than 16384 bytes"), message);

        // exactly at the limit is fine
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        assertEquals(16384, decode(decoder, new Lz4BlockBuilder().sequence(literals, 1, 384).last("")));

        String tooManyLiterals = failure(new Lz4BlockBuilder().sequence(literals, 1, 300).last(new byte[100]));
        assertTrue(tooManyLiterals.contains("literals would make the block decode to more than 16384 bytes"),
                tooManyLiterals);
    }

    @Test
    void literalRunPastTheInputIsRejected() {
        byte[] block = {0x50, 'a', 'b'};
        assertTrue(failure(block).contains("literal run of 5 bytes but only 2 input bytes left at input byte 1"));
        assertTrue(failure(new byte[] {(byte) 0xF0}).contains("literal length continues past the end of the block"));
        assertTrue(failure(new byte[] {(byte) 0xF0, (byte) 255}).contains("literal length continues past the end"));
    }

    @Test
    void matchPartsPastTheInputAreRejected() {
        assertTrue(failure(new byte[] {0x10, 'a', 1}).contains("match offset cut by the end of the block"));
        assertTrue(failure(new byte[] {0x1F, 'a', 1, 0}).contains("match length continues past the end of the block"));
        assertTrue(failure(new byte[] {0x1F, 'a', 1, 0, (byte) 255})
                .contains("match length continues past the end of the block"));
        assertTrue(failure(new byte[] {0x10, 'a', 1, 0}).contains("block ends with a match instead of literals"));
    }

    @Test
    void badLengthsAreRejectedBeforeReading() {
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        ByteBuf src = Unpooled.wrappedBuffer(new byte[] {0x10, 'a'});
        assertTrue(assertThrows(StreamProtocolException.class, () -> decoder.decode(src, 3)).getMessage()
                .contains("3 compressed bytes announced but only 2 available"));
        assertTrue(assertThrows(StreamProtocolException.class, () -> decoder.decode(src, 0)).getMessage()
                .contains("compressed length 0 is outside 1..16384"));
        assertTrue(assertThrows(StreamProtocolException.class, () -> decoder.decode(src, 16385)).getMessage()
                .contains("compressed length 16385 is outside 1..16384"));
        assertEquals(2, src.readableBytes(), "nothing consumed");
    }

    @Test
    void aFailedBlockLeavesTheHistoryUntouched() throws StreamProtocolException {
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        decode(decoder, new Lz4BlockBuilder().last("0123456789"));
        failure(decoder, new Lz4BlockBuilder().sequence("abc", 20, 4).last(""));
        decode(decoder, new Lz4BlockBuilder().sequence("", 10, 10).last(""));
        assertEquals("0123456789", decoded(decoder));
        assertEquals(2, decoder.blocksDecoded());
        decoder.reset();
        assertEquals(0, decoder.blocksDecoded());
        assertTrue(failure(decoder, new Lz4BlockBuilder().sequence("", 10, 10).last("")).contains("history (0 bytes"));
    }
}
