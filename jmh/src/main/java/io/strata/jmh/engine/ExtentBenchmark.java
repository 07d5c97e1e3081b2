package io.strata.jmh.engine;

import io.strata.engine.CorruptionException;
import io.strata.engine.DiskFormat;
import io.strata.engine.extent.ExtentReader;
import io.strata.engine.extent.ExtentWriter;
import io.strata.engine.page.DirtyPage;
import io.strata.engine.page.PageCodecTier0;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Extents of {@value #PAGES} already encoded, full tier-0 pages (65 536 points):
 * <ul>
 * <li>{@link #build}: {@link ExtentWriter#build}, what the flusher does per extent before the
 *     write call: descriptors, concatenation, LZ4, CRC32C. Page encoding is not included (the
 *     collecting threads did it when sealing; see {@link PageCodecBenchmark}), nor is the I/O.</li>
 * <li>{@link #openAndDecode}: {@link ExtentReader#open} (header checks, CRC32C) then
 *     {@code decodeTier0} of every page (LZ4 decompression once, page decoding each time): the
 *     CPU cost of reading a whole extent back, without the file read.</li>
 * </ul>
 * The pages are those of {@link PageCodecBenchmark} ({@code dataset} = {@code netdata}: 3315 real
 * pages, or {@code random-walk}), cut into consecutive groups of 64, i.e. the pages of
 * neighbouring dimensions over the same 1024 s, as the flusher groups them by chart. Each
 * invocation handles the next extent, cycling.
 *
 * <p>Score: points per second (one op = one point, 65 536 per invocation). The set-up prints the
 * extent bytes per point (after LZ4, with headers, descriptors and CRC): the tier-0 size on disk.
 */
@State(Scope.Thread)
public class ExtentBenchmark extends EngineBenchmarkBase {

    static final int PAGES = DiskFormat.EXTENT_MAX_PAGES;
    private static final int POINTS = 1024;
    private static final long T0 = 1_700_000_000L;

    @Param({BenchData.NETDATA, BenchData.RANDOM_WALK})
    public String dataset;

    private final ExtentWriter writer = new ExtentWriter();
    private final ExtentReader reader = new ExtentReader();
    private List<DirtyPage> dirty;
    private ByteBuffer[] extents;
    private final int[] points = new int[POINTS];
    private int nextBuild;
    private int nextRead;

    @Setup
    public void setup() throws CorruptionException {
        int[][] pages = BenchData.pages(dataset);
        int groups = pages.length / PAGES;
        dirty = new ArrayList<>(groups * PAGES);
        byte[] buf = new byte[PageCodecTier0.maxEncodedLength(POINTS)];
        for (int i = 0; i < groups * PAGES; i++) {
            int n = PageCodecTier0.encode(pages[i], POINTS, buf, 0);
            dirty.add(new DirtyPage(i, i / 10, 0, 0x5EEDL, i, T0 + (long) (i / PAGES) * POINTS, 1, POINTS,
                    DiskFormat.PAGE_TYPE_TIER0, Arrays.copyOf(buf, n), 0));
        }
        extents = new ByteBuffer[groups];
        long bytes = 0;
        for (int g = 0; g < groups; g++) {
            ByteBuffer b = writer.build(dirty, g * PAGES, (g + 1) * PAGES);
            byte[] copy = new byte[b.remaining()];
            b.get(copy);
            extents[g] = ByteBuffer.wrap(copy);
            bytes += copy.length;
            // check that what is measured reads back what was written
            reader.open(extents[g], "jmh", 0);
            for (int p = 0; p < PAGES; p++) {
                reader.decodeTier0(p, points);
                if (!Arrays.equals(points, pages[g * PAGES + p])) {
                    throw new IllegalStateException("extent " + g + " page " + p + " does not read back");
                }
            }
        }
        long pts = (long) groups * PAGES * POINTS;
        System.out.printf("%nExtentBenchmark[%s]: %d extents of %d pages, %d bytes = %.4f bytes/point on disk%n",
                dataset, groups, PAGES, bytes, (double) bytes / pts);
        nextBuild = 0;
        nextRead = 0;
    }

    /** Builds the next extent from 64 encoded pages; the score is points packed per second. */
    @Benchmark
    @OperationsPerInvocation(PAGES * POINTS)
    public ByteBuffer build() {
        int g = nextBuild;
        nextBuild = g + 1 == extents.length ? 0 : g + 1;
        return writer.build(dirty, g * PAGES, (g + 1) * PAGES);
    }

    /** Opens the next extent and decodes all its pages; the score is points read back per second. */
    @Benchmark
    @OperationsPerInvocation(PAGES * POINTS)
    public int openAndDecode() throws CorruptionException {
        int g = nextRead;
        nextRead = g + 1 == extents.length ? 0 : g + 1;
        reader.open(extents[g], "jmh", 0);
        int acc = 0;
        for (int p = 0; p < PAGES; p++) {
            acc += reader.decodeTier0(p, points);
            acc ^= points[p];
        }
        return acc;
    }
}
