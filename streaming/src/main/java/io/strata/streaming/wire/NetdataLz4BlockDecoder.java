package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Decoder of raw LZ4 blocks (the block format, not the LZ4 frame format) as a Netdata 1.37.1 child
 * sends them: compressed with {@code LZ4_compress_fast_continue}, so a block's matches may reach up to
 * 64 KiB back into the output of <em>earlier</em> blocks of the same connection. lz4-java has no way to
 * pass that history, hence this decoder of our own.
 *
 * <p>Decoded bytes go into one array that always keeps the last {@link #HISTORY_BYTES} bytes of output
 * in front of the write position. Netdata's parent uses an array of {@link #BUFFER_BYTES} bytes and
 * wraps to its start at half, letting liblz4 see the old half as an external dictionary; we use the
 * same size, but when the next block might not fit we move the last 64 KiB to the front instead, so a
 * match is always one contiguous copy inside the array.
 *
 * <p>Every malformed block (a run or a length running past the input, a zero offset, an offset before
 * the start of the history, output beyond {@link #MAX_DECODED_BLOCK_BYTES}) is reported as a
 * {@link StreamProtocolException}; no index can leave the arrays. After an exception the history is
 * unchanged (the failed block is not committed), but the stream itself is broken: Netdata closes it.
 *
 * <p>One instance per connection, not thread-safe.
 */
public final class NetdataLz4BlockDecoder {
    /**
     * Largest decoded size of one block. A 1.37.1 child never compresses more than
     * {@code COMPRESSION_MAX_MSG_SIZE} = 16384 bytes at once, and newer parents refuse more.
     */
    public static final int MAX_DECODED_BLOCK_BYTES = 16384;
    /** Largest compressed block: the header's 14-bit length cannot even reach it (max 16383). */
    public static final int MAX_COMPRESSED_BLOCK_BYTES = 16384;
    /** LZ4 offsets are 16 bits: a match reaches at most 65535 bytes back. */
    public static final int HISTORY_BYTES = 65536;
    /** Netdata's parent decode buffer: 2 * LZ4_decoderRingBufferSize(16384) = 2 * (65536 + 14 + 16384). */
    public static final int BUFFER_BYTES = 2 * (65536 + 14 + 16384);

    private static final int MIN_MATCH = 4;
    private static final int RUN_MASK = 15;
    /**
     * Literal runs and matches up to this long (most of a text stream's: a number, a dimension id)
     * are copied as two 8-byte words, as liblz4's wild copy does, instead of a {@code System.arraycopy}
     * each (whose call costs more than such a copy). The words may run past the run's end, into
     * output not decoded yet (written over by what follows) and input of the block or after it in
     * the array (never used as output): only where both arrays have the room.
     */
    private static final int SHORT_COPY = 2 * Long.BYTES;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * Both allocated at the first block: a parent accepts streams that never send one (a child
     * reconnecting at once, a storm of them), and 180 KiB for each of those is garbage the collector
     * copies while they are open.
     */
    private byte[] output;
    private byte[] input;
    /** End of the decoded bytes. */
    private int writePosition;
    /** First byte a match may still reference: everything before it is not history of this stream. */
    private int historyStart;
    private int blockOffset;
    private int blockLength;
    private long blocksDecoded;

    /**
     * Decodes one block of {@code len} compressed bytes read from {@code src} (its reader index
     * advances by {@code len}).
     *
     * @return the decoded length; the bytes are at {@code buffer()[offset() .. offset() + length)} until
     *         the next call
     */
    public int decode(ByteBuf src, int len) throws StreamProtocolException {
        if (len <= 0 || len > MAX_COMPRESSED_BLOCK_BYTES) {
            throw new StreamProtocolException("LZ4 block #" + (blocksDecoded + 1) + ": compressed length " + len
                    + " is outside 1.." + MAX_COMPRESSED_BLOCK_BYTES);
        }
        if (src.readableBytes() < len) {
            throw new StreamProtocolException("LZ4 block #" + (blocksDecoded + 1) + ": " + len
                    + " compressed bytes announced but only " + src.readableBytes() + " available");
        }
        if (input == null) {
            input = new byte[MAX_COMPRESSED_BLOCK_BYTES];
        }
        src.readBytes(input, 0, len);
        return decode(input, 0, len);
    }

    /** Same as {@link #decode(ByteBuf, int)} for a block held in an array. */
    public int decode(byte[] src, int srcOffset, int len) throws StreamProtocolException {
        if (len <= 0 || len > MAX_COMPRESSED_BLOCK_BYTES) {
            throw new StreamProtocolException("LZ4 block #" + (blocksDecoded + 1) + ": compressed length " + len
                    + " is outside 1.." + MAX_COMPRESSED_BLOCK_BYTES);
        }
        if (srcOffset < 0 || srcOffset > src.length - len) {
            throw new StreamProtocolException("LZ4 block #" + (blocksDecoded + 1) + ": " + len
                    + " bytes at " + srcOffset + " do not fit a source array of " + src.length);
        }
        if (output == null) {
            output = new byte[BUFFER_BYTES];
        }
        if (writePosition > BUFFER_BYTES - MAX_DECODED_BLOCK_BYTES) {
            keepOnlyHistory();
        }
        final byte[] out = output;
        final int start = writePosition;
        final int limit = start + MAX_DECODED_BLOCK_BYTES;
        final int inputEnd = srcOffset + len;
        int ip = srcOffset;
        int op = start;
        while (true) {
            // ip < inputEnd holds here: the block is not empty and a match is never the last thing in it
            final int token = src[ip++] & 0xFF;
            int literals = token >>> 4;
            if (literals == RUN_MASK) {
                int more;
                do {
                    if (ip >= inputEnd) {
                        throw malformed(ip, srcOffset, len, "literal length continues past the end of the block");
                    }
                    more = src[ip++] & 0xFF;
                    literals += more;
                } while (more == 255);
            }
            if (literals > inputEnd - ip) {
                throw malformed(ip, srcOffset, len, "literal run of " + literals + " bytes but only "
                        + (inputEnd - ip) + " input bytes left");
            }
            if (literals > limit - op) {
                throw malformed(ip, srcOffset, len, "literals would make the block decode to more than "
                        + MAX_DECODED_BLOCK_BYTES + " bytes");
            }
            if (literals <= SHORT_COPY && ip <= src.length - SHORT_COPY && op <= out.length - SHORT_COPY) {
                LONGS.set(out, op, (long) LONGS.get(src, ip));
                LONGS.set(out, op + Long.BYTES, (long) LONGS.get(src, ip + Long.BYTES));
            } else {
                System.arraycopy(src, ip, out, op, literals);
            }
            ip += literals;
            op += literals;
            if (ip == inputEnd) {
                break; // the last sequence of a block carries literals only
            }
            if (inputEnd - ip < 2) {
                throw malformed(ip, srcOffset, len, "match offset cut by the end of the block");
            }
            final int offset = (src[ip] & 0xFF) | (src[ip + 1] & 0xFF) << 8;
            if (offset == 0) {
                throw malformed(ip, srcOffset, len, "match offset 0");
            }
            if (offset > op - historyStart) {
                throw malformed(ip, srcOffset, len, "match offset " + offset + " reaches before the start of the "
                        + "history (" + (op - historyStart) + " bytes decoded so far)");
            }
            ip += 2;
            int matchLength = token & RUN_MASK;
            if (matchLength == RUN_MASK) {
                int more;
                do {
                    if (ip >= inputEnd) {
                        throw malformed(ip, srcOffset, len, "match length continues past the end of the block");
                    }
                    more = src[ip++] & 0xFF;
                    matchLength += more;
                } while (more == 255);
            }
            matchLength += MIN_MATCH;
            if (matchLength > limit - op) {
                throw malformed(ip, srcOffset, len, "match would make the block decode to more than "
                        + MAX_DECODED_BLOCK_BYTES + " bytes");
            }
            if (matchLength <= SHORT_COPY && offset >= Long.BYTES && op <= out.length - SHORT_COPY) {
                // offset >= 8: each word read is output already final (the second may be the first's)
                LONGS.set(out, op, (long) LONGS.get(out, op - offset));
                LONGS.set(out, op + Long.BYTES, (long) LONGS.get(out, op - offset + Long.BYTES));
            } else {
                copyMatch(out, op - offset, op, matchLength);
            }
            op += matchLength;
            if (ip == inputEnd) {
                throw malformed(ip, srcOffset, len, "block ends with a match instead of literals");
            }
        }
        blocksDecoded++;
        blockOffset = start;
        blockLength = op - start;
        writePosition = op;
        return blockLength;
    }

    /** The array holding the history and the last decoded block. */
    public byte[] buffer() {
        return output;
    }

    /** Where the last decoded block starts in {@link #buffer()}. */
    public int offset() {
        return blockOffset;
    }

    /** Decoded length of the last block. */
    public int length() {
        return blockLength;
    }

    /** Bytes of the arrays this decoder holds: none before its first block. */
    public int heldBytes() {
        return (output == null ? 0 : output.length) + (input == null ? 0 : input.length);
    }

    /** Blocks decoded since creation or the last {@link #reset()}. */
    public long blocksDecoded() {
        return blocksDecoded;
    }

    /** Forgets all history, as for a new connection. */
    public void reset() {
        writePosition = 0;
        historyStart = 0;
        blockOffset = 0;
        blockLength = 0;
        blocksDecoded = 0;
    }

    private void keepOnlyHistory() {
        int keep = Math.min(HISTORY_BYTES, writePosition - historyStart);
        System.arraycopy(output, writePosition - keep, output, 0, keep);
        historyStart = 0;
        writePosition = keep;
    }

    /**
     * Copies a match that may overlap its own output (offset smaller than the length repeats the last
     * {@code offset} bytes). Each pass copies a whole number of periods, so the source never overlaps
     * the destination of that pass.
     */
    private static void copyMatch(byte[] out, int from, int to, int length) {
        int copied = 0;
        while (copied < length) {
            int chunk = Math.min(length - copied, to + copied - from);
            System.arraycopy(out, from, out, to + copied, chunk);
            copied += chunk;
        }
    }

    private StreamProtocolException malformed(int ip, int srcOffset, int len, String what) {
        return new StreamProtocolException("corrupt LZ4 block #" + (blocksDecoded + 1) + " (" + len
                + " compressed bytes): " + what + " at input byte " + (ip - srcOffset));
    }
}
