package io.strata.engine.page;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Measurement, not a test: compares tier-0 page encodings on the real dataset
 * {@code datasets/netdata-child-1h.csv.gz}, each followed by LZ4 over 64-page extents, and prints
 * bytes per sample and encode/decode speed (millions of slots per CPU second, best of 10 runs).
 * Every scheme that has a decoder is checked to round-trip. The prototypes ({@link DecimalProto})
 * only measure size. After {@code ./mvnw -pl engine test-compile}:
 * <pre>
 * java -cp engine/target/test-classes:engine/target/classes:$HOME/.m2/repository/at/yawk/lz4/lz4-java/1.13.0/lz4-java-1.13.0.jar \
 *      io.strata.engine.page.PageCodecExperiment [notime]
 * </pre>
 */
public final class PageCodecExperiment {

    static final String DATASET = "/datasets/netdata-child-1h.csv.gz";
    static final int PAGE_POINTS = 1024;
    static final int EXTENT_PAGES = 64;
    static final int SN_FLAG_NOT_ANOMALOUS = StorageNumber.SN_FLAG_NOT_ANOMALOUS;
    static final int GAP = StorageNumber.SN_EMPTY_SLOT;

    private PageCodecExperiment() {
    }

    // ------------------------------------------------------------------ dataset

    /** The dataset as storage numbers (see {@link PageCodecTier0Test#loadColumns}). */
    static int[][] loadColumns() throws IOException {
        return PageCodecTier0Test.loadColumns();
    }

    /** Pages in flush order (see {@link PageCodecTier0Test#pages}). */
    static List<int[]> pages(int[][] columns) {
        return PageCodecTier0Test.pages(columns);
    }

    // ------------------------------------------------------------------ schemes

    interface Scheme {
        String name();

        int encode(int[] p, int n, byte[] dst, int off);

        /** null when the scheme has no decoder here (size-only variant). */
        default boolean canDecode() {
            return true;
        }

        void decode(byte[] src, int off, int len, int[] out, int n);
    }

    static final class Raw implements Scheme {
        public String name() {
            return "raw LE 4 B/point";
        }

        public int encode(int[] p, int n, byte[] d, int o) {
            for (int i = 0; i < n; i++) {
                int v = p[i];
                d[o++] = (byte) v;
                d[o++] = (byte) (v >>> 8);
                d[o++] = (byte) (v >>> 16);
                d[o++] = (byte) (v >>> 24);
            }
            return 4 * n;
        }

        public void decode(byte[] s, int o, int len, int[] out, int n) {
            for (int i = 0; i < n; i++, o += 4) {
                out[i] = (s[o] & 0xff) | (s[o + 1] & 0xff) << 8 | (s[o + 2] & 0xff) << 16 | s[o + 3] << 24;
            }
        }
    }

    /** XOR with the previous point, then the 4 byte planes one after another. */
    static final class XorShuffle implements Scheme {
        public String name() {
            return "xor prev + 4 byte planes";
        }

        public int encode(int[] p, int n, byte[] d, int o) {
            int prev = 0;
            for (int i = 0; i < n; i++) {
                int x = p[i] ^ prev;
                prev = p[i];
                d[o + i] = (byte) x;
                d[o + n + i] = (byte) (x >>> 8);
                d[o + 2 * n + i] = (byte) (x >>> 16);
                d[o + 3 * n + i] = (byte) (x >>> 24);
            }
            return 4 * n;
        }

        public void decode(byte[] s, int o, int len, int[] out, int n) {
            int prev = 0;
            for (int i = 0; i < n; i++) {
                int x = (s[o + i] & 0xff) | (s[o + n + i] & 0xff) << 8 | (s[o + 2 * n + i] & 0xff) << 16 | s[o + 3 * n + i] << 24;
                prev ^= x;
                out[i] = prev;
            }
        }
    }

    /**
     * Top byte (sign, multiply, exponent, x100, reset, not-anomalous) as one plane; the 24-bit mantissa as its
     * zigzag delta mod 2^24 from the previous point when the top byte is unchanged, else verbatim; 3 mantissa planes.
     * With {@code bitmap}, gaps are a presence bitmap and only present points are coded.
     */
    static final class MantissaDelta implements Scheme {
        final boolean bitmap;

        MantissaDelta(boolean bitmap) {
            this.bitmap = bitmap;
        }

        public String name() {
            return bitmap ? "gap bitmap + mantissa delta planes" : "mantissa delta zigzag + 4 planes";
        }

