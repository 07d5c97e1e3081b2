package io.strata.engine.page;

import java.util.Arrays;

/**
 * A frozen copy of {@link BinaryRangeCoder}'s encoder as it was in session 15 (a78c382), for
 * {@link Tier0ReferenceEncoder}: LZMA's adaptive binary range coder plus a raw-bit stream written
 * backwards from the end of the same buffer. Do not optimise it; it is a test oracle.
 */
class ReferenceRangeCoder {
    static final int PROB_BITS = 12;
    static final int PROB_INIT = 1 << (PROB_BITS - 1);

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

    ReferenceRangeCoder(int probCount, int moveBits, boolean elideFirstByte) {
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

    /** Appends the low {@code w} (0..61) bits of {@code v} to the raw stream. */
    void putRaw(long v, int w) {
        if (w > 32) {
            putRaw(v & 0xffffffffL, 32);
            putRaw(v >>> 32, w - 32);
            return;
        }
        acc |= (v & ((1L << w) - 1)) << nbits;
        nbits += w;
        while (nbits >= 8) {
            if (rawPos <= rcPos) {
                overflow = true;
            } else {
                buf[--rawPos] = (byte) acc;
            }
            acc >>>= 8;
            nbits -= 8;
        }
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
}
