package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LineSplitterTest {

    /** Collects lines as strings; over-long lines are recorded and skipped. */
    static final class Collector implements LineSplitter.LineConsumer {
        final List<String> lines = new ArrayList<>();
        final List<Integer> overlong = new ArrayList<>();

        @Override
        public void line(byte[] buf, int start, int end) {
            lines.add(new String(buf, start, end - start, StandardCharsets.ISO_8859_1));
        }

        @Override
        public void overlongLine(int length) {
            overlong.add(length);
        }
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    private static void feed(LineSplitter splitter, String s, LineSplitter.LineConsumer consumer)
            throws StreamProtocolException {
        ByteBuf in = ascii(s);
        try {
            splitter.feed(in, consumer);
            assertEquals(0, in.readableBytes(), "feed consumes everything");
        } finally {
            in.release();
        }
    }

    @Test
    void linesSpanFeedsAndPartialLinesWait() throws StreamProtocolException {
        LineSplitter splitter = new LineSplitter(100);
        Collector c = new Collector();
        feed(splitter, "BEGIN \"a\" 1\nSET \"x\"", c);
        assertEquals(List.of("BEGIN \"a\" 1"), c.lines);
        assertEquals(7, splitter.pendingBytes());
        feed(splitter, " = 5\n", c);
        feed(splitter, "", c);
        feed(splitter, "END\r\n\n", c);
        assertEquals(List.of("BEGIN \"a\" 1", "SET \"x\" = 5", "END\r", ""), c.lines);
        assertEquals(0, splitter.pendingBytes());
    }

    @Test
    void byteByByteGivesTheSameLines() throws StreamProtocolException {
        String text = "CLAIMED_ID a NULL\nLABEL \"n\" = 1 \"v\"\nOVERWRITE labels\n";
        LineSplitter splitter = new LineSplitter(LineSplitter.NETDATA_MAX_LINE_BYTES);
        Collector c = new Collector();
        for (char ch : text.toCharArray()) {
            feed(splitter, String.valueOf(ch), c);
        }
        assertEquals(List.of("CLAIMED_ID a NULL", "LABEL \"n\" = 1 \"v\"", "OVERWRITE labels"), c.lines);
    }

    @Test
    void lineOfExactlyTheLimitPassesOneMoreByteFails() throws StreamProtocolException {
        LineSplitter splitter = new LineSplitter(10);
        Collector c = new Collector();
        feed(splitter, "0123456789\n", c);
        assertEquals(List.of("0123456789"), c.lines);

        LineSplitter strict = new LineSplitter(10);
        LineSplitter.LineConsumer refusing = (buf, start, end) -> {
        };
        ByteBuf in = ascii("0123456789A\n");
        StreamProtocolException e = assertThrows(StreamProtocolException.class, () -> strict.feed(in, refusing));
        in.release();
        assertEquals("line too long: 11 bytes without a newline, more than the line limit", e.getMessage());
    }

    @Test
    void partialLineOverTheLimitIsReportedBeforeItsNewlineArrives() throws StreamProtocolException {
        LineSplitter splitter = new LineSplitter(10);
        Collector c = new Collector();
        feed(splitter, "ok\n0123456789", c);
        assertTrue(c.overlong.isEmpty());
        feed(splitter, "AB", c);
        assertEquals(List.of(12), c.overlong);
        assertEquals(0, splitter.pendingBytes(), "the over-long line is dropped, not kept");
        feed(splitter, "CDEF", c);
        feed(splitter, "GH\nnext\n", c);
        assertEquals(List.of("ok", "next"), c.lines);
        assertEquals(List.of(12), c.overlong);
    }

    @Test
    void hugeLineIsSkippedWithBoundedMemory() throws StreamProtocolException {
        LineSplitter splitter = new LineSplitter(LineSplitter.NETDATA_MAX_LINE_BYTES);
        Collector c = new Collector();
        byte[] chunk = new byte[100_000];
        Arrays.fill(chunk, (byte) 'z');
        feed(splitter, "first\n", c);
        for (int i = 0; i < 50; i++) {
            ByteBuf in = Unpooled.wrappedBuffer(chunk);
            splitter.feed(in, c);
            assertEquals(0, in.readableBytes());
            assertTrue(splitter.pendingBytes() <= LineSplitter.NETDATA_MAX_LINE_BYTES);
        }
        feed(splitter, "zzz\nlast\n", c);
        assertEquals(List.of("first", "last"), c.lines);
        assertEquals(1, c.overlong.size());
        assertTrue(c.overlong.get(0) > LineSplitter.NETDATA_MAX_LINE_BYTES);
    }

    @Test
    void longCompleteLineInsideOneFeedIsReportedWithItsLength() throws StreamProtocolException {
        LineSplitter splitter = new LineSplitter(10);
        Collector c = new Collector();
        feed(splitter, "a\n" + "x".repeat(30) + "\nb\n", c);
        assertEquals(List.of("a", "b"), c.lines);
        assertEquals(List.of(30), c.overlong);
    }

    @Test
    void aThrowingConsumerLeavesTheRestForLater() throws StreamProtocolException {
        LineSplitter splitter = new LineSplitter(100);
        List<String> seen = new ArrayList<>();
        LineSplitter.LineConsumer failOnBad = (buf, start, end) -> {
            String line = new String(buf, start, end - start, StandardCharsets.ISO_8859_1);
            seen.add(line);
            if (line.equals("BAD")) {
                throw new StreamProtocolException("bad line");
            }
        };
        ByteBuf in = ascii("one\nBAD\ntwo\nthr");
        assertThrows(StreamProtocolException.class, () -> splitter.feed(in, failOnBad));
        in.release();
        feed(splitter, "ee\n", failOnBad);
        assertEquals(List.of("one", "BAD", "two", "three"), seen);
    }

    @Test
    void manyFeedsMoveThePartialLineToTheFront() throws StreamProtocolException {
        // enough input to wrap the internal buffer many times, with lines cut at every position
        LineSplitter splitter = new LineSplitter(50);
        Collector c = new Collector();
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            all.append("SET \"d").append(i).append("\" = ").append(i * 7L).append('\n');
        }
        String text = all.toString();
        for (int at = 0, step = 1; at < text.length(); at += step, step = step % 97 + 13) {
            feed(splitter, text.substring(at, Math.min(text.length(), at + step)), c);
        }
        assertEquals(20_000, c.lines.size());
        assertEquals("SET \"d19999\" = 139993", c.lines.get(19_999));
        assertTrue(c.overlong.isEmpty());
    }

    @Test
    void limitMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new LineSplitter(0));
    }

    @Test
    void theEightBytesAtATimeNewlineSearchFindsTheFirstNewlineAnywhere() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
        for (int round = 0; round < 20_000; round++) {
            byte[] b = new byte[rnd.nextInt(1, 40)];
            for (int i = 0; i < b.length; i++) {
                // bytes around '\n' (0x0A) and with the high bit set, where borrows could mislead
                int kind = rnd.nextInt(6);
                b[i] = (byte) (kind == 0 ? '\n' : kind == 1 ? 0x0B : kind == 2 ? 0x09 : kind == 3 ? 0x8A
                        : kind == 4 ? 0 : rnd.nextInt(256));
            }
            int from = rnd.nextInt(b.length);
            int to = rnd.nextInt(from, b.length + 1);
            int expected = to;
            for (int i = from; i < to; i++) {
                if (b[i] == '\n') {
                    expected = i;
                    break;
                }
            }
            org.junit.jupiter.api.Assertions.assertEquals(expected, LineSplitter.newline(b, from, to),
                    java.util.Arrays.toString(b) + " from " + from + " to " + to);
        }
    }
}
