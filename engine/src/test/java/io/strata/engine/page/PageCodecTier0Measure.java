package io.strata.engine.page;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Measurement, not a test: tier-0 codec 1 ({@code decimal}) beside codec 2 ({@code decimal-runs})
 * on the real dataset {@code datasets/netdata-child-1h.csv.gz} (pages in flush order, LZ4 over
 * 64-page extents, as {@link PageCodecTier0Test#realDatasetRoundTripsAndReportsSize}) and on pages
 * of Netdata's stress test ({@code (t * (c + 1) + t * (d + 1)) mod 1024}, 2 charts x 128
 * dimensions): bytes per sample, and encode CPU time a point (thread CPU clock) in alternated
 * rounds, each the median of 7 repetitions. After {@code ./mvnw -pl engine test-compile}:
 * <pre>
 * java -cp engine/target/test-classes:engine/target/classes:$HOME/.m2/repository/at/yawk/lz4/lz4-java/1.13.0/lz4-java-1.13.0.jar \
 *      io.strata.engine.page.PageCodecTier0Measure [rounds]
 * </pre>
 */
public final class PageCodecTier0Measure {

    private PageCodecTier0Measure() {
    }

    /** Netdata's stress-test pages: chart c, dimension d, 1024 seconds from t0. */
    static int[][] stressPages(int pagesPerDimension) {
        int[][] pages = new int[2 * 128 * pagesPerDimension][];
        int n = 0;
        for (int pg = 0; pg < pagesPerDimension; pg++) {
            for (int c = 0; c < 2; c++) {
                for (int d = 0; d < 128; d++) {
                    int[] p = new int[1024];
                    for (int i = 0; i < 1024; i++) {
                        long t = 1_700_000_000L + pg * 1024L + i;
                        p[i] = StorageNumber.pack((t * (c + 1) + t * (d + 1)) % 1024, StorageNumber.SN_DEFAULT_FLAGS);
                    }
                    pages[n++] = p;
                }
            }
        }
        return pages;
    }

    static void bytes(String name, int[][] pages, int codec) {
        LZ4Compressor lz4 = LZ4Factory.fastestInstance().fastCompressor();
        byte[] ext = new byte[64 * PageCodecTier0.maxEncodedLength(1024)];
        byte[] comp = new byte[lz4.maxCompressedLength(ext.length)];
        int[] out = new int[1024];
        long samples = 0;
        long encoded = 0;
        long stored = 0;
        for (int e = 0; e < pages.length; e += 64) {
            int pos = 0;
            for (int i = e; i < Math.min(pages.length, e + 64); i++) {
                int[] p = pages[i];
                for (int x : p) {
                    samples += x == PageCodecTier0.GAP ? 0 : 1;
                }
                int len = PageCodecTier0.encode(p, p.length, ext, pos, codec);
                PageCodecTier0.decode(ext, pos, len, out, p.length);
                if (!Arrays.equals(out, 0, p.length, p, 0, p.length)) {
                    throw new AssertionError(name + " page " + i + " does not round-trip in codec " + codec);
                }
                pos += len;
            }
            encoded += pos;
            stored += lz4.compress(ext, 0, pos, comp, 0, comp.length);
        }
        System.out.printf(Locale.ROOT, "%-8s codec %d: encoded %.4f B/sample, after LZ4 %.4f B/sample%n", name, codec,
                (double) encoded / samples, (double) stored / samples);
    }

    static double cpu(int[][] pages, int codec, byte[] dst) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        double[] ns = new double[7];
        long points = 0;
        for (int[] p : pages) {
            points += p.length;
        }
        for (int r = 0; r < ns.length; r++) {
            long c0 = mx.getCurrentThreadCpuTime();
            for (int[] p : pages) {
                PageCodecTier0.encode(p, p.length, dst, 0, codec);
            }
            ns[r] = (mx.getCurrentThreadCpuTime() - c0) / (double) points;
        }
        Arrays.sort(ns);
        return ns[ns.length / 2];
    }

    public static void main(String[] args) throws IOException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        List<int[]> real = PageCodecTier0Test.pages(PageCodecTier0Test.loadColumns());
        int[][] netdata = real.toArray(new int[0][]);
        int[][] stress = stressPages(4);
        for (int codec = 1; codec <= 2; codec++) {
            bytes("netdata", netdata, codec);
            bytes("stress", stress, codec);
        }
        byte[] dst = new byte[PageCodecTier0.maxEncodedLength(1024)];
        for (int w = 0; w < 5; w++) { // warm-up of both
            cpu(stress, 1, dst);
            cpu(stress, 2, dst);
            cpu(netdata, 1, dst);
            cpu(netdata, 2, dst);
        }
        for (int r = 0; r < rounds; r++) {
            double s1 = cpu(stress, 1, dst);
            double s2 = cpu(stress, 2, dst);
            double n1 = cpu(netdata, 1, dst);
            double n2 = cpu(netdata, 2, dst);
            System.out.printf(Locale.ROOT, "round %d: stress codec 1 %.2f ns, codec 2 %.2f ns (%.2fx); netdata codec 1 %.2f ns,"
                    + " codec 2 %.2f ns (%.2fx) CPU a point%n", r, s1, s2, s1 / s2, n1, n2, n1 / n2);
        }
    }
}
