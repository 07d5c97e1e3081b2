package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;
import io.strata.testsupport.Fuzz;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded fuzzing of everything that reads peer bytes: only {@link StreamProtocolException} (wrapped
 * in a {@link DecoderException} by Netty) may come out, and nothing may grow without bound. Inputs and
 * seed: {@link Fuzz} ({@code -Dstrata.fuzz.inputs=N} per fuzzer, {@code -Dstrata.fuzz.seed=S}); every
 * failure names the seed that replays it alone.
 */
class WireFuzzTest {
    private static final long BASE_SEED = 0x5EED_0137_1L;

    private static final byte[] TEXT_ALPHABET =
            " \t\r\n\n\n==\"\"''\\\\0123456789.eExX+-naNifINF\0\u00ff\u00c3abcSETBEGIN".getBytes(
                    java.nio.charset.StandardCharsets.ISO_8859_1);

    /** The capture's LZ4 part: a real stream of dependent blocks to mutate. */
    private static byte[] captureBlocks() {
        byte[] capture = WireTestData.captureRaw();
        int first = WireTestData.firstBlockOffset(capture);
        return Arrays.copyOfRange(capture, first, capture.length);
    }

    @Test
    void randomFramesIntoTheFrameDecoder() {
        EmbeddedChannel channel = frameDecoderChannel();
        try {
            Fuzz.run("Lz4StreamFrameDecoder, random frames", BASE_SEED, in -> {
                Random random = in.random();
                byte[] stream = randomFrames(random);
                in.show(stream);
                runFrameDecoder(channel, stream, random, in.seed(), random.nextInt(8) == 0 ? 16 : 8000);
            });
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void mutatedCaptureIntoTheFrameDecoder() {
        byte[] blocks = captureBlocks();
        EmbeddedChannel channel = frameDecoderChannel();
        try {
            Fuzz.run("Lz4StreamFrameDecoder, mutated capture", BASE_SEED * 31, in -> {
                Random random = in.random();
                int length = 1 + random.nextInt(Math.min(blocks.length, 1 + random.nextInt(6_000)));
                byte[] stream = mutate(Arrays.copyOf(blocks, length), random);
                in.show(stream);
                // mostly TCP-sized reads; now and then tiny ones that cut headers
                runFrameDecoder(channel, stream, random, in.seed(), random.nextInt(16) == 0 ? 16 : 8000);
            });
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void randomBlocksIntoTheBlockDecoderWithHistory() {
        // give the decoder real history first, so offsets into earlier blocks are exercised
        NetdataLz4BlockDecoder decoder = new NetdataLz4BlockDecoder();
        byte[] blocks = captureBlocks();
        ByteBuf capture = Unpooled.wrappedBuffer(blocks);
        for (int n = 0; n < 200; n++) {
            int length = (capture.getUnsignedByte(capture.readerIndex() + 1) & 0x7F)
                    | (capture.getUnsignedByte(capture.readerIndex() + 2) & 0x7F) << 7;
            capture.skipBytes(4);
            try {
                decoder.decode(capture, length);
            } catch (StreamProtocolException e) {
                fail("the capture itself must decode", e);
            }
        }
        Fuzz.run("NetdataLz4BlockDecoder with history", BASE_SEED * 37, in -> {
            long seed = in.seed();
            Random random = in.random();
            byte[] block;
            if (random.nextBoolean()) {
                block = new byte[1 + random.nextInt(random.nextInt(10) == 0 ? 16384 : 200)];
                random.nextBytes(block);
            } else {
                block = mutate(randomValidBlock(random), random);
                if (block.length == 0 || block.length > NetdataLz4BlockDecoder.MAX_COMPRESSED_BLOCK_BYTES) {
                    return;
                }
            }
            in.show(block);
            try {
                int length = decoder.decode(block, 0, block.length);
                assertTrue(length >= 0 && length <= NetdataLz4BlockDecoder.MAX_DECODED_BLOCK_BYTES,
                        "seed " + seed + " length " + length);
                assertTrue(decoder.offset() >= 0 && decoder.offset() + length <= decoder.buffer().length,
                        "seed " + seed);
            } catch (StreamProtocolException expected) {
                // the only acceptable failure
            }
        });
    }

    @Test
    void randomTextIntoSplitterTokenizerAndNumbers() {
        Fuzz.run("LineSplitter, LineTokenizer and AsciiNumbers", BASE_SEED * 41, input -> {
            long seed = input.seed();
            Random random = input.random();
            int maxLine = 1 + random.nextInt(random.nextBoolean() ? 64 : 20_000);
            boolean tolerateOverlong = random.nextBoolean();
            LineSplitter splitter = new LineSplitter(maxLine);
            LineTokenizer tokenizer = new LineTokenizer();
            long[] checksum = {0};
            LineSplitter.LineConsumer consumer = new LineSplitter.LineConsumer() {
                @Override
                public void line(byte[] buf, int start, int end) {
                    if (end - start > maxLine) {
                        throw new AssertionError("line of " + (end - start) + " bytes above the limit " + maxLine);
                    }
                    int words = tokenizer.tokenize(buf, start, end);
                    for (int w = 0; w < words; w++) {
                        int s = tokenizer.start(w);
                        int e = tokenizer.end(w);
                        if (s < start || e > end || s > e) {
                            throw new AssertionError("word " + w + " [" + s + ", " + e + ") outside the line");
                        }
                        checksum[0] += AsciiNumbers.parseLongC(buf, s, e);
                        checksum[0] += (long) AsciiNumbers.parseDouble(buf, s, e);
                        checksum[0] += AsciiNumbers.equalsAscii(buf, s, e, TEXT_ALPHABET) ? 1 : 0;
                        checksum[0] += AsciiNumbers.isEmpty(buf, s, e) ? 1 : 0;
                    }
                    if (words > 0 && (checksum[0] & 63) == 0) {
                        checksum[0] += AsciiNumbers.string(buf, tokenizer.start(0), tokenizer.end(0)).length();
                    }
                }

                @Override
                public void overlongLine(int length) throws StreamProtocolException {
                    if (length <= maxLine) {
                        throw new AssertionError("overlong reported for " + length + " <= " + maxLine);
                    }
                    if (!tolerateOverlong) {
                        LineSplitter.LineConsumer.super.overlongLine(length);
                    }
                }
            };
            int total = random.nextInt(random.nextInt(20) == 0 ? 200_000 : 3_000);
            int fed = 0;
            try {
                while (fed < total) {
                    byte[] chunk = new byte[Math.min(total - fed, 1 + random.nextInt(5000))];
                    for (int k = 0; k < chunk.length; k++) {
                        chunk[k] = random.nextInt(8) == 0 ? (byte) random.nextInt(256)
                                : TEXT_ALPHABET[random.nextInt(TEXT_ALPHABET.length)];
                    }
                    fed += chunk.length;
                    ByteBuf in = Unpooled.wrappedBuffer(chunk);
                    try {
                        splitter.feed(in, consumer);
                        assertTrue(splitter.pendingBytes() <= maxLine, "seed " + seed + " partial line of "
                                + splitter.pendingBytes());
                    } catch (StreamProtocolException expected) {
                        // the splitter stays usable: keep feeding the rest; lines after the refused one
                        // may still be held, within the fixed buffer
                        assertTrue(splitter.pendingBytes() <= maxLine + 1 + 65536, "seed " + seed + " holds "
                                + splitter.pendingBytes());
                    }
                }
            } catch (Throwable t) {
                fail("seed " + seed + ": unexpected " + t, t);
            }
        });
    }

    /** The channel one frame-decoder run shares, on a {@link ReleaseCheckingAllocator}. */
    private static EmbeddedChannel frameDecoderChannel() {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(new ReleaseCheckingAllocator());
        return channel;
    }

    /**
     * The allocator of the frame-decoder fuzzers' channel: unpooled heap buffers without Netty's leak
     * detector, each kept until its input ends, when every one must have been released. That is an
     * exact leak check of each input, where the paranoid detector the tests run with records a stack
     * trace at nearly every access of a buffer (most of an input's cost) and reports a leak only once
     * the collector has found the buffer. The decoder is the same whatever allocator it is given.
     */
    static final class ReleaseCheckingAllocator extends AbstractByteBufAllocator {
        private final List<ByteBuf> handedOut = new ArrayList<>();

        ReleaseCheckingAllocator() {
            super(false);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            ByteBuf buf = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
            handedOut.add(buf);
            return buf;
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            ByteBuf buf = new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity);
            handedOut.add(buf);
            return buf;
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }

        /** Fails unless every buffer handed out since the last call was released; then forgets them. */
        void assertAllReleased(long seed) {
            try {
                for (ByteBuf buf : handedOut) {
                    if (buf.refCnt() != 0) {
                        fail("seed " + seed + ": a buffer of " + buf.capacity() + " bytes was not released (refCnt "
                                + buf.refCnt() + ")");
                    }
                }
            } finally {
                handedOut.clear();
            }
        }
    }

    /**
     * Feeds {@code stream} in chunks to a new {@link Lz4StreamFrameDecoder} (a new connection: its own
     * history) on {@code channel}, which one run shares: building a channel per input cost more than
     * the decoding. The decoder sees what it sees on a connection: reads, then the channel going
     * inactive with whatever it holds; then it leaves the pipeline, and anything it still hands on
     * is released.
     */
    private static void runFrameDecoder(EmbeddedChannel channel, byte[] stream, Random random, long seed,
            int maxChunk) {
        Lz4StreamFrameDecoder decoder = new Lz4StreamFrameDecoder();
        channel.pipeline().addLast(FRAMES, decoder);
        try {
            for (int at = 0; at < stream.length; ) {
                int chunk = Math.min(stream.length - at, 1 + random.nextInt(maxChunk));
                try {
                    channel.writeInbound(Unpooled.wrappedBuffer(stream, at, chunk));
                } catch (DecoderException e) {
                    if (!(e.getCause() instanceof StreamProtocolException)) {
                        fail("seed " + seed + ": DecoderException caused by " + e.getCause(), e);
                    }
                }
                at += chunk;
                checkBlocks(channel, seed);
            }
            assertTrue(decoder.compressedBytes() <= stream.length, () -> "seed " + seed);
            // the end of the connection, as EmbeddedChannel.finish() ends it: may decode what is held
            channel.pipeline().fireChannelInactive();
            channel.checkException();
            checkBlocks(channel, seed);
        } catch (AssertionError e) {
            throw e;
        } catch (Throwable t) {
            fail("seed " + seed + ": unexpected " + t, t);
        } finally {
            channel.pipeline().remove(FRAMES);
            for (Object left; (left = channel.readInbound()) != null; ) {
                ReferenceCountUtil.release(left);
            }
            channel.releaseOutbound();
        }
        ((ReleaseCheckingAllocator) channel.config().getAllocator()).assertAllReleased(seed);
    }

    private static final String FRAMES = "frames";

    private static void checkBlocks(EmbeddedChannel channel, long seed) {
        for (ByteBuf block; (block = channel.readInbound()) != null; ) {
            int length = block.readableBytes();
            block.release();
            if (length <= 0 || length > NetdataLz4BlockDecoder.MAX_DECODED_BLOCK_BYTES) {
                fail("seed " + seed + " block of " + length);
            }
        }
    }

    /** A stream of frames: valid headers with random or well-formed blocks, some plain garbage. */
    private static byte[] randomFrames(Random random) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int frames = 1 + random.nextInt(12);
        for (int f = 0; f < frames; f++) {
            switch (random.nextInt(6)) {
                case 0 -> {
                    byte[] garbage = new byte[1 + random.nextInt(20)];
                    random.nextBytes(garbage);
                    out.writeBytes(garbage);
                }
                case 1 -> {
                    byte[] block = new byte[1 + random.nextInt(random.nextInt(8) == 0 ? 16383 : 100)];
                    random.nextBytes(block);
                    out.writeBytes(Lz4StreamFrameDecoderTest.frame(block));
                }
                case 2 -> {
                    // header announcing more or fewer bytes than follow
                    byte[] block = randomValidBlock(random);
                    byte[] framed = Lz4StreamFrameDecoderTest.frame(block);
                    int lie = Math.max(1, Math.min(16383, block.length + random.nextInt(21) - 10));
                    framed[1] = (byte) (0x80 | lie & 0x7F);
                    framed[2] = (byte) (0x80 | lie >>> 7 & 0x7F);
                    out.writeBytes(framed);
                }
                default -> out.writeBytes(Lz4StreamFrameDecoderTest.frame(randomValidBlock(random)));
            }
        }
        return out.toByteArray();
    }

    /** A well-formed block whose matches may point anywhere up to 64 KiB back, in or before it. */
    private static byte[] randomValidBlock(Random random) {
        Lz4BlockBuilder builder = new Lz4BlockBuilder();
        int sequences = random.nextInt(6);
        for (int s = 0; s < sequences; s++) {
            byte[] literals = new byte[random.nextInt(40)];
            random.nextBytes(literals);
            int offset = random.nextInt(8) == 0 ? random.nextInt(65536) : 1 + random.nextInt(64);
            builder.sequence(literals, offset, 4 + random.nextInt(random.nextInt(10) == 0 ? 20000 : 40));
        }
        byte[] tail = new byte[random.nextInt(20)];
        random.nextBytes(tail);
        return builder.last(tail);
    }

    /** One to five random edits: byte flips, overwrites, deletions, duplications, insertions. */
    private static byte[] mutate(byte[] data, Random random) {
        byte[] out = data;
        int edits = 1 + random.nextInt(5);
        for (int e = 0; e < edits && out.length > 0; e++) {
            int at = random.nextInt(out.length);
            switch (random.nextInt(5)) {
                case 0 -> out[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> out[at] = (byte) random.nextInt(256);
                case 2 -> {
                    int cut = Math.min(out.length - at, 1 + random.nextInt(16));
                    byte[] shorter = new byte[out.length - cut];
                    System.arraycopy(out, 0, shorter, 0, at);
                    System.arraycopy(out, at + cut, shorter, at, out.length - at - cut);
                    out = shorter;
                }
                case 3 -> {
                    int copy = Math.min(out.length - at, 1 + random.nextInt(16));
                    byte[] longer = new byte[out.length + copy];
                    System.arraycopy(out, 0, longer, 0, at + copy);
                    System.arraycopy(out, at, longer, at + copy, out.length - at);
                    out = longer;
                }
                default -> {
                    byte[] longer = new byte[out.length + 1];
                    System.arraycopy(out, 0, longer, 0, at);
                    longer[at] = (byte) random.nextInt(256);
                    System.arraycopy(out, at, longer, at + 1, out.length - at);
                    out = longer;
                }
            }
        }
        return out;
    }
}
