package io.strata.streaming.sender;

import io.strata.streaming.collect.StoredPointLog;
import io.strata.streaming.handshake.Capabilities;

import io.netty.buffer.ByteBuf;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.registry.MetricRegistry;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;
import io.strata.engine.time.Clocks;

/**
 * Writes the stream of one host whose data lives in a local {@link StorageEngine} as a Netdata
 * 1.37.1 child writes it: the host preamble, chart definitions and collected values (see
 * {@code docs/format/stream-sender.md}). A child uses it for its own host (the replication module's
 * {@code LocalHostStreamer}), a parent for each host it forwards ({@code HostForwarder});
 * replication answers ({@code ReplayAnswer}) are written with the ids of {@link #dimensionsForReplay}.
 *
 * <p>Every method appends one atomic block to the given buffer; the caller commits the buffer with
 * {@link SenderSession#write}. Definitions may be written from any thread; the per-chart state
 * kept for {@link #writeCollection(ByteBuf, int, long, long[], boolean[])} is published safely.
 */
public final class HostStreamWriter {

    /** Capability bits this class looks at (§2.3; {@link Capabilities} owns the full set). */
    public static final long CAP_HLABELS = Capabilities.HLABELS;
    public static final long CAP_CLAIM = Capabilities.CLAIM;
    public static final long CAP_CLABELS = Capabilities.CLABELS;
    public static final long CAP_REPLICATION = Capabilities.REPLICATION;

    /** {@code initial clock resync iterations}: BEGIN sends 0 µs this long after a (re)definition, without REPLICATION. */
    public static final int DEFAULT_CLOCK_RESYNC_ITERATIONS = 60;

    /**
     * The collection state of the chart's dimensions (Netdata's {@code RRDDIM}/{@code RRDSET}
     * collection fields), sent in RDSTATE/RSSTATE when streaming starts. The integrator backs it
     * with the chart collector. {@code dimIndex} is the dimension's position in the chart's
     * definition order (the order of {@link MetadataStore#metrics(int)}).
     */
    public interface CollectionState {
        long lastCollectedUt(int chartId, int dimIndex);

        long lastCollectedValue(int chartId, int dimIndex);

        double lastCalculatedValue(int chartId, int dimIndex);

        double lastStoredValue(int chartId, int dimIndex);

        long chartLastCollectedUt(int chartId);

        long chartLastUpdatedUt(int chartId);
    }

    /**
     * The source bits of labels (the engine keeps label values only). {@link #NETDATA} reproduces
     * what a 1.37.1 agent sends for its own labels.
     */
    public interface LabelSources {
        int hostLabel(String name);

        int chartLabel(ChartInfo chart, String name);

        /**
         * Host labels: {@code _aclk_available} AUTO|ACLK (9), {@code _is_ephemeral} and
         * {@code _has_unstable_connection} CONFIG (2), other {@code _}-names AUTO (1), the rest
         * CONFIG (2, netdata.conf {@code [host labels]}). Chart labels: {@code _collect_plugin}
         * and {@code _collect_module} AUTO|PERMANENT (536870913), the rest AUTO (1).
         */
        LabelSources NETDATA = new LabelSources() {
            @Override
            public int hostLabel(String name) {
                if (name.equals("_aclk_available")) {
                    return SenderWireFormat.LABEL_SOURCE_AUTO | SenderWireFormat.LABEL_SOURCE_ACLK;
                }
                if (name.equals("_is_ephemeral") || name.equals("_has_unstable_connection")) {
                    return SenderWireFormat.LABEL_SOURCE_CONFIG;
                }
                return name.startsWith("_") ? SenderWireFormat.LABEL_SOURCE_AUTO : SenderWireFormat.LABEL_SOURCE_CONFIG;
            }

            @Override
            public int chartLabel(ChartInfo chart, String name) {
                if (name.equals("_collect_plugin") || name.equals("_collect_module")) {
                    return SenderWireFormat.LABEL_SOURCE_AUTO | SenderWireFormat.LABEL_FLAG_PERMANENT;
                }
                return SenderWireFormat.LABEL_SOURCE_AUTO;
            }
        };
    }

