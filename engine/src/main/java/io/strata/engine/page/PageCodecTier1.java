package io.strata.engine.page;

import io.strata.engine.page.PageCodecTier0.CorruptPageException;

import java.util.Arrays;

/**
 * Encoding of a tier-1+ page's points (Netdata's {@code storage_number_tier1_t}) before the extent
 * that holds the page is LZ4-compressed. Lossless, bit for bit, for any {@code int} words.
 *
 * <p>In memory a page of {@code count} points is {@code int[4 * count]}, four words a point:
 * {@code [floatToRawIntBits(sum), floatToRawIntBits(min), floatToRawIntBits(max),
 * (count & 0xFFFF) | anomalyCount << 16]}.
 *
 * <p>The first byte is the codec id, so that schemes can coexist:
 * <ul>
 * <li>{@link #CODEC_RAW} (0): the points as they are, 16 bytes each in Netdata's little-endian
 *     layout (f32 sum, f32 min, f32 max, u16 count, u16 anomaly count); length
 *     {@code 1 + 16 * count}. Written whenever the compact form would not be smaller.</li>
 * <li>{@link #CODEC_COLUMNS} (1): gaps as runs, then the present points column by column: count,
 *     anomaly count, min, max, sum. A column holding one value is stored once in the header. The
 *     other columns become integers (a float's shortest decimal digits at a common scale,
 *     {@code value = m / 10^K}, or its bits mapped to an order-preserving integer), predicted (count
 *     and anomaly count from a base value, min and max from the previous point, the sum from the
 *     point's count and min/max or from the previous sum), and the residuals coded as a bit length
 *     (adaptive binary range coder, LZMA's) plus the bits below the leading one (stored verbatim,
 *     backwards from the page's end).</li>
 * </ul>
 *
 * <h2>CODEC_COLUMNS layout</h2>
 * {@code uv} = unsigned LEB128 varint, {@code u32} = 4 bytes little-endian, {@code i8} = signed
 * byte; fields follow each other without padding. {@code docs/format/page.md}, section "Tier-1+
 * page encoding", is the complete specification.
 * <pre>
 * u8   codec id = 1
 * u8   flags  bits 0-1 gaps: 0 none, 1 every slot is a gap, 2 gap runs follow (3 invalid)
 *             bit  2   FILL: a u32 fill value follows the runs (else fill = 0)
 *             bit  3   count residuals are in the body (else every count equals its base)
 *             bit  4   anomaly-count residuals are in the body (else every one equals its base)
 *             bits 5-6 min kind: 0 constant, 1 decimal, 2 float (3 invalid)
 *             bit  7   0
 * [gaps=2] uv runs, alternately present and gap, starting with present (may be 0), summing to count
 * [FILL]   u32 fill: a gap slot is the point (sum, min, max, count|anomaly) = (fill, fill, fill, 0)
 *          --- an all-gap page ends here ---
 * u8   modes  bits 0-1 max kind: 0 constant, 1 decimal, 2 float, 3 equal to min
 *             bits 2-3 sum kind: 0 constant, 1 decimal, 2 float (3 invalid)
 *             bits 4-5 sum predictor: 0 mid, 1 previous, 2 average (3 invalid; 0 if sum is constant)
 *             bits 6-7 0
 * uv   count base, 0..65535
 * uv   anomaly-count base, 0..65535
 * min, max, sum in turn: constant: u32 float bits; decimal: i8 scale K (-22..22); else nothing
 * body, if any column is coded: range-coder bytes, then the raw-bit bytes stored last byte first
 *      (ending at the page's last byte); the two streams must meet exactly
 * </pre>
 *
 * <p>Decoding rejects ({@link CorruptPageException}) bytes that are not a valid encoding of
 * {@code count} points: unknown codec, wrong raw length, bad flags or modes, runs that do not sum to
 * {@code count}, truncated fields, out-of-range values, trailing bytes, and body streams that do not
 * meet. It never loops more than {@code O(count + length)} steps and never reads outside
 * {@code [srcOffset, srcOffset + length)}.
 *
 * <p>No probability depends on decoded values, so the residuals' bit lengths (hence the number of
 * raw bits) follow from the range-coder bytes alone, and an encoding cut short or lengthened never
 * decodes.
 *
 * <p>All methods are static and thread-safe; encode and decode allocate nothing after a thread's
 * first call with a page at least as large (they keep per-thread scratch: about 1.5 KB plus 68
 * bytes a point of the largest page encoded, 4 bytes a point of the largest page decoded).
 */
public final class PageCodecTier1 {

    /** Codec id: raw 16-byte points. */
    public static final int CODEC_RAW = 0;
    /** Codec id: columns of predicted, range-coded integers. */
    public static final int CODEC_COLUMNS = 1;