        public int encode(int[] p, int n, byte[] d, int o) {
            int start = o;
            int k = n;
            if (bitmap) {
                int bytes = (n + 7) >>> 3;
                k = 0;
                for (int b = 0; b < bytes; b++) {
                    int m = 0;
                    for (int j = 0; j < 8 && b * 8 + j < n; j++) {
                        if (p[b * 8 + j] != GAP) {
                            m |= 1 << j;
                            k++;
                        }
                    }
                    d[o++] = (byte) m;
                }
            }
            int prev = 0;
            int i2 = 0;
            for (int i = 0; i < n; i++) {
                int v = p[i];
                if (bitmap && v == GAP) {
                    continue;
                }
                int top = v >>> 24;
                int m = v & 0xffffff;
                int r;
                if (top == (prev >>> 24)) {
                    int delta = (m - (prev & 0xffffff)) << 8 >> 8; // sign-extended 24-bit difference
                    r = ((delta << 1) ^ (delta >> 31)) & 0xffffff;
                } else {
                    r = m;
                }
                prev = v;
                d[o + i2] = (byte) top;
                d[o + k + i2] = (byte) r;
                d[o + 2 * k + i2] = (byte) (r >>> 8);
                d[o + 3 * k + i2] = (byte) (r >>> 16);
                i2++;
            }
            return o + 4 * k - start;
        }

        public void decode(byte[] s, int o, int len, int[] out, int n) {
            int k = n;
            int bo = o;
            if (bitmap) {
                int bytes = (n + 7) >>> 3;
                k = 0;
                for (int b = 0; b < bytes; b++) {
                    k += Integer.bitCount(s[o + b] & 0xff);
                }
                o += bytes;
            }
            int prev = 0;
            int i2 = 0;
            for (int i = 0; i < n; i++) {
                if (bitmap && (s[bo + (i >>> 3)] & (1 << (i & 7))) == 0) {
                    out[i] = GAP;
                    continue;
                }
                int top = s[o + i2] & 0xff;
                int r = (s[o + k + i2] & 0xff) | (s[o + 2 * k + i2] & 0xff) << 8 | (s[o + 3 * k + i2] & 0xff) << 16;
                int m;
                if (top == (prev >>> 24)) {
                    int delta = (r >>> 1) ^ -(r & 1);
                    m = ((prev & 0xffffff) + delta) & 0xffffff;
                } else {
                    m = r;
                }
                prev = top << 24 | m;
                out[i] = prev;
                i2++;
            }
        }
    }

    /** Gorilla-style XOR bit-packing of the 32-bit words (Netdata 1.40+ style for tier 0). */
    static final class Gorilla implements Scheme {
        public String name() {
            return "gorilla 32-bit XOR bit-packed";
        }

        public int encode(int[] p, int n, byte[] d, int o) {
            BitOut w = new BitOut(d, o);
            int prev = p[0];
            w.put(prev & 0xffffffffL, 32);
            int lead = -1;
            int trail = 0;
            for (int i = 1; i < n; i++) {
                int x = p[i] ^ prev;
                prev = p[i];
                if (x == 0) {
                    w.put(0, 1);
                    continue;
                }
                int l = Integer.numberOfLeadingZeros(x);
                int t = Integer.numberOfTrailingZeros(x);
                if (lead >= 0 && l >= lead && t >= trail) {
                    w.put(0b01, 2); // '1','0' LSB-first
                    int bits = 32 - lead - trail;
                    w.put((x >>> trail) & mask(bits), bits);
                } else {
                    lead = l;
                    trail = t;
                    int bits = 32 - l - t;
                    w.put(0b11, 2);
                    w.put(l, 5);
                    w.put(bits - 1, 5);
                    w.put((x >>> t) & mask(bits), bits);
                }
            }
            return w.finish() - o;
        }

        public void decode(byte[] s, int o, int len, int[] out, int n) {
            BitIn r = new BitIn(s, o, len);
            int prev = (int) r.get(32);
            out[0] = prev;
            int lead = 0;
            int trail = 0;
            for (int i = 1; i < n; i++) {
                if (r.get(1) == 0) {
                    out[i] = prev;
                    continue;
                }
                if (r.get(1) == 1) {
                    lead = (int) r.get(5);
                    int bits = (int) r.get(5) + 1;
                    trail = 32 - lead - bits;
                }
                int bits = 32 - lead - trail;
                int x = (int) r.get(bits) << trail;
                prev ^= x;
                out[i] = prev;
            }
        }