    /** What was sent for a chart on this connection: ids pre-encoded for the data path. */
    private static final class ChartWire {
        final String id;
        final byte[] idUtf8;
        final int[] metrics;
        final byte[][] dimIds;
        final int updateEvery;
        final boolean replication;
        final long resyncUntilSeconds;
        /** See {@link ChartDimensions#definedLast()}. */
        final long definedLast;

        ChartWire(String id, int[] metrics, byte[][] dimIds, int updateEvery, boolean replication,
                  long resyncUntilSeconds, long definedLast) {
            this.id = id;
            this.idUtf8 = SenderWireFormat.utf8(id);
            this.metrics = metrics;
            this.dimIds = dimIds;
            this.updateEvery = updateEvery;
            this.replication = replication;
            this.resyncUntilSeconds = resyncUntilSeconds;
            this.definedLast = definedLast;
        }
    }

    private final StorageEngine engine;
    private final UUID hostGuid;
    private final String claimId;
    private final LabelSources labelSources;
    private final IntUnaryOperator chartOptions;
    private final LongSupplier wallClockSeconds;
    private final int clockResyncIterations;
    private final Object wiresLock = new Object();
    private volatile ChartWire[] wires = new ChartWire[0];

    /** Unclaimed, Netdata's label sources, no chart options, the system clock, 60 resync iterations. */
    public HostStreamWriter(StorageEngine engine, UUID hostGuid) {
        this(engine, hostGuid, null, LabelSources.NETDATA, c -> 0,
                () -> Clocks.system().millis() / 1000, DEFAULT_CLOCK_RESYNC_ITERATIONS);
    }

