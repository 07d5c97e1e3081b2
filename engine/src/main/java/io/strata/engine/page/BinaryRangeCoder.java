package io.strata.engine.page;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The adaptive binary range coder of LZMA, with a second stream of raw bits written backwards
 * from the end of the same buffer, shared by the page codecs ({@link PageCodecTier0},
 * {@link PageCodecTier1}) which extend it with their models. One page at a time, per thread.
 *
 * <p>The two codecs differ only in how fast probabilities adapt ({@code moveBits}) and in whether
 * the coder's first output byte, which LZMA always makes 0, is stored; both are fixed by their
 * formats ({@code docs/format/page.md}).
 */
class BinaryRangeCoder {
    static final int PROB_BITS = 12;
    static final int PROB_INIT = 1 << (PROB_BITS - 1);
    static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    final int[] probs;
    private final int moveBits;
    private final boolean elideFirstByte;

    byte[] buf;
    // range encoder
    long low;
    int range;
    int cache;
    long cacheSize;
    boolean firstByte;
    int rcPos;
    // raw bits, written backwards from the end
    long acc;
    int nbits;
    int rawPos;
    boolean overflow;
    // range decoder
    int code;
    int rcEnd;
    /** Bytes the decoder wanted past the end of the range-coded stream. */
    int overrun;
    int rawLimit;

    BinaryRangeCoder(int probCount, int moveBits, boolean elideFirstByte) {
        this.probs = new int[probCount];
        this.moveBits = moveBits;
        this.elideFirstByte = elideFirstByte;
    }

    // -------------------------------------------------------------------- encoder

    void startEncoder(byte[] dst, int pos, int limit) {
        Arrays.fill(probs, PROB_INIT);
        buf = dst;
        low = 0;
        range = 0xffffffff;
        cache = 0;
        cacheSize = 1;
        firstByte = elideFirstByte;
        rcPos = pos;
        acc = 0;
        nbits = 0;
        rawPos = limit;
        overflow = false;
    }

    private void shiftLow() {
        if (low < 0xff000000L || low > 0xffffffffL) {
            int carry = (int) (low >>> 32);
            int temp = cache;
            do {
                if (firstByte) {
                    firstByte = false; // LZMA's first output byte is always 0: not stored
                } else if (rcPos >= rawPos) {
                    overflow = true;
                } else {
                    buf[rcPos++] = (byte) (temp + carry);
                }
                temp = 0xff;
            } while (--cacheSize != 0);
            cache = (int) (low >>> 24) & 0xff;
        }
        cacheSize++;
        low = (low & 0x00ffffffL) << 8;
    }

    void encodeBit(int p, int bit) {
        int prob = probs[p];
        int bound = (range >>> PROB_BITS) * prob;
        if (bit == 0) {
            range = bound;
            probs[p] = prob + (((1 << PROB_BITS) - prob) >>> moveBits);
        } else {
            low += bound & 0xffffffffL;
            range -= bound;
            probs[p] = prob - (prob >>> moveBits);
        }
        while ((range & 0xff000000) == 0) {
            range <<= 8;
            shiftLow();
        }
    }

    /** Codes the low {@code levels} bits of {@code value}, high bit first, in the tree at {@code base}. */
    void encodeTree(int base, int value, int levels) {
        int node = 1;
        for (int lv = levels - 1; lv >= 0; lv--) {
            int b = (value >>> lv) & 1;
            encodeBit(base + node, b);
            node = (node << 1) | b;
        }
    }

    /**
     * Codes {@code n} binary decisions, each {@code (probability index << 1) | bit}, exactly as
     * {@link #encodeBit} would one by one. A model that knows its decisions in advance lists them
     * and lets this loop code them with the coder's state in locals (shiftLow is inlined below): per
     * bit, one multiplication on the range's dependency chain and no loads or stores of the state.
     */
    void encodeDecisions(char[] decisions, int n) {
        int[] pr = probs;
        int move = moveBits;
        int moveMask = (1 << move) - 1;
        int r = range;
        long lo = low;
        int cch = cache;
        long pending = cacheSize;
        int pos = rcPos;
        int end = rawPos;
        boolean skipFirst = firstByte;
        boolean over = overflow;
        byte[] out = buf;
        for (int i = 0; i < n; i++) {
            int d = decisions[i];
            int p = d >>> 1;
            int prob = pr[p];
            int q = r >>> PROB_BITS;
            int bound = q * prob;
            // No branch on the bit, which is as unpredictable as the data (measured: a branch costs
            // more in mispredictions than these few operations). With mask = -bit: a 1 adds bound
            // to low; the probability moves by (4096 - prob) >> move after a 0 and by
            // -(prob >> move) = (2^move - 1 - prob) >> move (arithmetic shift) after a 1. The new
            // range, bound after a 0 and r - bound = q * (4096 - prob) + (r & 4095) after a 1, is
            // q * f + (r & 4095 & mask) with f chosen from prob off the range's dependency chain:
            // a shift, a multiplication and an addition a decision, where a select of bound or
            // r - bound adds a subtraction and the select.
            int b = d & 1;
            int mask = -b;
            int f = prob ^ ((prob ^ ((1 << PROB_BITS) - prob)) & mask);
            lo += bound & mask & 0xffffffffL;
            pr[p] = prob + ((((b - 1) & (1 << PROB_BITS)) + (mask & moveMask) - prob) >> move);
            r = q * f + (r & ((1 << PROB_BITS) - 1) & mask);
            while ((r & 0xff000000) == 0) {
                r <<= 8;
                if (lo < 0xff000000L || lo > 0xffffffffL) {
                    int carry = (int) (lo >>> 32);
                    int temp = cch;
                    do {
                        if (skipFirst) {
                            skipFirst = false;
                        } else if (pos >= end) {
                            over = true;
                        } else {
                            out[pos++] = (byte) (temp + carry);
                        }
                        temp = 0xff;
                    } while (--pending != 0);
                    cch = (int) (lo >>> 24) & 0xff;
                }
                pending++;
                lo = (lo & 0x00ffffffL) << 8;
            }
        }
        range = r;
        low = lo;
        cache = cch;
        cacheSize = pending;
        rcPos = pos;
        firstByte = skipFirst;
        overflow = over;
    }

