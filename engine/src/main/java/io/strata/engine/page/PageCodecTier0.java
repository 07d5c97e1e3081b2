package io.strata.engine.page;

import java.util.Arrays;

/**
 * Encoding of a tier-0 page's points (32-bit {@link StorageNumber storage numbers}) before the
 * extent that holds the page is LZ4-compressed. Lossless, bit for bit, for any {@code int} values.
 *
 * <p>The first byte is the codec id, so that schemes can coexist:
 * <ul>
 * <li>{@link #CODEC_RAW} (0): the points as 4-byte little-endian words; length {@code 1 + 4 * count}.
 *     Written whenever the model below would not be smaller.</li>
 * <li>{@link #CODEC_DECIMAL} (1): gaps as runs, then the present points as decimal values predicted
 *     from their neighbours, the residuals' bit lengths coded by an adaptive binary range coder and
 *     their remaining bits stored verbatim.</li>
 * <li>{@link #CODEC_DECIMAL_RUNS} (2): the header of codec 1 with a body that codes a run of points
 *     with a zero residual and the predicted top (in FIXED mode, the top pack gives the point's
 *     value) as one run length; specified in docs/format/page.md, "Codec 2". Decoded beside 0 and
 *     1; written only when asked for ({@link #DEFAULT_CODEC} is codec 1).</li>
 * </ul>
 *
 * <h2>CODEC_DECIMAL layout</h2>
 * Notation: {@code uv} = unsigned LEB128 varint (7 bits a byte, low first, at most 10 bytes);
 * {@code sv} = zigzag-encoded signed value as a {@code uv}; {@code u32} = 4 bytes little-endian.
 * A point's <i>top</i> is its high byte (sign, multiply, exponent, x100, reset, not-anomalous); its
 * decimal exponent {@code E} is {@code (MUL ? +1 : -1) * exponent * (MUL100 ? 2 : 1)} and its signed
 * mantissa {@code x} is {@code (NEG ? -1 : 1) * (sn & 0xFFFFFF)}; its value is {@code x * 10^E}.
 * <pre>
 * u8   codec id = 1
 * u8   flags   bits 0-1  gaps: 0 none, 1 every slot is a gap (nothing follows), 2 gap runs follow
 *              bit  2    constant: every present point equals the first (nothing follows it)
 *              bit  3    every present point has the first point's top
 *              bit  4    mode: 0 FIXED (common decimal scale), 1 POINT (each point at its own scale)
 *              bits 5-6  FIXED predictor: 0 page mean, 1 previous, 2 linear (2*prev - prev2)
 *              bit  7    an anchor value follows
 * [gaps=2]  uv run lengths, alternately present and gap, starting with present (may be 0),
 *           until they sum to count
 * u32  first present point
 * [not constant]
 *   [anchor]  u32 anchor: a frequent point that the body can name with one symbol
 *   [FIXED]   i8 Emin; uv S (step, at least 1); sv B (base); [mean] sv M;
 *             uv exception count; per exception: uv (present index - previous exception index - 1),
 *             sv remainder
 *   body: range-coder bytes, then the raw-bit bytes stored last byte first, so that they end at the
 *         page's last byte. The two streams must meet exactly.
 * </pre>
 * <b>FIXED</b>: every present point's value is the integer {@code V = x * 10^(E - Emin)}, exact because
 * {@code E - Emin} is in 0..10 for every point. Each point has {@code W = floor((V - B + floor(S/2)) / S)}
 * and {@code V = B + W * S + e}, where {@code e} is the point's listed remainder, 0 when not listed
 * (the encoder uses either B = first V and S = gcd of successive differences, with no exceptions, or
 * B = 0 and S = a power of ten dividing at least 7/8 of the values, listing the others). The first
 * point's W comes from the header's first point. The prediction of W is M (mean), the previous
 * point's W (previous), or {@code 2 W[i-1] - W[i-2]} (linear; the previous W for the second point).
 * <b>POINT</b>: the prediction of {@code x} is the previous point's {@code x} rescaled by
 * {@code d = Eprev - E}: unchanged if d = 0 or x = 0; {@code x * 10^d} clamped to +-2^25 if d > 0
 * (+-2^25 if d > 8); {@code floor((x + 10^-d / 2) / 10^-d)} if d < 0 (0 if d < -8).
 * Anchors: the anchor point updates W, x, E and the top like any point.
 *
 * <p>Body, for each present point after the first, with {@code u = zigzag(actual - predicted)}
 * and its symbol {@code s} = bit length of {@code u} (0..62), or 63 = ANCHOR (the point is the anchor):
 * <pre>
 * bit   s != 0                          [context c]
 * [s != 0] 6-bit tree, MSB first, of t = (s == 63 ? 62 : s - 1)   [context c]; t = 63 is invalid
 * [s != 63, tops vary] bit "top differs from the previous point's" [context: s = 0, 1-7, 8-15, 16-21, 22+];
 *                       if so 8-bit tree, MSB first, of top XOR previous top
 * [s >= 2] the low s - 1 bits of u in the raw-bit stream (the leading 1 is implied)
 * </pre>
 * Context {@code c} is 0 when the previous symbol was 0 or ANCHOR (or for the second point), else 1.
 * The range coder is LZMA's binary coder (32-bit range, carry-propagating 64-bit low, five flush
 * bytes) with 12-bit probabilities of a 0 bit, starting at 2048 and moving 1/8 of the way to 4096
 * (after a 0) or to 0 (after a 1), rounded down. Raw bits are packed least significant first; the
 * raw stream's byte {@code j} is the page's byte {@code length - 1 - j}.
 *
 * <p>Decoding rejects ({@link CorruptPageException}): an unknown codec id; a raw page whose length is
 * not {@code 1 + 4 * count}; bad flags; runs that do not sum to count; a header or raw stream that
 * runs out; a point outside FIXED's 0..10 decimal span, not a multiple of its exponent's unit, with a
 * mantissa beyond 24 bits or a sign that contradicts its NEG bit; symbol t = 63, an ANCHOR without an
 * anchor or on an exception; unused exceptions; and streams that do not meet exactly. The last check
 * rejects a page cut anywhere in its raw bits (the range-coded symbols do not depend on them, so both
 * streams still consume their original byte counts, which no longer fit); a cut into the range-coder
 * bytes runs a stream out in practice (the tests truncate tens of thousands of pages; none decodes).
 *
 * <p>All methods are static and thread-safe; encode and decode allocate nothing after a thread's
 * first call (they keep a coder state per thread, about 2 KB, and encoding adds scratch of 60 bytes
 * per point of the largest page the thread has encoded, 60 KB for 1024 points).
 *
 * <p>The encoder makes its choices exactly as the format's informative encoder (docs/format/page.md)
 * describes, so that the bytes do not change (PageCodecTier0GoldenTest), but computes them more
 * cheaply: the present points and their values are gathered once, exact divisions are
 * multiplications by a modular inverse, models that cannot win are not costed (POINT, costed last,
 * is abandoned once its partial cost shows that it has lost), and the body's range-coded decisions
 * are listed first (a top's tree from a table) and then coded in one loop with the coder's state in
 * locals.
 */
