package io.strata.replication.sender;

import io.netty.buffer.ByteBuf;
import io.strata.streaming.sender.SenderWireFormat;
import io.strata.engine.page.StorageNumber;

import java.util.Arrays;

/**
 * Formats one replicated point ({@code RBEGIN ''} and one {@code RSET} per dimension) into a
 * reusable array and hands it to the buffer in one copy: a point of a 10-dimension chart is about
 * 300 bytes, and a {@link ByteBuf} call per field (each with its bounds and reference-count
 * checks) cost more than the formatting itself. The bytes are those of
 * {@link SenderWireFormat#replayPoint}, {@link SenderWireFormat#replaySetStorageNumber} and
 * {@link SenderWireFormat#replaySetEmpty}.
 */
final class ReplayPointWriter {

    /** {@code RSET "} + {@code " } + value + {@code  "R"\n}, besides the id. */
    private static final int RSET_OVERHEAD = 6 + 2 + SenderWireFormat.FIXED7_MAX_BYTES + 5;
    private static final int RBEGIN_MAX = 10 + 3 * 21;

    private byte[] line = new byte[1024];
    private int length;

    /** Starts a point: {@code RBEGIN '' <start> <end> <wall clock>}, with room for {@code dimensions} lines of ids up to {@code maxIdBytes}. */
    void begin(long startSeconds, long endSeconds, long wallClockSeconds, int dimensions, int maxIdBytes) {
        int room = RBEGIN_MAX + dimensions * (RSET_OVERHEAD + maxIdBytes);
        if (line.length < room) {
            line = Arrays.copyOf(line, Integer.highestOneBit(room) << 1);
        }
        byte[] b = line;
        int at = SenderWireFormat.put(b, 0, SenderWireFormat.RBEGIN_POINT);
        at = unsigned(b, at, startSeconds);
        b[at++] = ' ';
        at = unsigned(b, at, endSeconds);
        b[at++] = ' ';
        at = unsigned(b, at, wallClockSeconds);
        b[at++] = '\n';
        length = at;
    }

    /** {@code RSET "<id>" <value %0.7f> ""} or {@code "R"} for a counter reset. */
    void set(ByteBuf out, byte[] dimensionIdUtf8, int storageNumber) {
        byte[] b = line;
        int at = SenderWireFormat.put(b, length, SenderWireFormat.RSET);
        at = SenderWireFormat.put(b, at, dimensionIdUtf8);
        b[at++] = '"';
        b[at++] = ' ';
        int end = decimal(b, at, storageNumber);
        if (end < 0) {
            end = SenderWireFormat.fixed7(b, at, StorageNumber.unpack(storageNumber));
        }
        if (end < 0) {
            // beyond 2^63: formatted by the slow path, straight into the buffer
            drainTo(out);
            SenderWireFormat.replaySetStorageNumber(out, dimensionIdUtf8, storageNumber);
            return;
        }
        at = end;
        b[at++] = ' ';
        b[at++] = '"';
        if ((storageNumber & StorageNumber.SN_FLAG_RESET) != 0) {
            b[at++] = 'R';
        }
        b[at++] = '"';
        b[at++] = '\n';
        length = at;
    }

    private static final int[] POW10 = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000};

    /**
     * The {@code %0.7f} of {@code unpack(sn)} without the double, for the two common shapes of a
     * storage number: mantissa / 10^k and mantissa * 10^k (k < 8). The first is below 2^24, where
     * the double is within 4e-9 of the exact decimal, which has at most 7 decimals, so printing
     * it rounds back to that decimal; the second is an integer below 2^53, exact. Returns -1 for
     * the base-100 shapes, which take the double's path.
     */
    private static int decimal(byte[] b, int at, int sn) {
        if ((sn & StorageNumber.SN_FLAG_NOT_EXISTS_MUL100) != 0) {
            return -1;
        }
        int mantissa = sn & StorageNumber.SN_MANTISSA_MASK;
        int k = (sn & StorageNumber.SN_EXPONENT_MASK) >>> StorageNumber.SN_EXPONENT_SHIFT;
        if ((sn & StorageNumber.SN_FLAG_NEGATIVE) != 0) {
            b[at++] = '-';
        }
        long decimals;
        if ((sn & StorageNumber.SN_FLAG_MULTIPLY) != 0) {
            at = SenderWireFormat.positive(b, at, (long) mantissa * POW10[k]);
            decimals = 0;
        } else {
            at = SenderWireFormat.positive(b, at, mantissa / POW10[k]);
            decimals = (long) (mantissa % POW10[k]) * POW10[7 - k];
        }
        b[at++] = '.';
        SenderWireFormat.twoDigitsBackwards(b, at + 7, decimals, 7);
        return at + 7;
    }

    /** {@code RSET "<id>" NAN "E"}: the dimension has no point at this time. */
    void empty(byte[] dimensionIdUtf8) {
        byte[] b = line;
        int at = SenderWireFormat.put(b, length, SenderWireFormat.RSET);
        at = SenderWireFormat.put(b, at, dimensionIdUtf8);
        length = SenderWireFormat.put(b, at, SenderWireFormat.NAN_EMPTY);
    }

    /** Appends what was formatted to {@code out}. */
    void drainTo(ByteBuf out) {
        out.writeBytes(line, 0, length);
        length = 0;
    }

    private static int unsigned(byte[] b, int at, long v) {
        if (v < 0) {
            at = SenderWireFormat.positive(b, at, Long.divideUnsigned(v, 10));
            b[at++] = (byte) ('0' + Long.remainderUnsigned(v, 10));
            return at;
        }
        return SenderWireFormat.positive(b, at, v);
    }
}
