package io.strata.jmh.engine;

import io.strata.engine.page.PageCodecTier0;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * The CPU time {@link PageCodecTier0#encode} spends a point on the pages of {@link PageCodecBenchmark}'s
 * datasets, measured with the thread's CPU clock rather than the wall clock: on a shared, loaded
 * machine the wall clock counts the time the thread waits for a core, which swamps differences of
 * a few nanoseconds a point. Compare two builds by running it alternately with each build's engine
 * classes first on the class path.
 *
 * <p>Usage: {@code PageEncodeCpuTime <dataset> [repetitions [codec]]} (codec: 1 {@code decimal}, 2
 * {@code decimal-runs}, by default the engine's); prints the median, minimum and maximum
 * of the repetitions (each: every page of the dataset encoded 10 times, after a warm-up of 20) and
 * the total of the encoded lengths, which two builds that write the same bytes print alike.
 */
public final class PageEncodeCpuTime {

    private PageEncodeCpuTime() {
    }

    public static void main(String[] args) {
        String dataset = args.length > 0 ? args[0] : BenchData.STRESS;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        int codec = args.length > 2 ? Integer.parseInt(args[2]) : PageCodecTier0.DEFAULT_CODEC;
        int[][] pages = BenchData.pages(dataset);
        int points = BenchData.PAGE_POINTS;
        byte[] dst = new byte[PageCodecTier0.maxEncodedLength(points)];
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long bytes = 0;
        for (int w = 0; w < 20; w++) {
            for (int[] p : pages) {
                bytes += PageCodecTier0.encode(p, points, dst, 0, codec);
            }
        }
        double[] ns = new double[reps];
        for (int r = 0; r < reps; r++) {
            long c0 = mx.getCurrentThreadCpuTime();
            for (int w = 0; w < 10; w++) {
                for (int[] p : pages) {
                    bytes += PageCodecTier0.encode(p, points, dst, 0, codec);
                }
            }
            ns[r] = (mx.getCurrentThreadCpuTime() - c0) / (10.0 * pages.length * points);
        }
        Arrays.sort(ns);
        System.out.printf(Locale.ROOT, "%s: codec %d encode %.2f ns CPU a point (median of %d; %.2f-%.2f), %d bytes in all%n",
                dataset, codec, ns[reps / 2], reps, ns[0], ns[reps - 1], bytes);
    }
}
