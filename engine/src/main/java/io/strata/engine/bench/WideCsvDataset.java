package io.strata.engine.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Real stored values from a wide CSV, plain or gzipped: first column unix time, then one column
 * per {@code chart/dimension}; an empty cell is a gap. Metric {@code i} takes column
 * {@code i mod C} and second {@code t} takes row {@code t mod R}.
 */
public final class WideCsvDataset implements Dataset {

    private final String name;
    private final List<String> columns;
    /**
     * [column][row] (at {@code column * rows + row}), NaN for a gap: a reader checks a range of
     * one metric. Off the heap, with {@link #byRow}: the dataset is the harness's (64 MB for the
     * standard one), and on the heap it made the garbage collector size the heap, and the young
     * generation with it, for a live set twice the engine's, which the memory figure then counted.
     */
    private final DoubleBuffer values;
    /**
     * The same by [row][column] (at {@code row * columns + column}): a writer fills a second of
     * all its metrics, which then reads one stretch in order instead of a line of each column's
     * (a cache miss to L2 a point, some 4 % of the writers' time, the harness's and not the
     * engine's).
     */
    private final DoubleBuffer byRow;
    private final int columnCount;
    private final int rows;

    private WideCsvDataset(String name, List<String> columns, DoubleBuffer values, DoubleBuffer byRow, int rows) {
        this.name = name;
        this.columns = columns;
        this.values = values;
        this.byRow = byRow;
        this.columnCount = columns.size();
        this.rows = rows;
    }

    private static DoubleBuffer offHeap(long doubles, String name) throws IOException {
        if (doubles * Double.BYTES > Integer.MAX_VALUE) {
            throw new IOException(name + ": " + doubles + " values do not fit the benchmark's 2 GiB dataset buffer");
        }
        return ByteBuffer.allocateDirect((int) (doubles * Double.BYTES)).order(ByteOrder.nativeOrder()).asDoubleBuffer();
    }

    public static WideCsvDataset load(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + ": no such dataset file (use random-walk, counters or a CSV path)");
        }
        try (InputStream raw = Files.newInputStream(file)) {
            InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
            return read(file.getFileName().toString(), in);
        }
    }

    public static WideCsvDataset read(String name, InputStream in) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
        String header = r.readLine();
        if (header == null) {
            throw new IOException(name + ": empty dataset");
        }
        String[] head = header.split(",", -1);
        int c = head.length - 1;
        if (c < 1) {
            throw new IOException(name + ": the header names no value column");
        }
        List<String> cols = List.of(Arrays.copyOfRange(head, 1, head.length));
        List<double[]> rowsList = new ArrayList<>();
        String line;
        int lineNo = 1;
        while ((line = r.readLine()) != null) {
            lineNo++;
            if (line.isEmpty()) {
                continue;
            }
            double[] row = new double[c];
            int col = -1;
            int start = 0;
            for (int i = 0; i <= line.length(); i++) {
                if (i == line.length() || line.charAt(i) == ',') {
                    if (col >= 0) {
                        if (col >= c) {
                            throw new IOException(name + ":" + lineNo + ": more cells than the header's " + (c + 1));
                        }
                        row[col] = i == start ? Double.NaN : parse(line, start, i, name, lineNo);
                    }
                    col++;
                    start = i + 1;
                }
            }
            if (col != c) {
                throw new IOException(name + ":" + lineNo + ": " + col + " value cells, the header has " + c);
            }
            rowsList.add(row);
        }
        int n = rowsList.size();
        if (n == 0) {
            throw new IOException(name + ": no data rows");
        }
        DoubleBuffer values = offHeap((long) c * n, name);
        DoubleBuffer byRow = offHeap((long) c * n, name);
        for (int t = 0; t < n; t++) {
            double[] row = rowsList.get(t);
            byRow.put(t * c, row);
            for (int k = 0; k < c; k++) {
                values.put(k * n + t, row[k]);
            }
        }
        return new WideCsvDataset(name, cols, values, byRow, n);
    }

    private static double parse(String line, int from, int to, String name, int lineNo) throws IOException {
        try {
            return Double.parseDouble(line.substring(from, to));
        } catch (NumberFormatException e) {
            throw new IOException(name + ":" + lineNo + ": not a number: '" + line.substring(from, to) + "'");
        }
    }

    public int columns() {
        return columnCount;
    }

    public int rows() {
        return rows;
    }

    public String column(int i) {
        return columns.get(i);
    }

    public double value(int metric, long t) {
        return values.get((metric % columnCount) * rows + (int) (t % rows));
    }

    @Override
    public void fill(long t, int from, int to, double[] out) {
        int row = (int) (t % rows);
        int c = columnCount;
        if (to - from == 1) {
            // a reader checking one metric second after second: its column is in order
            out[0] = values.get((from % c) * rows + row);
            return;
        }
        // a running column instead of m % c: the division cost the writers some 4 ns a point,
        // about 5 % of their time, which the benchmark must not count as the engine's
        int r = row * c;
        int col = from % c;
        for (int m = from; m < to; m++) {
            out[m - from] = byRow.get(r + col);
            if (++col == c) {
                col = 0;
            }
        }
    }

    @Override
    public String name() {
        return name;
    }
}