        static long mask(int bits) {
            return bits == 64 ? -1L : (1L << bits) - 1;
        }
    }

    static final class BitOut {
        final byte[] d;
        int o;
        long acc;
        int nbits;

        BitOut(byte[] d, int o) {
            this.d = d;
            this.o = o;
        }

        void put(long v, int w) {
            if (w > 32) {
                put(v & 0xffffffffL, 32);
                put(v >>> 32, w - 32);
                return;
            }
            acc |= (v & ((1L << w) - 1)) << nbits;
            nbits += w;
            while (nbits >= 8) {
                d[o++] = (byte) acc;
                acc >>>= 8;
                nbits -= 8;
            }
        }

        int finish() {
            if (nbits > 0) {
                d[o++] = (byte) acc;
                acc = 0;
                nbits = 0;
            }
            return o;
        }
    }

    static final class BitIn {
        final byte[] s;
        int o;
        final int end;
        long acc;
        int nbits;

        BitIn(byte[] s, int o, int len) {
            this.s = s;
            this.o = o;
            this.end = o + len;
        }

        long get(int w) {
            if (w > 32) {
                long lo = get(32);
                return lo | get(w - 32) << 32;
            }
            while (nbits < w) {
                acc |= (long) (o < end ? s[o] & 0xff : 0) << nbits;
                o++;
                nbits += 8;
            }
            long v = acc & ((1L << w) - 1);
            acc >>>= w;
            nbits -= w;
            return v;
        }
    }

    /**
     * Decimal scheme prototype (size only): gaps as runs, top bytes const/RLE/plane, values rescaled to a common
     * decimal exponent as longs, residuals of order 0/1/2 divided by the GCD of the deltas, packed per options.
     */
    static final class DecimalProto implements Scheme {
        static final int PACK_VARINT = 0;
        static final int PACK_BLOCK = 1;
        static final int PACK_PLANES = 2;
        final int pack;
        final int block;
        final boolean gcd;
        final boolean multiOrder;

        DecimalProto(int pack, int block, boolean gcd, boolean multiOrder) {
            this.pack = pack;
            this.block = block;
            this.gcd = gcd;
            this.multiOrder = multiOrder;
        }

        public String name() {
            String p = pack == PACK_VARINT ? "varint" : pack == PACK_BLOCK ? "bitpack/" + block : "byte planes";
            return "decimal " + (multiOrder ? "order 0/1/2" : "delta") + (gcd ? " /gcd " : " ") + p;
        }

        public boolean canDecode() {
            return false;
        }

        public void decode(byte[] s, int o, int len, int[] out, int n) {
            throw new UnsupportedOperationException();
        }

        final int[] q = new int[PAGE_POINTS];
        final long[] v = new long[PAGE_POINTS];
        final long[] u = new long[PAGE_POINTS];

