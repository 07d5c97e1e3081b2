package io.strata.engine.page;

import io.strata.engine.bench.WideCsvDataset;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Measurement, not a test: size and speed of {@link PageCodecTier1} on tier-1 aggregates built from
 * the real dataset {@code datasets/netdata-child-1h.csv.gz}.
 *
 * <p>Tier-0 values are the dataset's values as storage numbers ({@code pack} then {@code unpack});
 * per series and per 60-second window aligned on multiples of 60 (as Netdata aligns tier 1), the
 * tier-1 point is: sum (double while aggregating, stored as float), min, max, count, anomaly count
 * (points lacking {@code SN_FLAG_NOT_ANOMALOUS}: none in this dataset); a window without points is a
 * gap (count 0, sum/min/max 0). One hour gives about 60 points a series:
 * <ul>
 * <li><b>tier 1</b>: one page a series (a real tier-1 page holds up to 128 points);</li>
 * <li><b>tier-2 proxy</b>: 24-point pages cut from the same tier-1 series (24, 24 and 12 points;
 *     real tier-2 points aggregate an hour each, which one hour of data cannot give); also the
 *     full 24-point pages alone.</li>
 * </ul>
 * Pages are laid out in flush order (per time window, every series in turn); every 64 consecutive
 * pages form an extent whose concatenated encodings are LZ4-compressed (lz4-java fast compressor,
 * as {@code ExtentWriter} does). Payload bytes/point = LZ4 output summed over the extents / points;
 * "on disk" adds 84 bytes a page (32-byte page descriptor in the extent, 32 in journal v1, 20 in
 * journal v2). Speeds are points per second of one thread, best of several rounds. After
 * {@code ./mvnw -o -q -pl engine test-compile}:
 * <pre>
 * java -cp engine/target/test-classes:engine/target/classes:$HOME/.m2/repository/at/yawk/lz4/lz4-java/1.13.0/lz4-java-1.13.0.jar \
 *      io.strata.engine.page.PageCodecTier1Measure [notime]
 * </pre>
 */
public final class PageCodecTier1Measure {

    static final String DATASET = "/datasets/netdata-child-1h.csv.gz";
    static final int EXTENT_PAGES = 64;
    static final int PAGE_OVERHEAD = 32 + 32 + 20;

    private PageCodecTier1Measure() {
    }

    /** Tier-1 series, one {@code int[4 * n]} per dataset column, windows of {@code every} seconds. */
    static List<int[]> tier1Series(int every) throws IOException {
        WideCsvDataset ds;
        long t0;
        try (InputStream in = open()) {
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            r.readLine();
            String line = r.readLine();
            t0 = Long.parseLong(line.substring(0, line.indexOf(',')));
        }
        try (InputStream in = open()) {
            ds = WideCsvDataset.read(DATASET, in);
        }
        int rows = ds.rows();
        long w0 = Math.floorDiv(t0, every);
        long w1 = Math.floorDiv(t0 + rows - 1, every);
        int n = (int) (w1 - w0 + 1);
        List<int[]> out = new ArrayList<>();
        for (int c = 0; c < ds.columns(); c++) {
            int[] p = new int[4 * n];
            for (int w = 0; w < n; w++) {
                double sum = 0;
                double min = Double.POSITIVE_INFINITY;
                double max = Double.NEGATIVE_INFINITY;
                int count = 0;
                int anomalies = 0;
                for (long t = (w0 + w) * every; t < (w0 + w + 1) * every; t++) {
                    long row = t - t0;
                    if (row < 0 || row >= rows) {
                        continue;
                    }
                    double v = ds.value(c, row);
                    if (Double.isNaN(v)) {
                        continue;
                    }
                    int sn = StorageNumber.pack(v, StorageNumber.SN_DEFAULT_FLAGS);
                    if (!StorageNumber.exists(sn)) {
                        continue;
                    }
                    double x = StorageNumber.unpack(sn);
                    sum += x;
                    min = Math.min(min, x);
                    max = Math.max(max, x);
                    count++;
                    if ((sn & StorageNumber.SN_FLAG_NOT_ANOMALOUS) == 0) {
                        anomalies++;
                    }
                }
                if (count == 0) {
                    sum = 0;
                    min = 0;
                    max = 0;
                }
                p[4 * w] = Float.floatToRawIntBits((float) sum);
                p[4 * w + 1] = Float.floatToRawIntBits((float) min);
                p[4 * w + 2] = Float.floatToRawIntBits((float) max);
                p[4 * w + 3] = (count & 0xffff) | anomalies << 16;
            }
            out.add(p);
        }
        return out;
    }

    static InputStream open() throws IOException {
        InputStream in = PageCodecTier1Measure.class.getResourceAsStream(DATASET);
        if (in == null) {
            throw new IOException("missing test resource " + DATASET);
        }
        return new GZIPInputStream(in, 1 << 16);
    }

    /** Pages of up to {@code pagePoints} points in flush order: per window, every series in turn. */
    static List<int[]> pages(List<int[]> series, int pagePoints) {
        List<int[]> pages = new ArrayList<>();
        int n = series.get(0).length / 4;
        for (int s = 0; s < n; s += pagePoints) {
            int m = Math.min(pagePoints, n - s);
            for (int[] ser : series) {
                pages.add(Arrays.copyOfRange(ser, 4 * s, 4 * (s + m)));
            }
        }
        return pages;
    }

    interface Encoder {
        int encode(int[] points, int count, byte[] dst, int off);
    }

