package io.strata.streaming.child;

import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.streaming.collect.Algorithm;
import io.strata.streaming.collect.ChartCollector;
import io.strata.streaming.collect.CountingEngineSink;
import io.strata.streaming.collect.StoredPointLog;
import io.strata.streaming.collect.StoredPointSink;
import io.strata.streaming.sender.HostStreamWriter;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.Arrays;
import java.util.function.UnaryOperator;
import java.lang.invoke.VarHandle;

/**
 * The charts a node collects itself: defined in its engine under its own host, completed by a
 * {@link ChartCollector} each (what Netdata's {@code rrdset_done} stores locally), and handed to
 * the streamers as raw collected values (what Netdata's {@code SET} carries). Collectors call
 * {@link #collect} from one thread.
 */
public final class LocalCharts implements HostStreamWriter.CollectionState {

    /** One local chart. */
    public static final class Chart {
        final int chartId;
        final String id;
        final ChartCollector collector;
        final StoredPointLog stored;
        final long[] collected;
        final boolean[] updated;
        long lastCollectionMicros;
        long microsSinceLast;
        /** The last collection offered points and the engine stored none of them. */
        boolean refused;
        /**
         * Odd while a collection of the chart is being computed and stored, even between
         * collections (a sequence lock's version; one writer, the collecting thread): the state a
         * replication answer reads is that of a whole collection only when the version was even
         * before and unchanged after ({@link #collectionVersion}).
         */
        volatile long collectionVersion;

        Chart(int chartId, String id, ChartCollector collector, StoredPointLog stored, int dimensions) {
            this.chartId = chartId;
            this.id = id;
            this.collector = collector;
            this.stored = stored;
            this.collected = new long[dimensions];
            this.updated = new boolean[dimensions];
        }

        public int chartId() {
            return chartId;
        }

        /** The µs between the chart's last two collections, as a sender reports them in BEGIN. */
        public long microsecondsSinceLastCollection() {
            return collector.microsecondsSinceLastCollection();
        }

        /** The raw values of the last collection, by dimension (the sender's SET values). */
        public long[] collected() {
            return collected;
        }

        /** Which dimensions the last collection set. */
        public boolean[] updated() {
            return updated;
        }

        /**
         * Whether the engine refused every point the last collection offered (none was after its
         * metric's last stored point: an earlier life of this node stored those seconds, its clock
         * ahead). A refused collection is not streamed: its values are not the ones this node
         * holds for those seconds, and a parent lacking them would store them (docs/chaos.md,
         * finding 3). A collection that offered no point (the chart's first, or one within the
         * slot of the previous) is not refused.
         */
        public boolean refused() {
            return refused;
        }

        /** The points the last collection stored (what BEGIN2/SET2 carry). */
        public StoredPointLog stored() {
            return stored;
        }

        public String id() {
            return id;
        }

        public int dimensions() {
            return collected.length;
        }
    }

    /** Told about every completed collection pass (the streamers). */
    public interface CollectionListener {
        void collected(List<Chart> charts);
    }

    private final StorageEngine engine;
    private final HostInfo host;
    private final StoredPointSink sink;
    private final CountingEngineSink counting;
    private final List<Chart> charts = new CopyOnWriteArrayList<>();
    /** Indexed by engine chart id (sparse: other hosts' charts are null). */
    private volatile Chart[] byChartId = new Chart[0];
    private final List<CollectionListener> listeners = new CopyOnWriteArrayList<>();

    public LocalCharts(StorageEngine engine, HostInfo host) {
        this(engine, host, UnaryOperator.identity());
    }

    /**
     * As {@link #LocalCharts(StorageEngine, HostInfo)}, the collectors storing through
     * {@code wrap} applied to the engine's sink (tests that act in the middle of a collection).
     */
    public LocalCharts(StorageEngine engine, HostInfo host, UnaryOperator<StoredPointSink> wrap) {
        this.engine = engine;
        this.host = host;
        engine.metadata().upsertHost(host);
        this.counting = new CountingEngineSink(engine);
        this.sink = wrap.apply(counting);
    }

    public HostInfo host() {
        return host;
    }

    public StorageEngine engine() {
        return engine;
    }

    public void addListener(CollectionListener l) {
        listeners.add(l);
    }

