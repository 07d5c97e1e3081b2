import io.strata.engine.bench.WideCsvDataset;
import io.strata.engine.page.PageCodecTier0;
import io.strata.engine.page.StorageNumber;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;

/**
 * CPU time of this thread per point of tier-0 page encoding, alone ({@code encode}) or two pages together
 * ({@code pair}: {@code PageCodecTier0.encodePair}, which only the tried and dropped build 8d3de64 has; looked up
 * by reflection so that every other build runs {@code encode}), over every full page of the real dataset; and per value of {@code StorageNumber.pack}
 * ({@code pack}: StorageNumberBenchmark's mix; {@code packint}: whole numbers 0..100 000). Thread CPU time, not
 * wall-clock time, so that a machine shared with other work changes the figure less. Run from the
 * repository: {@code java <strata.jvm.flags> -cp jmh/target/strata-benchmarks.jar docs/bench/PageEncodeCpu.java encode|pair|pack|packint ROUNDS}
 */
public class PageEncodeCpu {
    static final ThreadMXBean T = ManagementFactory.getThreadMXBean();
    static long sink;

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int rounds = Integer.parseInt(args[1]);
        double[] perRound = new double[rounds];
        if (mode.equals("encode") || mode.equals("pair")) {
            WideCsvDataset ds;
            try (InputStream raw = PageEncodeCpu.class.getResourceAsStream("/datasets/netdata-child-1h.csv.gz")) {
                ds = WideCsvDataset.read("netdata-child-1h.csv.gz", new GZIPInputStream(raw, 1 << 16));
            }
            int windows = ds.rows() / 1024;
            int[][] pages = new int[windows * ds.columns()][];
            for (int w = 0; w < windows; w++) {
                for (int c = 0; c < ds.columns(); c++) {
                    int[] p = new int[1024];
                    for (int i = 0; i < 1024; i++) {
                        double v = ds.value(c, (long) w * 1024 + i);
                        p[i] = Double.isNaN(v) ? StorageNumber.SN_EMPTY_SLOT : StorageNumber.pack(v, StorageNumber.SN_DEFAULT_FLAGS);
                    }
                    pages[w * ds.columns() + c] = p;
                }
            }
            byte[] a = new byte[PageCodecTier0.maxEncodedLength(1024)];
            byte[] b = new byte[PageCodecTier0.maxEncodedLength(1024)];
            Method pair = mode.equals("pair") ? PageCodecTier0.class.getMethod("encodePair", int[].class, int.class,
                    byte[].class, int[].class, int.class, byte[].class) : null;
            for (int r = -3; r < rounds; r++) {
                long c0 = T.getCurrentThreadCpuTime();
                long points = 0;
                for (int rep = 0; rep < 3; rep++) {
                    for (int i = 0; i + 1 < pages.length; i += 2) {
                        if (pair != null) {
                            sink += (Long) pair.invoke(null, pages[i], 1024, a, pages[i + 1], 1024, b);
                        } else {
                            sink += PageCodecTier0.encode(pages[i], 1024, a, 0);
                            sink += PageCodecTier0.encode(pages[i + 1], 1024, b, 0);
                        }
                        points += 2048;
                    }
                }
                if (r >= 0) {
                    perRound[r] = (double) (T.getCurrentThreadCpuTime() - c0) / points;
                }
            }
        } else {
            boolean ints = mode.equals("packint");
            SplittableRandom rnd = new SplittableRandom(0x5EED);
            double[] values = new double[4096];
            for (int i = 0; i < values.length; i++) {
                int kind = rnd.nextInt(100);
                double v;
                if (ints) {
                    v = rnd.nextInt(100_001);
                } else if (kind < 30) {
                    v = rnd.nextInt(100_001);
                } else if (kind < 70) {
                    double scale = Math.pow(10, 2 + rnd.nextInt(6));
                    v = Math.round(rnd.nextDouble() * 100 * scale) / scale;
                } else if (kind < 90) {
                    v = (double) rnd.nextLong(1_000_000_000L, 10_000_000_000_000L);
                } else {
                    v = 0;
                }
                values[i] = v;
            }
            int[] out = new int[values.length];
            for (int r = -3; r < rounds; r++) {
                long c0 = T.getCurrentThreadCpuTime();
                long n = 0;
                for (int rep = 0; rep < 20_000; rep++) {
                    for (int i = 0; i < values.length; i++) {
                        out[i] = StorageNumber.pack(values[i], StorageNumber.SN_DEFAULT_FLAGS);
                    }
                    sink += out[rep & 4095];
                    n += values.length;
                }
                if (r >= 0) {
                    perRound[r] = (double) (T.getCurrentThreadCpuTime() - c0) / n;
                }
            }
        }
        double[] s = perRound.clone();
        Arrays.sort(s);
        System.out.printf("%s median %.2f ns (rounds %s) sink %d%n", mode, s[s.length / 2], Arrays.toString(perRound), sink & 1);
    }
}
