package io.strata.engine.page;

import java.util.Arrays;

import io.strata.engine.page.PageCodecTier0.CorruptPageException;

import static io.strata.engine.page.PageCodecTier0.*;

/**
 * The coding state of {@link PageCodecTier0}, one per thread: probabilities, range coder and raw-bit
 * stream, for one page at a time; the encoders and decoders of codec ids 1 and 2 (the layouts are
 * in docs/format/page.md).
 */
final class PageCodecTier0Coder extends BinaryRangeCoder {
    private static final int P_ZERO = 0; // 2 contexts
    private static final int P_TREE = 2; // 2 contexts x 64
    private static final int P_TOP_SAME = P_TREE + 128; // 5 contexts
    private static final int P_TOP_LIT = P_TOP_SAME + 5; // 256
    // codec 2's probabilities (a page uses one codec's; all are reset for each page)
    private static final int P2_RUN = 0; // 2 contexts x 32 unary decisions of a run's bit length
    private static final int P2_SYM = P2_RUN + 64; // 2 contexts x 64 (6-bit tree)
    private static final int P2_TOP_SAME = P2_SYM + 128; // 4 contexts (symbol 1-7, 8-15, 16-21, 22+)
    private static final int P2_TOP_LIT = P2_TOP_SAME + 4; // 256
    private static final int P2_RUN_LOW = P2_TOP_LIT + 256; // 13 bit lengths x 12 positions
    private static final int N_PROBS = Math.max(P_TOP_LIT + 256, P2_RUN_LOW + 13 * 12);
    /** A run's bit length n (of run + 1) is at most this; the decoder rejects more. */
    private static final int MAX_RUN_BITS = 31;
    private static final int MOVE_BITS = 3;
    /** Points POINT's costing sums between checks of whether it has already lost. */
    private static final int POINT_BLOCK = 64;

    PageCodecTier0Coder() {
        super(N_PROBS, MOVE_BITS, false);
    }

    /**
     * The decisions (see {@link #encodeDecisions}) that code each symbol in each context: the
     * "s != 0" bit, then the 6-bit tree; {@code SYMBOL_LENGTH} of them at {@code SYMBOL_DECISIONS[(ctx << 6 | sym) << 3]}.
     */
    private static final char[] SYMBOL_DECISIONS = new char[2 * 64 * 8];

    static {
        for (int ctx = 0; ctx < 2; ctx++) {
            for (int sym = 0; sym < 64; sym++) {
                int at = (ctx << 6 | sym) << 3;
                SYMBOL_DECISIONS[at] = (char) ((P_ZERO + ctx) << 1 | (sym == 0 ? 0 : 1));
                if (sym != 0) {
                    listTree(SYMBOL_DECISIONS, at + 1, P_TREE + (ctx << 6), sym == SYM_ANCHOR ? 62 : sym - 1, 6);
                }
            }
        }
    }

    /** Lists the decisions that code symbol {@code sym} in context {@code ctx} at {@code d[n]}; returns the new end. */
    static int listSymbol(char[] d, int n, int ctx, int sym) {
        int at = (ctx << 6 | sym) << 3;
        d[n] = SYMBOL_DECISIONS[at];
        if (sym == 0) { // the one decision of most points of a smooth page: no copy call for it
            return n + 1;
        }
        System.arraycopy(SYMBOL_DECISIONS, at + 1, d, n + 1, 6);
        return n + 7;
    }

    /** Context of the "top differs" bit: how large the residual just coded was. */
    static int topContext(int sym) {
        return P_TOP_SAME + (sym == 0 ? 0 : sym < 8 ? 1 : sym < 16 ? 2 : sym < 22 ? 3 : 4);
    }

    /** The decision "top is the same" after each symbol: a look-up, not a chain of data-dependent branches. */
    private static final char[] TOP_SAME = new char[64];

    static {
        for (int sym = 0; sym < 64; sym++) {
            TOP_SAME[sym] = (char) (topContext(sym) << 1);
        }
    }

    /** The 8 decisions of the top tree coding each value of {@code top ^ prevTop}, at {@code TOP_TREE[x << 3]}. */
    private static final char[] TOP_TREE = new char[256 * 8];

    static {
        for (int x = 0; x < 256; x++) {
            listTree(TOP_TREE, x << 3, P_TOP_LIT, x, 8);
        }
    }

    /**
     * Lists the decisions that code a point's top after symbol {@code sym}; returns the new end.
     * Without a branch on whether the top changed (as unpredictable as the data when the
     * exponent moves, as in Netdata's stress test): the tree's 8 decisions are always written
     * after the first one, and kept only when the top differs. {@code d} must have room for 9.
     */
    static int listTop(char[] d, int n, int top, int prevTop, int sym) {
        if (top == prevTop) {
            d[n] = TOP_SAME[sym];
            return n + 1;
        }
        d[n] = (char) (TOP_SAME[sym] | 1);
        System.arraycopy(TOP_TREE, (top ^ prevTop) << 3, d, n + 1, 8);
        return n + 9;
    }

    /** Lists the low {@code levels} bits of {@code value}, high bit first, in the tree at {@code base}. */
    static int listTree(char[] d, int n, int base, int value, int levels) {
        int node = 1;
        for (int lv = levels - 1; lv >= 0; lv--) {
            int b = (value >>> lv) & 1;
            d[n++] = (char) ((base + node) << 1 | b);
            node = (node << 1) | b;
        }
        return n;
    }

