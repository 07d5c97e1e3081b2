package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Cuts the text of a stream into lines terminated by {@code '\n'}, whatever the TCP reads and LZ4
 * blocks did to them: a partial line is kept until its end arrives. Bytes are copied once, into an
 * internal array of fixed size, and every complete line is handed over as a range of that array
 * (without its {@code '\n'}; a {@code '\r'} before it stays, the tokenizer treats it as a separator).
 *
 * <p>A line whose content exceeds {@code maxLineBytes} is reported to
 * {@link LineConsumer#overlongLine(int)} as soon as that is known, and is then skipped up to its
 * {@code '\n'}, so memory never grows with the input. Netdata's receiver uses a 15360-byte line buffer
 * (PLUGINSD_LINE_MAX = 16384 - 1024), newline included, and truncates longer lines; the default
 * consumer here refuses them instead.
 *
 * <p>One instance per connection, not thread-safe. If the consumer throws, the splitter stays
 * consistent: the line it was given counts as consumed and the rest is kept.
 */
public final class LineSplitter {
    /** Netdata's line limit: PLUGINSD_LINE_MAX. */
    public static final int NETDATA_MAX_LINE_BYTES = 16384 - 1024;

    /** Receives the lines; called on the thread that calls {@link #feed}. */
    public interface LineConsumer {
        /**
         * One complete line: {@code buf[start .. end)}, without the {@code '\n'}. The range is only
         * valid during the call (the array is reused).
         */
        void line(byte[] buf, int start, int end) throws StreamProtocolException;

        /**
         * A line grew past the limit; it will be skipped up to its {@code '\n'} if this returns.
         *
         * @param length bytes of the line seen so far (at least the limit + 1)
         */
        default void overlongLine(int length) throws StreamProtocolException {
            throw new StreamProtocolException("line too long: " + length
                    + " bytes without a newline, more than the line limit");
        }
    }

    private static final int READ_AHEAD_BYTES = 64 * 1024;

    private final int maxLineBytes;
    /**
     * Allocated at the first byte: a parent accepts streams that never send one (a child reconnecting
     * at once, a storm of them), and 80 KiB for each of those is garbage the collector copies while
     * they are open.
     */
    private byte[] buffer;
    /** First byte not yet handed over (start of the partial line). */
    private int start;
    /** End of the bytes held. */
    private int end;
    /** {@code [start, scanned)} is known to hold no newline. */
    private int scanned;
    /** Inside an over-long line: drop input up to its newline. */
    private boolean skippingLine;

    /** @param maxLineBytes most bytes a line may have, its {@code '\n'} not counted (at least 1) */
    public LineSplitter(int maxLineBytes) {
        if (maxLineBytes < 1 || maxLineBytes > Integer.MAX_VALUE - READ_AHEAD_BYTES - 1) {
            throw new IllegalArgumentException("maxLineBytes must be positive, got " + maxLineBytes);
        }
        this.maxLineBytes = maxLineBytes;
    }

    /** Consumes all readable bytes of {@code in}, calling {@code consumer} for every complete line. */
    public void feed(ByteBuf in, LineConsumer consumer) throws StreamProtocolException {
        while (true) {
            if (skippingLine) {
                int newline = in.forEachByte(ByteProcessor.FIND_LF);
                if (newline < 0) {
                    in.skipBytes(in.readableBytes());
                    return;
                }
                in.readerIndex(newline + 1);
                skippingLine = false;
            }
            deliverCompleteLines(consumer);
            if (end - start > maxLineBytes) {
                int length = end - start;
                start = 0;
                end = 0;
                scanned = 0;
                skippingLine = true;
                consumer.overlongLine(length);
                continue;
            }
            if (!in.isReadable()) {
                return;
            }
            if (buffer == null) {
                // room for a partial line of the maximum length plus a useful amount of new input
                buffer = new byte[maxLineBytes + 1 + READ_AHEAD_BYTES];
            }
            if (start > 0) {
                int partial = end - start;
                System.arraycopy(buffer, start, buffer, 0, partial);
                scanned -= start;
                start = 0;
                end = partial;
            }
            int count = Math.min(in.readableBytes(), buffer.length - end);
            in.readBytes(buffer, end, count);
            end += count;
        }
    }

    /**
     * Bytes held and not handed over yet: the incomplete last line (at most {@code maxLineBytes}), and,
     * after the consumer threw, the lines behind the one it refused (delivered by the next feed).
     */
    public int pendingBytes() {
        return end - start;
    }

    /** Bytes of the array this splitter holds: none before its first input. */
    public int heldBytes() {
        return buffer == null ? 0 : buffer.length;
    }

    /** Drops any partial line, as for a new connection. */
    public void reset() {
        start = 0;
        end = 0;
        scanned = 0;
        skippingLine = false;
    }

    private void deliverCompleteLines(LineConsumer consumer) throws StreamProtocolException {
        final byte[] buf = buffer;
        int i = scanned;
        while (i < end) {
            i = newline(buf, i, end);
            if (i >= end) {
                break;
            }
            int lineStart = start;
            start = i + 1;
            scanned = start;
            if (i - lineStart > maxLineBytes) {
                consumer.overlongLine(i - lineStart);
            } else {
                consumer.line(buf, lineStart, i);
            }
            i = start;
        }
        scanned = end;
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long NEWLINES = ONES * '\n';

    /**
     * The index of the first {@code '\n'} in {@code b[from, to)}, or {@code to}: eight bytes at a
     * time (a line is about 30 bytes; a byte loop was a sixth of a parent's replication time).
     */
    static int newline(byte[] b, int from, int to) {
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long x = (long) LONGS.get(b, i) ^ NEWLINES;
            // a zero byte of x (a newline of b) sets its high bit here; exact for the lowest one
            long found = (x - ONES) & ~x & HIGHS;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return to;
    }
}
