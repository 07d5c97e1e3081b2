package io.strata.engine.page;

/**
 * A frozen copy of the tier-0 encoder as it was in session 15 (a78c382), decoding removed: the test
 * oracle that {@link PageCodecTier0Test}'s differential test compares the optimised encoder with,
 * byte for byte, on fresh random pages each run. Do not optimise or "fix" this copy: it defines the
 * bytes of the format (docs/format/page.md) together with {@link PageCodecTier0GoldenTest}.
 */
final class Tier0ReferenceEncoder {

    /** Codec id: raw little-endian points. */
    public static final int CODEC_RAW = 0;
    /** Codec id: decimal prediction + range-coded residual lengths. */
    public static final int CODEC_DECIMAL = 1;

    /** The empty slot (a gap): {@link StorageNumber#SN_EMPTY_SLOT}. */
    static final int GAP = StorageNumber.SN_EMPTY_SLOT;

    // flags
    private static final int GAPS_NONE = 0;
    private static final int GAPS_ALL = 1;
    private static final int GAPS_RUNS = 2;
    private static final int F_CONSTANT = 1 << 2;
    private static final int F_TOPS_CONST = 1 << 3;
    private static final int F_POINT = 1 << 4;
    private static final int PRED_SHIFT = 5;
    private static final int PRED_MEAN = 0;
    private static final int PRED_PREV = 1;
    private static final int PRED_LINEAR = 2;
    private static final int F_ANCHOR = 1 << 7;

    private static final int SYM_ANCHOR = 63;
    /**
     * Largest E - Emin of FIXED mode: |V| < 2^24 * 10^10 < 2^57.3, so W and the linear predictor's
     * residual stay below 2^60.3 and a zigzagged residual has at most 62 bits.
     */
    private static final int MAX_SPAN = 10;
    private static final long POINT_CLAMP = 1L << 25;

