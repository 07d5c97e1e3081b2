package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Our encoder's output, read back by our decoder and, block by block, by plain LZ4. */
class Lz4RoundTripTest {

    /** One block of an encoded stream: its announced compressed length and what it decodes to. */
    record Block(int compressedLength, byte[] plain) {
    }

    /** Encodes {@code messages} (each one committed buffer) and returns the wire bytes. */
    private static byte[] encode(boolean binary, List<byte[]> messages, long[] counters) {
        Lz4StreamFrameEncoder encoder = new Lz4StreamFrameEncoder(binary);
        EmbeddedChannel channel = new EmbeddedChannel(encoder);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (byte[] message : messages) {
            channel.writeOutbound(Unpooled.wrappedBuffer(message));
            for (ByteBuf out; (out = channel.readOutbound()) != null; ) {
                byte[] bytes = new byte[out.readableBytes()];
                out.readBytes(bytes);
                out.release();
                wire.writeBytes(bytes);
            }
        }
        assertFalse(channel.finish());
        counters[0] = encoder.compressedBytes();
        counters[1] = encoder.decompressedBytes();
        return wire.toByteArray();
    }

    /** Parses the frames and decodes every block on its own with lz4-java: proves they are independent. */
    private static List<Block> independentBlocks(byte[] wire) {
        LZ4SafeDecompressor lz4 = LZ4Factory.fastestInstance().safeDecompressor();
        List<Block> blocks = new ArrayList<>();
        byte[] plain = new byte[16384];
        int at = 0;
        while (at < wire.length) {
            assertEquals((byte) 0xFA, wire[at]);
            assertTrue((wire[at + 1] & 0x80) != 0 && (wire[at + 2] & 0x80) != 0);
            assertEquals((byte) '\n', wire[at + 3]);
            int length = (wire[at + 1] & 0x7F) | (wire[at + 2] & 0x7F) << 7;
            int plainLength = lz4.decompress(wire, at + 4, length, plain, 0, plain.length);
            blocks.add(new Block(length, Arrays.copyOf(plain, plainLength)));
            at += 4 + length;
        }
        assertEquals(wire.length, at);
        return blocks;
    }

    /** Runs the wire bytes through our frame decoder in random chunks. */
    private static byte[] decode(byte[] wire, long seed) {
        Random random = new Random(seed);
        EmbeddedChannel channel = new EmbeddedChannel(new Lz4StreamFrameDecoder());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int at = 0; at < wire.length; ) {
            int chunk = Math.min(1 + random.nextInt(9000), wire.length - at);
            channel.writeInbound(Unpooled.wrappedBuffer(wire, at, chunk));
            at += chunk;
            for (ByteBuf block; (block = channel.readInbound()) != null; ) {
                byte[] bytes = new byte[block.readableBytes()];
                block.readBytes(bytes);
                block.release();
                out.writeBytes(bytes);
            }
        }
        assertFalse(channel.finish());
        return out.toByteArray();
    }

    /** The capture's text cut at line ends into buffers of random size, some far above 16 KiB. */
    private static List<byte[]> lineAlignedMessages(byte[] text, long seed) {
        Random random = new Random(seed);
        List<byte[]> messages = new ArrayList<>();
        int at = 0;
        while (at < text.length) {
            int wanted = random.nextInt(4) == 0 ? 16384 + random.nextInt(60000) : 1 + random.nextInt(3000);
            int end = Math.min(text.length, at + wanted);
            while (end < text.length && text[end - 1] != '\n') {
                end++;
            }
            messages.add(Arrays.copyOfRange(text, at, end));
            at = end;
        }
        return messages;
    }

    private static byte[] concat(List<byte[]> messages) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        messages.forEach(all::writeBytes);
        return all.toByteArray();
    }

    @Test
    void withoutBinaryEveryBlockHoldsWholeLines() {
        byte[] text = WireTestData.captureDecompressed();
        List<byte[]> messages = lineAlignedMessages(text, 7);
        long[] counters = new long[2];
        byte[] wire = encode(false, messages, counters);

        List<Block> blocks = independentBlocks(wire);
        int bigBlocks = 0;
        for (Block block : blocks) {
            assertTrue(block.plain().length <= 16384);
            assertTrue(block.compressedLength() <= 16383);
            assertEquals('\n', block.plain()[block.plain().length - 1], "non-BINARY blocks end at a line end");
            bigBlocks += block.plain().length > 12000 ? 1 : 0;
        }
        assertTrue(bigBlocks > 10, "messages above 16 KiB were cut close to the limit");
        assertArrayEquals(text, concat(blocks.stream().map(Block::plain).toList()));
        assertArrayEquals(text, decode(wire, 1));
        assertEquals(wire.length, counters[0]);
        assertEquals(text.length, counters[1]);
    }

    @Test
    void withBinaryBigBuffersAreCutAtExactly16384() {
        byte[] text = WireTestData.captureDecompressed();
        List<byte[]> messages = lineAlignedMessages(text, 8);
        byte[] wire = encode(true, messages, new long[2]);

        List<Block> blocks = independentBlocks(wire);
        int blockIndex = 0;
        for (byte[] message : messages) {
            int remaining = message.length;
            while (remaining > 0) {
                Block block = blocks.get(blockIndex++);
                assertEquals(Math.min(remaining, 16384), block.plain().length);
                remaining -= block.plain().length;
            }
        }
        assertEquals(blocks.size(), blockIndex);
        assertArrayEquals(text, decode(wire, 2));
    }

    @Test
    void withoutBinaryALineLongerThanABlockIsCutAt16384() {
        byte[] longLine = new byte[40000];
        Arrays.fill(longLine, (byte) 'a');
        longLine[longLine.length - 1] = '\n';
        byte[] message = concat(List.of("END\n".getBytes(), longLine, "END\n".getBytes()));
        byte[] wire = encode(false, List.of(message), new long[2]);
        List<Block> blocks = independentBlocks(wire);
        // "END\n" + 16380 bytes of the long line would be a cut inside the line; the cut goes after "END\n"
        assertEquals(List.of(4, 16384, 16384, 40000 - 2 * 16384 + 4),
                blocks.stream().map(b -> b.plain().length).toList());
        assertArrayEquals(message, decode(wire, 3));
    }

    @Test
    void incompressibleDataStaysWithinTheFourteenBitLength() {
        Random random = new Random(11);
        List<byte[]> messages = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            byte[] noise = new byte[30000 + random.nextInt(30000)];
            random.nextBytes(noise);
            messages.add(noise);
        }
        for (boolean binary : new boolean[] {false, true}) {
            byte[] wire = encode(binary, messages, new long[2]);
            List<Block> blocks = independentBlocks(wire);
            for (Block block : blocks) {
                assertTrue(block.compressedLength() <= 16383, "compressed " + block.compressedLength());
                assertTrue(block.plain().length < 16384, "16384 random bytes cannot fit 16383 compressed bytes");
            }
            assertArrayEquals(concat(messages), decode(wire, 4));
        }
    }

    @Test
    void emptyBufferWritesNothing() {
        long[] counters = new long[2];
        byte[] wire = encode(false, List.of(new byte[0], "x\n".getBytes()), counters);
        assertEquals(1, independentBlocks(wire).size());
        assertEquals(2, counters[1]);
    }
}