public final class PageCodecTier0 {

    /** Codec id: raw little-endian points. */
    public static final int CODEC_RAW = 0;
    /** Codec id: decimal prediction + range-coded residual lengths. */
    public static final int CODEC_DECIMAL = 1;
    /**
     * Codec id: the header of {@link #CODEC_DECIMAL}, with a body that codes a run of points with a
     * zero residual and the predicted top as one run length, and predicts a FIXED page's tops from
     * the point's value (docs/format/page.md, "Codec 2").
     */
    public static final int CODEC_DECIMAL_RUNS = 2;
    /**
     * The codec {@link #encode(int[], int, byte[], int)} writes (raw when it would not be smaller).
     * Still {@link #CODEC_DECIMAL}: codec 2 encodes Netdata's stress-test pages with 1.36x less CPU
     * but real pages with only 1.04x less, short of the 1.5x on both that would make it the default
     * (docs/benchmarks.md, "JMH, hot paths").
     */
    public static final int DEFAULT_CODEC = CODEC_DECIMAL;

    /** The empty slot (a gap): {@link StorageNumber#SN_EMPTY_SLOT}. */
    static final int GAP = StorageNumber.SN_EMPTY_SLOT;

    /** Thrown by {@link #decode} for bytes that are not a valid encoding of {@code count} points. */
    public static final class CorruptPageException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public CorruptPageException(String message) {
            super(message);
        }
    }

    // flags
    static final int GAPS_NONE = 0;
    static final int GAPS_ALL = 1;
    static final int GAPS_RUNS = 2;
    static final int F_CONSTANT = 1 << 2;
    static final int F_TOPS_CONST = 1 << 3;
    static final int F_POINT = 1 << 4;
    static final int PRED_SHIFT = 5;
    static final int PRED_MEAN = 0;
    static final int PRED_PREV = 1;
    private static final int PRED_LINEAR = 2;
    static final int F_ANCHOR = 1 << 7;

    static final int SYM_ANCHOR = 63;
    /**
     * Largest E - Emin of FIXED mode: |V| < 2^24 * 10^10 < 2^57.3, so W and the linear predictor's
     * residual stay below 2^60.3 and a zigzagged residual has at most 62 bits.
     */
    static final int MAX_SPAN = 10;
    private static final long POINT_CLAMP = 1L << 25;

    static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
    }

    private static final ThreadLocal<PageCodecTier0Coder> CODER = ThreadLocal.withInitial(PageCodecTier0Coder::new);

    private PageCodecTier0() {
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
        return encode(points, count, dst, dstOffset, DEFAULT_CODEC);
    }

    /**
     * {@link #encode(int[], int, byte[], int)} with the given codec, {@link #CODEC_DECIMAL} or
     * {@link #CODEC_DECIMAL_RUNS} ({@link #CODEC_RAW} is still written when the codec would not be
     * smaller); for benchmarks and tests that compare them.
     */
    public static int encode(int[] points, int count, byte[] dst, int dstOffset, int codec) {
        if (codec != CODEC_DECIMAL && codec != CODEC_DECIMAL_RUNS) {
            throw new IllegalArgumentException("not a tier-0 model codec: " + codec);
        }
        int max = maxEncodedLength(count);
        if (count > points.length) {
            throw new IllegalArgumentException("count " + count + " > points " + points.length);
        }
        if (dstOffset < 0 || dstOffset > dst.length - max) {
            throw new IllegalArgumentException("need " + max + " bytes at " + dstOffset + " of " + dst.length);
        }
        if (count > 0) {
            PageCodecTier0Coder c = CODER.get();
            int n;
            try {
                n = c.encodeDecimal(points, count, dst, dstOffset, dstOffset + max, codec);
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

    /**
     * Decodes {@code count} points from {@code src[srcOffset, srcOffset + length)}, exactly the bytes
     * that {@link #encode} returned for them, into {@code points[0, count)}.
     *
     * @throws CorruptPageException if the bytes are not a valid encoding of {@code count} points
     *         (unknown codec, wrong length, truncated or inconsistent content); {@code points} may then
     *         hold anything. Never loops more than {@code O(count + length)} steps.
     * @throws IllegalArgumentException (not the subclass) if the arguments themselves are out of range
     */
    public static void decode(byte[] src, int srcOffset, int length, int[] points, int count) {
        if (count < 0 || count > points.length) {
            throw new IllegalArgumentException("bad count " + count + " for " + points.length + " points");
        }
        if (srcOffset < 0 || length < 0 || srcOffset > src.length - length) {
            throw new IllegalArgumentException("bad range " + srcOffset + "+" + length + " of " + src.length);
        }
        if (length == 0) {
            throw new CorruptPageException("empty page encoding");
        }
        int id = src[srcOffset] & 0xff;
        if (id == CODEC_RAW) {
            if (length != 1 + 4L * count) {
                throw new CorruptPageException("raw page of " + count + " points has " + length + " bytes");
            }
            int o = srcOffset + 1;
            for (int i = 0; i < count; i++, o += 4) {
                points[i] = (src[o] & 0xff) | (src[o + 1] & 0xff) << 8 | (src[o + 2] & 0xff) << 16 | src[o + 3] << 24;
            }
            return;
        }
        if (id == CODEC_DECIMAL || id == CODEC_DECIMAL_RUNS) {
            PageCodecTier0Coder c = CODER.get();
            try {
                c.decodeDecimal(src, srcOffset, srcOffset + length, points, count, id);
            } finally {
                c.buf = null;
            }
            return;
        }
        throw new CorruptPageException("unknown tier-0 codec " + id);
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

    /** {@link #exp10} of each top byte (the exponent is in the top byte): a look-up per point. */
    static final byte[] EXP10_OF_TOP = new byte[256];

    static {
        for (int top = 0; top < 256; top++) {
            EXP10_OF_TOP[top] = (byte) exp10(top << 24);
        }
    }

    /** Value at decimal scale {@code emin}; {@code exp10(sn) - emin} must be in 0..MAX_SPAN. */
    static long scaled(int sn, int emin) {
        long m = (sn & 0xffffffL) * POW10[EXP10_OF_TOP[sn >>> 24] - emin];
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

    // ------------------------------------------------------------------------------- bytes

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