    /** Defines a chart with its dimensions (in this order) and returns it. */
    public synchronized Chart define(ChartInfo info, List<DimensionInfo> dimensions) {
        MetadataStore meta = engine.metadata();
        int chartId = meta.upsertChart(info);
        for (DimensionInfo d : dimensions) {
            meta.upsertDimension(d);
        }
        List<Integer> metrics = meta.metrics(chartId);
        StoredPointLog log = new StoredPointLog(sink);
        ChartCollector collector = new ChartCollector(info.updateEvery(), log);
        List<DimensionInfo> ordered = new ArrayList<>();
        for (int m : metrics) {
            ordered.add(meta.dimension(m));
        }
        for (int i = 0; i < metrics.size(); i++) {
            DimensionInfo d = ordered.get(i);
            collector.addDimension(metrics.get(i), Algorithm.parse(d.algorithm()), d.multiplier(), d.divisor());
        }
        Chart c = new Chart(chartId, info.id(), collector, log, metrics.size());
        charts.add(c);
        Chart[] a = byChartId;
        if (chartId >= a.length) {
            a = Arrays.copyOf(a, Math.max(chartId + 1, a.length * 2));
        }
        a[chartId] = c;
        byChartId = a;
        return c;
    }

    public List<Chart> charts() {
        return charts;
    }

    /**
     * One collection of a chart: {@code values} in definition order (NaN-free raw integers),
     * {@code updated} null when all were collected. Stores locally; streamers send it with the
     * next {@link #passDone}.
     */
    public void collect(Chart c, long[] values, boolean[] updated, long nowMicros) {
        // odd: a collection is under way (the collector's state and the engine move apart)
        c.collectionVersion++;
        VarHandle.storeStoreFence();
        try {
            counting.startCounting();
            collectInto(c, values, updated, nowMicros);
            c.refused = counting.refusedAll();
        } finally {
            c.collectionVersion++;
        }
    }

    private static void collectInto(Chart c, long[] values, boolean[] updated, long nowMicros) {
        c.stored.clear();
        for (int i = 0; i < c.collected.length; i++) {
            boolean u = updated == null || updated[i];
            c.updated[i] = u;
            if (u) {
                c.collected[i] = values[i];
                c.collector.set(i, values[i]);
            }
        }
        c.microsSinceLast = c.lastCollectionMicros == 0 ? 0 : nowMicros - c.lastCollectionMicros;
        c.lastCollectionMicros = nowMicros;
        c.collector.collectNow(nowMicros);
    }

    /** Ends a collection pass over {@code collected}: every streamer sends them in one block. */
    public void passDone(List<Chart> collected) {
        for (CollectionListener l : listeners) {
            l.collected(collected);
        }
    }

    /**
     * The collection version of a chart: odd while one of its collections is being computed and
     * stored (its last collected time already moved, its points and last stored time not yet),
     * even between collections; 0 for a chart not collected here. A reader of the chart's state
     * (a replication answer: {@code RDSTATE}, {@code RSSTATE} and the points in the engine) saw one
     * whole collection if the version was even before it read and is the same after
     * ({@link #collectionUnchangedSince}).
     */
    public long collectionVersion(int chartId) {
        Chart c = byChartId(chartId);
        return c == null ? 0 : c.collectionVersion;
    }

    /**
     * Whether what was read of the chart since {@link #collectionVersion} returned {@code version}
     * is the state between two collections: none was under way then ({@code version} even) and
     * none began since.
     */
    public boolean collectionUnchangedSince(int chartId, long version) {
        // the state read before this check is not reordered after it
        VarHandle.acquireFence();
        return (version & 1) == 0 && collectionVersion(chartId) == version;
    }

    Chart byChartId(int chartId) {
        Chart[] a = byChartId;
        return chartId >= 0 && chartId < a.length ? a[chartId] : null;
    }

    // ---- HostStreamWriter.CollectionState: the state a replication answer hands over (RDSTATE/RSSTATE)

    @Override
    public long lastCollectedUt(int chartId, int dimIndex) {
        Chart c = byChartId(chartId);
        return c == null ? 0 : c.collector.lastCollectedUt(dimIndex);
    }

    @Override
    public long lastCollectedValue(int chartId, int dimIndex) {
        Chart c = byChartId(chartId);
        return c == null ? 0 : c.collector.lastCollectedValue(dimIndex);
    }

    @Override
    public double lastCalculatedValue(int chartId, int dimIndex) {
        Chart c = byChartId(chartId);
        return c == null ? 0 : c.collector.lastCalculatedValue(dimIndex);
    }

    @Override
    public double lastStoredValue(int chartId, int dimIndex) {
        Chart c = byChartId(chartId);
        return c == null ? 0 : c.collector.lastStoredValue(dimIndex);
    }

    @Override
    public long chartLastCollectedUt(int chartId) {
        Chart c = byChartId(chartId);
        return c == null ? 0 : c.collector.chartLastCollectedUt();
    }

    @Override
    public long chartLastUpdatedUt(int chartId) {
        Chart c = byChartId(chartId);
        return c == null ? 0 : c.collector.chartLastUpdatedUt();
    }
}