        public int encode(int[] p, int n, byte[] d, int o0) {
            int o = o0;
            d[o++] = 1;
            int k = 0;
            for (int i = 0; i < n; i++) {
                if (p[i] != GAP) {
                    q[k++] = p[i];
                }
            }
            d[o++] = 0; // mode byte
            if (k == 0) {
                return o - o0;
            }
            if (k < n) {
                // runs: present, gap, present, ...
                int i = 0;
                while (i < n) {
                    int j = i;
                    while (j < n && p[j] != GAP) {
                        j++;
                    }
                    o = putVar(d, o, j - i);
                    i = j;
                    if (i >= n) {
                        break;
                    }
                    while (j < n && p[j] == GAP) {
                        j++;
                    }
                    o = putVar(d, o, j - i);
                    i = j;
                }
            }
            // tops
            int runs = 1;
            for (int i = 1; i < k; i++) {
                if ((q[i] >>> 24) != (q[i - 1] >>> 24)) {
                    runs++;
                }
            }
            if (runs == 1) {
                d[o++] = (byte) (q[0] >>> 24);
            } else if (runs * 2 < k) {
                int i = 0;
                while (i < k) {
                    int j = i;
                    while (j < k && (q[j] >>> 24) == (q[i] >>> 24)) {
                        j++;
                    }
                    d[o++] = (byte) (q[i] >>> 24);
                    o = putVar(d, o, j - i);
                    i = j;
                }
            } else {
                for (int i = 0; i < k; i++) {
                    d[o++] = (byte) (q[i] >>> 24);
                }
            }
            int emin = Integer.MAX_VALUE;
            int emax = Integer.MIN_VALUE;
            for (int i = 0; i < k; i++) {
                int e = exp10(q[i]);
                emin = Math.min(emin, e);
                emax = Math.max(emax, e);
            }
            if (emax - emin > 10) {
                for (int i = 0; i < k; i++) {
                    int x = q[i] & 0xffffff;
                    d[o++] = (byte) x;
                    d[o++] = (byte) (x >>> 8);
                    d[o++] = (byte) (x >>> 16);
                }
                return o - o0;
            }
            d[o++] = (byte) emin;
            for (int i = 0; i < k; i++) {
                long m = (q[i] & 0xffffffL) * POW10[exp10(q[i]) - emin];
                v[i] = q[i] < 0 ? -m : m;
            }
            long g = 0;
            for (int i = 1; i < k; i++) {
                long dd = Math.abs(v[i] - v[i - 1]);
                if (gcd) {
                    if (g == 0 || dd % g != 0) {
                        g = gcdOf(g, dd);
                    }
                } else {
                    g |= dd;
                }
            }
            if (!gcd) {
                g = g == 0 ? 0 : 1;
            }
            o = putVar(d, o, g);
            o = putVar(d, o, zig(v[0]));
            if (g == 0) {
                return o - o0;
            }
            // choose order by sum of bit lengths
            int order = 1;
            if (multiOrder) {
                long vmin = Long.MAX_VALUE;
                for (int i = 0; i < k; i++) {
                    vmin = Math.min(vmin, v[i]);
                }
                long c0 = 0;
                long c1 = 0;
                long c2 = 0;
                for (int i = 1; i < k; i++) {
                    c0 += 64 - Long.numberOfLeadingZeros((v[i] - vmin) / g);
                    c1 += 64 - Long.numberOfLeadingZeros(zig((v[i] - v[i - 1]) / g));
                    if (i >= 2) {
                        c2 += 64 - Long.numberOfLeadingZeros(zig((v[i] - 2 * v[i - 1] + v[i - 2]) / g));
                    }
                }
                if (c0 <= c1 && c0 <= c2) {
                    order = 0;
                } else if (c2 < c1) {
                    order = 2;
                }
                if (order == 0) {
                    o = putVar(d, o, zig(vmin));
                    for (int i = 0; i < k; i++) {
                        u[i] = (v[i] - vmin) / g;
                    }
                    return pack(d, o, 0, k) - o0;
                }
                if (order == 2) {
                    if (k > 1) {
                        o = putVar(d, o, zig((v[1] - v[0]) / g));
                    }
                    for (int i = 2; i < k; i++) {
                        u[i] = zig((v[i] - 2 * v[i - 1] + v[i - 2]) / g);
                    }
                    return pack(d, o, 2, k) - o0;
                }
            }
            for (int i = 1; i < k; i++) {
                u[i] = zig((v[i] - v[i - 1]) / g);
            }
            return pack(d, o, 1, k) - o0;
        }

        int pack(byte[] d, int o, int from, int k) {
            if (pack == PACK_VARINT) {
                for (int i = from; i < k; i++) {
                    o = putVar(d, o, u[i]);
                }
                return o;
            }
            if (pack == PACK_PLANES) {
                long or = 0;
                for (int i = from; i < k; i++) {
                    or |= u[i];
                }
                int bytes = (64 - Long.numberOfLeadingZeros(or) + 7) / 8;
                d[o++] = (byte) bytes;
                int c = k - from;
                for (int b = 0; b < bytes; b++) {
                    for (int i = from; i < k; i++) {
                        d[o + b * c + i - from] = (byte) (u[i] >>> (8 * b));
                    }
                }
                return o + bytes * c;
            }
            for (int s = from; s < k; s += block) {
                int e = Math.min(k, s + block);
                long or = 0;
                for (int i = s; i < e; i++) {
                    or |= u[i];
                }
                int w = 64 - Long.numberOfLeadingZeros(or);
                d[o++] = (byte) w;
                BitOut bo = new BitOut(d, o);
                if (w > 0) {
                    for (int i = s; i < e; i++) {
                        bo.put(u[i], w);
                    }
                }
                o = bo.finish();
            }
            return o;
        }
    }

