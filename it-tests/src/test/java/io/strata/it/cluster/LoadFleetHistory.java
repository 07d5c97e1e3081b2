package io.strata.it.cluster;

import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.node.config.NodeConfig;
import io.strata.streaming.child.LocalCharts;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The past of {@code strata load}'s children, written straight into a parent's engine directory
 * before the parent starts: a day of 20 children cannot be streamed in real time. It writes what the
 * parent stores when those children stream to it: the same hosts (machine GUIDs and names of
 * {@code LoadGenerator.SyntheticChild}), charts ({@code load.chartN}, every third one a counter of
 * {@code incremental} dimensions, the others gauges) and dimensions ({@code d0}...), and
 * {@code seconds} of per-second values of the same shapes (a gauge wanders by up to 100, a counter
 * grows by less than 1 000 a second), up to the second before the writer returns. The values go
 * through the path a node's own charts take ({@link LocalCharts}, the chart collector, the engine's
 * pages, extents, datafiles, journals and metadata log) into the engine the node's own configuration
 * opens, so that the node starts with every host, chart and second of it.
 *
 * <p>Bounded: the bulk is written with {@code threads} writers (hosts split between them), then the
 * seconds that passed meanwhile, at most 20 rounds; a disk that falls behind pauses the writers (the
 * engine keeps every page), for at most 10 minutes in all.
 */
final class LoadFleetHistory {

    /** What was written: every chart of every host has a point at each second of {@code [first, last]}. */
    record Written(long firstSecond, long lastSecond, long samples, double seconds, long pagesDropped) {
    }

    private final List<LocalCharts> hosts = new ArrayList<>();
    private final List<List<LocalCharts.Chart>> charts = new ArrayList<>();
    private final List<long[][]> values = new ArrayList<>();
    private final List<SplittableRandom> random = new ArrayList<>();
    private final int dimensionsPerChart;

    private LoadFleetHistory(int dimensionsPerChart) {
        this.dimensionsPerChart = dimensionsPerChart;
    }

    /** The machine GUID {@code strata load --seed seed} gives child {@code index}. */
    static UUID machineGuid(long seed, int index) {
        return UUID.nameUUIDFromBytes(("strata-load-" + seed + "-" + index).getBytes(StandardCharsets.UTF_8));
    }

    static String hostname(int index) {
        return "load-child-" + index;
    }

    static boolean counter(int chart) {
        return chart % 3 == 0;
    }

    /**
     * Writes {@code seconds} seconds of {@code children} children of {@code metricsPerChild} metrics
     * into the engine of the node configured in {@code nodeDir} (which must not be running).
     */
    static Written write(Path nodeDir, int children, int metricsPerChild, int dimensionsPerChart, long seed,
                         int seconds, int threads) throws Exception {
        NodeConfig config = NodeConfig.load(nodeDir);
        long started = System.nanoTime();
        long deadline = started + TimeUnit.MINUTES.toNanos(30);
        LoadFleetHistory h = new LoadFleetHistory(dimensionsPerChart);
        int chartsPerChild = (metricsPerChild + dimensionsPerChart - 1) / dimensionsPerChart;
        try (StorageEngine db = StorageEngine.open(config.engineConfig())) {
            // as a parent: every page is kept until written, the writers wait for the disk
            db.setDirtyPagePolicy(StorageEngine.DirtyPagePolicy.KEEP);
            for (int i = 0; i < children; i++) {
                h.define(db, seed, i, chartsPerChild);
            }
            // the chart collector stores a chart's first collection only as its state: the first
            // point is the second after it
            long begin = System.currentTimeMillis() / 1000 - seconds;
            long end = System.currentTimeMillis() / 1000 - 1;
            h.writeParallel(db, begin, end, threads, deadline);
            long last = end;
            for (int round = 0; round < 20; round++) {
                long now = System.currentTimeMillis() / 1000 - 1;
                if (now <= last) {
                    break;
                }
                h.writeHosts(db, 0, children, 1, last + 1, now, deadline);
                last = now;
            }
            long samples = (long) children * chartsPerChild * dimensionsPerChart * (last - begin);
            db.flush();
            return new Written(begin + 1, last, samples, (System.nanoTime() - started) / 1e9, db.pagesDropped());
        }
    }

    private void define(StorageEngine db, long seed, int index, int chartsPerChild) {
        UUID guid = machineGuid(seed, index);
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("_os_name", "Strata load");
        labels.put("load_child", String.valueOf(index));
        LocalCharts local = new LocalCharts(db, new HostInfo(guid, hostname(index), "", "", 1, labels));
        List<LocalCharts.Chart> defined = new ArrayList<>();
        SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + index + 7_919);
        long[][] v = new long[chartsPerChild][dimensionsPerChart];
        for (int c = 0; c < chartsPerChild; c++) {
            String id = "load.chart" + c;
            boolean isCounter = counter(c);
            List<DimensionInfo> dims = new ArrayList<>();
            for (int d = 0; d < dimensionsPerChart; d++) {
                dims.add(new DimensionInfo(guid, id, "d" + d, "d" + d, isCounter ? "incremental" : "absolute", 1, 1,
                        0));
                v[c][d] = isCounter ? rnd.nextLong(1L << 40) : rnd.nextLong(100_000);
            }
            defined.add(local.define(new ChartInfo(guid, id, id, "Synthetic chart " + c,
                    isCounter ? "events/s" : "value", "load", isCounter ? "load.rate" : "load.gauge", "line",
                    1000 + c, 1, "strata", "load", Map.of("generator", "strata")), dims));
        }
        hosts.add(local);
        charts.add(defined);
        values.add(v);
        random.add(rnd);
    }

    private void writeParallel(StorageEngine db, long from, long to, int threads, long deadline) throws Exception {
        int n = Math.max(1, Math.min(threads, hosts.size()));
        List<Thread> writers = new ArrayList<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        for (int w = 0; w < n; w++) {
            int first = w;
            Thread t = new Thread(() -> {
                try {
                    writeHosts(db, first, hosts.size(), n, from, to, deadline);
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }, "load-history-" + w);
            t.setDaemon(true);
            writers.add(t);
            t.start();
        }
        for (Thread t : writers) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                throw new IllegalStateException("the history was not written in time");
            }
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    /** Seconds {@code [from, to]} of hosts {@code first}, {@code first + step}, ... in time order. */
    private void writeHosts(StorageEngine db, int first, int limit, int step, long from, long to, long deadline)
            throws InterruptedException {
        for (long t = from; t <= to; t++) {
            if ((t & 63) == 0) {
                while (db.diskBacklogHigh()) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the disk did not take the history in time");
                    }
                    Thread.sleep(5);
                }
            }
            long micros = t * 1_000_000L + 1_000;
            for (int i = first; i < limit; i += step) {
                LocalCharts local = hosts.get(i);
                List<LocalCharts.Chart> cs = charts.get(i);
                long[][] v = values.get(i);
                SplittableRandom rnd = random.get(i);
                for (int c = 0; c < cs.size(); c++) {
                    long[] cv = v[c];
                    if (counter(c)) {
                        for (int d = 0; d < cv.length; d++) {
                            cv[d] += rnd.nextLong(1000);
                        }
                    } else {
                        for (int d = 0; d < cv.length; d++) {
                            cv[d] = Math.max(0, cv[d] + rnd.nextLong(201) - 100);
                        }
                    }
                    local.collect(cs.get(c), cv, null, micros);
                }
            }
        }
    }
}