    /** {@code [payload bytes after LZ4, bytes before LZ4, points, pages]}, checking round trips. */
    static long[] measure(List<int[]> pages, Encoder enc, boolean verify) {
        LZ4Compressor lz4 = LZ4Factory.fastestInstance().fastCompressor();
        int largest = 0;
        for (int[] p : pages) {
            largest = Math.max(largest, p.length / 4);
        }
        byte[] extent = new byte[EXTENT_PAGES * PageCodecTier1.maxEncodedLength(largest)];
        byte[] out = new byte[lz4.maxCompressedLength(extent.length)];
        long stored = 0;
        long before = 0;
        long points = 0;
        int[] check = new int[4 * largest];
        for (int e = 0; e < pages.size(); e += EXTENT_PAGES) {
            int len = 0;
            for (int i = e; i < Math.min(e + EXTENT_PAGES, pages.size()); i++) {
                int[] p = pages.get(i);
                int n = p.length / 4;
                int l = enc.encode(p, n, extent, len);
                if (verify) {
                    PageCodecTier1.decode(extent, len, l, check, n);
                    for (int j = 0; j < 4 * n; j++) {
                        if (check[j] != p[j]) {
                            throw new AssertionError("page " + i + " word " + j + " does not round-trip");
                        }
                    }
                }
                len += l;
                points += n;
            }
            before += len;
            int c = lz4.compress(extent, 0, len, out, 0, out.length);
            stored += Math.min(c, len);
        }
        return new long[] {stored, before, points, pages.size()};
    }

    static int raw(int[] p, int n, byte[] dst, int off) {
        dst[off] = (byte) PageCodecTier1.CODEC_RAW;
        int o = off + 1;
        for (int i = 0; i < 4 * n; i++, o += 4) {
            PageCodecTier1.putU32(dst, o, p[i]);
        }
        return 1 + 16 * n;
    }

    static void report(String name, List<int[]> pages) {
        long[] r = measure(pages, PageCodecTier1Measure::raw, false);
        long[] c = measure(pages, PageCodecTier1::encode, true);
        double pp = (double) r[2] / r[3];
        System.out.printf(Locale.ROOT, "%-24s %6d pages, %5.1f points/page%n", name, r[3], pp);
        System.out.printf(Locale.ROOT, "  %-8s %12s %12s %14s%n", "", "before LZ4", "payload", "on disk (+84/page)");
        for (long[] x : new long[][] {r, c}) {
            System.out.printf(Locale.ROOT, "  %-8s %9.3f B/pt %9.3f B/pt %11.3f B/pt%n", x == r ? "raw" : "columns",
                    (double) x[1] / x[2], (double) x[0] / x[2], (double) (x[0] + PAGE_OVERHEAD * x[3]) / x[2]);
        }
        int[] kinds = new int[2];
        byte[] buf = new byte[PageCodecTier1.maxEncodedLength(1024)];
        for (int[] p : pages) {
            PageCodecTier1.encode(p, p.length / 4, buf, 0);
            kinds[buf[0]]++;
        }
        System.out.printf(Locale.ROOT, "  pages written raw: %d, columns: %d%n", kinds[0], kinds[1]);
    }

    static void speed(String name, List<int[]> pages, boolean print) {
        int np = pages.size();
        byte[][] enc = new byte[np][];
        byte[] buf = new byte[PageCodecTier1.maxEncodedLength(1024)];
        long points = 0;
        for (int i = 0; i < np; i++) {
            int[] p = pages.get(i);
            int l = PageCodecTier1.encode(p, p.length / 4, buf, 0);
            enc[i] = Arrays.copyOf(buf, l);
            points += p.length / 4;
        }
        int[] out = new int[4 * 1024];
        long bestEnc = Long.MAX_VALUE;
        long bestDec = Long.MAX_VALUE;
        long sink = 0;
        for (int round = 0; round < 15; round++) {
            long t = System.nanoTime();
            for (int[] p : pages) {
                sink += PageCodecTier1.encode(p, p.length / 4, buf, 0);
            }
            bestEnc = Math.min(bestEnc, System.nanoTime() - t);
            t = System.nanoTime();
            for (int i = 0; i < np; i++) {
                PageCodecTier1.decode(enc[i], 0, enc[i].length, out, pages.get(i).length / 4);
                sink += out[0];
            }
            bestDec = Math.min(bestDec, System.nanoTime() - t);
        }
        if (print) {
            System.out.printf(Locale.ROOT, "  %-20s encode %6.2f M points/s, decode %6.2f M points/s (%d)%n", name,
                    points * 1e3 / bestEnc, points * 1e3 / bestDec, sink & 1);
        }
    }

    public static void main(String[] args) throws IOException {
        boolean time = !(args.length > 0 && args[0].equals("notime"));
        List<int[]> series = tier1Series(60);
        List<int[]> t1 = pages(series, 128);
        List<int[]> t2 = pages(series, 24);
        List<int[]> t2full = new ArrayList<>();
        for (int[] p : t2) {
            if (p.length == 4 * 24) {
                t2full.add(p);
            }
        }
        report("tier 1 (1 page/series)", t1);
        report("tier-2 proxy (24 pts)", t2);
        report("tier-2 proxy, full only", t2full);
        if (time) {
            System.out.println("speed (one thread; first a warm-up pass):");
            for (int pass = 0; pass < 2; pass++) {
                speed("tier 1", t1, pass == 1);
                speed("tier-2 proxy", t2, pass == 1);
            }
        }
    }
}