    static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
    }

    /** Decimal exponent of a storage number: value = +-mantissa * 10^exp10. */
    static int exp10(int sn) {
        int m = (sn >>> 27) & 7;
        if ((sn & (1 << 26)) != 0) {
            m *= 2;
        }
        return (sn & (1 << 30)) != 0 ? m : -m;
    }

    static long gcdOf(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    static long zig(long x) {
        return (x << 1) ^ (x >> 63);
    }

    static int putVar(byte[] d, int o, long v) {
        while ((v & ~0x7fL) != 0) {
            d[o++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        d[o++] = (byte) v;
        return o;
    }

    static final class Tier0 implements Scheme {
        public String name() {
            return "PageCodecTier0 (chosen)";
        }

        public int encode(int[] p, int n, byte[] d, int o) {
            return PageCodecTier0.encode(p, n, d, o);
        }

        public void decode(byte[] s, int o, int len, int[] out, int n) {
            PageCodecTier0.decode(s, o, len, out, n);
        }
    }

    // ------------------------------------------------------------------ measurement

    record Result(String name, long encoded, long lz4Fast, long lz4High, double encMpts, double decMpts,
            double encLz4Mpts, double highSeconds) {
    }

    static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    /** CPU time of this thread: timings are CPU time, so that other load on the machine matters less. */
    static long cpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }

    static long slots(List<int[]> pages) {
        long n = 0;
        for (int[] p : pages) {
            n += p.length;
        }
        return n;
    }

    /** Sizes (always) and speeds (when {@code timeIt}), in millions of slots per CPU second, best of 10 runs. */
    static Result measure(Scheme s, List<int[]> pages, boolean timeIt) {
        LZ4Factory f = LZ4Factory.fastestInstance();
        LZ4Compressor fast = f.fastCompressor();
        LZ4Compressor high = f.highCompressor();
        int maxPage = 8 * PAGE_POINTS + 64;
        byte[] extent = new byte[EXTENT_PAGES * maxPage];
        byte[] comp = new byte[fast.maxCompressedLength(extent.length)];
        int[] out = new int[PAGE_POINTS];
        long encoded = 0;
        long cFast = 0;
        long cHigh = 0;
        long highNanos = 0;
        int[] offsets = new int[EXTENT_PAGES + 1];
        for (int e = 0; e < pages.size(); e += EXTENT_PAGES) {
            int pos = 0;
            int end = Math.min(pages.size(), e + EXTENT_PAGES);
            for (int i = e; i < end; i++) {
                int[] p = pages.get(i);
                offsets[i - e] = pos;
                pos += s.encode(p, p.length, extent, pos);
            }
            offsets[end - e] = pos;
            if (s.canDecode()) {
                for (int i = e; i < end; i++) {
                    int[] p = pages.get(i);
                    s.decode(extent, offsets[i - e], offsets[i - e + 1] - offsets[i - e], out, p.length);
                    for (int j = 0; j < p.length; j++) {
                        if (out[j] != p[j]) {
                            throw new AssertionError(s.name() + ": page " + i + " point " + j + " " + out[j] + " != " + p[j]);
                        }
                    }
                }
            }
            encoded += pos;
            cFast += fast.compress(extent, 0, pos, comp, 0, comp.length);
            long t0 = cpuNanos();
            cHigh += high.compress(extent, 0, pos, comp, 0, comp.length);
            highNanos += cpuNanos() - t0;
        }
        double enc = Double.NaN;
        double dec = Double.NaN;
        double encLz4 = Double.NaN;
        if (timeIt) {
            long slots = slots(pages);
            byte[] buf = new byte[(int) (slots * 5) + 16 * maxPage];
            int[] offs = new int[pages.size() + 1];
            long best = Long.MAX_VALUE;
            for (int rep = 0; rep < 10; rep++) {
                long t0 = cpuNanos();
                int pos = 0;
                for (int i = 0; i < pages.size(); i++) {
                    int[] p = pages.get(i);
                    offs[i] = pos;
                    pos += s.encode(p, p.length, buf, pos);
                }
                offs[pages.size()] = pos;
                best = Math.min(best, cpuNanos() - t0);
            }
            enc = slots / (best / 1e3);
            best = Long.MAX_VALUE;
            for (int rep = 0; rep < 10; rep++) {
                long t0 = cpuNanos();
                for (int i = 0; i < pages.size(); i++) {
                    s.decode(buf, offs[i], offs[i + 1] - offs[i], out, pages.get(i).length);
                }
                best = Math.min(best, cpuNanos() - t0);
            }
            dec = slots / (best / 1e3);
            // what a flush does: encode 64 pages into one buffer, LZ4 it
            best = Long.MAX_VALUE;
            for (int rep = 0; rep < 10; rep++) {
                long t0 = cpuNanos();
                for (int e = 0; e < pages.size(); e += EXTENT_PAGES) {
                    int pos = 0;
                    int end = Math.min(pages.size(), e + EXTENT_PAGES);
                    for (int i = e; i < end; i++) {
                        int[] p = pages.get(i);
                        pos += s.encode(p, p.length, extent, pos);
                    }
                    fast.compress(extent, 0, pos, comp, 0, comp.length);
                }
                best = Math.min(best, cpuNanos() - t0);
            }
            encLz4 = slots / (best / 1e3);
        }
        return new Result(s.name(), encoded, cFast, cHigh, enc, dec, encLz4, highNanos / 1e9);
    }

    static void table(String title, List<Scheme> schemes, List<int[]> pages, boolean timeIt) {
        long slots = slots(pages);
        long present = 0;
        for (int[] p : pages) {
            for (int x : p) {
                if (x != GAP) {
                    present++;
                }
            }
        }
        System.out.printf(Locale.ROOT, "%n%s: %d pages, %d slots, %d samples%n", title, pages.size(), slots, present);
        System.out.printf(Locale.ROOT, "%-40s %8s %8s %8s %8s %8s %8s %8s %7s%n", "scheme", "enc", "LZ4", "LZ4", "LZ4HC",
                "encode", "decode", "enc+LZ4", "HC");
        System.out.printf(Locale.ROOT, "%-40s %8s %8s %8s %8s %8s %8s %8s %7s%n", "", "B/smp", "B/smp", "B/slot", "B/smp",
                "Mpts/s", "Mpts/s", "Mpts/s", "s");
        for (Scheme s : schemes) {
            Result r = measure(s, pages, timeIt && s.canDecode());
            System.out.printf(Locale.ROOT, "%-40s %8.3f %8.3f %8.3f %8.3f %8.1f %8.1f %8.1f %7.2f%n", r.name,
                    (double) r.encoded / present, (double) r.lz4Fast / present, (double) r.lz4Fast / slots,
                    (double) r.lz4High / present, r.encMpts, r.decMpts, r.encLz4Mpts, r.highSeconds);
        }
    }

    public static void main(String[] args) throws IOException {
        boolean timeIt = args.length == 0 || !args[0].equals("notime");
        int[][] columns = loadColumns();
        List<int[]> pages = pages(columns);
        List<Scheme> schemes = new ArrayList<>();
        schemes.add(new Raw());
        schemes.add(new XorShuffle());
        schemes.add(new MantissaDelta(false));
        schemes.add(new MantissaDelta(true));
        schemes.add(new Gorilla());
        schemes.add(new DecimalProto(DecimalProto.PACK_VARINT, 0, false, false));
        schemes.add(new DecimalProto(DecimalProto.PACK_VARINT, 0, true, false));
        schemes.add(new DecimalProto(DecimalProto.PACK_VARINT, 0, true, true));
        schemes.add(new DecimalProto(DecimalProto.PACK_PLANES, 0, true, true));
        schemes.add(new DecimalProto(DecimalProto.PACK_BLOCK, 128, true, true));
        schemes.add(new DecimalProto(DecimalProto.PACK_BLOCK, 16, true, true));
        schemes.add(new Tier0());
        table("dataset " + DATASET + ", " + columns.length + " columns", schemes, pages, timeIt);

        // the same, restricted to the pages that are not constant, and to the noisy ones
        List<int[]> varying = new ArrayList<>();
        List<int[]> noisy = new ArrayList<>();
        byte[] buf = new byte[PageCodecTier0.maxEncodedLength(PAGE_POINTS)];
        for (int[] p : pages) {
            int len = PageCodecTier0.encode(p, p.length, buf, 0);
            if (len > 6) {
                varying.add(p);
            }
            if (len > 2 * p.length) {
                noisy.add(p);
            }
        }
        List<Scheme> few = List.of(new Raw(), new Gorilla(), new Tier0());
        table("non-constant pages only", few, varying, timeIt);
        table("noisy pages only (> 2 B/slot encoded)", few, noisy, timeIt);

        // synthetic worst case: every point a random 7-digit value, random magnitudes
        java.util.SplittableRandom r = new java.util.SplittableRandom(42);
        List<int[]> random = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            int[] p = new int[PAGE_POINTS];
            for (int j = 0; j < p.length; j++) {
                p[j] = StorageNumber.pack(Math.pow(10, r.nextDouble(-3, 6)), SN_FLAG_NOT_ANOMALOUS);
            }
            random.add(p);
        }
        table("synthetic: random values over 9 decades", few, random, timeIt);
    }
}