    // ---------------------------------------------------------------- decoder models

    int decodeSymbol(int ctx) {
        if (decodeBit(P_ZERO + ctx) == 0) {
            return 0;
        }
        int t = decodeTree(P_TREE + (ctx << 6), 6);
        if (t == 63) {
            throw new CorruptPageException("invalid symbol");
        }
        return t == 62 ? SYM_ANCHOR : t + 1;
    }

    int decodeTop(int prevTop, int sym) {
        return decodeBit(topContext(sym)) == 0 ? prevTop : prevTop ^ decodeTree(P_TOP_LIT, 8);
    }

    void finishDecoder() {
        if (overrun > 0 || rcPos != rawPos) {
            throw new CorruptPageException("streams do not meet: range coder ends at " + rcPos
                    + ", raw bits start at " + rawPos + (overrun > 0 ? ", past the end" : ""));
        }
        buf = null;
    }

    // ---------------------------------------------------------------- encode

    /*
     * Encoder scratch, indexed by present point and grown to the largest page this thread has
     * encoded (decoding threads never allocate it): the present points, their FIXED values V,
     * their quantum W and their POINT residuals (zigzagged). The passes below compute each of
     * these once; the body reads them back instead of re-deriving them, divisions included.
     */
    private int[] present = new int[0];
    private long[] values = new long[0];
    private long[] quantumW = new long[0];
    private long[] pointU = new long[0];
    /** The body's range-coded decisions: at most 16 a point (symbol 1 + 6, top 1 + 8). */
    private char[] decisions = new char[0];

    private void ensureScratch(int n) {
        if (present.length < n) {
            present = new int[n];
            values = new long[n];
            quantumW = new long[n];
            pointU = new long[n];
            decisions = new char[16 * n + 64];
        }
    }