    // flags
    static final int GAPS_NONE = 0;
    static final int GAPS_ALL = 1;
    static final int GAPS_RUNS = 2;
    static final int F_FILL = 1 << 2;
    static final int F_COUNT_CODED = 1 << 3;
    static final int F_ANOMALY_CODED = 1 << 4;
    static final int MIN_SHIFT = 5;
    // modes
    static final int MAX_SHIFT = 0;
    static final int SUM_SHIFT = 2;
    static final int PRED_SHIFT = 4;
    // column kinds
    static final int KIND_CONST = 0;
    static final int KIND_DEC = 1;
    static final int KIND_FLOAT = 2;
    static final int KIND_EQ_MIN = 3;
    // sum predictors
    static final int PRED_MID = 0;
    static final int PRED_PREV = 1;
    static final int PRED_AVG = 2;

    /** Largest |K| of a decimal column: 10^22 is the largest power of ten exact in a double. */
    static final int MAX_SCALE = 22;
    /** Largest magnitude of a decimal-coded integer (exact in a double). */
    static final long DEC_LIMIT = 1L << 53;

    /** {@code P10[i] = 10^i}, exact. */
    static final double[] P10 = new double[MAX_SCALE + 1];

    static {
        double p = 1;
        for (int i = 0; i <= MAX_SCALE; i++) {
            P10[i] = p;
            p *= 10;
        }
    }

    private static final ThreadLocal<Coder> CODER = ThreadLocal.withInitial(Coder::new);

    private PageCodecTier1() {
    }

    /** The largest number of bytes {@link #encode} writes for {@code count} points. */
    public static int maxEncodedLength(int count) {
        if (count < 0 || count > (Integer.MAX_VALUE - 1) / 16) {
            throw new IllegalArgumentException("bad point count " + count);
        }
        return 1 + 16 * count;
    }

    /**
     * Encodes the {@code count} points in {@code points[0, 4 * count)} into {@code dst} from
     * {@code dstOffset}, which must have room for {@link #maxEncodedLength}{@code (count)} bytes (all
     * of them may be used as scratch).
     *
     * @return the number of bytes written
     * @throws IllegalArgumentException if the count or the destination range is invalid
     */
    public static int encode(int[] points, int count, byte[] dst, int dstOffset) {
        int max = maxEncodedLength(count);
        if (4L * count > points.length) {
            throw new IllegalArgumentException("count " + count + " needs " + 4L * count + " ints, have " + points.length);
        }
        if (dstOffset < 0 || dstOffset > dst.length - max) {
            throw new IllegalArgumentException("need " + max + " bytes at " + dstOffset + " of " + dst.length);
        }
        if (count > 0) {
            Coder c = CODER.get();
            int n;
            try {
                // the compact form is kept only when strictly smaller than raw
                n = c.encodeColumns(points, count, dst, dstOffset, dstOffset + max - 1);
            } finally {
                c.buf = null;
            }
            if (n > 0) {
                return n;
            }
        }
        dst[dstOffset] = CODEC_RAW;
        int o = dstOffset + 1;
        for (int i = 0; i < 4 * count; i++, o += 4) {
            putU32(dst, o, points[i]); // the 4th word: u16 count, then u16 anomaly count
        }
        return max;
    }

    /**
     * Decodes {@code count} points from {@code src[srcOffset, srcOffset + length)}, exactly the bytes
     * that {@link #encode} returned for them, into {@code points[0, 4 * count)}.
     *
     * @throws CorruptPageException if the bytes are not a valid encoding of {@code count} points;
     *         {@code points[0, 4 * count)} may then hold anything. Never loops more than
     *         {@code O(count + length)} steps.
     * @throws IllegalArgumentException (not the subclass) if the arguments themselves are out of range
     */
    public static void decode(byte[] src, int srcOffset, int length, int[] points, int count) {
        if (count < 0 || 4L * count > points.length) {
            throw new IllegalArgumentException("bad count " + count + " for " + points.length + " ints");
        }
        if (srcOffset < 0 || length < 0 || srcOffset > src.length - length) {
            throw new IllegalArgumentException("bad range " + srcOffset + "+" + length + " of " + src.length);
        }
        if (length == 0) {
            throw new CorruptPageException("empty page encoding");
        }
        int id = src[srcOffset] & 0xff;
        if (id == CODEC_RAW) {
            if (length != 1 + 16L * count) {
                throw new CorruptPageException("raw page of " + count + " points has " + length + " bytes");
            }
            int o = srcOffset + 1;
            for (int i = 0; i < 4 * count; i++, o += 4) {
                points[i] = getU32(src, o);
            }
            return;
        }
        if (id == CODEC_COLUMNS) {
            Coder c = CODER.get();
            try {
                c.decodeColumns(src, srcOffset, srcOffset + length, points, count);
            } finally {
                c.buf = null;
            }
            return;
        }
        throw new CorruptPageException("unknown tier-1 codec " + id);
    }