    static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
    }

    private static final ThreadLocal<Coder> CODER = ThreadLocal.withInitial(Coder::new);

    private Tier0ReferenceEncoder() {
    }

    /** The largest number of bytes {@link #encode} writes for {@code count} points. */
    public static int maxEncodedLength(int count) {
        if (count < 0 || count > (Integer.MAX_VALUE - 1) / 4) {
            throw new IllegalArgumentException("bad point count " + count);
        }
        return 1 + 4 * count;
    }

    /**
     * Encodes {@code points[0, count)} into {@code dst} from {@code dstOffset}, which must have room for
     * {@link #maxEncodedLength}{@code (count)} bytes (all of them may be used as scratch).
     *
     * @return the number of bytes written
     * @throws IllegalArgumentException if the count or the destination range is invalid
     */
    public static int encode(int[] points, int count, byte[] dst, int dstOffset) {
        int max = maxEncodedLength(count);
        if (count > points.length) {
            throw new IllegalArgumentException("count " + count + " > points " + points.length);
        }
        if (dstOffset < 0 || dstOffset > dst.length - max) {
            throw new IllegalArgumentException("need " + max + " bytes at " + dstOffset + " of " + dst.length);
        }
        if (count > 0) {
            Coder c = CODER.get();
            int n;
            try {
                n = c.encodeDecimal(points, count, dst, dstOffset, dstOffset + max);
            } finally {
                c.buf = null;
            }
            if (n > 0) {
                return n;
            }
        }
        dst[dstOffset] = CODEC_RAW;
        int o = dstOffset + 1;
        for (int i = 0; i < count; i++, o += 4) {
            int v = points[i];
            dst[o] = (byte) v;
            dst[o + 1] = (byte) (v >>> 8);
            dst[o + 2] = (byte) (v >>> 16);
            dst[o + 3] = (byte) (v >>> 24);
        }
        return max;
    }

    // ------------------------------------------------------------------------------- helpers

    /** Decimal exponent of a storage number: value = x * 10^exp10. */
    static int exp10(int sn) {
        int m = (sn >>> 27) & 7;
        if ((sn & StorageNumber.SN_FLAG_NOT_EXISTS_MUL100) != 0) {
            m <<= 1;
        }
        return (sn & StorageNumber.SN_FLAG_MULTIPLY) != 0 ? m : -m;
    }

    /** Signed mantissa. */
    static long sx(int sn) {
        long m = sn & 0xffffff;
        return sn < 0 ? -m : m;
    }

    /** Value at decimal scale {@code emin}; {@code exp10(sn) - emin} must be in 0..MAX_SPAN. */
    static long scaled(int sn, int emin) {
        long m = (sn & 0xffffffL) * POW10[exp10(sn) - emin];
        return sn < 0 ? -m : m;
    }

    /** {@code x * 10^d}, clamped to +-2^25, for d > 0; {@code x / 10^-d} rounded half up for d < 0. */
    static long rescale(long x, int d) {
        if (d == 0 || x == 0) {
            return x;
        }
        if (d > 0) {
            if (d > 8) {
                return x > 0 ? POINT_CLAMP : -POINT_CLAMP;
            }
            long r = x * POW10[d];
            return r > POINT_CLAMP ? POINT_CLAMP : r < -POINT_CLAMP ? -POINT_CLAMP : r;
        }
        if (d < -8) {
            return 0;
        }
        long p = POW10[-d];
        return Math.floorDiv(x + (p >> 1), p);
    }

    static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    static long unzigzag(long u) {
        return (u >>> 1) ^ -(u & 1);
    }

    static int bitLength(long u) {
        return 64 - Long.numberOfLeadingZeros(u);
    }

    static int varLength(long v) {
        return v == 0 ? 1 : (bitLength(v) + 6) / 7;
    }

    static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    /** Number of trailing decimal zeros of a non-zero 24-bit mantissa. */
    static int decimalZeros(int m) {
        int z = 0;
        while (m % 10 == 0) {
            m /= 10;
            z++;
        }
        return z;
    }

    // ------------------------------------------------------------------------------- coder

    /** Per-thread state: probabilities, range coder and raw-bit stream, for one page at a time. */
    private static final class Coder extends ReferenceRangeCoder {
        private static final int P_ZERO = 0; // 2 contexts
        private static final int P_TREE = 2; // 2 contexts x 64
        private static final int P_TOP_SAME = P_TREE + 128; // 5 contexts
        private static final int P_TOP_LIT = P_TOP_SAME + 5; // 256
        private static final int N_PROBS = P_TOP_LIT + 256;
        private static final int MOVE_BITS = 3;

        Coder() {
            super(N_PROBS, MOVE_BITS, false);
        }
        /** Histogram of decimal trailing zeros, 0..18 and 19 = value zero. */
        final int[] zeros = new int[20];

        void encodeSymbol(int ctx, int sym) {
            encodeBit(P_ZERO + ctx, sym == 0 ? 0 : 1);
            if (sym != 0) {
                encodeTree(P_TREE + (ctx << 6), sym == SYM_ANCHOR ? 62 : sym - 1, 6);
            }
        }

        /** Context of the "top differs" bit: how large the residual just coded was. */
        static int topContext(int sym) {
            return P_TOP_SAME + (sym == 0 ? 0 : sym < 8 ? 1 : sym < 16 ? 2 : sym < 22 ? 3 : 4);
        }

        void encodeTop(int top, int prevTop, int sym) {
            if (top == prevTop) {
                encodeBit(topContext(sym), 0);
            } else {
                encodeBit(topContext(sym), 1);
                encodeTree(P_TOP_LIT, top ^ prevTop, 8);
            }
        }

        // ---------------------------------------------------------------- encode

        /** Returns the encoded length, or -1 when it would not fit in {@code [start, limit)}. */
        int encodeDecimal(int[] pts, int count, byte[] dst, int start, int limit) {
            // pass 1: presence, constancy, exponent span, majority candidate for the anchor
            int k = 0;
            int first = 0;
            boolean constant = true;
            boolean topsConst = true;
            int emin = Integer.MAX_VALUE;
            int emax = Integer.MIN_VALUE;
            int cand = 0;
            int votes = 0;
            for (int i = 0; i < count; i++) {
                int sn = pts[i];
                if (sn == GAP) {
                    continue;
                }
                if (k == 0) {
                    first = sn;
                }
                k++;
                if (sn != first) {
                    constant = false;
                    if ((sn ^ first) >>> 24 != 0) {
                        topsConst = false;
                    }
                }
                int e = exp10(sn);
                if (e < emin) {
                    emin = e;
                }
                if (e > emax) {
                    emax = e;
                }
                if (votes == 0) {
                    cand = sn;
                    votes = 1;
                } else if (sn == cand) {
                    votes++;
                } else {
                    votes--;
                }
            }
            int pos = start;
            if (limit - pos < 2) {
                return -1;
            }
            dst[pos++] = CODEC_DECIMAL;
            int flagsPos = pos++;
            if (k == 0) {
                dst[flagsPos] = GAPS_ALL;
                return pos - start;
            }
            int flags = k == count ? GAPS_NONE : GAPS_RUNS;
            if (k < count) {
                int i = 0;
                while (i < count) {
                    int j = i;
                    while (j < count && pts[j] != GAP) {
                        j++;
                    }
                    pos = putVar(dst, pos, limit, j - i);
                    if (pos < 0 || j == count) {
                        break;
                    }
                    i = j;
                    while (j < count && pts[j] == GAP) {
                        j++;
                    }
                    pos = putVar(dst, pos, limit, j - i);
                    if (pos < 0) {
                        break;
                    }
                    i = j;
                }
                if (pos < 0) {
                    return -1;
                }
            }
            pos = putU32(dst, pos, limit, first);
            if (pos < 0) {
                return -1;
            }
            if (constant) {
                dst[flagsPos] = (byte) (flags | F_CONSTANT);
                return pos - start;
            }
            if (topsConst) {
                flags |= F_TOPS_CONST;
            }
            boolean fixedOk = emax - emin <= MAX_SPAN;

            // pass 2: anchor usefulness; for FIXED, gcd of deltas, decimal zeros, range and mean
            int anchorHits = 0;
            int anchorReturns = 0;
            long g = 0;
            long vmin = Long.MAX_VALUE;
            long vmax = Long.MIN_VALUE;
            double vsum = 0;
            long v0 = fixedOk ? scaled(first, emin) : 0;
            int[] zc = zeros;
            java.util.Arrays.fill(zc, 0);
            int maxExceptions = k >> 3;
            {
                int prevSn = GAP;
                long vp = v0;
                for (int i = 0; i < count; i++) {
                    int sn = pts[i];
                    if (sn == GAP) {
                        continue;
                    }
                    if (sn == cand) {
                        anchorHits++;
                        if (prevSn != cand && prevSn != GAP) {
                            anchorReturns++;
                        }
                    }
                    prevSn = sn;
                    if (fixedOk) {
                        long v = scaled(sn, emin);
                        long d = v - vp;
                        vp = v;
                        if (d != 0 && g != 1) {
                            if (d < 0) {
                                d = -d;
                            }
                            if (g == 0 || d % g != 0) {
                                g = gcd(d, g);
                            }
                        }
                        if (v < vmin) {
                            vmin = v;
                        }
                        if (v > vmax) {
                            vmax = v;
                        }
                        vsum += v;
                        if (zc[0] <= maxExceptions) { // else no quantum can be chosen: stop counting
                            int m = sn & 0xffffff;
                            if (m == 0) {
                                zc[19]++;
                            } else {
                                int z = decimalZeros(m) + exp10(sn) - emin;
                                zc[z > 18 ? 18 : z]++;
                            }
                        }
                    }
                }
            }
            boolean anchor = anchorReturns >= 3 && anchorHits * 8 >= k;
            int anchorSn = cand;

            // candidates: 0 POINT; 1..3 FIXED gcd (mean, prev, linear); 4..6 FIXED quantum (same)
            long step = Math.max(g, 1);
            long quantum = 0;
            if (fixedOk && zc[0] <= maxExceptions) {
                int ok = zc[19];
                for (int j = 18; j >= 1; j--) {
                    ok += zc[j];
                    if (ok >= k - maxExceptions) {
                        long q = POW10[j];
                        if (step % q != 0) {
                            quantum = q;
                        }
                        break;
                    }
                }
            }
            long meanG = 0;
            long meanQ = 0;
            long half = quantum >> 1;
            if (fixedOk) {
                double mean = vsum / k;
                meanG = clamp(Math.round((mean - v0) / step), (vmin - v0) / step, (vmax - v0) / step);
                if (quantum != 0) {
                    meanQ = clamp(Math.round(mean / quantum), Math.floorDiv(vmin + half, quantum),
                            Math.floorDiv(vmax + half, quantum));
                }
            }
            boolean anchorQ = anchor && quantum != 0 && Math.floorMod(scaled(anchorSn, emin), quantum) == 0;
            long c0 = 0;
            long c1 = 0;
            long c2 = 0;
            long c3 = 0;
            long c4 = 0;
            long c5 = 0;
            long c6 = 0;
            long excCost = 0;
            int exceptions = 0;
            {
                int prevSn = first;
                long xp = sx(first);
                int ep = exp10(first);
                long wg1 = 0;
                long wg2 = 0;
                long wq1 = fixedOk && quantum != 0 ? Math.floorDiv(v0 + half, quantum) : 0;
                long wq2 = 0;
                int j = 0;
                for (int i = 0; i < count; i++) {
                    int sn = pts[i];
                    if (sn == GAP) {
                        continue;
                    }
                    if (j++ == 0) {
                        continue;
                    }
                    int e = exp10(sn);
                    long x = sx(sn);
                    boolean hit = anchor && sn == anchorSn && sn != prevSn;
                    if (!hit) {
                        c0 += bitLength(zigzag(x - rescale(xp, ep - e)));
                    }
                    prevSn = sn;
                    xp = x;
                    ep = e;
                    if (!fixedOk) {
                        continue;
                    }
                    long v = scaled(sn, emin);
                    long wg = step == 1 ? v - v0 : (v - v0) / step;
                    if (!hit) {
                        c1 += bitLength(zigzag(wg - meanG));
                        c2 += bitLength(zigzag(wg - wg1));
                        c3 += bitLength(zigzag(j > 2 ? wg - 2 * wg1 + wg2 : wg - wg1));
                    }
                    wg2 = wg1;
                    wg1 = wg;
                    if (quantum != 0) {
                        long wq = Math.floorDiv(v + half, quantum);
                        if (!(hit && anchorQ)) {
                            c4 += bitLength(zigzag(wq - meanQ));
                            c5 += bitLength(zigzag(wq - wq1));
                            c6 += bitLength(zigzag(j > 2 ? wq - 2 * wq1 + wq2 : wq - wq1));
                        }
                        long r = v - wq * quantum;
                        if (r != 0) {
                            exceptions++;
                            excCost += 8 + 8L * varLength(zigzag(r));
                        }
                        wq2 = wq1;
                        wq1 = wq;
                    }
                }
            }
            int best = 0;
            long bestCost = c0;
            if (fixedOk) {
                // prefer "previous" on ties: cheapest to decode
                if (c2 <= bestCost) {
                    best = 2;
                    bestCost = c2;
                }
                if (c1 + 16 < bestCost) {
                    best = 1;
                    bestCost = c1 + 16;
                }
                if (c3 < bestCost) {
                    best = 3;
                    bestCost = c3;
                }
                if (quantum != 0) {
                    long base = excCost + 16;
                    if (c5 + base < bestCost) {
                        best = 5;
                        bestCost = c5 + base;
                    }
                    if (c4 + base + 16 < bestCost) {
                        best = 4;
                        bestCost = c4 + base + 16;
                    }
                    if (c6 + base < bestCost) {
                        best = 6;
                        bestCost = c6 + base;
                    }
                }
            }

            // header of the chosen mode
            boolean point = best == 0;
            boolean quant = best >= 4;
            int pred = point ? 0 : (best - 1) % 3; // PRED_MEAN, PRED_PREV, PRED_LINEAR
            boolean useAnchor = quant ? anchorQ : anchor;
            long s = quant ? quantum : step;
            long base = quant ? 0 : v0;
            long halfS = s >> 1;
            long mean = quant ? meanQ : meanG;
            flags |= point ? F_POINT : pred << PRED_SHIFT;
            if (useAnchor) {
                flags |= F_ANCHOR;
                pos = putU32(dst, pos, limit, anchorSn);
            }
            if (!point) {
                if (pos < 0 || pos >= limit) {
                    return -1;
                }
                dst[pos++] = (byte) emin;
                pos = putVar(dst, pos, limit, s);
                pos = putVar(dst, pos, limit, zigzag(base));
                if (pred == PRED_MEAN) {
                    pos = putVar(dst, pos, limit, zigzag(mean));
                }
                pos = putVar(dst, pos, limit, quant ? exceptions : 0);
                if (quant && exceptions > 0) {
                    int j = 0;
                    int last = 0;
                    for (int i = 0; i < count && pos >= 0; i++) {
                        int sn = pts[i];
                        if (sn == GAP) {
                            continue;
                        }
                        if (j > 0) {
                            long v = scaled(sn, emin);
                            long r = v - Math.floorDiv(v + halfS, s) * s;
                            if (r != 0) {
                                pos = putVar(dst, pos, limit, j - last - 1);
                                pos = putVar(dst, pos, limit, zigzag(r));
                                last = j;
                            }
                        }
                        j++;
                    }
                }
            }
            if (pos < 0) {
                return -1;
            }
            dst[flagsPos] = (byte) flags;

            // body
            startEncoder(dst, pos, limit);
            int prevSn = first;
            int prevTop = first >>> 24;
            long xp = sx(first);
            int ep = exp10(first);
            long w1 = point ? 0 : Math.floorDiv(v0 - base + halfS, s);
            long w2 = 0;
            int ctx = 0;
            int j = 0;
            for (int i = 0; i < count; i++) {
                int sn = pts[i];
                if (sn == GAP) {
                    continue;
                }
                if (j++ == 0) {
                    continue;
                }
                long u;
                long w = 0;
                int e = exp10(sn);
                if (point) {
                    u = zigzag(sx(sn) - rescale(xp, ep - e));
                } else {
                    w = s == 1 ? scaled(sn, emin) - base : Math.floorDiv(scaled(sn, emin) - base + halfS, s);
                    long p = pred == PRED_PREV ? w1 : pred == PRED_MEAN ? mean : j > 2 ? 2 * w1 - w2 : w1;
                    u = zigzag(w - p);
                }
                int sym = useAnchor && u != 0 && sn == anchorSn ? SYM_ANCHOR : bitLength(u);
                encodeSymbol(ctx, sym);
                int top = sn >>> 24;
                if (sym != SYM_ANCHOR) {
                    if (!topsConst) {
                        encodeTop(top, prevTop, sym);
                    }
                    if (sym >= 2) {
                        putRaw(u, sym - 1);
                    }
                    ctx = sym == 0 ? 0 : 1;
                } else {
                    ctx = 0;
                }
                prevSn = sn;
                prevTop = top;
                xp = sx(sn);
                ep = e;
                w2 = w1;
                w1 = w;
                if (overflow) {
                    return -1;
                }
            }
            int end = finishEncoder(limit);
            return end < 0 ? -1 : end - start;
        }

        static long clamp(long v, long lo, long hi) {
            return v < lo ? lo : v > hi ? hi : v;
        }
    }

    static int putVar(byte[] d, int pos, int limit, long v) {
        if (pos < 0) {
            return -1;
        }
        while ((v & ~0x7fL) != 0) {
            if (pos >= limit) {
                return -1;
            }
            d[pos++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        if (pos >= limit) {
            return -1;
        }
        d[pos++] = (byte) v;
        return pos;
    }

    static int putU32(byte[] d, int pos, int limit, int v) {
        if (pos < 0 || limit - pos < 4) {
            return -1;
        }
        d[pos] = (byte) v;
        d[pos + 1] = (byte) (v >>> 8);
        d[pos + 2] = (byte) (v >>> 16);
        d[pos + 3] = (byte) (v >>> 24);
        return pos + 4;
    }
}