    /** Returns the encoded length, or -1 when it would not fit in {@code [start, limit)}. */
    int encodeDecimal(int[] pts, int count, byte[] dst, int start, int limit, int codec) {
        int pos = start;
        if (limit - pos < 2) {
            return -1;
        }
        dst[pos++] = (byte) codec;
        int flagsPos = pos++;
        int i0 = 0;
        while (i0 < count && pts[i0] == GAP) {
            i0++;
        }
        if (i0 == count) {
            dst[flagsPos] = GAPS_ALL;
            return pos - start;
        }

        // pass 0: the run of points equal to the first (or gaps) that starts the page; on a
        // constant page (half of a real node's) it is the page, and the only pass
        int first = pts[i0];
        int gaps = i0;
        int i1 = i0 + 1;
        for (; i1 < count; i1++) {
            int sn = pts[i1];
            if (sn != first) {
                if (sn != GAP) {
                    break;
                }
                gaps++;
            }
        }
        int k = i1 - gaps; // present points so far, all equal to the first

        // pass 1, unless constant: the present points into P; constancy of the tops, exponent span,
        // majority candidate for the anchor (Boyer-Moore vote), carried on from the first run
        int[] p = present;
        int differ = 0; // OR of (point XOR first): 0 if constant, top byte 0 if the tops are
        int emin = EXP10_OF_TOP[first >>> 24];
        int emax = emin;
        int cand = first;
        int votes = k;
        if (i1 < count) {
            ensureScratch(count);
            p = present;
            Arrays.fill(p, 0, k, first);
            for (int i = i1; i < count; i++) {
                int sn = pts[i];
                if (sn == GAP) {
                    continue;
                }
                p[k++] = sn;
                differ |= sn ^ first;
                int e = EXP10_OF_TOP[sn >>> 24];
                emin = Math.min(emin, e);
                emax = Math.max(emax, e);
                if (votes == 0) {
                    cand = sn;
                    votes = 1;
                } else if (sn == cand) {
                    votes++;
                } else {
                    votes--;
                }
            }
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
        if (differ == 0) {
            dst[flagsPos] = (byte) (flags | F_CONSTANT);
            return pos - start;
        }
        boolean topsConst = differ >>> 24 == 0;
        if (topsConst) {
            flags |= F_TOPS_CONST;
        }
        boolean fixedOk = emax - emin <= MAX_SPAN;

        // pass 2: anchor usefulness
        int anchorHits = 0;
        int anchorReturns = 0;
        for (int j = 0; j < k; j++) {
            if (p[j] == cand) {
                anchorHits++;
                if (j > 0 && p[j - 1] != cand) {
                    anchorReturns++;
                }
            }
        }
        boolean anchor = anchorReturns >= 3 && anchorHits * 8 >= k;
        int anchorSn = cand;

        // pass 3, FIXED only: the values V into values[]; gcd of deltas, range and mean
        long[] vs = values;
        long g = 0;
        long vmin = Long.MAX_VALUE;
        long vmax = Long.MIN_VALUE;
        double vsum = 0;
        long v0 = fixedOk ? scaled(first, emin) : 0;
        if (fixedOk) {
            // "d % g == 0" without a division: g = 2^gShift * gOdd, and an odd divisor divides d
            // iff d * inverse(gOdd) (mod 2^64) is at most (2^64 - 1) / gOdd. g changes rarely
            // (it only shrinks, to a divisor of itself), the test runs for every point.
            int gShift = 0;
            long gLow = 0;
            long gInv = 1;
            long gMaxBiased = Long.MAX_VALUE; // (2^64 - 1) / gOdd + Long.MIN_VALUE: an unsigned bound as a signed one
            long vp = v0;
            long lsum = 0;
            for (int j = 0; j < k; j++) {
                int sn = p[j];
                long v = scaled(sn, emin);
                vs[j] = v;
                long d = v - vp;
                vp = v;
                if (d != 0 && g != 1) {
                    if (d < 0) {
                        d = -d;
                    }
                    if (g == 0 || (d & gLow) != 0 || ((d >>> gShift) * gInv) + Long.MIN_VALUE > gMaxBiased) {
                        g = gcd(d, g);
                        gShift = Long.numberOfTrailingZeros(g);
                        gLow = (1L << gShift) - 1;
                        long odd = g >>> gShift;
                        gInv = inverse(odd);
                        gMaxBiased = Long.divideUnsigned(-1L, odd) + Long.MIN_VALUE;
                    }
                }
                vmin = Math.min(vmin, v);
                vmax = Math.max(vmax, v);
                lsum += v;
            }
            // The mean's sum in double, in point order, as the format's encoder defines it. When
            // no partial sum can pass 2^53 every step is exact, and equals the long sum.
            long maxAbs = Math.max(Math.abs(vmin), Math.abs(vmax));
            if (maxAbs <= (1L << 53) / k) {
                vsum = lsum;
            } else {
                for (int j = 0; j < k; j++) {
                    vsum += vs[j];
                }
            }
        }

        // candidates: 0 POINT; 1..3 FIXED gcd (mean, prev, linear); 4..6 FIXED quantum (same)
        long step = Math.max(g, 1);
        // The quantum is the largest power of ten 10^j (j = 1..18) that divides all values but at
        // most k/8 (the exceptions), if the step is not a multiple of it (else the gcd model is
        // as good). The step is a multiple of 10^j exactly up to its own decimal zeros, and the
        // values that 10^j divides only get fewer as j grows: so a quantum exists iff the step's
        // zeros + 1 passes (most pages fail a divisibility pass early), and then the largest j
        // is found by bisection (a real page's values often share 5 to 8 zeros more).
        long quantum = 0;
        int quantumExp = 0;
        int maxExceptions = k >> 3;
        if (fixedOk) {
            int lo = 0;
            while (step % POW10[lo + 1] == 0) {
                lo++;
            }
            if (lo < 18 && pow10Divides(lo + 1, vs, k, maxExceptions)) {
                lo++; // passes; 19 fails
                int hi = 19;
                while (hi - lo > 1) {
                    int mid = (lo + hi) >>> 1;
                    if (pow10Divides(mid, vs, k, maxExceptions)) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                quantum = POW10[lo];
                quantumExp = lo;
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
        // A point's cost in each model is the bit length of its zigzagged residual; an anchor hit
        // (the anchor after another point) costs nothing. One loop per family of candidates.
        long c0 = 0;
        long c1 = 0;
        long c2 = 0;
        long c3 = 0;
        long c4 = 0;
        long c5 = 0;
        long c6 = 0;
        long excCost = 0;
        int exceptions = 0;
        // FIXED gcd: W = (V - V0) / step, an exact division, done as a multiplication (below)
        int stepShift = Long.numberOfTrailingZeros(step);
        long stepInv = inverse(step >>> stepShift);
        if (fixedOk) {
            long wg1 = 0;
            long wg2 = 0; // = wg1, so that "linear" predicts the second point from the first alone
            for (int j = 1; j < k; j++) {
                long wg = ((vs[j] - v0) >> stepShift) * stepInv;
                int sn = p[j];
                if (!(anchor && sn == anchorSn && sn != p[j - 1])) {
                    c1 += bitLength(zigzag(wg - meanG));
                    c2 += bitLength(zigzag(wg - wg1));
                    c3 += bitLength(zigzag(wg - 2 * wg1 + wg2));
                }
                wg2 = wg1;
                wg1 = wg;
            }
        }
        // FIXED quantum: W = floor((V + quantum / 2) / quantum), into quantumW[]. For the (at least
        // 7/8) multiples of the quantum, W = V / quantum: exact, by shift and multiplication (an
        // odd q divides y iff y * inverse(q) mod 2^64 is a quotient in range); the rest are the
        // exceptions and divide.
        if (fixedOk && quantum != 0) {
            long[] wqs = quantumW;
            long q5 = quantum >>> quantumExp; // 5^quantumExp
            long qInv = inverse(q5);
            long qLo = Long.MIN_VALUE / q5;
            long qHi = Long.MAX_VALUE / q5;
            long qLow = (1L << quantumExp) - 1;
            long wq1 = Math.floorDiv(v0 + half, quantum);
            wqs[0] = wq1;
            long wq2 = wq1;
            for (int j = 1; j < k; j++) {
                long v = vs[j];
                long wq = (v >> quantumExp) * qInv;
                if ((v & qLow) != 0 || wq < qLo || wq > qHi) {
                    wq = Math.floorDiv(v + half, quantum);
                    exceptions++;
                    excCost += 8 + 8L * varLength(zigzag(v - wq * quantum));
                }
                wqs[j] = wq;
                int sn = p[j];
                if (!(anchorQ && sn == anchorSn && sn != p[j - 1])) {
                    c4 += bitLength(zigzag(wq - meanQ));
                    c5 += bitLength(zigzag(wq - wq1));
                    c6 += bitLength(zigzag(wq - 2 * wq1 + wq2));
                }
                wq2 = wq1;
                wq1 = wq;
            }
        }

        // POINT, costed last: it wins only if its cost c0 is below every FIXED candidate's
        // (c0 < c2, c0 <= each other one, as the choice below resolves ties), so once its partial
        // sum (which only grows) reaches that limit it has lost and the rest is not costed. On a
        // page with several exponents that FIXED codes well (Netdata's stress test), that is
        // most of the page. With one exponent on the page, POINT's residual is V - Vprev and
        // "previous" on the gcd's W is (V - Vprev) / step, never longer: POINT cannot win (ties
        // go to "previous"), so it is not costed at all.
        if (!fixedOk || emin != emax) {
            long pointLimit = Long.MAX_VALUE;
            if (fixedOk) {
                pointLimit = Math.min(c2, Math.min(c1 + 17, c3 + 1));
                if (quantum != 0) {
                    long qBase = excCost + 17;
                    pointLimit = Math.min(pointLimit, Math.min(c5 + qBase, Math.min(c4 + qBase + 16, c6 + qBase)));
                }
            }
            long[] us = pointU;
            long xp = sx(first);
            int ep = EXP10_OF_TOP[first >>> 24];
            for (int j0 = 1; j0 < k; j0 += POINT_BLOCK) {
                int jEnd = Math.min(k, j0 + POINT_BLOCK);
                for (int j = j0; j < jEnd; j++) {
                    int sn = p[j];
                    int e = EXP10_OF_TOP[sn >>> 24];
                    long x = sx(sn);
                    long u = zigzag(x - rescale(xp, ep - e));
                    us[j] = u;
                    if (!(anchor && sn == anchorSn && sn != p[j - 1])) {
                        c0 += bitLength(u);
                    }
                    xp = x;
                    ep = e;
                }
                if (c0 >= pointLimit) {
                    c0 = Long.MAX_VALUE; // lost: its residuals are not complete, and not needed
                    break;
                }
            }
        } else {
            c0 = Long.MAX_VALUE;
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
                long[] wqs = quantumW;
                int last = 0;
                for (int j = 1; j < k && pos >= 0; j++) {
                    long r = vs[j] - wqs[j] * quantum;
                    if (r != 0) {
                        pos = putVar(dst, pos, limit, j - last - 1);
                        pos = putVar(dst, pos, limit, zigzag(r));
                        last = j;
                    }
                }
            }
        }
        if (pos < 0) {
            return -1;
        }
        dst[flagsPos] = (byte) flags;

        if (codec == CODEC_DECIMAL_RUNS) {
            return encodeRunsBody(dst, start, pos, limit, p, k, point, quant, pred, vs, v0, stepShift,
                    stepInv, mean, topsConst, useAnchor, anchorSn, emin, first);
        }
        // body. The model lists every point's range-coded decisions and sends its raw bits to
        // their stream (which only meets the range coder's at the end, so the order does not
        // matter); then the coder codes the decisions in one loop.
        startEncoder(dst, pos, limit);
        long[] us = pointU;
        long[] wqs = quantumW;
        char[] dec = decisions;
        int nd = 0;
        int prevTop = first >>> 24;
        long w1 = quant ? wqs[0] : 0; // the first point's W; 0 for the gcd's
        long w2 = w1;
        int ctx = 0;
        // The raw-bit stream's state in locals (putRaw's fast path inlined): the range coder
        // writes nothing before encodeDecisions, so its end is the header's end throughout.
        long racc = acc;
        int rbits = nbits;
        int rpos = rawPos;
        int rcEnd = rcPos;
        for (int j = 1; j < k; j++) {
            int sn = p[j];
            long u;
            if (point) {
                u = us[j];
            } else {
                long w = quant ? wqs[j] : ((vs[j] - v0) >> stepShift) * stepInv;
                long pw = pred == PRED_PREV ? w1 : pred == PRED_MEAN ? mean : 2 * w1 - w2;
                u = zigzag(w - pw);
                w2 = w1;
                w1 = w;
            }
            int sym = useAnchor && u != 0 && sn == anchorSn ? SYM_ANCHOR : bitLength(u);
            nd = listSymbol(dec, nd, ctx, sym);
            int top = sn >>> 24;
            if (sym != SYM_ANCHOR) {
                if (!topsConst) {
                    nd = listTop(dec, nd, top, prevTop, sym);
                }
                if (sym >= 2) { // the bits below the implied leading 1; none for 0 and 1
                    int w = sym - 1;
                    if (w <= 56 && rpos - 8 >= rcEnd) {
                        long a = racc | (u & ((1L << w) - 1)) << rbits;
                        int n = rbits + w;
                        LONG_BE.set(dst, rpos - 8, a);
                        rpos -= n >>> 3;
                        racc = a >>> (n & ~7);
                        rbits = n & 7;
                    } else {
                        acc = racc;
                        nbits = rbits;
                        rawPos = rpos;
                        putRaw(u, w);
                        if (overflow) { // the raw bits alone do not fit
                            return -1;
                        }
                        racc = acc;
                        rbits = nbits;
                        rpos = rawPos;
                    }
                }
                ctx = sym == 0 ? 0 : 1;
            } else {
                ctx = 0;
            }
            prevTop = top;
        }
        acc = racc;
        nbits = rbits;
        rawPos = rpos;
        encodeDecisions(dec, nd);
        int end = finishEncoder(limit);
        return end < 0 ? -1 : end - start;
    }

    /**
     * Whether 10^j (j = 1..18) divides all of {@code vs[0, k)} but at most {@code maxMisses}.
     * 10^j = 2^j 5^j, and an odd q divides y iff y * inverse(q) mod 2^64 is a quotient in range.
     */
    static boolean pow10Divides(int j, long[] vs, int k, int maxMisses) {
        long q5 = POW10[j] >>> j;
        long inv = inverse(q5);
        long lo = Long.MIN_VALUE / q5;
        long hi = Long.MAX_VALUE / q5;
        long low = (1L << j) - 1;
        int misses = 0;
        for (int i = 0; i < k; i++) {
            long v = vs[i];
            long q = (v >> j) * inv;
            if ((v & low) != 0 || q < lo || q > hi) {
                if (++misses > maxMisses) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The inverse of an odd {@code a} modulo 2^64 (Newton's iteration, 3 bits to 96). */
    static long inverse(long a) {
        long x = a; // a * a = 1 (mod 8)
        for (int i = 0; i < 5; i++) {
            x *= 2 - a * x;
        }
        return x;
    }

    static long clamp(long v, long lo, long hi) {
        return v < lo ? lo : v > hi ? hi : v;
    }

    // ---------------------------------------------------------------- codec 2 (runs)

    /** The top of exponent {@code e} (-7..7) without sign, MUL100 or user flags: pack's choice of MUL. */
    private static final int[] CANON_TOP = new int[15];

    static {
        for (int e = -7; e <= 7; e++) {
            CANON_TOP[e + 7] = e > 0 ? 0x40 | e << 3 : -e << 3;
        }
    }

    /** {@code 0xFFFFFF * 10^d}: the largest |V| whose mantissa fits at d exponents above Emin. */
    private static final long[] FIT = new long[MAX_SPAN + 1];

    static {
        for (int d = 0; d <= MAX_SPAN; d++) {
            FIT[d] = 0xffffffL * POW10[d];
        }
    }

    /**
     * Codec 2's predicted top of a FIXED point of value {@code v} at scale {@code emin} (format:
     * "predicted top"): the top pack would give it, at the smallest exponent whose mantissa
     * fits, with the previous point's user flags; the previous top where that has no answer.
     */
    static int predictTop(long v, int emin, int prevTop) {
        if (v == 0) {
            return prevTop & 3;
        }
        long a = Math.abs(v);
        int d = 0;
        while (a > FIT[d] || a < 0) {
            if (++d > MAX_SPAN) {
                return prevTop;
            }
        }
        int e = emin + d;
        if (e < -7 || e > 7 || (d > 0 && v % POW10[d] != 0)) {
            return prevTop;
        }
        return CANON_TOP[e + 7] | (v < 0 ? 0x80 : 0) | (prevTop & 3);
    }

    /** Context of codec 2's "top differs" bit after a non-zero symbol. */
    static int topContext2(int sym) {
        return P2_TOP_SAME + (sym < 8 ? 0 : sym < 16 ? 1 : sym < 22 ? 2 : 3);
    }

    /** Codec 2's symbol decisions: a 6-bit tree a context, at {@code SYMBOL2_DECISIONS[(ctx << 6 | sym) * 6]}. */
    private static final char[] SYMBOL2_DECISIONS = new char[2 * 64 * 6];

    static {
        for (int ctx = 0; ctx < 2; ctx++) {
            for (int sym = 0; sym < 64; sym++) {
                listTree(SYMBOL2_DECISIONS, (ctx << 6 | sym) * 6, P2_SYM + (ctx << 6), sym, 6);
            }
        }
    }

    /** The 8 decisions of codec 2's top tree for each value of {@code top ^ predicted}. */
    private static final char[] TOP2_TREE = new char[256 * 8];

    static {
        for (int x = 0; x < 256; x++) {
            listTree(TOP2_TREE, x << 3, P2_TOP_LIT, x, 8);
        }
    }

    /** Probability of bit {@code pos} (0 = the highest) below the leading 1 of a run of {@code bits} bits. */
    static int runLowProb(int bits, int pos) {
        return P2_RUN_LOW + Math.min(bits, 12) * 12 + Math.min(pos, 11);
    }

    /**
     * Lists a run length's decisions: the bit length n of run + 1 in unary, then its n - 1 bits
     * below the leading 1, high first. All range-coded, so that which decisions follow never
     * depends on the raw stream (what makes a cut page fail to decode).
     */
    static int listRun(char[] d, int n, int ctx, int run) {
        int v = run + 1;
        int bits = 32 - Integer.numberOfLeadingZeros(v);
        int base = (P2_RUN + (ctx << 5)) << 1;
        for (int b = 0; b < bits - 1; b++) {
            d[n++] = (char) (base + (b << 1) | 1);
        }
        d[n++] = (char) (base + ((bits - 1) << 1));
        for (int b = bits - 2, pos = 0; b >= 0; b--, pos++) {
            d[n++] = (char) (runLowProb(bits, pos) << 1 | ((v >>> b) & 1));
        }
        return n;
    }

    /**
     * Codec 2's body after the header of codec 1 (which chose the model): for each event, the
     * length of a run of plain points (zero residual, predicted top), then the point that ends
     * it. Returns the encoded length, or -1 when it does not fit.
     */
    private int encodeRunsBody(byte[] dst, int start, int pos, int limit, int[] p, int k, boolean point,
            boolean quant, int pred, long[] vs, long v0, int stepShift, long stepInv, long mean,
            boolean topsConst, boolean useAnchor, int anchorSn, int emin, int first) {
        startEncoder(dst, pos, limit);
        long[] us = pointU;
        long[] wqs = quantumW;
        char[] dec = decisions;
        int nd = 0;
        int prevTop = first >>> 24;
        long w1 = quant ? wqs[0] : 0;
        long w2 = w1;
        boolean predictTops = !topsConst && !point;
        int ctx = 0;
        int run = 0;
        for (int j = 1; j < k; j++) {
            int sn = p[j];
            long u;
            if (point) {
                u = us[j];
            } else {
                long w = quant ? wqs[j] : ((vs[j] - v0) >> stepShift) * stepInv;
                long pw = pred == PRED_PREV ? w1 : pred == PRED_MEAN ? mean : 2 * w1 - w2;
                u = zigzag(w - pw);
                w2 = w1;
                w1 = w;
            }
            int top = sn >>> 24;
            int predTop = prevTop;
            if (predictTops) {
                // pack's top when the point's own exponent is the smallest at which it fits
                // (always so for pack's output), else the general rule
                int m = sn & 0xffffff;
                int e = EXP10_OF_TOP[top];
                if (m != 0 && (e == emin || m > 0xffffff / 10) && e >= -7 && e <= 7) {
                    predTop = CANON_TOP[e + 7] | (sn < 0 ? 0x80 : 0) | (prevTop & 3);
                } else {
                    predTop = predictTop(vs[j], emin, prevTop);
                }
            }
            if (u == 0 && top == predTop) {
                run++;
                prevTop = top;
                continue;
            }
            nd = listRun(dec, nd, ctx, run);
            run = 0;
            int sym = useAnchor && u != 0 && sn == anchorSn ? SYM_ANCHOR : bitLength(u);
            System.arraycopy(SYMBOL2_DECISIONS, (ctx << 6 | sym) * 6, dec, nd, 6);
            nd += 6;
            if (sym != SYM_ANCHOR) {
                if (!topsConst) {
                    if (sym != 0) {
                        dec[nd++] = (char) (topContext2(sym) << 1 | (top != predTop ? 1 : 0));
                    }
                    if (top != predTop) {
                        System.arraycopy(TOP2_TREE, (top ^ predTop) << 3, dec, nd, 8);
                        nd += 8;
                    }
                }
                if (sym >= 2) {
                    putRaw(u, sym - 1);
                }
                ctx = sym == 0 ? 0 : 1;
            } else {
                ctx = 0;
            }
            prevTop = top;
        }
        if (run > 0) {
            nd = listRun(dec, nd, ctx, run);
        }
        if (overflow) {
            return -1;
        }
        encodeDecisions(dec, nd);
        int end = finishEncoder(limit);
        return end < 0 ? -1 : end - start;
    }

    /** Decodes a run length of codec 2; fails past {@code left} points. */
    private int decodeRun(int ctx, int left) {
        int base = P2_RUN + (ctx << 5);
        int bits = 1;
        while (decodeBit(base + bits - 1) == 1) {
            if (++bits > MAX_RUN_BITS) {
                throw new CorruptPageException("run length too long");
            }
        }
        long v = 1;
        for (int pos = 0; pos < bits - 1; pos++) {
            v = v << 1 | decodeBit(runLowProb(bits, pos));
        }
        if (v - 1 > left) {
            throw new CorruptPageException("run of " + (v - 1) + " points past the page's " + left);
        }
        return (int) (v - 1);
    }

    /** Codec 2's body, from slot {@code i} (the one after the first present point). */
    private void decodeRunsBody(int[] pts, int count, int i, int k, int first, boolean point, int pred,
            boolean topsConst, boolean useAnchor, int anchorSn, long wAnchor, int emin, long s, long base,
            long mean, long w1, long excLeft, int excHp, long nextExc, long nextRem) {
        boolean predictTops = !topsConst && !point;
        int prevTop = first >>> 24;
        long xp = sx(first);
        int ep = exp10(first);
        long w2 = 0;
        int ctx = 0;
        int run = -1; // plain points left in the current run; -1: a run length comes next
        int j = 1;
        for (; i < count; i++) {
            if (pts[i] == GAP) {
                continue;
            }
            if (run < 0) {
                run = decodeRun(ctx, k - j);
            }
            int sym;
            long u;
            if (run > 0) {
                run--;
                sym = 0;
                u = 0;
            } else {
                run = -1;
                sym = decodeTree(P2_SYM + (ctx << 6), 6);
                u = sym < 2 || sym == SYM_ANCHOR ? sym : (1L << (sym - 1)) | getRaw(sym - 1);
            }
            boolean plain = run >= 0;
            int sn;
            long w = 0;
            if (sym == SYM_ANCHOR) {
                if (!useAnchor || j == nextExc) {
                    throw new CorruptPageException("unexpected anchor");
                }
                sn = anchorSn;
                w = wAnchor;
                ctx = 0;
            } else {
                long r = unzigzag(u);
                long v = 0;
                if (!point) {
                    long pw = pred == PRED_PREV ? w1 : pred == PRED_MEAN ? mean : j > 1 ? 2 * w1 - w2 : w1;
                    w = pw + r;
                    v = base + w * s;
                    if (j == nextExc) {
                        v += nextRem;
                        if (excLeft > 0) {
                            hp = excHp;
                            nextExc = j + 1 + getVar();
                            nextRem = unzigzag(getVar());
                            excHp = hp;
                            excLeft--;
                        } else {
                            nextExc = -1;
                        }
                    }
                }
                int predTop = predictTops ? predictTop(v, emin, prevTop) : prevTop;
                int top = predTop;
                if (!plain && !topsConst) {
                    if (sym == 0 || decodeBit(topContext2(sym)) == 1) {
                        int x = decodeTree(P2_TOP_LIT, 8);
                        if (x == 0) {
                            throw new CorruptPageException("a changed top equal to the predicted one");
                        }
                        top = predTop ^ x;
                    }
                } else if (!plain && sym == 0) {
                    throw new CorruptPageException("a plain point outside a run");
                }
                int e = exp10(top << 24);
                long x;
                if (point) {
                    x = rescale(xp, ep - e) + r;
                } else {
                    x = mantissaAt(v, e - emin);
                }
                sn = packChecked(top, x);
                if (!plain) {
                    ctx = sym == 0 ? 0 : 1;
                }
            }
            pts[i] = sn;
            prevTop = sn >>> 24;
            xp = sx(sn);
            ep = exp10(sn);
            w2 = w1;
            w1 = w;
            j++;
        }
        if (run > 0) {
            throw new CorruptPageException("run past the last point");
        }
        if (nextExc != -1) {
            throw new CorruptPageException("exceptions past the last point");
        }
        finishDecoder();
    }

    // ---------------------------------------------------------------- decode

    private int hp;
    private int hend;

    private long getVar() {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (hp >= hend) {
                throw new CorruptPageException("truncated header");
            }
            int b = buf[hp++] & 0xff;
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new CorruptPageException("varint too long");
    }

    private int getU32() {
        if (hend - hp < 4) {
            throw new CorruptPageException("truncated header");
        }
        int v = (buf[hp] & 0xff) | (buf[hp + 1] & 0xff) << 8 | (buf[hp + 2] & 0xff) << 16 | buf[hp + 3] << 24;
        hp += 4;
        return v;
    }

    void decodeDecimal(byte[] src, int start, int end, int[] pts, int count, int codec) {
        buf = src;
        hp = start + 1;
        hend = end;
        if (hp >= hend) {
            throw new CorruptPageException("truncated header");
        }
        int flags = src[hp++] & 0xff;
        int gaps = flags & 3;
        if (gaps == GAPS_ALL) {
            if (flags != GAPS_ALL || hp != end) {
                throw new CorruptPageException("bad all-gap page");
            }
            Arrays.fill(pts, 0, count, GAP);
            buf = null;
            return;
        }
        if (gaps == 3 || count == 0) {
            throw new CorruptPageException("bad flags " + flags + " for " + count + " points");
        }
        // present slots get a marker that is not GAP, the body overwrites them in order
        int k;
        if (gaps == GAPS_NONE) {
            Arrays.fill(pts, 0, count, 0);
            k = count;
        } else {
            k = 0;
            int sum = 0;
            boolean firstRun = true;
            while (true) {
                long run = getVar();
                if (run < 0 || run > count - sum || (run == 0 && !firstRun)) {
                    throw new CorruptPageException("bad present run " + run);
                }
                firstRun = false;
                Arrays.fill(pts, sum, sum + (int) run, 0);
                sum += (int) run;
                k += (int) run;
                if (sum == count) {
                    break;
                }
                run = getVar();
                if (run <= 0 || run > count - sum) {
                    throw new CorruptPageException("bad gap run " + run);
                }
                Arrays.fill(pts, sum, sum + (int) run, GAP);
                sum += (int) run;
                if (sum == count) {
                    break;
                }
            }
            if (k == 0) {
                throw new CorruptPageException("gap runs without a present point");
            }
        }
        int first = getU32();
        int i = 0;
        while (pts[i] == GAP) {
            i++;
        }
        pts[i++] = first;
        if ((flags & F_CONSTANT) != 0) {
            if ((flags & ~(3 | F_CONSTANT)) != 0 || hp != end) {
                throw new CorruptPageException("bad constant page");
            }
            for (; i < count; i++) {
                if (pts[i] != GAP) {
                    pts[i] = first;
                }
            }
            buf = null;
            return;
        }
        if (k == 1) {
            throw new CorruptPageException("a single point must be constant");
        }
        boolean point = (flags & F_POINT) != 0;
        int pred = (flags >>> PRED_SHIFT) & 3;
        if (pred == 3 || (point && pred != 0)) {
            throw new CorruptPageException("bad flags " + flags);
        }
        boolean topsConst = (flags & F_TOPS_CONST) != 0;
        boolean useAnchor = (flags & F_ANCHOR) != 0;
        int anchorSn = useAnchor ? getU32() : 0;
        int emin = 0;
        long s = 1;
        long base = 0;
        long mean = 0;
        long excLeft = 0;
        int excPos = 0;
        if (!point) {
            if (hp >= hend) {
                throw new CorruptPageException("truncated header");
            }
            emin = src[hp++];
            s = getVar();
            if (s <= 0) {
                throw new CorruptPageException("bad step " + s);
            }
            base = unzigzag(getVar());
            if (pred == PRED_MEAN) {
                mean = unzigzag(getVar());
            }
            excLeft = getVar();
            if (excLeft < 0 || excLeft > k - 1) {
                throw new CorruptPageException("bad exception count " + excLeft);
            }
            excPos = hp;
            for (long x = 0; x < excLeft; x++) {
                getVar();
                getVar();
            }
        }
        int bodyStart = hp;
        long halfS = s >> 1;
        // next exception, as a present index
        int excHp = excPos;
        long nextExc = -1;
        long nextRem = 0;
        if (excLeft > 0) {
            hp = excHp;
            nextExc = 1 + getVar();
            nextRem = unzigzag(getVar());
            excHp = hp;
            excLeft--;
        }
        long wAnchor = 0;
        if (useAnchor && !point) {
            int d = exp10(anchorSn) - emin;
            if (d < 0 || d > MAX_SPAN) {
                throw new CorruptPageException("anchor outside the page's scale");
            }
            wAnchor = Math.floorDiv(scaled(anchorSn, emin) - base + halfS, s);
        }
        long w1 = 0;
        if (!point) {
            int d = exp10(first) - emin;
            if (d < 0 || d > MAX_SPAN) {
                throw new CorruptPageException("first point outside the page's scale");
            }
            w1 = Math.floorDiv(scaled(first, emin) - base + halfS, s);
        }
        startDecoder(src, bodyStart, end);
        if (codec == CODEC_DECIMAL_RUNS) {
            decodeRunsBody(pts, count, i, k, first, point, pred, topsConst, useAnchor, anchorSn, wAnchor,
                    emin, s, base, mean, w1, excLeft, excHp, nextExc, nextRem);
            return;
        }
        int prevTop = first >>> 24;
        long xp = sx(first);
        int ep = exp10(first);
        long w2 = 0;
        int ctx = 0;
        int j = 1;
        for (; i < count; i++) {
            if (pts[i] == GAP) {
                continue;
            }
            int sym = decodeSymbol(ctx);
            int sn;
            long w = 0;
            if (sym == SYM_ANCHOR) {
                if (!useAnchor || j == nextExc) {
                    throw new CorruptPageException("unexpected anchor");
                }
                sn = anchorSn;
                w = wAnchor;
                ctx = 0;
            } else {
                int top = topsConst ? prevTop : decodeTop(prevTop, sym);
                long u = sym < 2 ? sym : (1L << (sym - 1)) | getRaw(sym - 1);
                long r = unzigzag(u);
                int e = exp10(top << 24);
                long x;
                if (point) {
                    x = rescale(xp, ep - e) + r;
                } else {
                    long p = pred == PRED_PREV ? w1 : pred == PRED_MEAN ? mean : j > 1 ? 2 * w1 - w2 : w1;
                    w = p + r;
                    long v = base + w * s;
                    if (j == nextExc) {
                        v += nextRem;
                        if (excLeft > 0) {
                            hp = excHp;
                            nextExc = j + 1 + getVar();
                            nextRem = unzigzag(getVar());
                            excHp = hp;
                            excLeft--;
                        } else {
                            nextExc = -1;
                        }
                    }
                    x = mantissaAt(v, e - emin);
                }
                sn = packChecked(top, x);
                ctx = sym == 0 ? 0 : 1;
            }
            pts[i] = sn;
            prevTop = sn >>> 24;
            xp = sx(sn);
            ep = exp10(sn);
            w2 = w1;
            w1 = w;
            j++;
        }
        if (nextExc != -1) {
            throw new CorruptPageException("exceptions past the last point");
        }
        finishDecoder();
    }

    /**
     * The signed mantissa of scaled value {@code v} at {@code d} decimal steps above the page's
     * lowest exponent; a value the step cannot represent exactly, or a step outside the page's
     * scale, is a corrupt page.
     */
    private static long mantissaAt(long v, int d) {
        if (d < 0 || d > MAX_SPAN) {
            throw new CorruptPageException("point outside the page's scale");
        }
        if (d == 0) {
            return v;
        }
        long p10 = POW10[d];
        if (v % p10 != 0) {
            throw new CorruptPageException("value not representable at its exponent");
        }
        return v / p10;
    }

    /** The storage number of {@code top} and signed mantissa {@code x}, whose sign must be the top's. */
    private static int packChecked(int top, long x) {
        boolean neg = (top & 0x80) != 0;
        if (x < 0) {
            if (!neg) {
                throw new CorruptPageException("sign mismatch");
            }
            x = -x;
        } else if (x > 0 && neg) {
            throw new CorruptPageException("sign mismatch");
        }
        if (x < 0 || x > 0xffffff) {
            throw new CorruptPageException("mantissa out of range");
        }
        return top << 24 | (int) x;
    }
}
