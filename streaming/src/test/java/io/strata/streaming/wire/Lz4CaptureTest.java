package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real Netdata 1.37.1 LZ4 stream (blocks referencing earlier blocks) through our decoder. */
class Lz4CaptureTest {

    @Test
    void captureDecodesByteIdenticalInRandomTcpChunks() {
        byte[] capture = WireTestData.captureRaw();
        byte[] expected = WireTestData.captureDecompressed();
        int first = WireTestData.firstBlockOffset(capture);
        assertEquals(1395, first, "the handshake request of the capture is 1395 bytes");

        for (long seed : new long[] {1, 2, 3}) {
            Random random = new Random(seed);
            Lz4StreamFrameDecoder decoder = new Lz4StreamFrameDecoder();
            EmbeddedChannel channel = new EmbeddedChannel(decoder);
            ByteArrayOutputStream decoded = new ByteArrayOutputStream(expected.length);
            int blocks = 0;
            int at = first;
            while (at < capture.length) {
                // mostly small reads, sometimes a few bytes, sometimes several blocks at once
                int chunk = switch (random.nextInt(3)) {
                    case 0 -> 1 + random.nextInt(7);
                    case 1 -> 1 + random.nextInt(200);
                    default -> 1 + random.nextInt(5000);
                };
                chunk = Math.min(chunk, capture.length - at);
                channel.writeInbound(Unpooled.copiedBuffer(capture, at, chunk));
                at += chunk;
                for (ByteBuf block; (block = channel.readInbound()) != null; ) {
                    blocks++;
                    byte[] bytes = new byte[block.readableBytes()];
                    block.readBytes(bytes);
                    block.release();
                    decoded.writeBytes(bytes);
                }
            }
            assertEquals(5340, blocks, "seed " + seed);
            assertArrayEquals(expected, decoded.toByteArray(), "seed " + seed);
            assertEquals(capture.length - first, decoder.compressedBytes(), "seed " + seed);
            assertEquals(expected.length, decoder.decompressedBytes(), "seed " + seed);
            assertFalse(channel.finish(), "nothing left over, seed " + seed);
        }
    }

    @Test
    void captureSplitsIntoLinesAndWords() throws StreamProtocolException {
        byte[] capture = WireTestData.captureRaw();
        int first = WireTestData.firstBlockOffset(capture);
        EmbeddedChannel channel = new EmbeddedChannel(new Lz4StreamFrameDecoder());
        channel.writeInbound(Unpooled.copiedBuffer(capture, first, capture.length - first));

        LineSplitter splitter = new LineSplitter(LineSplitter.NETDATA_MAX_LINE_BYTES);
        LineTokenizer tokenizer = new LineTokenizer();
        List<List<String>> firstWordsOfKind = new ArrayList<>();
        int[] lines = {0};
        long[] setValueSum = {0};
        int[] chartLines = {0};
        byte[] chart = "CHART".getBytes(StandardCharsets.US_ASCII);
        byte[] set = "SET".getBytes(StandardCharsets.US_ASCII);
        LineSplitter.LineConsumer consumer = (buf, start, end) -> {
            lines[0]++;
            int words = tokenizer.tokenize(buf, start, end);
            if (tokenizer.wordEquals(0, chart)) {
                chartLines[0]++;
                if (firstWordsOfKind.isEmpty()) {
                    List<String> list = new ArrayList<>();
                    for (int i = 0; i < words; i++) {
                        list.add(tokenizer.string(i));
                    }
                    firstWordsOfKind.add(list);
                }
            } else if (tokenizer.wordEquals(0, set)) {
                assertEquals(3, words);
                setValueSum[0] += tokenizer.parseLong(2);
            }
        };
        for (ByteBuf block; (block = channel.readInbound()) != null; ) {
            splitter.feed(block, consumer);
            assertEquals(0, block.readableBytes());
            block.release();
        }
        channel.finishAndReleaseAll();

        byte[] text = WireTestData.captureDecompressed();
        int newlines = 0;
        for (byte b : text) {
            newlines += b == '\n' ? 1 : 0;
        }
        assertEquals(newlines, lines[0]);
        assertEquals(0, splitter.pendingBytes(), "the capture ends at a line boundary");
        assertTrue(chartLines[0] > 200, "about 216 charts are defined, got " + chartLines[0]);
        assertTrue(setValueSum[0] != 0);
        assertNotNull(firstWordsOfKind.get(0));
        // line 25 of the capture:
        // CHART "system.idlejitter" "" "CPU Idle Jitter" "microseconds lost/s" "idlejitter" "system.idlejitter"
        //       "area" 800 1 "   " "idlejitter.plugin" ""
        assertEquals(Arrays.asList("CHART", "system.idlejitter", "", "CPU Idle Jitter", "microseconds lost/s",
                "idlejitter", "system.idlejitter", "area", "800", "1", "   ", "idlejitter.plugin", ""),
                firstWordsOfKind.get(0));
    }
}
