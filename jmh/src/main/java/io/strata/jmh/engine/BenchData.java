package io.strata.jmh.engine;

import io.strata.engine.DiskFormat;
import io.strata.engine.StorageEngine;
import io.strata.engine.bench.RandomWalkDataset;
import io.strata.engine.bench.WideCsvDataset;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/** Inputs shared by the engine benchmarks: the real dataset, pages cut from it, engine set-up. */
final class BenchData {

    /** One hour of a real Netdata child at 1 s (1105 dimensions, 3580 rows), carried in the jar. */
    static final String NETDATA_RESOURCE = "/datasets/netdata-child-1h.csv.gz";
    /** Dataset names taken by the {@code dataset} parameters. */
    static final String NETDATA = "netdata";
    static final String RANDOM_WALK = "random-walk";
    static final String STRESS = "stress";

    /** Points in a full tier-0 page. */
    static final int PAGE_POINTS = DiskFormat.pagePoints(0);

    private static WideCsvDataset netdata;

    private BenchData() {
    }

    /** The real dataset, read once per JVM from the classpath. */
    static synchronized WideCsvDataset netdata() {
        if (netdata == null) {
            try (InputStream raw = BenchData.class.getResourceAsStream(NETDATA_RESOURCE)) {
                if (raw == null) {
                    throw new IllegalStateException(NETDATA_RESOURCE + " is not on the classpath");
                }
                netdata = WideCsvDataset.read("netdata-child-1h.csv.gz", new GZIPInputStream(raw, 1 << 16));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return netdata;
    }

    /** A value as the engine stores it: NaN (a gap) is the empty slot. */
    static int sn(double v) {
        return Double.isNaN(v) ? StorageNumber.SN_EMPTY_SLOT : StorageNumber.pack(v, StorageNumber.SN_DEFAULT_FLAGS);
    }

    /**
     * Every full 1024-point page of the real dataset: for each page-sized time window, the pages
     * of all columns (1105 x 3 = 3315 pages), in that order, so that consecutive pages are the
     * pages of a chart's dimensions over the same window, as the flusher groups them in extents.
     */
    static int[][] netdataPages() {
        WideCsvDataset ds = netdata();
        int windows = ds.rows() / PAGE_POINTS;
        int columns = ds.columns();
        int[][] pages = new int[windows * columns][];
        for (int w = 0; w < windows; w++) {
            for (int c = 0; c < columns; c++) {
                int[] p = new int[PAGE_POINTS];
                for (int i = 0; i < PAGE_POINTS; i++) {
                    p[i] = sn(ds.value(c, (long) w * PAGE_POINTS + i));
                }
                pages[w * columns + c] = p;
            }
        }
        return pages;
    }

    /** {@code metrics x windows} full pages of {@link RandomWalkDataset}, window-major as above. */
    static int[][] randomWalkPages(int metrics, int windows, long seed) {
        RandomWalkDataset ds = new RandomWalkDataset(seed);
        int[][] pages = new int[windows * metrics][];
        for (int w = 0; w < windows; w++) {
            for (int m = 0; m < metrics; m++) {
                int[] p = new int[PAGE_POINTS];
                for (int i = 0; i < PAGE_POINTS; i++) {
                    p[i] = sn(ds.value(m, (long) w * PAGE_POINTS + i));
                }
                pages[w * metrics + m] = p;
            }
        }
        return pages;
    }

    /**
     * Pages of the values Netdata 1.37.1's own engine stress test writes: dimension {@code d} of chart
     * {@code c} holds {@code (t * (c + 1) + t * (d + 1)) mod 1024} at second {@code t} (integers that
     * jump about every second, no gaps). {@code charts x dims} pages of the window that starts at
     * second {@code t0}.
     */
    static int[][] stressPages(int charts, int dims, long t0) {
        int[][] pages = new int[charts * dims][];
        for (int c = 0; c < charts; c++) {
            for (int d = 0; d < dims; d++) {
                int[] p = new int[PAGE_POINTS];
                for (int i = 0; i < PAGE_POINTS; i++) {
                    long t = t0 + i;
                    p[i] = sn((double) ((t * (c + 1) + t * (d + 1)) % 1024));
                }
                pages[c * dims + d] = p;
            }
        }
        return pages;
    }

    /**
     * The pages of the named dataset: {@link #NETDATA}, {@link #RANDOM_WALK} (1024 metrics x 3
     * windows) or {@link #STRESS} (32 charts x 32 dimensions, one window).
     */
    static int[][] pages(String dataset) {
        switch (dataset) {
            case NETDATA:
                return netdataPages();
            case RANDOM_WALK:
                return randomWalkPages(1024, 3, 0x5EED);
            case STRESS:
                return stressPages(32, 32, 1_700_000_000L);
            default:
                throw new IllegalArgumentException("unknown dataset " + dataset);
        }
    }

    /**
     * The real dataset as rows: {@code [second][column]}, so that a writer storing one second for
     * many metrics walks one array rather than one array per column.
     */
    static double[][] netdataRows() {
        WideCsvDataset ds = netdata();
        double[][] rows = new double[ds.rows()][ds.columns()];
        for (int t = 0; t < ds.rows(); t++) {
            for (int c = 0; c < ds.columns(); c++) {
                rows[t][c] = ds.value(c, t);
            }
        }
        return rows;
    }

    /**
     * Defines {@code metrics} dimensions of one host, {@code perChart} to a chart, as
     * {@code ./strata bench engine} does; returns their metric ids.
     */
    static int[] define(StorageEngine e, int metrics, int perChart) {
        UUID host = UUID.nameUUIDFromBytes("strata-jmh-host".getBytes(StandardCharsets.UTF_8));
        e.metadata().upsertHost(new HostInfo(host, "jmh", "linux", "UTC", 1, Map.of()));
        int[] ids = new int[metrics];
        for (int m = 0; m < metrics; m++) {
            String chart = "jmh.chart" + (m / perChart);
            if (m % perChart == 0) {
                e.metadata().upsertChart(ChartInfo.of(host, chart, 1));
            }
            ids[m] = e.metadata().upsertDimension(DimensionInfo.of(host, chart, "d" + (m % perChart)));
        }
        return ids;
    }

    /** Total size of the files under {@code dir}. */
    static long bytesUnder(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            long b = 0;
            for (Path p : (Iterable<Path>) s::iterator) {
                if (Files.isRegularFile(p)) {
                    b += Files.size(p);
                }
            }
            return b;
        }
    }

    /** Deletes {@code dir} and everything under it. */
    static void deleteTree(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