    /**
     * @param claimId               Netdata Cloud claim id, null when unclaimed ({@code NULL} is sent)
     * @param chartOptions          chart id to {@link SenderWireFormat#CHART_OBSOLETE} etc. bits
     * @param wallClockSeconds      unix seconds (the second reading of replication answers, and
     *                              the clock resync window)
     * @param clockResyncIterations stream.conf {@code initial clock resync iterations}
     */
    public HostStreamWriter(StorageEngine engine, UUID hostGuid, String claimId, LabelSources labelSources,
                       IntUnaryOperator chartOptions, LongSupplier wallClockSeconds, int clockResyncIterations) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.hostGuid = Objects.requireNonNull(hostGuid, "hostGuid");
        this.claimId = claimId;
        this.labelSources = Objects.requireNonNull(labelSources, "labelSources");
        this.chartOptions = Objects.requireNonNull(chartOptions, "chartOptions");
        this.wallClockSeconds = Objects.requireNonNull(wallClockSeconds, "wallClockSeconds");
        if (clockResyncIterations < 0) {
            throw new IllegalArgumentException("clock resync iterations must not be negative: " + clockResyncIterations);
        }
        this.clockResyncIterations = clockResyncIterations;
    }

    public UUID hostGuid() {
        return hostGuid;
    }

    public StorageEngine engine() {
        return engine;
    }

    /** Unix seconds of this stream's clock (a replication answer reads it again after reading the engine). */
    public long wallClockSeconds() {
        return wallClockSeconds.getAsLong();
    }

    /**
     * What a replication answer writes of a chart: the ids as sent in its definition on this
     * connection, or as the metadata has them when the chart is not defined yet.
     *
     * @param definedLast the newest second the chart's {@code CHART_DEFINITION_END} on this
     *                    connection reported (0: it had stored nothing yet); what the chart
     *                    collected after it was withheld from the stream until the answer that
     *                    starts streaming. {@link Long#MAX_VALUE} when the chart was not defined
     *                    with replication on this connection (nothing was withheld).
     */
    public record ChartDimensions(byte[] chartIdUtf8, int[] metrics, byte[][] dimensionIdsUtf8, int updateEvery,
                                  long definedLast) {
    }

    /** The chart's dimensions for a replication answer; see {@link ChartDimensions}. */
    public ChartDimensions dimensionsForReplay(int chartId) {
        ChartWire w = wireOrFresh(chartId);
        return new ChartDimensions(w.idUtf8, w.metrics, w.dimIds, w.updateEvery, w.definedLast);
    }

    // ---- preamble and definitions ---------------------------------------------------------------

    /**
     * {@code CLAIMED_ID} (if CLAIM), then every host label and {@code OVERWRITE labels} (if
     * HLABELS), labels sorted by name (the engine does not keep their order).
     *
     * @throws IllegalStateException when the engine does not know the host
     */
    public void writeHostPreamble(ByteBuf out, long caps) {
        MetadataStore meta = engine.metadata();
        int hostId = meta.hostId(hostGuid);
        if (hostId < 0) {
            throw new IllegalStateException("host " + hostGuid + " is not in the engine's metadata");
        }
        HostInfo host = meta.host(hostId);
        if ((caps & CAP_CLAIM) != 0) {
            SenderWireFormat.claimedId(out, hostGuid.toString(), claimId);
        }
        if ((caps & CAP_HLABELS) != 0) {
            for (Map.Entry<String, String> l : host.labels().entrySet()) {
                SenderWireFormat.label(out, l.getKey(), labelSources.hostLabel(l.getKey()), l.getValue());
            }
            SenderWireFormat.overwriteLabels(out);
        }
    }

    /**
     * The definition block of a chart: {@code CHART}, {@code CLABEL}s and {@code CLABEL_COMMIT}
     * (if CLABELS and the chart has labels), every {@code DIMENSION}, and with REPLICATION
     * {@code CHART_DEFINITION_END} carrying the engine's tier-0 retention of the chart, sanitised
     * as the C sender does (§4.8). Remembers the chart for
     * {@link #writeCollection(ByteBuf, int, long, long[], boolean[])} on this connection.
     *
     * @throws IllegalArgumentException when the chart does not exist or belongs to another host
     */
    public void writeChartDefinition(ByteBuf out, int chartId, long caps, long nowSeconds) {
        ChartInfo chart = chart(chartId);
        int[] metrics = metricsOf(chartId);
        String[] ids = new String[metrics.length];
        DimensionInfo[] dims = new DimensionInfo[metrics.length];
        int n = 0;
        MetadataStore meta = engine.metadata();
        for (int m : metrics) {
            DimensionInfo d = meta.dimension(m);
            if (d != null) {
                metrics[n] = m;
                dims[n] = d;
                ids[n] = d.id();
                n++;
            }
        }
        metrics = Arrays.copyOf(metrics, n);

        SenderWireFormat.chart(out, chart.id(), SenderWireFormat.chartNameField(chart.id(), chart.name()),
                chart.title(), chart.units(), chart.family(), chart.context(), chart.chartType(), chart.priority(),
                chart.updateEvery(), chartOptions.applyAsInt(chartId), chart.plugin(), chart.module());
        if ((caps & CAP_CLABELS) != 0 && !chart.labels().isEmpty()) {
            for (Map.Entry<String, String> l : chart.labels().entrySet()) {
                SenderWireFormat.chartLabel(out, l.getKey(), l.getValue(), labelSources.chartLabel(chart, l.getKey()));
            }
            SenderWireFormat.chartLabelCommit(out);
        }
        byte[][] dimIds = new byte[n][];
        for (int i = 0; i < n; i++) {
            DimensionInfo d = dims[i];
            SenderWireFormat.dimension(out, d.id(), d.name(), d.algorithm(), d.multiplier(), d.divisor(),
                    (d.flags() & DimensionInfo.FLAG_OBSOLETE) != 0, (d.flags() & DimensionInfo.FLAG_HIDDEN) != 0,
                    false);
            dimIds[i] = SenderWireFormat.utf8(ids[i]);
        }
        boolean replication = (caps & CAP_REPLICATION) != 0;
        long definedLast = Long.MAX_VALUE;
        if (replication) {
            long[] range = tier0Range(metrics);
            long first = range[0];
            long last = range[1];
            if (last == 0) {
                first = 0;
            }
            if (first != 0) {
                // Deviation: the start of the oldest point's interval, not its end. REPLAY_CHART
                // asks for (after, before], and a 1.37.1 parent asks from the child's first second
                // itself, which leaves that point out; from the second before, it is sent
                first -= chart.updateEvery();
            }
            if (last > nowSeconds) {
                last = nowSeconds;
            }
            if (first != 0 && last != 0 && first >= last) {
                first = last - chart.updateEvery();
            }
            if (first == 0 && last != 0) {
                first = last;
            }
            SenderWireFormat.chartDefinitionEnd(out, first, last, nowSeconds);
            definedLast = last;
        }
        long resyncUntil = nowSeconds + (long) clockResyncIterations * chart.updateEvery();
        remember(chartId, new ChartWire(chart.id(), metrics, dimIds, chart.updateEvery(), replication, resyncUntil,
                definedLast));
    }

    /** Forgets which charts were defined: after a disconnection everything is sent again. */
    public void forgetDefinitions() {
        synchronized (wiresLock) {
            wires = new ChartWire[0];
        }
    }

    /** Forgets one chart's definition: its next data needs {@link #writeChartDefinition} again. */
    public void forgetDefinition(int chartId) {
        synchronized (wiresLock) {
            ChartWire[] cur = wires;
            if (chartId >= 0 && chartId < cur.length && cur[chartId] != null) {
                ChartWire[] next = cur.clone();
                next[chartId] = null;
                wires = next;
            }
        }
    }

    /**
     * The engine metrics of a chart defined on this connection, in the order
     * {@link #writeCollection(ByteBuf, int, long, long[], boolean[])} takes its values; null when
     * the chart is not defined. The array is the caller's.
     */
    public int[] definedMetrics(int chartId) {
        ChartWire[] ws = wires;
        ChartWire w = chartId >= 0 && chartId < ws.length ? ws[chartId] : null;
        return w == null ? null : w.metrics.clone();
    }

    /** True when {@link #writeChartDefinition} ran for the chart since the last {@link #forgetDefinitions}. */
    public boolean isDefined(int chartId) {
        ChartWire[] w = wires;
        return chartId >= 0 && chartId < w.length && w[chartId] != null;
    }

    private void remember(int chartId, ChartWire w) {
        synchronized (wiresLock) {
            ChartWire[] cur = wires;
            ChartWire[] next = Arrays.copyOf(cur, Math.max(cur.length, chartId + 1));
            next[chartId] = w;
            wires = next;
        }
    }

    // ---- collected data -------------------------------------------------------------------------

    /**
     * {@code BEGIN}/{@code SET}/{@code END} of one collection of a chart defined on this
     * connection, from primitive arrays in definition order. Without REPLICATION, BEGIN carries 0
     * µs during the clock resync window after the definition, as Netdata does.
     *
     * @param collected raw collected values, one per dimension
     * @param updated   which dimensions were collected this time (null = all)
     * @throws IllegalStateException    when the chart was not defined on this connection
     * @throws IllegalArgumentException when the arrays are shorter than the chart's dimensions
     */
    public void writeCollection(ByteBuf out, int chartId, long microseconds, long[] collected, boolean[] updated) {
        ChartWire[] ws = wires;
        ChartWire w = chartId >= 0 && chartId < ws.length ? ws[chartId] : null;
        if (w == null) {
            throw new IllegalStateException("chart " + chartId + " was not defined on this connection");
        }
        int n = w.metrics.length;
        if (collected.length < n || (updated != null && updated.length < n)) {
            throw new IllegalArgumentException("chart '" + w.id + "' has " + n + " dimensions; got " + collected.length
                    + " values and " + (updated == null ? "no" : updated.length) + " updated flags");
        }
        long usec = microseconds;
        if (!w.replication && wallClockSeconds.getAsLong() <= w.resyncUntilSeconds) {
            usec = 0;
        }
        SenderWireFormat.begin(out, w.idUtf8, usec);
        for (int i = 0; i < n; i++) {
            if (updated == null || updated[i]) {
                SenderWireFormat.set(out, w.dimIds[i], collected[i]);
            }
        }
        SenderWireFormat.end(out);
    }

    /**
     * {@code BEGIN2}/{@code SET2}/{@code END2} (capability INTERPOLATED; numbers in base64 with
     * IEEE754) of what one collection of a chart defined on this connection stored: one BEGIN2 per
     * slot, one SET2 per dimension with a value in that slot. Gaps are not sent, as in 2.x: a slot
     * of gaps only sends nothing.
     *
     * @param collected raw collected values in definition order (the SET2 collected field)
     * @throws IllegalStateException when the chart was not defined on this connection
     */
    public void writeInterpolated(ByteBuf out, int chartId, long caps, long wallClockSeconds, long[] collected,
                                  StoredPointLog points) {
        ChartWire[] ws = wires;
        ChartWire w = chartId >= 0 && chartId < ws.length ? ws[chartId] : null;
        if (w == null) {
            throw new IllegalStateException("chart " + chartId + " was not defined on this connection");
        }
        boolean ieee754 = Capabilities.has(caps, Capabilities.IEEE754);
        int count = points.storedPoints();
        long open = 0;
        for (int k = 0; k < count; k++) {
            double value = points.storedValue(k);
            if (Double.isNaN(value) || Double.isInfinite(value)) {
                continue;
            }
            int d = indexOf(w.metrics, points.storedMetric(k));
            if (d < 0) {
                continue; // a dimension defined after this connection's definition of the chart
            }
            long time = points.storedTime(k);
            if (time != open) {
                if (open != 0) {
                    SenderWireFormat.end2(out);
                }
                SenderWireFormat.begin2(out, w.idUtf8, w.updateEvery, time, wallClockSeconds, ieee754);
                open = time;
            }
            SenderWireFormat.set2(out, w.dimIds[d], d < collected.length ? collected[d] : 0, value,
                    points.storedFlags(k), ieee754);
        }
        if (open != 0) {
            SenderWireFormat.end2(out);
        }
    }

    private static int indexOf(int[] metrics, int metric) {
        for (int i = 0; i < metrics.length; i++) {
            if (metrics[i] == metric) {
                return i;
            }
        }
        return -1;
    }

    /**
     * {@code BEGIN}/{@code SET}/{@code END} for any chart id, from primitive arrays; the
     * microseconds are written as given.
     */
    public static void writeCollection(ByteBuf out, String chartId, long microseconds, String[] dimensionIds,
                                       long[] collected, int dimensions) {
        if (dimensionIds.length < dimensions || collected.length < dimensions) {
            throw new IllegalArgumentException("chart '" + chartId + "': " + dimensions + " dimensions but "
                    + dimensionIds.length + " ids and " + collected.length + " values");
        }
        SenderWireFormat.begin(out, chartId, microseconds);
        for (int i = 0; i < dimensions; i++) {
            SenderWireFormat.set(out, dimensionIds[i], collected[i]);
        }
        SenderWireFormat.end(out);
    }

    // ---- engine helpers -------------------------------------------------------------------------

    private ChartInfo chart(int chartId) {
        MetadataStore meta = engine.metadata();
        if (chartId < 0 || chartId >= meta.chartCount()) {
            throw new IllegalArgumentException("chart id " + chartId + " is not defined in the engine ("
                    + meta.chartCount() + " charts)");
        }
        ChartInfo chart = meta.chart(chartId);
        if (!chart.hostGuid().equals(hostGuid)) {
            throw new IllegalArgumentException("chart '" + chart.id() + "' (id " + chartId + ") belongs to host "
                    + chart.hostGuid() + ", not to " + hostGuid);
        }
        return chart;
    }

    private int[] metricsOf(int chartId) {
        List<Integer> ms = engine.metadata().metrics(chartId);
        int[] out = new int[ms.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = ms.get(i);
        }
        return out;
    }

    /** The defined wire of the chart, or one built from the metadata (a chart not defined yet). */
    private ChartWire wireOrFresh(int chartId) {
        ChartWire[] ws = wires;
        if (chartId >= 0 && chartId < ws.length && ws[chartId] != null) {
            return ws[chartId];
        }
        ChartInfo chart = chart(chartId);
        int[] metrics = metricsOf(chartId);
        byte[][] ids = new byte[metrics.length][];
        int n = 0;
        for (int m : metrics) {
            DimensionInfo d = engine.metadata().dimension(m);
            if (d != null) {
                metrics[n] = m;
                ids[n] = SenderWireFormat.utf8(d.id());
                n++;
            }
        }
        return new ChartWire(chart.id(), Arrays.copyOf(metrics, n), Arrays.copyOf(ids, n), chart.updateEvery(), true, 0,
                Long.MAX_VALUE);
    }

    /** [first, last] tier-0 time over the metrics, 0 where nothing is stored (first ignores empty metrics). */
    public long[] tier0Range(int[] metrics) {
        MetricRegistry reg = engine.registry();
        long first = 0;
        long last = 0;
        for (int m : metrics) {
            long f = reg.firstTime(m, 0);
            long l = reg.lastTime(m, 0);
            if (f != MetricRegistry.NO_TIME && (first == 0 || f < first)) {
                first = f;
            }
            if (l > last) {
                last = l;
            }
        }
        return new long[] {first, last};
    }
}
