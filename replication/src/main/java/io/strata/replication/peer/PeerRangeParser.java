package io.strata.replication.peer;

import io.strata.engine.page.StorageNumber;
import io.strata.streaming.wire.LineTokenizer;
import io.strata.streaming.wire.NetdataNumbers;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads a peer's answer to a past-range request ({@code replay_chart}, docs/format/peer-replay.md):
 * {@code RBEGIN "<chart>"}, points ({@code RBEGIN '' <start> <end> <wall clock>} and {@code RSET}
 * lines), {@code REND}. Words are split by the stream's own {@link LineTokenizer} and numbers read by
 * {@link NetdataNumbers}, as the receiver reads a replication answer, and a value becomes the storage
 * number the receiver would store for it ({@code RSET "E"} or NaN: nothing; {@code "R"}: a reset; the
 * value packed with the default flags). Only points that end on a slot of the asked range are kept:
 * {@code out[d][i]} is dimension {@code d}'s value at {@code from + i × updateEvery}.
 *
 * <p>Single-threaded (one per repair thread); no object per value.
 */
final class PeerRangeParser {

    private static final byte[] W_RBEGIN = ascii("RBEGIN");
    private static final byte[] W_RSET = ascii("RSET");
    private static final byte[] W_REND = ascii("REND");

    private final LineTokenizer words = new LineTokenizer();

    /** Values placed by the last {@link #parse}. */
    private int values;
    /** The dimension of the last RSET: a sender writes them in the chart's order, so the next is tried first. */
    private int lastDimension = -1;

    /** A malformed answer: nothing of it is stored. */
    static final class MalformedAnswerException extends Exception {
        MalformedAnswerException(String message) {
            super(message);
        }
    }

    /**
     * Parses {@code body[0..length)} into {@code out}, which it first fills with
     * {@link StorageNumber#SN_EMPTY_SLOT}.
     *
     * @param dimensionIds the chart's dimension ids, index {@code d} of {@code out}
     * @param from         the time of slot 0
     * @param slots        the slots of {@code out} in use
     * @return the {@code before} of the answer's {@code REND} (where the peer stopped)
     * @throws MalformedAnswerException for an answer without {@code REND}, of another chart, or with a line
     *                                  that is not of a replication answer
     */
    long parse(byte[] body, int length, String chartId, byte[][] dimensionIds, long from, int updateEvery,
               int slots, int[][] out) throws MalformedAnswerException {
        for (int[] row : out) {
            Arrays.fill(row, 0, slots, StorageNumber.SN_EMPTY_SLOT);
        }
        values = 0;
        byte[] chart = chartId.getBytes(StandardCharsets.UTF_8);
        boolean chartSeen = false;
        int slot = -1;
        int s = 0;
        while (s < length) {
            int e = s;
            while (e < length && body[e] != '\n') {
                e++;
            }
            int n = words.tokenize(body, s, e);
            int lineStart = s;
            s = e + 1;
            if (n == 0) {
                continue;
            }
            if (words.wordEquals(0, W_RBEGIN)) {
                if (!words.isEmpty(1)) {
                    if (chartSeen || !same(body, words.start(1), words.end(1), chart)) {
                        throw new MalformedAnswerException("an answer for another chart: " + line(body, lineStart, e));
                    }
                    chartSeen = true;
                    continue;
                }
                if (!chartSeen || n < 4) {
                    throw new MalformedAnswerException("a point before its chart, or without times: "
                            + line(body, lineStart, e));
                }
                long end = NetdataNumbers.parseSigned(body, words.start(3), words.end(3));
                long offset = end - from;
                slot = offset >= 0 && offset % updateEvery == 0 && offset / updateEvery < slots
                        ? (int) (offset / updateEvery) : -1;
            } else if (words.wordEquals(0, W_RSET)) {
                if (slot < 0 || n < 3) {
                    continue;
                }
                int d = dimension(body, dimensionIds);
                if (d < 0) {
                    continue;
                }
                double value = NetdataNumbers.parseDouble(body, words.start(2), words.end(2));
                int flags = StorageNumber.SN_DEFAULT_FLAGS;
                boolean empty = Double.isNaN(value) || Double.isInfinite(value);
                if (n > 3) {
                    for (int i = words.start(3); i < words.end(3); i++) {
                        if (body[i] == 'E') {
                            empty = true;
                        } else if (body[i] == 'R') {
                            flags |= StorageNumber.SN_FLAG_RESET;
                        }
                    }
                }
                if (!empty) {
                    out[d][slot] = StorageNumber.pack(value, flags & StorageNumber.SN_USER_FLAGS);
                    values++;
                }
            } else if (words.wordEquals(0, W_REND)) {
                if (!chartSeen || n < 7) {
                    throw new MalformedAnswerException("REND without its chart or values: " + line(body, lineStart, e));
                }
                return NetdataNumbers.parseSigned(body, words.start(6), words.end(6));
            } else {
                throw new MalformedAnswerException("not a line of a replication answer: " + line(body, lineStart, e));
            }
        }
        throw new MalformedAnswerException("the answer ends without REND (" + length + " bytes)");
    }

    /** Values (not gaps) placed in slots by the last {@link #parse}. */
    int values() {
        return values;
    }

    private int dimension(byte[] body, byte[][] ids) {
        int s = words.start(1);
        int e = words.end(1);
        if (ids.length == 0) {
            return -1;
        }
        int next = lastDimension + 1 < ids.length ? lastDimension + 1 : 0;
        if (same(body, s, e, ids[next])) {
            lastDimension = next;
            return next;
        }
        for (int d = 0; d < ids.length; d++) {
            if (same(body, s, e, ids[d])) {
                lastDimension = d;
                return d;
            }
        }
        return -1;
    }

    private static boolean same(byte[] b, int s, int e, byte[] word) {
        return e - s == word.length && Arrays.equals(b, s, e, word, 0, word.length);
    }

    private static String line(byte[] b, int s, int e) {
        int to = Math.min(e, s + 120);
        StringBuilder sb = new StringBuilder(to - s);
        for (int i = s; i < to; i++) {
            char c = (char) (b[i] & 0xFF);
            sb.append(c < 0x20 || c >= 0x7f ? '?' : c);
        }
        return sb.toString();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