    /**
     * Appends the low {@code w} (0..61) bits of {@code v} to the raw stream. Away from the range
     * coder's bytes, the whole 64-bit accumulator is stored (big-endian, so that its first byte lands
     * last) and only its complete bytes are kept: no loop over the bytes, whose count is as
     * unpredictable as the data. The bytes past them are overwritten later.
     */
    void putRaw(long v, int w) {
        if (w > 56) { // nbits (< 8) + w must fit in the accumulator
            putRaw(v & 0xffffffffL, 32);
            putRaw(v >>> 32, w - 32);
            return;
        }
        long a = acc | (v & ((1L << w) - 1)) << nbits;
        int n = nbits + w;
        int bytes = n >>> 3;
        if (rawPos - 8 >= rcPos) {
            LONG_BE.set(buf, rawPos - 8, a);
            rawPos -= bytes;
        } else {
            for (int i = 0; i < bytes; i++) {
                if (rawPos <= rcPos) {
                    overflow = true;
                } else {
                    buf[--rawPos] = (byte) (a >>> (i << 3));
                }
            }
        }
        acc = a >>> (bytes << 3);
        nbits = n & 7;
    }

    /** Flushes both streams and joins them; returns the end of the page, or -1 on overflow. */
    int finishEncoder(int limit) {
        if (nbits > 0) {
            if (rawPos <= rcPos) {
                overflow = true;
            } else {
                buf[--rawPos] = (byte) acc;
            }
            nbits = 0;
        }
        for (int i = 0; i < 5; i++) {
            shiftLow();
        }
        if (overflow) {
            return -1;
        }
        int rawLen = limit - rawPos;
        System.arraycopy(buf, rawPos, buf, rcPos, rawLen);
        return rcPos + rawLen;
    }

    // -------------------------------------------------------------------- decoder

    void startDecoder(byte[] src, int pos, int end) {
        Arrays.fill(probs, PROB_INIT);
        buf = src;
        rcPos = pos;
        rcEnd = end;
        overrun = 0;
        rawPos = end;
        rawLimit = pos;
        acc = 0;
        nbits = 0;
        range = 0xffffffff;
        code = 0;
        for (int i = elideFirstByte ? 1 : 0; i < 5; i++) {
            code = (code << 8) | nextByte();
        }
    }

    private int nextByte() {
        if (rcPos < rcEnd) {
            return buf[rcPos++] & 0xff;
        }
        overrun++;
        rcPos++;
        return 0;
    }

    int decodeBit(int p) {
        int prob = probs[p];
        int bound = (range >>> PROB_BITS) * prob;
        int bit;
        if (Integer.compareUnsigned(code, bound) < 0) {
            range = bound;
            probs[p] = prob + (((1 << PROB_BITS) - prob) >>> moveBits);
            bit = 0;
        } else {
            code -= bound;
            range -= bound;
            probs[p] = prob - (prob >>> moveBits);
            bit = 1;
        }
        while ((range & 0xff000000) == 0) {
            range <<= 8;
            code = (code << 8) | nextByte();
        }
        return bit;
    }

    /** Decodes {@code levels} bits coded by {@link #encodeTree} at {@code base}. */
    int decodeTree(int base, int levels) {
        int node = 1;
        for (int lv = 0; lv < levels; lv++) {
            node = (node << 1) | decodeBit(base + node);
        }
        return node - (1 << levels);
    }

    long getRaw(int w) {
        if (w > 32) {
            long lo = getRaw(32);
            return lo | getRaw(w - 32) << 32;
        }
        while (nbits < w) {
            if (rawPos <= rawLimit) {
                throw new PageCodecTier0.CorruptPageException("raw bits run out");
            }
            acc |= (long) (buf[--rawPos] & 0xff) << nbits;
            nbits += 8;
        }
        long v = acc & ((1L << w) - 1);
        acc >>>= w;
        nbits -= w;
        return v;
    }
}
