package io.strata.jmh.engine;

import io.strata.engine.page.PageCodecTier0;

import java.util.Arrays;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link PageCodecTier0}: encoding and decoding of full 1024-point tier-0 pages. Encoding runs on
 * the collecting thread each time a hot page is sealed (so it bounds how many points a core can
 * collect); decoding runs for every page a query reads from disk or from the dirty-page queue.
 * LZ4 and the extent are not included (see {@link ExtentBenchmark}).
 *
 * <p>Pages, chosen with {@code dataset}:
 * <ul>
 * <li>{@code netdata}: every full page of one hour of a real Netdata child
 *     ({@value BenchData#NETDATA_RESOURCE}: 1105 dimensions x 3 windows = 3315 pages; values
 *     packed with {@code SN_DEFAULT_FLAGS}, empty cells as the empty slot). The mix of constant,
 *     gap-only, integral and noisy pages is what a real node seals.</li>
 * <li>{@code random-walk}: 1024 metrics x 3 windows of {@code RandomWalkDataset} (two-decimal
 *     gauges that move every second, no gaps, no constants): a harder, uniform case.</li>
 * <li>{@code stress}: the values of Netdata 1.37.1's engine stress test (32 charts x 32
 *     dimensions, one window; see {@code BenchData.stressPages}), the shape of the write-path
 *     comparison in docs/benchmarks.md.</li>
 * </ul>
 * Each invocation encodes (or decodes) the next page, cycling through all of them.
 *
 * <p>Score: points per second (one op = one point, 1024 per invocation). The set-up prints the
 * compression the codec reaches on these pages ("bytes/point", raw storage numbers are 4), since
 * speed and size trade against each other.
 */
@State(Scope.Thread)
public class PageCodecBenchmark extends EngineBenchmarkBase {

    private static final int POINTS = 1024;

    @Param({BenchData.NETDATA, BenchData.RANDOM_WALK, BenchData.STRESS})
    public String dataset;

    /** Tier-0 codec id: 1 {@code decimal}, 2 {@code decimal-runs} (docs/format/page.md). */
    @Param({"1", "2"})
    public int codec;

    private int[][] pages;
    private byte[][] encoded;
    private final byte[] dst = new byte[PageCodecTier0.maxEncodedLength(POINTS)];
    private final int[] decoded = new int[POINTS];
    private int next;

    @Setup
    public void setup() {
        if (BenchData.PAGE_POINTS != POINTS) {
            throw new IllegalStateException("tier-0 pages hold " + BenchData.PAGE_POINTS
                    + " points, the benchmark assumes " + POINTS);
        }
        pages = BenchData.pages(dataset);
        encoded = new byte[pages.length][];
        long bytes = 0;
        int raw = 0;
        for (int i = 0; i < pages.length; i++) {
            int n = PageCodecTier0.encode(pages[i], POINTS, dst, 0, codec);
            encoded[i] = Arrays.copyOf(dst, n);
            bytes += n;
            if (dst[0] == PageCodecTier0.CODEC_RAW) {
                raw++;
            }
            PageCodecTier0.decode(encoded[i], 0, n, decoded, POINTS);
            if (!Arrays.equals(decoded, pages[i])) {
                throw new IllegalStateException(dataset + " page " + i + " does not round-trip");
            }
        }
        long points = (long) pages.length * POINTS;
        System.out.printf("%nPageCodecBenchmark[%s, codec %d]: %d pages, %d points, %d bytes encoded = %.4f bytes/point"
                        + " (raw 4), %d pages stored raw%n",
                dataset, codec, pages.length, points, bytes, (double) bytes / points, raw);
        next = 0;
    }

    /** Encodes the next page; the score is points encoded per second. */
    @Benchmark
    @OperationsPerInvocation(POINTS)
    public int encode() {
        int i = next;
        next = i + 1 == pages.length ? 0 : i + 1;
        return PageCodecTier0.encode(pages[i], POINTS, dst, 0, codec);
    }

    /** Decodes the next page; the score is points decoded per second. */
    @Benchmark
    @OperationsPerInvocation(POINTS)
    public int[] decode() {
        int i = next;
        next = i + 1 == encoded.length ? 0 : i + 1;
        byte[] e = encoded[i];
        PageCodecTier0.decode(e, 0, e.length, decoded, POINTS);
        return decoded;
    }
}