    // ------------------------------------------------------------------------------- helpers

    /** Order-preserving map between float bits and an int (its own inverse). */
    static int key(int bits) {
        return bits >= 0 ? bits : bits ^ 0x7fffffff;
    }

    /** The float that decimal integer {@code m} stands for at scale {@code K}: {@code m / 10^K}. */
    static float decimalValue(long m, int scale) {
        return scale >= 0 ? (float) (m / P10[scale]) : (float) (m * P10[-scale]);
    }

    /** A prediction {@code x} as an integer of a decimal column of scale {@code K}. */
    static long predictDecimal(double x, int scale) {
        double y = scale >= 0 ? x * P10[scale] : x / P10[-scale];
        if (y != y) {
            return 0;
        }
        if (y >= DEC_LIMIT) {
            return DEC_LIMIT;
        }
        if (y <= -DEC_LIMIT) {
            return -DEC_LIMIT;
        }
        return (long) Math.rint(y);
    }

    /** A prediction {@code x} as an integer of a float column. */
    static long predictFloat(double x) {
        return x != x ? 0 : key(Float.floatToRawIntBits((float) x));
    }

    /** The "mid" prediction of a sum: {@code count * ((min + max) / 2)}, in double precision. */
    static double mid(int count, int minBits, int maxBits) {
        return count * (((double) Float.intBitsToFloat(minBits) + (double) Float.intBitsToFloat(maxBits)) * 0.5);
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

    static void putU32(byte[] d, int o, int v) {
        d[o] = (byte) v;
        d[o + 1] = (byte) (v >>> 8);
        d[o + 2] = (byte) (v >>> 16);
        d[o + 3] = (byte) (v >>> 24);
    }

    static int getU32(byte[] s, int o) {
        return (s[o] & 0xff) | (s[o + 1] & 0xff) << 8 | (s[o + 2] & 0xff) << 16 | s[o + 3] << 24;
    }

    // ------------------------------------------------------------------------------- coder

    /** Per-thread state: probabilities, range coder, raw-bit stream, scratch; one page at a time. */
    private static final class Coder extends BinaryRangeCoder {
        /*
         * Five models (one a column) of 64 probabilities: [0] "residual != 0", [1..63] nodes of the
         * 6-bit tree of (bit length - 1). No model depends on decoded values, so the bit lengths,
         * hence the raw-bit count, follow from the range-coder bytes alone: a page cut short or
         * lengthened can never decode.
         */
        static final int M_COUNT = 0;
        static final int M_ANOMALY = 64;
        static final int M_MIN = 128;
        static final int M_MAX = 192;
        static final int M_SUM = 256;
        static final int N_PROBS = 320;
        static final int MOVE_BITS = 2;
        static final int MAX_SYMBOL = 62;

        static final int NO_DEC = Integer.MIN_VALUE;
        static final int ZERO = Integer.MIN_VALUE + 1;

        Coder() {
            super(N_PROBS, MOVE_BITS, true);
        }

        // header reader
        int hp;
        int hend;

        // present slots (encode and decode)
        int[] idx = new int[0];
        // encoder scratch, one entry per present point
        int[] cnt = new int[0];
        int[] anom = new int[0];
        int[] mnb = new int[0];
        int[] mxb = new int[0];
        int[] smb = new int[0];
        long[] vMin = new long[0];
        long[] vMax = new long[0];
        long[] vSum = new long[0];
        long[] vAlt = new long[0];
        long[] tmp = new long[0];
        int[] tmpScale = new int[0];

        void ensureIdx(int n) {
            if (idx.length < n) {
                idx = new int[Math.max(n, 64)];
            }
        }

        void ensureScratch(int n) {
            ensureIdx(n);
            if (cnt.length < n) {
                int m = Math.max(n, 64);
                cnt = new int[m];
                anom = new int[m];
                mnb = new int[m];
                mxb = new int[m];
                smb = new int[m];
                vMin = new long[m];
                vMax = new long[m];
                vSum = new long[m];
                vAlt = new long[m];
                tmp = new long[m];
                tmpScale = new int[m];
            }
        }

        /** Codes residual {@code r} with model {@code m}: its bit length, then the bits below the top one. */
        void encodeResidual(int m, long r) {
            long u = zigzag(r);
            int s = bitLength(u);
            if (s == 0) {
                encodeBit(m, 0);
                return;
            }
            encodeBit(m, 1);
            int node = 1;
            int t = s - 1;
            for (int lv = 5; lv >= 0; lv--) {
                int b = (t >>> lv) & 1;
                encodeBit(m + node, b);
                node = (node << 1) | b;
            }
            if (s >= 2) {
                putRaw(u, s - 1);
            }
        }

        /** Decodes a residual coded with model {@code m}. */
        long decodeResidual(int m) {
            if (decodeBit(m) == 0) {
                return 0;
            }
            int node = 1;
            for (int lv = 0; lv < 6; lv++) {
                node = (node << 1) | decodeBit(m + node);
            }
            int s = node - 63; // (node - 64) + 1
            if (s > MAX_SYMBOL) {
                throw new CorruptPageException("invalid residual length " + s);
            }
            long u = s < 2 ? s : (1L << (s - 1)) | getRaw(s - 1);
            return unzigzag(u);
        }

        void finishDecoder() {
            if (overrun != 0 || rcPos != rawPos) {
                throw new CorruptPageException("body streams do not meet: range coder ends at " + rcPos
                        + ", raw bits start at " + rawPos + (overrun != 0 ? ", range coder past the end" : ""));
            }
        }

        // ---------------------------------------------------------------- encode

        /**
         * An integer m with {@code decimalValue(m, k) == bits}, {@code |m| <= 2^53}, into
         * {@code tmp[j]}; false if there is none near {@code f * 10^k}.
         */
        boolean decimalAt(int bits, double f, int k, int j) {
            double y = k >= 0 ? f * P10[k] : f / P10[-k];
            if (!(Math.abs(y) <= DEC_LIMIT)) {
                return false;
            }
            long m = (long) Math.rint(y);
            if (Float.floatToRawIntBits(decimalValue(m, k)) != bits) {
                m = y > m ? m + 1 : m - 1; // y's own rounding may have hidden the right integer
                if (Math.abs(m) > DEC_LIMIT || Float.floatToRawIntBits(decimalValue(m, k)) != bits) {
                    return false;
                }
            }
            tmp[j] = m;
            return true;
        }

        /**
         * The smallest scale k in {@code from..22} at which finite non-zero {@code bits} is a decimal
         * (its integer into {@code tmp[j]}), or {@code NO_DEC}. A float needs at most 9 significant
         * digits, so the search stops 10 digits past the first one.
         */
        int decimalFrom(int bits, int from, int j) {
            float f = Float.intBitsToFloat(bits);
            // |f| < 2^(e+1), so |f| * 10^k0 < 1
            int k0 = -(int) Math.ceil((Math.getExponent(f) + 1) * 0.30102999566398120);
            int to = Math.min(k0 + 10, MAX_SCALE);
            for (int k = Math.max(from, Math.max(k0, -MAX_SCALE)); k <= to; k++) {
                if (decimalAt(bits, f, k, j)) {
                    return k;
                }
            }
            return NO_DEC;
        }

        /**
         * The column {@code bits[0, k)} as integers at a common decimal scale (the smallest at which
         * every value is exact), into {@code out}; returns the scale, or {@code NO_DEC} if some value
         * has no such form (NaN, infinities, -0, needing more than 22 decimals or more than 2^53).
         */
        int decimalColumn(int[] bits, int k, long[] out) {
            // a value exact at scale k is exact at k + 1 (10 m / 10^(k+1) is the same real number):
            // raise the scale when a value needs it, then bring the earlier values to it
            int scale = NO_DEC;
            for (int j = 0; j < k; j++) {
                int b = bits[j];
                if (j > 0 && b == bits[j - 1]) {
                    tmp[j] = tmp[j - 1];
                    tmpScale[j] = tmpScale[j - 1];
                    continue;
                }
                if (b == 0) {
                    tmp[j] = 0;
                    tmpScale[j] = ZERO;
                    continue;
                }
                if ((b & 0x7f800000) == 0x7f800000 || b == 0x80000000) {
                    return NO_DEC; // NaN, infinity, -0
                }
                if (scale != NO_DEC && decimalAt(b, Float.intBitsToFloat(b), scale, j)) {
                    tmpScale[j] = scale;
                    continue;
                }
                int s = decimalFrom(b, scale == NO_DEC ? -MAX_SCALE : scale + 1, j);
                if (s == NO_DEC) {
                    return NO_DEC;
                }
                tmpScale[j] = s;
                scale = s;
            }
            if (scale == NO_DEC) {
                scale = 0; // all zero
            }
            for (int j = 0; j < k; j++) {
                long m = tmp[j];
                int s = tmpScale[j];
                if (s != ZERO && s < scale) {
                    int d = scale - s;
                    if (d > 15 || Math.abs(m) > DEC_LIMIT / (long) P10[d]) {
                        return NO_DEC;
                    }
                    m *= (long) P10[d];
                    if (Float.floatToRawIntBits(decimalValue(m, scale)) != bits[j]) {
                        return NO_DEC; // cannot happen with IEEE arithmetic; checked all the same
                    }
                }
                out[j] = m;
            }
            return scale;
        }

        /** Estimated cost in bits of coding residual {@code r}. */
        static int cost(long r) {
            return r == 0 ? 1 : bitLength(zigzag(r)) + 3;
        }

        static boolean constant(int[] v, int k) {
            int a = v[0];
            for (int j = 1; j < k; j++) {
                if (v[j] != a) {
                    return false;
                }
            }
            return true;
        }

        /** The most frequent value when one holds a majority, else some value of {@code v}. */
        static int majority(int[] v, int k) {
            int cand = v[0];
            int votes = 0;
            for (int j = 0; j < k; j++) {
                if (votes == 0) {
                    cand = v[j];
                    votes = 1;
                } else if (v[j] == cand) {
                    votes++;
                } else {
                    votes--;
                }
            }
            return cand;
        }

        static void floatColumn(int[] bits, int k, long[] out) {
            for (int j = 0; j < k; j++) {
                out[j] = key(bits[j]);
            }
        }

        /** Cost of {@code v[0, k)} as differences from the previous value, the first from {@code first}. */
        static long deltaCost(long[] v, int k, long first) {
            long c = cost(v[0] - first);
            for (int j = 1; j < k; j++) {
                c += cost(v[j] - v[j - 1]);
            }
            return c;
        }

        /** The sum's prediction for present point j, as an integer of the sum column. */
        long sumPrediction(int pred, int j, boolean dec, int scale, long prevV) {
            int minBits = mnb[j];
            int maxBits = mxb[j];
            double x;
            if (j == 0 || minBits == maxBits || pred == PRED_MID) {
                x = mid(cnt[j], minBits, maxBits);
            } else if (pred == PRED_PREV) {
                return prevV;
            } else if (cnt[j - 1] != 0) {
                x = cnt[j] * ((double) Float.intBitsToFloat(smb[j - 1]) / cnt[j - 1]);
            } else {
                x = mid(cnt[j], minBits, maxBits);
            }
            return dec ? predictDecimal(x, scale) : predictFloat(x);
        }

        long sumCost(int pred, boolean dec, int scale, long[] v, int k) {
            long c = 0;
            for (int j = 0; j < k; j++) {
                c += cost(v[j] - sumPrediction(pred, j, dec, scale, j > 0 ? v[j - 1] : 0));
            }
            return c;
        }

        /** Returns the encoded length, or -1 when it would not fit in {@code [start, limit)}. */
        int encodeColumns(int[] pts, int count, byte[] dst, int start, int limit) {
            ensureScratch(count);
            // gaps are (fill, fill, fill, 0) with fill = the sum of the first point of that shape
            int fill = 0;
            boolean haveFill = false;
            int k = 0;
            for (int i = 0; i < count; i++) {
                int o = 4 * i;
                int s = pts[o];
                if (pts[o + 3] == 0 && s == pts[o + 1] && s == pts[o + 2]) {
                    if (!haveFill) {
                        fill = s;
                        haveFill = true;
                    }
                    if (s == fill) {
                        continue;
                    }
                }
                idx[k++] = i;
            }
            int pos = start;
            if (limit - pos < 2) {
                return -1;
            }
            dst[pos++] = CODEC_COLUMNS;
            int flagsPos = pos++;
            int flags = k == 0 ? GAPS_ALL : k == count ? GAPS_NONE : GAPS_RUNS;
            if (flags == GAPS_RUNS) {
                int i = 0;
                int j = 0;
                while (true) {
                    int from = i;
                    while (j < k && idx[j] == i) {
                        i++;
                        j++;
                    }
                    pos = PageCodecTier0.putVar(dst, pos, limit, i - from);
                    if (pos < 0) {
                        return -1;
                    }
                    if (i == count) {
                        break;
                    }
                    int next = j < k ? idx[j] : count;
                    pos = PageCodecTier0.putVar(dst, pos, limit, next - i);
                    if (pos < 0) {
                        return -1;
                    }
                    i = next;
                    if (i == count) {
                        break;
                    }
                }
            }
            if (fill != 0) {
                flags |= F_FILL;
                if (limit - pos < 4) {
                    return -1;
                }
                putU32(dst, pos, fill);
                pos += 4;
            }
            if (k == 0) {
                dst[flagsPos] = (byte) flags;
                return pos - start;
            }
            for (int j = 0; j < k; j++) {
                int o = 4 * idx[j];
                smb[j] = pts[o];
                mnb[j] = pts[o + 1];
                mxb[j] = pts[o + 2];
                cnt[j] = pts[o + 3] & 0xffff;
                anom[j] = pts[o + 3] >>> 16;
            }

            // count and anomaly count: a base value (the majority), residuals if not all equal to it
            int countBase = majority(cnt, k);
            int anomBase = majority(anom, k);
            boolean countCoded = !constant(cnt, k);
            boolean anomCoded = !constant(anom, k);
            // min: constant, or the cheaper of decimal and float
            int minKind = KIND_CONST;
            int minScale = 0;
            if (!constant(mnb, k)) {
                minKind = KIND_FLOAT;
                floatColumn(mnb, k, vMin);
                long fc = deltaCost(vMin, k, 0);
                minScale = decimalColumn(mnb, k, vAlt);
                if (minScale != NO_DEC && deltaCost(vAlt, k, 0) + 8 < fc) {
                    minKind = KIND_DEC;
                    System.arraycopy(vAlt, 0, vMin, 0, k);
                }
            }
            // max: equal to min, constant, or the cheaper of decimal and float
            int maxKind = KIND_EQ_MIN;
            int maxScale = 0;
            for (int j = 0; j < k; j++) {
                if (mxb[j] != mnb[j]) {
                    maxKind = constant(mxb, k) ? KIND_CONST : KIND_FLOAT;
                    break;
                }
            }
            if (maxKind == KIND_FLOAT) {
                double m0 = Float.intBitsToFloat(mnb[0]);
                floatColumn(mxb, k, vMax);
                long fc = deltaCost(vMax, k, predictFloat(m0));
                maxScale = decimalColumn(mxb, k, vAlt);
                if (maxScale != NO_DEC && deltaCost(vAlt, k, predictDecimal(m0, maxScale)) + 8 < fc) {
                    maxKind = KIND_DEC;
                    System.arraycopy(vAlt, 0, vMax, 0, k);
                }
            }
            // sum: constant, or the cheapest of (decimal, float) x (mid, previous, average)
            int sumKind = KIND_CONST;
            int sumScale = 0;
            int sumPred = PRED_MID;
            if (!constant(smb, k)) {
                floatColumn(smb, k, vSum);
                sumKind = KIND_FLOAT;
                long best = Long.MAX_VALUE;
                for (int p = PRED_MID; p <= PRED_AVG; p++) {
                    long c = sumCost(p, false, 0, vSum, k);
                    if (c < best) {
                        best = c;
                        sumPred = p;
                    }
                }
                int scale = decimalColumn(smb, k, vAlt);
                if (scale != NO_DEC) {
                    boolean dec = false;
                    for (int p = PRED_MID; p <= PRED_AVG; p++) {
                        long c = sumCost(p, true, scale, vAlt, k) + 8;
                        if (c < best) {
                            best = c;
                            sumPred = p;
                            dec = true;
                        }
                    }
                    if (dec) {
                        sumKind = KIND_DEC;
                        sumScale = scale;
                        System.arraycopy(vAlt, 0, vSum, 0, k);
                    }
                }
            }

            flags |= (countCoded ? F_COUNT_CODED : 0) | (anomCoded ? F_ANOMALY_CODED : 0) | minKind << MIN_SHIFT;
            dst[flagsPos] = (byte) flags;
            if (pos >= limit) {
                return -1;
            }
            dst[pos++] = (byte) (maxKind << MAX_SHIFT | sumKind << SUM_SHIFT | sumPred << PRED_SHIFT);
            pos = PageCodecTier0.putVar(dst, pos, limit, countBase);
            pos = PageCodecTier0.putVar(dst, pos, limit, anomBase);
            pos = putColumnHeader(dst, pos, limit, minKind, mnb[0], minScale);
            pos = putColumnHeader(dst, pos, limit, maxKind, mxb[0], maxScale);
            pos = putColumnHeader(dst, pos, limit, sumKind, smb[0], sumScale);
            if (pos < 0) {
                return -1;
            }
            if (!countCoded && !anomCoded && minKind == KIND_CONST && (maxKind == KIND_CONST || maxKind == KIND_EQ_MIN)
                    && sumKind == KIND_CONST) {
                return pos - start;
            }

            startEncoder(dst, pos, limit);
            if (countCoded) {
                for (int j = 0; j < k; j++) {
                    encodeResidual(M_COUNT, cnt[j] - countBase);
                }
            }
            if (anomCoded) {
                for (int j = 0; j < k; j++) {
                    encodeResidual(M_ANOMALY, anom[j] - anomBase);
                }
            }
            if (minKind != KIND_CONST) {
                encodeDeltas(M_MIN, vMin, k, 0);
            }
            if (maxKind == KIND_DEC || maxKind == KIND_FLOAT) {
                double m0 = Float.intBitsToFloat(mnb[0]);
                encodeDeltas(M_MAX, vMax, k, maxKind == KIND_DEC ? predictDecimal(m0, maxScale) : predictFloat(m0));
            }
            if (sumKind != KIND_CONST) {
                boolean dec = sumKind == KIND_DEC;
                for (int j = 0; j < k; j++) {
                    long p = sumPrediction(sumPred, j, dec, sumScale, j > 0 ? vSum[j - 1] : 0);
                    encodeResidual(M_SUM, vSum[j] - p);
                    if (overflow) {
                        return -1;
                    }
                }
            }
            int end = finishEncoder(limit);
            return end < 0 ? -1 : end - start;
        }

        void encodeDeltas(int model, long[] v, int k, long first) {
            long prev = first;
            for (int j = 0; j < k && !overflow; j++) {
                encodeResidual(model, v[j] - prev);
                prev = v[j];
            }
        }

        static int putColumnHeader(byte[] dst, int pos, int limit, int kind, int first, int scale) {
            if (pos < 0) {
                return -1;
            }
            if (kind == KIND_CONST) {
                if (limit - pos < 4) {
                    return -1;
                }
                putU32(dst, pos, first);
                return pos + 4;
            }
            if (kind == KIND_DEC) {
                if (pos >= limit) {
                    return -1;
                }
                dst[pos] = (byte) scale;
                return pos + 1;
            }
            return pos;
        }

        // ---------------------------------------------------------------- decode

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

        private int getU32h() {
            if (hend - hp < 4) {
                throw new CorruptPageException("truncated header");
            }
            int v = getU32(buf, hp);
            hp += 4;
            return v;
        }

        private int getU8() {
            if (hp >= hend) {
                throw new CorruptPageException("truncated header");
            }
            return buf[hp++] & 0xff;
        }

        private int getU16Var(String what) {
            long v = getVar();
            if (v < 0 || v > 0xffff) {
                throw new CorruptPageException("bad " + what + " " + v);
            }
            return (int) v;
        }

        private int getScale() {
            int s = (byte) getU8();
            if (s < -MAX_SCALE || s > MAX_SCALE) {
                throw new CorruptPageException("bad decimal scale " + s);
            }
            return s;
        }

        void decodeColumns(byte[] src, int start, int end, int[] pts, int count) {
            buf = src;
            hp = start + 1;
            hend = end;
            int flags = getU8();
            int gaps = flags & 3;
            if (gaps == 3 || (flags & 0x80) != 0 || ((flags >>> MIN_SHIFT) & 3) == 3) {
                throw new CorruptPageException("bad flags " + flags);
            }
            if (count == 0) {
                throw new CorruptPageException("compact encoding of an empty page");
            }
            ensureIdx(count);
            int[] ix = idx;
            int k;
            if (gaps == GAPS_NONE) {
                for (int i = 0; i < count; i++) {
                    ix[i] = i;
                }
                k = count;
            } else if (gaps == GAPS_ALL) {
                k = 0;
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
                    for (int r = 0; r < run; r++) {
                        ix[k++] = sum++;
                    }
                    if (sum == count) {
                        break;
                    }
                    run = getVar();
                    if (run <= 0 || run > count - sum) {
                        throw new CorruptPageException("bad gap run " + run);
                    }
                    sum += (int) run;
                    if (sum == count) {
                        break;
                    }
                }
                if (k == 0) {
                    throw new CorruptPageException("gap runs without a present point");
                }
            }
            int fill = (flags & F_FILL) != 0 ? getU32h() : 0;
            if (k < count) {
                // every slot a gap first; the present points are overwritten below
                for (int i = 0; i < count; i++) {
                    int o = 4 * i;
                    pts[o] = fill;
                    pts[o + 1] = fill;
                    pts[o + 2] = fill;
                    pts[o + 3] = 0;
                }
            } else if ((flags & F_FILL) != 0) {
                throw new CorruptPageException("a fill value without a gap");
            }
            if (k == 0) {
                if ((flags & ~(3 | F_FILL)) != 0 || hp != end) {
                    throw new CorruptPageException("bad all-gap page");
                }
                return;
            }
            int modes = getU8();
            boolean countCoded = (flags & F_COUNT_CODED) != 0;
            boolean anomCoded = (flags & F_ANOMALY_CODED) != 0;
            int minKind = (flags >>> MIN_SHIFT) & 3;
            int maxKind = (modes >>> MAX_SHIFT) & 3;
            int sumKind = (modes >>> SUM_SHIFT) & 3;
            int sumPred = (modes >>> PRED_SHIFT) & 3;
            if (sumKind == 3 || sumPred == 3 || (modes & 0xc0) != 0 || (sumKind == KIND_CONST && sumPred != 0)) {
                throw new CorruptPageException("bad modes " + modes);
            }
            int countBase = getU16Var("count base");
            int anomBase = getU16Var("anomaly base");
            int minConst = minKind == KIND_CONST ? getU32h() : 0;
            int minScale = minKind == KIND_DEC ? getScale() : 0;
            int maxConst = maxKind == KIND_CONST ? getU32h() : 0;
            int maxScale = maxKind == KIND_DEC ? getScale() : 0;
            int sumConst = sumKind == KIND_CONST ? getU32h() : 0;
            int sumScale = sumKind == KIND_DEC ? getScale() : 0;
            boolean body = countCoded || anomCoded || minKind != KIND_CONST || maxKind == KIND_DEC
                    || maxKind == KIND_FLOAT || sumKind != KIND_CONST;
            if (body) {
                startDecoder(src, hp, end);
            } else if (hp != end) {
                throw new CorruptPageException("bytes after a constant page");
            }
            // count and anomaly count
            if (countCoded || anomCoded) {
                for (int j = 0; j < k; j++) {
                    long c = countBase;
                    if (countCoded) {
                        c += decodeResidual(M_COUNT);
                        if (c < 0 || c > 0xffff) {
                            throw new CorruptPageException("count out of range");
                        }
                    }
                    pts[4 * ix[j] + 3] = (int) c;
                }
                for (int j = 0; j < k; j++) {
                    long a = anomBase;
                    if (anomCoded) {
                        a += decodeResidual(M_ANOMALY);
                        if (a < 0 || a > 0xffff) {
                            throw new CorruptPageException("anomaly count out of range");
                        }
                    }
                    pts[4 * ix[j] + 3] |= (int) a << 16;
                }
            } else {
                int w = countBase | anomBase << 16;
                for (int j = 0; j < k; j++) {
                    pts[4 * ix[j] + 3] = w;
                }
            }
            // min
            if (minKind == KIND_CONST) {
                for (int j = 0; j < k; j++) {
                    pts[4 * ix[j] + 1] = minConst;
                }
            } else {
                decodeDeltas(M_MIN, minKind == KIND_DEC, minScale, 0, pts, ix, k, 1);
            }
            // max
            if (maxKind == KIND_CONST) {
                for (int j = 0; j < k; j++) {
                    pts[4 * ix[j] + 2] = maxConst;
                }
            } else if (maxKind == KIND_EQ_MIN) {
                for (int j = 0; j < k; j++) {
                    int o = 4 * ix[j];
                    pts[o + 2] = pts[o + 1];
                }
            } else {
                double m0 = Float.intBitsToFloat(pts[4 * ix[0] + 1]);
                boolean dec = maxKind == KIND_DEC;
                decodeDeltas(M_MAX, dec, maxScale, dec ? predictDecimal(m0, maxScale) : predictFloat(m0), pts, ix, k, 2);
            }
            // sum
            if (sumKind == KIND_CONST) {
                for (int j = 0; j < k; j++) {
                    pts[4 * ix[j]] = sumConst;
                }
            } else {
                boolean dec = sumKind == KIND_DEC;
                long prev = 0;
                int po = 0;
                for (int j = 0; j < k; j++) {
                    int o = 4 * ix[j];
                    int minBits = pts[o + 1];
                    int maxBits = pts[o + 2];
                    boolean flat = minBits == maxBits;
                    long p;
                    if (j > 0 && !flat && sumPred == PRED_PREV) {
                        p = prev;
                    } else {
                        int c = pts[o + 3] & 0xffff;
                        int pc = pts[po + 3] & 0xffff;
                        double x = j > 0 && !flat && sumPred == PRED_AVG && pc != 0
                                ? c * ((double) Float.intBitsToFloat(pts[po]) / pc)
                                : mid(c, minBits, maxBits);
                        p = dec ? predictDecimal(x, sumScale) : predictFloat(x);
                    }
                    long v = p + decodeResidual(M_SUM);
                    pts[o] = valueBits(dec, sumScale, v);
                    prev = v;
                    po = o;
                }
            }
            if (body) {
                finishDecoder();
            }
        }

        /** Decodes a column coded as differences from the previous value into word {@code w}. */
        private void decodeDeltas(int model, boolean dec, int scale, long first, int[] pts, int[] ix, int k, int w) {
            long prev = first;
            for (int j = 0; j < k; j++) {
                long v = prev + decodeResidual(model);
                pts[4 * ix[j] + w] = valueBits(dec, scale, v);
                prev = v;
            }
        }

        static int valueBits(boolean dec, int scale, long v) {
            if (dec) {
                if (v > DEC_LIMIT || v < -DEC_LIMIT) {
                    throw new CorruptPageException("decimal value out of range");
                }
                return Float.floatToRawIntBits(decimalValue(v, scale));
            }
            if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
                throw new CorruptPageException("float value out of range");
            }
            return key((int) v);
        }
    }
}
