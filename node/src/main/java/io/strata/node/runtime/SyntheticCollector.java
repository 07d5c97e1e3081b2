package io.strata.node.runtime;

import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.streaming.child.LocalCharts;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.time.Instant;
import io.strata.engine.thread.StrataThreads;
import io.strata.engine.time.Clocks;

/**
 * Synthetic charts for a child until the machine's collectors exist: gauges that wander and
 * counters that grow, collected every {@code update_every} on the second boundary (as Netdata's
 * heartbeat aligns its collectors).
 */
public final class SyntheticCollector implements Closeable {

    private final LocalCharts local;
    private final List<LocalCharts.Chart> charts = new ArrayList<>();
    private final List<long[]> values = new ArrayList<>();
    private final List<Boolean> counters = new ArrayList<>();
    private final SplittableRandom rnd;
    private final ScheduledExecutorService timer;
    private final int updateEvery;

    public SyntheticCollector(LocalCharts local, int chartCount, int dimensions, int updateEvery, long seed) {
        this.local = local;
        this.updateEvery = updateEvery;
        this.rnd = new SplittableRandom(seed);
        UUID host = local.host().machineGuid();
        for (int c = 0; c < chartCount; c++) {
            boolean counter = c % 2 == 1;
            String id = "strata.synthetic_" + c;
            ChartInfo info = new ChartInfo(host, id, id, "Synthetic " + (counter ? "rate " : "gauge ") + c,
                    counter ? "events/s" : "value", "synthetic", counter ? "strata.synthetic_rate"
                    : "strata.synthetic_gauge", "line", 90_000 + c, updateEvery, "strata", "synthetic",
                    Map.of("source", "synthetic"));
            List<DimensionInfo> dims = new ArrayList<>();
            for (int d = 0; d < dimensions; d++) {
                dims.add(new DimensionInfo(host, id, "d" + d, "dim" + d, counter ? "incremental" : "absolute", 1,
                        counter ? 1 : 1000, 0));
            }
            LocalCharts.Chart chart = local.define(info, dims);
            charts.add(chart);
            long[] v = new long[chart.dimensions()];
            for (int i = 0; i < v.length; i++) {
                v[i] = counter ? rnd.nextLong(1L << 32) : rnd.nextLong(1_000_000);
            }
            values.add(v);
            counters.add(counter);
        }
        this.timer = StrataThreads.newSingleThreadScheduledExecutor(r -> {
            Thread t = StrataThreads.newThread(r, "strata-synthetic-collector");
            t.setDaemon(true);
            return t;
        });
    }

    public void start() {
        long periodMicros = updateEvery * 1_000_000L;
        long now = CollectionClock.nowMicros();
        long delay = periodMicros - now % periodMicros;
        timer.scheduleAtFixedRate(this::collectOnce, delay, periodMicros, TimeUnit.MICROSECONDS);
    }

    void collectOnce() {
        long nowMicros = CollectionClock.nowMicros();
        for (int c = 0; c < charts.size(); c++) {
            long[] v = values.get(c);
            boolean counter = counters.get(c);
            for (int i = 0; i < v.length; i++) {
                v[i] = counter ? v[i] + rnd.nextLong(10_000) : Math.max(0, v[i] + rnd.nextLong(20_001) - 10_000);
            }
            local.collect(charts.get(c), v, null, nowMicros);
        }
        local.passDone(charts);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
